# expect: same
"""The batch is changed between the snapshot and the forward: the forward saw the old values."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch


def main():
    batch = make_batch()
    worker = TpModelWorker()
    model_worker_batch = batch.get_model_worker_batch()
    batch.seq_lens = [9, 9]
    return worker.forward_batch_generation(model_worker_batch)
