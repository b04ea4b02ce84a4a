# expect: reported MWB183
"""The long profile's open-window program: a speculative input whose `capture_hidden_mode` property filters the batch while the old method reads it, after the requests' lora ids and before the request list: the target's `init_new` derives the lora ids from the list the old object kept."""
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch
from sglang.standin import make_batch, record


_HELD = []


_LIVE = []


class _Sched:
    def __init__(self, batch):
        self.running_batch = batch

    def update_running_batch(self):
        self.running_batch.prepare_for_decode()


class _Stepper:
    def __init__(self, batch):
        self.batch = batch

    def step(self):
        self.batch.seq_lens = [n + 1 for n in self.batch.seq_lens]


class _Monitor1:
    def __init__(self, owner):
        self.owner = owner

    def __del__(self):
        pass


class _Monitor2Draft:
    def __init__(self, owner):
        self.owner = owner

    @property
    def capture_hidden_mode(self):
        self.owner.filter_batch([0])
        return CaptureHiddenMode.NULL


def main():
    flag = False
    sched = _Sched(make_batch())
    batch = make_batch()
    sched.running_batch = batch
    _LIVE.append(batch)
    stepper = _Stepper(batch)
    others = [make_batch(seq_lens=[5, 6]), make_batch(seq_lens=[7, 8])]
    worker = TpModelWorker()
    kept, holder, deferred, records = [], {}, [], []
    monitor1 = _Monitor1(batch)
    batch.spec_info = _Monitor2Draft(batch)
    model_worker_batch = batch.get_model_worker_batch()
    ForwardBatch.init_new(model_worker_batch, None)
    record("kept", (kept, holder, _HELD))
    record("deferred", [call() for call in deferred])
    record("records", [r.held for r in records])

