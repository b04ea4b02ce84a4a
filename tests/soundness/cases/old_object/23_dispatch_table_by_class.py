# expect: reported MWB183
"""A dispatch table keyed by class: the old class's key would become a second ScheduleBatch key."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.standin import make_batch, record

HANDLERS = {ModelWorkerBatch: "old", ScheduleBatch: "batch"}


def main():
    batch = make_batch()
    mwb = batch.get_model_worker_batch()
    record("kind", HANDLERS.get(mwb.__class__, "other"))
    record("batch", HANDLERS.get(batch.__class__, "other"))
