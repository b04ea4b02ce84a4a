# expect: reported MWB146
"""`import ModelWorkerBatch as ModelWorkerBatch`: an explicit re-export (PEP 484), used nowhere here."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch as ModelWorkerBatch
from sglang.standin import make_batch, record


def main():
    record("exported", "ModelWorkerBatch" in globals())
    return len(make_batch().seq_lens)
