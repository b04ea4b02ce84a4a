# expect: reported MWB183
"""A request list bound through `or` (`reqs = batch.reqs or []`) and sorted in place between the
snapshot and its forward: the name is the batch's own list, which the target's `init_new` reads at
the forward, where the old object had read each request's values when taken."""
from sglang.srt.managers.schedule_batch import Req
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, record


class Worker:
    def __init__(self):
        self.target_worker = TpModelWorker()

    def step(self, batch):
        model_worker_batch = batch.get_model_worker_batch()
        reqs = batch.reqs or []
        reqs.sort(key=lambda r: -r.rid)
        return self.target_worker.forward_batch_generation(model_worker_batch)


def main():
    batch = make_batch(reqs=[Req(0, "a", 0), Req(1, "b", 8)])
    return Worker().step(batch)
