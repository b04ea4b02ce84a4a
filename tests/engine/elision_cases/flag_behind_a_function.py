from sglang.srt.managers import tp_worker


def uses_old_api():
    return hasattr(tp_worker.TpModelWorker, "get_model_worker_batch")


USE_OLD = uses_old_api()


class Runner:
    Batch = None

    def __init__(self, worker):
        self.worker = worker

    def step(self, batch):
        if USE_OLD:
            worker_batch = batch.get_model_worker_batch()
            return self.worker.forward_batch_generation(worker_batch)
        return self.worker.forward_batch_generation(batch)

    def plain(self, batch):
        return len(batch.reqs)
