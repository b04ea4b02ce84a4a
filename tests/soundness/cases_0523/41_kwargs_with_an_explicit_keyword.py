# expect: same MWB159
"""A TpModelWorker subclass whose **kwargs is never handed on, and whose super() call passes
pp_proxy_tensors itself: handing the mapping on too would pass that keyword twice on the
non-overlap path (TypeError), so the mapping stays and the override is reported."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, schedule


class MyTp(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch, **kwargs):
        record("tp", self.__class__.__name__)
        return super().forward_batch_generation(model_worker_batch, pp_proxy_tensors=None)


def main():
    return schedule(MyTp(), make_batch(), overlap=False)
