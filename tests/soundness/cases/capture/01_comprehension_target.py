# expect: same
"""A list comprehension whose target is `batch` reads the parameter `model_worker_batch`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def run_all(worker, model_worker_batch, others):
    return [(worker.forward_batch_generation(model_worker_batch), batch.seq_lens) for batch in others]


def main():
    others = [make_batch(seq_lens=[7, 8]), make_batch(seq_lens=[9, 9])]
    return run_all(TpModelWorker(), make_batch().get_model_worker_batch(), others)
