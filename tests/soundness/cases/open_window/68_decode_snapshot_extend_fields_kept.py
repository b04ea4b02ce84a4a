# expect: same
"""A snapshot taken in decode is kept (an unresolved call in between); its `extend_seq_lens` were None, though
the batch still holds its extend lengths."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def log(message):
    record("log", message)


def main():
    batch = make_batch()
    batch.prepare_for_decode()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    log("decoding")
    record("extend lens", mwb.extend_seq_lens)
    record("prefix lens", mwb.extend_prefix_lens)
    return worker.forward_batch_generation(mwb)
