"""A fork whose hooks are black (line length 88) and isort (black's profile, `sglang` and the fork's
own package first party): the rewrite's output passes both, with no `--format-changed`.

The fork is tests/fixtures_repos/linted (its SGLang-side modules under `placed/`): modules where core-runtime inserts `record_stream_*` calls
and the isolation `with`, and the rewrite adds runtime and typing imports, with receivers long
enough that the inserted lines do not fit in 88 columns on one line. Also: `--format-changed auto`
finding a formatter that is not installed warns and carries on.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FORK = Path(__file__).resolve().parents[1] / "fixtures_repos" / "linted"

SPEC_WORKER = '''\
"""The fork's own spec-v2 worker: stdlib and first-party imports only."""

import os
from typing import Optional

from mwbmigrate.runtime import record_stream_each, record_stream_for_v2_verify

from forkext.streams import current_forward_stream_for_speculative_verification
from sglang.srt.managers.schedule_batch import ScheduleBatch

DEBUG = os.environ.get("FORKEXT_DEBUG")


class ForkEagleWorker:
    def verify(self, speculative_draft_verify_batch, budget: Optional[int]):
        record_stream_for_v2_verify(
            speculative_draft_verify_batch,
            speculative_draft_verify_batch.spec_info,
            current_forward_stream_for_speculative_verification(self.device_index),
        )
        verify_input = speculative_draft_verify_batch.spec_info
        forward_batch, graphable = verify_input.prepare_for_v2_verify(
            self.req_to_token_pool, speculative_draft_verify_batch, self.target_worker
        )
        record_stream_each(
            (
                speculative_draft_verify_batch.input_ids,
                speculative_draft_verify_batch.out_cache_loc,
            ),
            current_forward_stream_for_speculative_verification(self.device_index),
        )
        return forward_batch, graphable

    def draft_tokens(self, batch: ScheduleBatch) -> int:
        return len(batch.input_ids)
'''

SCHEDULER = '''\
"""The fork's scheduler: the overlap loop copies and pins the batch for the forward."""

import logging

from mwbmigrate.runtime import (
    BatchRecordRing,
    overlap_forward_isolation,
    worker_batch_snapshot,
)

from sglang.srt.managers.schedule_batch import ScheduleBatch

logger = logging.getLogger(__name__)


class Scheduler:
    def init_overlap(self):
        self.batch_record_buf = [None] * 2
        self.batch_record_ring = BatchRecordRing(2)
        self.batch_record_ct = 0

    def run_batch(self, batch: ScheduleBatch):
        if self.enable_overlap:
            for _ in range(1):
                overlapped_model_worker_batch = worker_batch_snapshot(batch)
                # Sampling info will be modified during forward, so we store a copy.
                with overlap_forward_isolation(
                    overlapped_model_worker_batch, self.batch_record_ring
                ):
                    bs = len(overlapped_model_worker_batch.seq_lens)

                    with self.forward_stream_ctx:
                        # mwbmigrate: MWB138 `overlapped_model_worker_batch` goes to
                        #   `self.model_worker`, which from 0.5.16 derives the capture
                        #   mode at the forward if it is a `TpModelWorker`: pass it
                        #   `capture_hidden_mode=worker_batch_capture_mode(...)` then (a
                        #   speculative worker takes none)
                        result = self.model_worker.forward_batch_generation(
                            overlapped_model_worker_batch
                        )
                batch.spec_info = result.next_draft_input
                return result, bs
        return None
'''


def _linter(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (a dev dependency: pip install -e '.[dev]')")


def _hooks(root: Path) -> dict[str, subprocess.CompletedProcess[str]]:
    """The fork's two hooks over `root`: black's check at 88 columns, and ruff's isort rules."""
    _linter("black")
    _linter("ruff")
    commands = {
        "black": [sys.executable, "-m", "black", "--check", "--line-length", "88", "."],
        "isort": [sys.executable, "-m", "ruff", "check", "--no-cache", "--select", "I", "."],
    }
    return {
        name: subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=120)
        for name, command in commands.items()
    }


def _copy(tmp_path: Path) -> Path:
    """The fork as its hooks see it. The modules that stand in SGLang's own files are kept under
    `placed/` (the repository holds no file at an SGLang path), and put where `placed/paths` says."""
    root = tmp_path / "fork"
    shutil.copytree(FORK, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "placed"))
    for line in (FORK / "placed" / "paths").read_text().splitlines():
        name, destination = line.split()
        (root / destination).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(FORK / "placed" / name, root / destination)
    return root


def test_the_fork_passes_its_own_hooks_before_the_rewrite(tmp_path: Path) -> None:
    for name, completed in _hooks(_copy(tmp_path)).items():
        assert completed.returncode == 0, f"{name}: {completed.stdout}{completed.stderr}"


def test_the_rewritten_fork_still_passes_black_and_isort(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    rewrite = subprocess.run(
        [sys.executable, "-m", "mwbmigrate", "rewrite", ".", "--no-contract-check", "--no-cache", "--no-progress"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert rewrite.returncode == 0, rewrite.stderr
    assert (root / "forkext" / "spec_worker.py").read_text() == SPEC_WORKER
    assert (root / "python" / "sglang" / "srt" / "managers" / "scheduler.py").read_text() == SCHEDULER
    for name, completed in _hooks(root).items():
        assert completed.returncode == 0, f"{name}: {completed.stdout}{completed.stderr}"


# --- `--format-changed auto` with the configured formatter missing ---------------------------------

MODULE = b"""\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch


def _run(worker, model_worker_batch: ModelWorkerBatch):
    return worker.forward_batch_generation(model_worker_batch)
"""
REWRITTEN = b"""\
from sglang.srt.managers.schedule_batch import ScheduleBatch


def _run(worker, batch: ScheduleBatch):
    return worker.forward_batch_generation(batch)
"""


def test_auto_with_its_formatter_missing_warns_and_rewrites_unformatted(kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "black", None)  # `import black` raises ImportError
    root = kit.tmp_path / "tree"
    kit.write(root, {"pkg/mod.py": MODULE, "pyproject.toml": b"[tool.black]\n"})
    result = kit.invoke("rewrite", root, "--format-changed", "auto", "--no-progress", "--no-cache")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        "warning: --format-changed auto: black is not installed: pip install 'mwbmigrate[black]' (or black); "
        "the rewrite is not formatted"
    )
    assert (root / "pkg" / "mod.py").read_bytes() == REWRITTEN


def test_naming_a_missing_formatter_is_still_an_error(kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "black", None)
    root = kit.tmp_path / "tree"
    kit.write(root, {"pkg/mod.py": MODULE, "pyproject.toml": b"[tool.black]\n"})
    result = kit.invoke("rewrite", root, "--format-changed", "black", "--no-progress")
    assert result.exit_code == 2
    assert (root / "pkg" / "mod.py").read_bytes() == MODULE
