# expect: same
"""A local SGLang worker whose method was replaced (before the snapshot) by one that decodes the batch first."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    original = worker.forward_batch_generation

    def decode_then_forward(model_worker_batch, *args, **kwargs):
        batch.prepare_for_decode()
        return original(model_worker_batch, *args, **kwargs)

    worker.forward_batch_generation = decode_then_forward
    mwb = batch.get_model_worker_batch()
    return worker.forward_batch_generation(mwb)
