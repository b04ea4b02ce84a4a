# expect: same
"""A module helper typed with SGLang's worker is handed a generator override; its forward runs after the caller
decodes the batch."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class StreamingWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch, *args, **kwargs):
        yield super().forward_batch_generation(model_worker_batch, *args, **kwargs)


def launch(worker: TpModelWorker, batch: ScheduleBatch):
    mwb = batch.get_model_worker_batch()
    return worker.forward_batch_generation(mwb)


def main():
    batch = make_batch()
    outputs = launch(StreamingWorker(), batch)
    batch.prepare_for_decode()
    return list(outputs)
