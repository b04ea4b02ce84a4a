# expect: reported MWB183
"""A request's `lora_id` written between the snapshot and the forward: the old snapshot had read it when taken
(the documented limit of a snapshot kept in code)."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    first = batch.reqs[0]
    first.lora_id = "swapped"
    return worker.forward_batch_generation(mwb)
