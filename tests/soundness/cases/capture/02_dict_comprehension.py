# expect: same
"""A dict comprehension keyed by its own `batch` reads the parameter as the value."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def table(model_worker_batch, others):
    return {batch.seq_lens[0]: model_worker_batch.seq_lens for batch in others}


def main():
    others = [make_batch(seq_lens=[7, 8]), make_batch(seq_lens=[9, 9])]
    return table(make_batch().get_model_worker_batch(), others)
