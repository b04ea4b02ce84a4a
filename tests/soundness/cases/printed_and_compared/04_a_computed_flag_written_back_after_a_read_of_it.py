# expect: reported MWB183
"""0.5.12.post1's `multi_layer_eagle_worker.forward_target_extend` shape as forks copy it: the same
snapshot reused for the draft pass, its pre-norm flag recomputed from itself (`flag =
mwb.return_hidden_states_before_norm and self.chain_mtp_hidden_states`, then written back). A kept
snapshot takes a reset value written straight after a read of that field for a consuming forward's
reset, so the write is marked."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record


class MTPWorker:
    def __init__(self, chain):
        self.target_worker = TpModelWorker()
        self.draft_runner = ModelRunner()
        self.chain_mtp_hidden_states = chain

    def forward_target_then_draft(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        model_worker_batch.return_hidden_states_before_norm = True
        target = self.target_worker.forward_batch_generation(model_worker_batch)
        draft_prenorm = model_worker_batch.return_hidden_states_before_norm and self.chain_mtp_hidden_states
        model_worker_batch.return_hidden_states_before_norm = draft_prenorm
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.draft_runner)
        return target, self.draft_runner.forward(forward_batch)


def main():
    return MTPWorker(chain=False).forward_target_then_draft(make_batch())
