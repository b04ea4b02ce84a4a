# expect: same
"""`mwb = batch.get_model_worker_batch()` read in a comprehension whose target is `batch`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def run_all(worker, batch, others):
    mwb = batch.get_model_worker_batch()
    return [(worker.forward_batch_generation(mwb), batch.seq_lens) for batch in others]


def main():
    return run_all(TpModelWorker(), make_batch(), [make_batch(seq_lens=[7, 8])])
