# expect: same
"""A nested helper reads the module's `batch`: a parameter renamed `batch` would shadow it."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

batch = "module-level batch"


def run(worker, model_worker_batch):
    def label():
        return batch

    record("label", label())
    return worker.forward_batch_generation(model_worker_batch)


def main():
    return run(TpModelWorker(), make_batch().get_model_worker_batch())
