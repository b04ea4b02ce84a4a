# expect: reported MWB104
"""A worker runs a forward without grammar masks: it clears `sampling_info.grammars` on the old
object, then builds the forward batch. 0.5.12's init_new left grammars alone (the old method had
set them when the snapshot was taken); 0.5.13's init_new sets them again from the requests."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch

from sglang.srt.managers.schedule_batch import Req


class NoGrammarWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.sampling_info.grammars = None
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        record("masked", model_worker_batch.sampling_info.grammars is not None)  # what the sampler reads
        return self.model_runner.forward(forward_batch)


def main():
    reqs = [Req(0, grammar="json"), Req(1, grammar="regex")]
    return run_batch(NoGrammarWorker(), make_batch(reqs=reqs, has_grammar=True))
