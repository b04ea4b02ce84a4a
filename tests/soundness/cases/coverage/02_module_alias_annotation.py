# expect: same
"""`sbm.ModelWorkerBatch` through a module alias, in a generic and as a parameter annotation."""
from typing import List

import sglang.srt.managers.schedule_batch as sbm
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def _forward(worker: TpModelWorker, snapshot: sbm.ModelWorkerBatch, seen: List[sbm.ModelWorkerBatch]):
    record("prefix", snapshot.extend_prefix_lens)
    return worker.forward_batch_generation(snapshot)


def main():
    batch = make_batch()
    return _forward(TpModelWorker(), batch.get_model_worker_batch(), [])
