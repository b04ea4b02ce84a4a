# expect: same
"""An override taking *args hands on what it is given."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class MyEagle(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch, *args):
        record("args", len(args))
        return super().forward_batch_generation(model_worker_batch, *args)


def main():
    worker = MyEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE"))
