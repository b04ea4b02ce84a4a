# expect: reported MWB147
"""`obj.run(model_worker_batch=...)` on a receiver nothing resolves, that is the renamed class."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Worker:
    def run(self, model_worker_batch: ModelWorkerBatch):
        return TpModelWorker().forward_batch_generation(model_worker_batch)


def drive(obj, snapshot):
    return obj.run(model_worker_batch=snapshot)


def main():
    batch = make_batch()
    return drive(Worker(), batch.get_model_worker_batch())
