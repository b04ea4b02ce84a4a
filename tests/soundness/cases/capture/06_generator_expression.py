# expect: same
"""A generator expression over `batch` reads the parameter in its element."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def lengths(model_worker_batch, others):
    return list((len(model_worker_batch.seq_lens), batch.seq_lens) for batch in others)


def main():
    return lengths(make_batch().get_model_worker_batch(), [make_batch(seq_lens=[1, 2, 3])])
