# expect: reported MWB112
"""Adversary of the reader one call away. A fork's batch computes `return_logprob` from its requests (a property). The old method read it
once, when the scheduler took the old object; the worker's `sample` now reads it on the batch,
after the worker turned logprobs on for a request it flagged."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, run_batch

from sglang.srt.managers.schedule_batch import Req


class LogprobBatch(ScheduleBatch):
    @property
    def return_logprob(self):
        return any(getattr(req, "wants_logprob", False) for req in self.reqs)

    @return_logprob.setter
    def return_logprob(self, value):
        pass


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        model_worker_batch.reqs[0].wants_logprob = True  # a probe request for the next step
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, model_worker_batch.return_logprob


def main():
    return run_batch(Worker(), LogprobBatch())
