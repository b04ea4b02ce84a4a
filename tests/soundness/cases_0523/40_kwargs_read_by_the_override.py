# expect: same MWB159
"""An override that publishes itself from **kwargs and calls super without the rest: handing the
mapping on would publish twice, so it is reported, not handed on (MWB159)."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, schedule


class MyEagle(EAGLEWorkerV2):
    def forward_batch_generation(self, model_worker_batch, **kwargs):
        result = super().forward_batch_generation(model_worker_batch)
        publish = kwargs.get("on_publish")
        if publish is not None:
            publish(result)
        return result


def main():
    worker = MyEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE"))
