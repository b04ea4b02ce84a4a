# expect: same
"""A fork's own class (not SGLang's) with a static `init_new` that keeps its argument."""
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.standin import make_batch, record


class Probe:
    kept = []

    @staticmethod
    def init_new(model_worker_batch, model_runner=None):
        Probe.kept.append(model_worker_batch)
        return ForwardBatch.init_new(model_worker_batch, model_runner)


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    Probe.init_new(mwb)
    batch.filter_batch([1])
    record("kept rows", len(Probe.kept[0].seq_lens))
    record("kept pool", Probe.kept[0].req_pool_indices)
