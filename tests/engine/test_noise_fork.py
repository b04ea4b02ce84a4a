"""A fork-shaped plugin with the shapes whose markers a maintainer reads and leaves as they were
(issue: markers a maintainer keeps), next to shapes whose markers are worth the read. The noise
goes, the useful markers stay: each marked statement is listed with its codes.

Noise, each proven the same one call away or at the end of a kept snapshot's window:
- an extend-length read in a helper whose one caller gates it on an extend mode (MWB105);
- the same read in a helper that only the tree's `ForwardBatch.init_new` calls, with its batch,
  which reads through the runtime's gated view there (MWB105);
- a field 0.5.13's batch lacks (`token_type_ids`), which this fork's own `ScheduleBatch` declares
  and its old method copied from there (MWB136);
- an override written right before a helper, in another module, that hands the batch to
  `ForwardBatch.init_new` once (MWB103);
- an override set again between two forwards, each consuming its own (MWB103);
- a request list handed to a call after the forward, the kept snapshot's last use (MWB183);
- the old method's override argument on a kept snapshot, which holds it for every forward (MWB103).
- from 0.5.16, the split-prefill cache written on the batch and read back by a kept snapshot, which
  no release consumes any more (MWB107, MWB139);
- the old object handed to the worker's own `sample`, which reads only fields the old method
  copied from the batch, where `ModelRunner.sample` expects a forward batch (MWB112).

Useful, and kept:
- the same request list handed on between the snapshot and its forward (MWB183);
- the overlap fallback branch deleted as upstream did (MWB150);
- the split-prefill value left on the batch for a later call to read back, a one-shot field from
  0.5.13 on: on the write that leaves it, not on the read (MWB107);
- the old object handed to the model runner's `compute_logprobs_only`, which expects a forward batch
  (MWB112).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mwbmigrate.engine.runner import run_rewrite
from mwbmigrate.engine.transform import TransformOptions

MARKER = "# mwbmigrate:"

WORKER = """\
from typing import Union

from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch

from plugin.draft import Drafter, reorder


class Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        if model_worker_batch.forward_mode.is_extend():
            self.lengths = self._extend_lengths(model_worker_batch)
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        result = self.target_worker.forward_batch_generation(model_worker_batch)
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
        self.drafter.draft_extend(model_worker_batch, self.draft_runner)
        return result

    def _extend_lengths(self, model_worker_batch: ModelWorkerBatch):
        return sum(model_worker_batch.extend_seq_lens)

    def verify(self, batch: ScheduleBatch):
        model_worker_batch = batch.get_model_worker_batch()
        result = self.target_worker.forward_batch_generation(model_worker_batch)
        reorder(batch.reqs)
        return result

    def verify_reordered_first(self, batch: ScheduleBatch):
        model_worker_batch = batch.get_model_worker_batch()
        reorder(batch.reqs)
        return self.target_worker.forward_batch_generation(model_worker_batch)

    def forward_any(self, batch: Union[ScheduleBatch, ModelWorkerBatch]):
        if isinstance(batch, ModelWorkerBatch):
            return self.target_worker.forward_batch_generation(batch)
        return self.verify(batch)

    def sample_logits(self, logits_output, model_worker_batch: ModelWorkerBatch):
        next_ids = self.sample(logits_output, model_worker_batch)
        self.model_runner.compute_logprobs_only(logits_output, model_worker_batch)
        return next_ids

    def sample(self, logits_output, model_worker_batch: ModelWorkerBatch):
        return logits_output.argmax(model_worker_batch.sampling_info, model_worker_batch.return_logprob)

    def split_prefill(self, batch: ScheduleBatch):
        if batch.split_index == 0:
            model_worker_batch = batch.get_model_worker_batch()
            self.split = ForwardBatch.init_new(model_worker_batch, self.model_runner)
            batch.seq_lens_cpu_cache = model_worker_batch.seq_lens_cpu
        else:
            model_worker_batch = batch.get_model_worker_batch(batch.seq_lens_cpu_cache)
        return self.model_runner.sample(self.split, model_worker_batch)
"""
FORK_BATCH = """\
from dataclasses import dataclass
from typing import Any, Optional


class ScheduleBatch:
    token_type_ids: Optional[Any] = None
    seq_lens: Any = None

    def get_model_worker_batch(self, seq_lens_cpu_cache=None):
        return ModelWorkerBatch(seq_lens=self.seq_lens, token_type_ids=self.token_type_ids)


@dataclass
class ModelWorkerBatch:
    seq_lens: Any
    token_type_ids: Optional[Any] = None
"""
EMBED = """\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch


def token_types(model_worker_batch: ModelWorkerBatch):
    return model_worker_batch.token_type_ids
"""
FORWARD = """\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode


class ForwardBatch:
    def __init__(self, forward_mode):
        self.forward_mode = forward_mode
        self.lengths = None

    @classmethod
    def init_new(cls, batch: ModelWorkerBatch, model_runner):
        ret = cls(batch.forward_mode)
        ret.lengths = ret._positions(batch)
        return ret

    def _positions(self, batch: ModelWorkerBatch):
        return [n - 1 for n in batch.extend_seq_lens or []]
"""
DRAFT = """\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


class Drafter:
    def draft_extend(self, batch: ModelWorkerBatch, runner):
        self.last_lens = batch.seq_lens
        forward_batch = ForwardBatch.init_new(batch, runner)
        forward_batch.return_logprob = False
        return forward_batch


def reorder(reqs):
    reqs.reverse()
"""


def _marked(text: str) -> dict[str, set[str]]:
    """Each marked statement, as `function: first line` (stripped), with the codes of its markers."""
    lines = text.splitlines()
    found: dict[str, set[str]] = {}
    for number, line in enumerate(lines):
        if MARKER not in line:
            continue
        comment, statement = [line.split(MARKER, 1)[1]], number
        while lines[statement].lstrip().startswith("#"):
            statement += 1  # a marker written above its statement, and its continuation lines
            comment.append(lines[statement].lstrip().lstrip("#"))
        codes = set(re.findall(r"(?:^|; )(MWB\d+)", " ".join(part.strip() for part in comment)))
        function = next(
            (
                ln.split("def ", 1)[1].split("(")[0]
                for ln in reversed(lines[: statement + 1])
                if ln.lstrip().startswith("def ")
            ),
            "",
        )
        found.setdefault(f"{function}: {lines[statement].strip()}", set()).update(codes)
    return found


def _migrated(root: Path, options: TransformOptions) -> dict[str, str]:
    files = {
        "plugin/__init__.py": "",
        "plugin/worker.py": WORKER,
        "plugin/draft.py": DRAFT,
        "plugin/forward.py": FORWARD,
        "plugin/embed.py": EMBED,
        "sglang/srt/managers/schedule_batch.py": FORK_BATCH,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    summary = run_rewrite([root], options, jobs=1)
    return {Path(r.path).name: r.rewritten for r in summary.results if r.rewritten is not None}


def test_the_noise_goes_and_the_useful_markers_stay(tmp_path: Path) -> None:
    texts = _migrated(tmp_path, TransformOptions())
    assert set(texts) == {"worker.py", "draft.py", "forward.py", "embed.py", "schedule_batch.py"}
    for quiet in ("draft.py", "forward.py", "embed.py", "schedule_batch.py"):
        assert _marked(texts[quiet]) == {}, quiet
    assert _marked(texts["worker.py"]) == {
        "verify_reordered_first: worker_batch = worker_batch_snapshot(batch)": {"MWB183"},
        "forward_any: def forward_any(self, batch: ScheduleBatch):": {"MWB150"},
        "split_prefill: batch.seq_lens_cpu_cache = worker_batch.seq_lens_cpu": {"MWB107"},
        "sample_logits: self.model_runner.compute_logprobs_only(logits_output, batch)": {"MWB112"},
    }


@pytest.mark.parametrize("target", ["0.5.16", "0.5.23"])
def test_from_0_5_16_the_split_prefill_cache_is_a_plain_field_and_goes_unmarked(tmp_path: Path, target: str) -> None:
    """No release from 0.5.16 has a `seq_lens_cpu_cache` override: the split-prefill write is a field
    the kept snapshot reads back (`worker_batch_snapshot(batch, batch.seq_lens_cpu_cache)`), which no
    `init_new` consumes, so neither MWB107 (a one-shot override) nor MWB139 (an override with no
    successor) is true of it. What the target changes stays marked."""
    texts = _migrated(tmp_path, TransformOptions(target_version=target))
    assert _marked(texts["worker.py"]) == {
        "forward_batch_generation: def forward_batch_generation(": {"MWB159"},
        "forward_batch_generation: batch.capture_hidden_mode = CaptureHiddenMode.LAST": {"MWB103", "MWB138"},
        "verify_reordered_first: worker_batch = worker_batch_snapshot(batch)": {"MWB183"},
        "forward_any: def forward_any(self, batch: ScheduleBatch):": {"MWB150"},
        "sample_logits: self.model_runner.compute_logprobs_only(logits_output, batch)": {"MWB112"},
    }
    assert "        batch.seq_lens_cpu_cache = worker_batch.seq_lens_cpu\n" in texts["worker.py"]
