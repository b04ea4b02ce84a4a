# expect: same unmarked
"""A class pattern on a parameter that only ever held the old object: `case ScheduleBatch(...)`
matches what it is handed now, as `case ModelWorkerBatch(...)` matched the old object."""

from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.standin import make_batch, record


def describe(model_worker_batch: ModelWorkerBatch):
    match model_worker_batch:
        case ModelWorkerBatch(seq_lens=lens):
            record("lens", lens)
        case _:
            record("other", None)


def main():
    return describe(make_batch().get_model_worker_batch())
