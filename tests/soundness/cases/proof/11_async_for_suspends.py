# expect: same
"""`async for` suspends at each step; the iterator decodes the batch."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record

import asyncio


async def ticks(batch):
    for _ in range(1):
        batch.prepare_for_decode()
        yield 0


async def run(batch, worker):
    mwb = batch.get_model_worker_batch()
    async for _ in ticks(other_ref[0]):
        pass
    return worker.forward_batch_generation(mwb)


other_ref = []


def main():
    batch = make_batch()
    other_ref.append(batch)
    return asyncio.run(run(batch, TpModelWorker()))
