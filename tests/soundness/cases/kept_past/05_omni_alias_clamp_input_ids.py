# expect: reported MWB106
# source: sgl-project/sglang-omni engines/omni/runtime/sglang_ar.py: "Pre-clamp
#   input_ids to vocab range ... Non-in-place clamp preserves original input_ids for chunked prefill pad_value
#   mask matching"; the alias `mwb = model_worker_batch` at the top of a worker override is the shape of a
#   TpModelWorker.forward_batch_generation patch and of spec workers.
"""A multimodal worker clamps placeholder ids into the vocabulary on the object it was handed, through a
local alias; the scheduler's batch must keep the original ids (chunked prefill matches pad values on them)."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch

VOCAB = 20


class OmniWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch, **kwargs):
        mwb = model_worker_batch
        if mwb.forward_mode.is_extend():
            mwb.input_ids = [min(t, VOCAB - 1) for t in mwb.input_ids]
        return super().forward_batch_generation(model_worker_batch, **kwargs)


def main():
    batch = make_batch()
    out = run_batch(OmniWorker(), batch)
    record("scheduler input ids (pad values)", batch.input_ids)
    return out
