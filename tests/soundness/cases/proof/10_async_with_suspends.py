# expect: same
"""`async with` suspends; another task decodes the batch meanwhile."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

import asyncio


class Lock:
    def __init__(self, batch):
        self.batch = batch

    async def __aenter__(self):
        await asyncio.sleep(0)
        self.batch.prepare_for_decode()

    async def __aexit__(self, *exc):
        return False


async def run(batch, worker):
    mwb = batch.get_model_worker_batch()
    async with Lock(batch):
        pass
    return worker.forward_batch_generation(mwb)


def main():
    return asyncio.run(run(make_batch(), TpModelWorker()))
