# expect: reported MWB183
"""A metaclass `__instancecheck__` appends a request in a window statement: the forward derives its per-request lists from the list the snapshot shares (found by the long profile)."""
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import Req, make_batch, record


class _Meta(type):
    def __instancecheck__(cls, obj):
        cls.owner.reqs.append(Req(9, "y", 2))
        return False


class _Kind(metaclass=_Meta):
    owner = None


def main():
    batch = make_batch()
    _Kind.owner = batch
    model_worker_batch = batch.get_model_worker_batch()
    seen = isinstance(batch, _Kind)
    record("seen", seen)
    return ForwardBatch.init_new(model_worker_batch, None)
