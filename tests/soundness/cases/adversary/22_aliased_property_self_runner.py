# expect: same
"""self.model_runner is a property made through an alias of property (not spelled property at the use)."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


prop = property


class Other:
    def __init__(self):
        self.model_runner = None


class Scheduler:
    def __init__(self):
        self.running_batch = make_batch()

    @prop
    def model_runner(self):
        self.running_batch.prepare_for_decode()
        return None

    def step(self):
        batch = self.running_batch
        mwb = batch.get_model_worker_batch()
        return ForwardBatch.init_new(mwb, self.model_runner)


def main():
    return Scheduler().step()
