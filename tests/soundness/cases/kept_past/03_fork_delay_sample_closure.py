# expect: reported MWB190
# source: sgl-project/sglang 0.5.12.post1 managers/tp_worker.py TpModelWorker.forward_batch_generation builds
#   `def sample_batch_func(): ...` and returns it as `batch_result.delay_sample_func` for grammar batches under
#   overlap; the scheduler runs it one iteration later. Forks that copied the method read the argument inside the
#   closure (here its lengths and mode) instead of the ForwardBatch.
"""A worker override returns a delayed-sampling closure that reads the object it was handed; the
scheduler calls it after it has prepared the batch for the next (decode) step."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record, run_batch


class GenerationBatchResult:
    def __init__(self, out):
        self.out = out
        self.delay_sample_func = None


class GrammarOverlapWorker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch, **kwargs):
        result = GenerationBatchResult(super().forward_batch_generation(model_worker_batch, **kwargs))

        def sample_batch_func():
            record("sampled rows", len(model_worker_batch.seq_lens))
            record("sampled mode", model_worker_batch.forward_mode)
            return result.out

        result.delay_sample_func = sample_batch_func
        return result


def main():
    worker = GrammarOverlapWorker()
    batch = make_batch()
    result = run_batch(worker, batch)
    batch.filter_batch([1])          # a request finished: the scheduler shrinks the running batch
    batch.prepare_for_decode()       # ... and launches the next step before sampling the previous one
    return result.delay_sample_func()
