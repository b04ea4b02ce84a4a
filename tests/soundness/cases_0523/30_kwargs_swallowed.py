# expect: same
"""An override taking **kwargs pops its own keyword and calls super without the rest: on 0.5.23 it
would swallow on_publish and grammar_barrier, so the rest is handed on to super()."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class MyEagle(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch, **kwargs):
        record("trace", kwargs.pop("trace", False))
        return super().forward_batch_generation(model_worker_batch)


def main():
    worker = MyEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE", grammar=True), grammar=True)
