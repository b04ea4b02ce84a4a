# expect: same
"""A string annotation spelled through a module alias: `"sbm.ModelWorkerBatch"`."""
import sglang.srt.managers.schedule_batch as sbm
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def _forward(worker: TpModelWorker, snapshot: "sbm.ModelWorkerBatch") -> "sbm.ModelWorkerBatch":
    record("lora", snapshot.lora_ids)
    worker.forward_batch_generation(snapshot)
    return snapshot


def main():
    batch = make_batch()
    result = _forward(TpModelWorker(), batch.get_model_worker_batch())
    record("seq_lens", result.seq_lens)
