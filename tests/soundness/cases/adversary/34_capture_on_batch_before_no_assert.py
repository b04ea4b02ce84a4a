# expect: same
"""return_hidden_states_before_norm written on the batch before the snapshot (the old method ignored it)."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch, CaptureHiddenMode
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    batch.return_hidden_states_before_norm = True
    mwb = batch.get_model_worker_batch()
    return ForwardBatch.init_new(mwb, None)
