# expect: same
"""A switch on SGLang's version with the old API on one side is a gate and keeps working."""
import sglang
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch


def _version():
    return tuple(int(part) for part in sglang.__version__.split(".")[:3])


def run_batch(worker: TpModelWorker, batch: ScheduleBatch):
    if tuple(int(part) for part in sglang.__version__.split(".")[:3]) < (0, 5, 13):
        return worker.forward_batch_generation(batch.get_model_worker_batch())
    else:
        return worker.forward_batch_generation(batch)


def main():
    return run_batch(TpModelWorker(), make_batch())
