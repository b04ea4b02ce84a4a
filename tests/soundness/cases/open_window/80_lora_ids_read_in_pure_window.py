# expect: same
"""Nothing unresolved between the snapshot and the forward, only reads of the lists the old object built from
the requests; recorded after the forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    ids = mwb.lora_ids
    offsets = mwb.dllm_block_offsets
    result = worker.forward_batch_generation(mwb)
    record("lora ids", ids)
    record("offsets", offsets)
    return result
