# expect: reported MWB147
"""The same dispatch ambiguity, run on the base class: the kept keyword no longer fits its renamed `run`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


class Runner:
    def run(self, model_worker_batch: ModelWorkerBatch):
        return TpModelWorker().forward_batch_generation(model_worker_batch)

    def step(self, value):
        return self.run(model_worker_batch=value)


class CountingRunner(Runner):
    def run(self, model_worker_batch: int = 0):
        return model_worker_batch


def main():
    batch = make_batch()
    return Runner().step(batch.get_model_worker_batch())
