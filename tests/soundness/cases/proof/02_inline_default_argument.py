# expect: same
"""An inline snapshot as a default argument is evaluated once, at definition."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()

    def run(mwb=batch.get_model_worker_batch()):
        return worker.forward_batch_generation(mwb)

    batch.prepare_for_decode()
    return run()
