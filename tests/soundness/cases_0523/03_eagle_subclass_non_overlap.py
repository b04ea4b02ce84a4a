# expect: same
"""The non-overlap path passes pp_proxy_tensors=."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule


class MyEagle(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        out = super().forward_batch_generation(model_worker_batch)
        return out


def main():
    worker = MyEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE"), overlap=False)
