# expect: reported MWB185
"""An override of the EAGLE worker's `verify`, which 0.5.23 calls with `grammar_barrier=`: no rule
models `verify`'s callers yet; the release's contract sees the call it would not bind."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2
from sglang.standin import make_batch, record, schedule


class CheckedEagle(EAGLEWorkerV2):
    def verify(self, batch: ModelWorkerBatch):
        record("verifying", len(batch.seq_lens))
        return super().verify(batch)


def main():
    worker = CheckedEagle(target_worker=TpModelWorker())
    return schedule(worker, make_batch(algorithm="EAGLE"))
