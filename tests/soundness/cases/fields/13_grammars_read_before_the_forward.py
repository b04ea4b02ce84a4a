# expect: reported MWB104
"""A worker prepares grammar masks before its forward, reading `sampling_info.grammars` of the
old object: 0.5.12's get_model_worker_batch set them when the scheduler took it. 0.5.13 sets them in
init_new, so before the forward the live batch's sampling info has none yet."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch

from sglang.srt.managers.schedule_batch import Req


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        grammars = model_worker_batch.sampling_info.grammars
        record("masks prepared", grammars is not None)
        return self._forward(model_worker_batch)


def main():
    reqs = [Req(0, grammar="json"), Req(1, grammar="regex")]
    return run_batch(Worker(), make_batch(reqs=reqs, has_grammar=True))
