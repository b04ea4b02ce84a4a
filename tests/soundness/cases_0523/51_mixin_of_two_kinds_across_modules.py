# expect: reported MWB188
"""One mixin, in its own module, mixed into a `TpModelWorker` subclass in one module and into an
EAGLE worker in another: SGLang calls the two kinds with different keywords, so the mixin's
override has no single signature to take."""

from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.standin import make_batch, schedule

from .spec import MixedEagle
from .target import MixedTp


def main():
    worker = MixedEagle(target_worker=MixedTp())
    return schedule(worker, make_batch(algorithm="EAGLE"))


# --- module: plugin/mixins.py ---
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.standin import record


class TraceMixin:
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, *args):
        record("traced", type(self).__name__)
        return super().forward_batch_generation(model_worker_batch, *args)


# --- module: plugin/target.py ---
from sglang.srt.managers.tp_worker import TpModelWorker

from .mixins import TraceMixin


class MixedTp(TraceMixin, TpModelWorker):
    pass


# --- module: plugin/spec.py ---
from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

from .mixins import TraceMixin


class MixedEagle(TraceMixin, EAGLEWorkerV2):
    pass
