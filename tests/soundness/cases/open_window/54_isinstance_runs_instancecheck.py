# expect: same
"""`isinstance(mwb.spec_info, Verified)` where the class's metaclass `__instancecheck__` decodes the batch."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

WATCHED = []


class Checking(type):
    def __instancecheck__(cls, instance):
        for held in WATCHED:
            held.prepare_for_decode()
        return False


class Verified(metaclass=Checking):
    pass


def main():
    batch = make_batch()
    worker = TpModelWorker()
    WATCHED.append(batch)
    mwb = batch.get_model_worker_batch()
    verified = isinstance(mwb.spec_info, Verified)
    return worker.forward_batch_generation(mwb)
