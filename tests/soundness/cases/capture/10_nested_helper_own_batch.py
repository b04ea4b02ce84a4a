# expect: same
"""A nested helper and a comprehension use their own `batch` and never read the parameter: no capture."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def run(worker, model_worker_batch, others):
    def helper(batch):
        return batch.seq_lens

    record("others", [helper(batch) for batch in others])
    return worker.forward_batch_generation(model_worker_batch)


def main():
    return run(TpModelWorker(), make_batch().get_model_worker_batch(), [make_batch(seq_lens=[7, 8])])
