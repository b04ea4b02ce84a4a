# expect: same unmarked
"""A worker reads `sampling_info.grammars` after its own `init_new`, as 0.5.12's TpModelWorker does
for a delayed sample: the old method filled them in, the target's `init_new` fills them in, from the
same requests, before the read."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, Req
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import make_batch, record, run_batch


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        record("delayed", model_worker_batch.sampling_info.grammars is not None)
        return self.model_runner.forward(forward_batch)


def main():
    reqs = [Req(0, grammar="json"), Req(1, grammar=None)]
    return run_batch(Worker(), make_batch(reqs=reqs, has_grammar=True))
