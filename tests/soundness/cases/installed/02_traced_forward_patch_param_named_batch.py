# expect: same unmarked
# source: a step-timing profiler patches TpModelWorker.forward_batch_generation
#   at run time (`target_cls.forward_batch_generation = _fwd`) and classifies the step from the argument's
#   forward mode and token counts. Here the wrapper names its argument `batch` (as spec-v1 workers' forwards do)
#   and counts prefill tokens from the extend lengths.
"""A module-level monkey-patch of TpModelWorker.forward_batch_generation whose parameter is named `batch`
reads the old object's extend_seq_lens."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch

_orig_forward = TpModelWorker.forward_batch_generation


def traced_forward(self, batch, *args, **kwargs):
    if batch.forward_mode.is_extend():
        record("prefill tokens", sum(batch.extend_seq_lens))
    else:
        record("decode rows", len(batch.seq_lens))
    return _orig_forward(self, batch, *args, **kwargs)


TpModelWorker.forward_batch_generation = traced_forward


def main():
    return run_batch(TpModelWorker(), make_batch())
