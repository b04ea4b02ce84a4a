# expect: same
"""A module helper typed with SGLang's worker forwards the snapshot; the caller replaced the method on the
instance by one that keeps its argument; the batch decodes afterwards and the kept value is read."""
from sglang.srt.managers.schedule_batch import ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def run(worker: TpModelWorker, batch: ScheduleBatch):
    mwb = batch.get_model_worker_batch()
    return worker.forward_batch_generation(mwb)


def main():
    batch = make_batch()
    worker = TpModelWorker()
    kept = []
    original = worker.forward_batch_generation

    def keeping(model_worker_batch, *args, **kwargs):
        kept.append(model_worker_batch)
        return original(model_worker_batch, *args, **kwargs)

    worker.forward_batch_generation = keeping
    result = run(worker, batch)
    batch.prepare_for_decode()
    record("kept seq_lens", kept[0].seq_lens)
    record("kept mode", kept[0].forward_mode)
    return result
