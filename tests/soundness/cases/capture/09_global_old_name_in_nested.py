# expect: same
"""A nested function's `global model_worker_batch` is the module's variable, not the parameter."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

model_worker_batch = "module-level"


def both(worker, model_worker_batch):
    def module_value():
        global model_worker_batch
        return model_worker_batch

    record("module", module_value())
    return worker.forward_batch_generation(model_worker_batch)


def main():
    return both(TpModelWorker(), make_batch().get_model_worker_batch())
