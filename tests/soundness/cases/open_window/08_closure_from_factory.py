# expect: same
"""A closure over the batch, made by a factory before the snapshot, decodes the batch when called in between."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def advancer(target):
    def advance():
        target.prepare_for_decode()

    return advance


def main():
    batch = make_batch()
    worker = TpModelWorker()
    advance = advancer(batch)
    mwb = batch.get_model_worker_batch()
    advance()
    return worker.forward_batch_generation(mwb)
