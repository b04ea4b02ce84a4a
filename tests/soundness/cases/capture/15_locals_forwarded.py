# expect: reported MWB145
"""The parameter is handed on by name through `**locals()`."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def _impl(**named):
    record("names", sorted(named))
    return named


def forward(worker, model_worker_batch):
    return _impl(**locals())


def main():
    forward(TpModelWorker(), make_batch().get_model_worker_batch())
