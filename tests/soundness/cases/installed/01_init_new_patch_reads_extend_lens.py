# expect: same MWB105
# source: a residual harvester for SGLang: `_orig_init_new = ForwardBatch.init_new.__func__;
#   def patched_init_new(cls, batch, model_runner): ret = _orig_init_new(cls, batch, model_runner);
#   reqs = getattr(batch, "reqs", None); ret._harvest_rids = ...; ForwardBatch.init_new = classmethod(patched_init_new)`.
#   Here the patch also keeps the per-request token counts (the old object's extend_seq_lens) to split residuals.
"""A patched ForwardBatch.init_new reads the old object's extend_seq_lens from whatever it is handed; the
same module has an old-API site, so the file is migrated, and SGLang's own worker calls the patch."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_executor.model_runner import ModelRunner
from sglang.standin import make_batch, record, run_batch

_orig_init_new = ForwardBatch.init_new.__func__


def patched_init_new(cls, batch, model_runner):
    ret = _orig_init_new(cls, batch, model_runner)
    ret._harvest_rids = [r.rid for r in batch.reqs]
    ret._harvest_lens = list(batch.extend_seq_lens) if batch.forward_mode.is_extend() else None
    record("harvest", (ret._harvest_rids, ret._harvest_lens))
    return ret


def install_universal_patches():
    ForwardBatch.init_new = classmethod(patched_init_new)


def harvest_offline(batch, runner):
    model_worker_batch = batch.get_model_worker_batch()
    return runner.forward(ForwardBatch.init_new(model_worker_batch, runner))


def main():
    install_universal_patches()
    record("offline", harvest_offline(make_batch(), ModelRunner()))
    return run_batch(TpModelWorker(), make_batch())
