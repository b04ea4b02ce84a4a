# expect: same
"""@overload stubs of a method whose implementation is renamed: run time is unchanged."""
from typing import overload

from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Runner:
    @overload
    def run(self, model_worker_batch: ModelWorkerBatch) -> list: ...

    @overload
    def run(self, model_worker_batch: None) -> None: ...

    def run(self, model_worker_batch):
        if model_worker_batch is None:
            return None
        return TpModelWorker().forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    record("none", Runner().run(None))
    return Runner().run(batch.get_model_worker_batch())
