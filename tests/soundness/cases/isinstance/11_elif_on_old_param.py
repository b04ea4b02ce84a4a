# expect: same
"""An elif on the old parameter: taken before, taken after."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def run(model_worker_batch, verbose):
    if verbose:
        record("verbose")
    elif isinstance(model_worker_batch, ModelWorkerBatch):
        record("quiet forward")
    return TpModelWorker().forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch()
    run(batch.get_model_worker_batch(), False)
    run(batch.get_model_worker_batch(), True)
