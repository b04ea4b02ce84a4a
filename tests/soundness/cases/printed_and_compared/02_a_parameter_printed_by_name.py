# expect: reported MWB145
"""A worker's parameter printed by a self-documenting f-string: renamed `batch`, the log line says
`batch.seq_lens=` where it said `model_worker_batch.seq_lens=`."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class LoggingWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        record("log", f"{model_worker_batch.seq_lens=}")
        return 0


def main():
    return LoggingWorker().forward_batch_generation(make_batch().get_model_worker_batch())
