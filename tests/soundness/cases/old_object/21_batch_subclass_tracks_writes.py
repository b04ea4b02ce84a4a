# expect: same
"""A batch subclass whose `__setattr__` tracks writes: a forward on the live batch would write the one-shot resets there."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import make_batch, record

WRITES = []


def main():
    batch = make_batch()

    class Tracked(type(batch)):
        def __setattr__(self, name, value):
            WRITES.append(name)
            object.__setattr__(self, name, value)

    batch.__class__ = Tracked
    model_worker_batch = batch.get_model_worker_batch()
    ForwardBatch.init_new(model_worker_batch, None)
    record("writes", WRITES)
