# expect: same
"""A lambda with a parameter named `batch` closes over the old parameter."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def pairing(model_worker_batch):
    return lambda batch: (model_worker_batch.seq_lens, batch.seq_lens)


def main():
    pair = pairing(make_batch().get_model_worker_batch())
    record("pair", pair(make_batch(seq_lens=[7, 8])))
