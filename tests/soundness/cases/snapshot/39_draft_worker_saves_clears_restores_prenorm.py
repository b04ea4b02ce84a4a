# expect: reported MWB183
# source: a DFlash/MTP fork's branch forward that backs up
#   `model_worker_batch.capture_hidden_mode`, `.forward_mode`, `.seq_lens_cpu`, ... , changes them for a
#   side forward and restores them afterwards; sgl-project/sglang 0.5.12 multi_layer_eagle_worker.py sets
#   `model_worker_batch.return_hidden_states_before_norm = True` for the target forward.
"""A draft worker handed the old object saves the pre-norm flag, clears it for its own side forward,
and restores it; the side forward must run with the flag cleared."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class DraftWorker:
    def __init__(self):
        self.draft_runner = ModelRunner()

    def shadow_forward(self, mwb):
        saved = mwb.return_hidden_states_before_norm
        mwb.return_hidden_states_before_norm = False
        try:
            fb = ForwardBatch.init_new(mwb, self.draft_runner)
            return self.draft_runner.forward(fb)
        finally:
            mwb.return_hidden_states_before_norm = saved


class MtpWorker:
    def __init__(self):
        self.target_worker = TpModelWorker()
        self.draft_worker = DraftWorker()

    def forward_batch_generation(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        model_worker_batch.return_hidden_states_before_norm = True
        record("shadow", self.draft_worker.shadow_forward(model_worker_batch))
        return self.target_worker.forward_batch_generation(model_worker_batch)


def main():
    return MtpWorker().forward_batch_generation(make_batch())
