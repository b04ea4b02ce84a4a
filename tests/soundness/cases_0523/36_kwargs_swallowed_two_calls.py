# expect: reported MWB159
"""An override taking **kwargs that calls the forward on two paths without the rest: which call
should get what SGLang passes is the author's to say."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule


class MyEagle(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch, **kwargs):
        if kwargs.pop("dry", False):
            return self.target_worker.forward_batch_generation(model_worker_batch)
        return super().forward_batch_generation(model_worker_batch)


def main():
    worker = MyEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE", grammar=True), grammar=True)
