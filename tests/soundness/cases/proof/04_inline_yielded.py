# expect: same
"""An inline snapshot yielded from a loop that decodes after each step."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def snapshots(batch):
    for _ in range(2):
        yield batch.get_model_worker_batch()
        batch.prepare_for_decode()


def main():
    batch = make_batch()
    worker = TpModelWorker()
    taken = list(snapshots(batch))
    return [worker.forward_batch_generation(s) for s in taken]
