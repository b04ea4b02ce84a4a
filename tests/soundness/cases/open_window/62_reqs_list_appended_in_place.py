# expect: reported MWB183
"""A request appended to the batch's request list (in place) between the snapshot and the forward: the old
snapshot's `lora_ids` / `dllm_block_offsets` were lists of the requests at snapshot time."""
from sglang.srt.managers.schedule_batch import Req
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def admit(reqs):
    reqs.append(Req(2, "late", 16))


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    admit(batch.reqs)
    return worker.forward_batch_generation(mwb)
