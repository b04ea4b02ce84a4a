# expect: same
"""A method default, evaluated in a class body that binds `batch`, reads the parameter."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def build(model_worker_batch):
    class Holder:
        batch = "class attribute"

        def lens(self, snapshot=model_worker_batch):
            return snapshot.seq_lens

    return Holder().lens(), Holder.batch


def main():
    return build(make_batch().get_model_worker_batch())
