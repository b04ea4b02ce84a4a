# expect: reported MWB183
"""Found by the generated programs: a finalizer in a method body that elision would leave out writes a
request's `dllm_block_offset` between the snapshot and the forward (run by rebinding a local): the
module-wide scan of a kept snapshot must read that body too."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
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


_BATCHES = {}


class _Monitor1:
    def __init__(self, owner):
        self.owner = owner

    def __add__(self, other):
        pass
        return 1

    def __contains__(self, item):
        pass
        return False

    def __lt__(self, other):
        pass
        return False


class _Monitor2:
    def __init__(self, owner):
        self.owner = owner

    def __del__(self):
        self.owner.reqs[0].dllm_block_offset = 4


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
    _BATCHES["monitor1"] = batch
    monitor1 = _Monitor1(_BATCHES)
    monitor2 = _Monitor2(batch)
    model_worker_batch = batch.get_model_worker_batch()
    monitor2 = None
    ForwardBatch.init_new(model_worker_batch, None)
    record("kept", (kept, holder, _HELD))
    record("deferred", [call() for call in deferred])
    record("records", [r.held for r in records])
