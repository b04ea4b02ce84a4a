# expect: same
"""An inline snapshot, then a later argument of the same call decodes the batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def decode(batch):
    batch.prepare_for_decode()
    return False


def main():
    batch = make_batch()
    worker = TpModelWorker()
    return worker.forward_batch_generation(batch.get_model_worker_batch(), skip_sample=decode(batch))
