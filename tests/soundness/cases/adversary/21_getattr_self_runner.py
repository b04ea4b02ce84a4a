# expect: same
"""init_new(mwb, self.model_runner) where model_runner is answered by __getattr__ (the tree assigns self.model_runner elsewhere)."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


class Other:
    def __init__(self):
        self.model_runner = None


class Scheduler:
    def __init__(self):
        self.running_batch = make_batch()

    def __getattr__(self, name):
        if name == "model_runner":
            self.running_batch.prepare_for_decode()
            return None
        raise AttributeError(name)

    def step(self):
        batch = self.running_batch
        mwb = batch.get_model_worker_batch()
        return ForwardBatch.init_new(mwb, self.model_runner)


def main():
    return Scheduler().step()
