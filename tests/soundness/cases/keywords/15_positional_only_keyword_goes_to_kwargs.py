# expect: same
"""A renamed positional-only parameter: a keyword of its old name went to `**extra`, and still must."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def _log(model_worker_batch: ModelWorkerBatch, /, **extra):
    record("extra", sorted(extra.items()))
    return len(model_worker_batch.seq_lens)


def main():
    batch = make_batch()
    return _log(batch.get_model_worker_batch(), model_worker_batch="tag")
