# expect: reported MWB106
"""Rule I1, adversary: the same write in a TpModelWorker subclass is not set back (only sampling_info is)."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch


class PatchingWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, launch_done=None, skip_sample=False):
        model_worker_batch.seq_lens = [9, 9]
        return super().forward_batch_generation(model_worker_batch, launch_done, skip_sample)


def main():
    batch = make_batch()
    record("result", run_batch(PatchingWorker(), batch))
    record("after", batch.seq_lens)
