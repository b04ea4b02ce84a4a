# expect: same
"""A walrus in a comprehension binds `batch` in the function itself (not in the comprehension)."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def last_seen(worker, model_worker_batch, others):
    sizes = [(batch := other).seq_lens for other in others]
    return sizes, worker.forward_batch_generation(model_worker_batch)


def main():
    return last_seen(TpModelWorker(), make_batch().get_model_worker_batch(), [make_batch(seq_lens=[7, 8])])
