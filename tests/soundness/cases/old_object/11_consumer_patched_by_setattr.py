# expect: same
"""`init_new` patched through `setattr` with its name as a string: the window is not proven."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def install_tracing():
    original = ForwardBatch.init_new.__func__

    def traced(cls, batch, runner):
        batch.seq_lens = [n + 1 for n in batch.seq_lens]
        return original(cls, batch, runner)

    setattr(ForwardBatch, "init_new", classmethod(traced))


def main():
    install_tracing()
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    ForwardBatch.init_new(model_worker_batch, None)
    record("seq_lens", batch.seq_lens)
