# expect: same
"""An inline snapshot in a lambda default."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    run = lambda mwb=batch.get_model_worker_batch(): worker.forward_batch_generation(mwb)
    batch.prepare_for_decode()
    return run()
