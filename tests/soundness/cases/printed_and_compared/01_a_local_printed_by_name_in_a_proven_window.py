# expect: same
"""A self-documenting f-string prints the local that holds the old object: `f"{mwb.input_ids=}"`
prints the expression's source. Reading the live batch there would print `batch.input_ids=`, and
renaming the kept local would print `worker_batch...`: the snapshot is kept under its own name."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch()
    model_worker_batch = batch.get_model_worker_batch()
    record("log", f"{model_worker_batch.input_ids=}")
    return TpModelWorker().forward_batch_generation(model_worker_batch)
