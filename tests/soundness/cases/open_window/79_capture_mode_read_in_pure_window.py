# expect: same
"""Nothing unresolved between the snapshot and the forward, only a read of the mode the old object derived
(`capture_hidden_mode`), recorded after the forward."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


def main():
    batch = make_batch(return_hidden_states=True)
    worker = TpModelWorker()
    mwb = batch.get_model_worker_batch()
    mode = mwb.capture_hidden_mode
    result = worker.forward_batch_generation(mwb)
    record("mode", mode)
    return result
