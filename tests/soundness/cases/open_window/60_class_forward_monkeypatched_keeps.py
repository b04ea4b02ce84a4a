# expect: same
"""SGLang's worker method is replaced at module level by one that keeps its argument; the forward site itself
looks like a plain SGLang forward. The kept value is read after the batch decodes."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record

SEEN = []
_original_forward = TpModelWorker.forward_batch_generation


def _traced(self, model_worker_batch, *args, **kwargs):
    SEEN.append(model_worker_batch)
    return _original_forward(self, model_worker_batch, *args, **kwargs)


TpModelWorker.forward_batch_generation = _traced


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    result = worker.forward_batch_generation(mwb)
    batch.prepare_for_decode()
    record("seen seq_lens", SEEN[0].seq_lens)
    record("seen mode", SEEN[0].forward_mode)
    return result
