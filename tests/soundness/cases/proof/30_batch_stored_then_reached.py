# expect: same
"""The batch is put in a list before the snapshot; a call handed the list decodes it."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch


def decode_all(batches):
    for pending in batches:
        pending.prepare_for_decode()


def main():
    batch = make_batch()
    waiting = []
    waiting.append(batch)
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    decode_all(waiting)
    return worker.forward_batch_generation(mwb)
