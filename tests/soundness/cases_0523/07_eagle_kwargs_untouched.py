# expect: same
"""An override that takes **kwargs already accepts what 0.5.23 passes and hands it on."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule


class MyEagle(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch, **kwargs):
        return super().forward_batch_generation(model_worker_batch, **kwargs)


def main():
    worker = MyEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE"))
