# expect: reported MWB152
"""The class as a key of a local mapping: the key would become ScheduleBatch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

HANDLERS = {ScheduleBatch: "schedule"}


def main():
    HANDLERS[ModelWorkerBatch] = "snapshot"
    batch = make_batch()
    record("handler", HANDLERS[type(batch)])
    return TpModelWorker().forward_batch_generation(batch.get_model_worker_batch())
