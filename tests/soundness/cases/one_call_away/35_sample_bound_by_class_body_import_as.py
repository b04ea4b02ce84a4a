# expect: reported MWB112
"""Adversary of the reader one call away. A subclass binds `sample` by an import in its class body, under another name
(`from plugin import lengths_sample as sample`); the pre-pass counts an `import ... as` as an
escape of the imported name, not of the name it binds. The imported sampler reads the extend lengths."""
from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record, run_batch

import sys
import types

plugin = types.ModuleType("adv9_plugin_samplers")


def _lengths_sample(self, logits, batch):
    return logits, batch.extend_seq_lens


plugin.lengths_sample = _lengths_sample
sys.modules["adv9_plugin_samplers"] = plugin


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        logits = self._forward(model_worker_batch)
        return self.sample(logits, model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, model_worker_batch.seq_lens


class LengthsWorker(Worker):
    from adv9_plugin_samplers import lengths_sample as sample


def main():
    return [run_batch(LengthsWorker(), make_batch(forward_mode=mode)) for mode in ForwardMode]
