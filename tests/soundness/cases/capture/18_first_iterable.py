# expect: same
"""A comprehension's first iterable reads the parameter; its target `batch` is not in scope there."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def lengths(model_worker_batch):
    return [length for batch in [model_worker_batch] for length in batch.seq_lens]


def main():
    return lengths(make_batch().get_model_worker_batch())
