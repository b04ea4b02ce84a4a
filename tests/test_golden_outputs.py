"""Everything `rewrite` prints stays as recorded in tests/golden/outputs.json (scripts/golden_outputs.py):
the example fork's report at each target on every run; the hand-written cases' migrations and SGLang
0.5.12.post1's whole tree at each target with MWBMIGRATE_GOLDEN=1 / MWBMIGRATE_GOLDEN_TREE=1 (a minute,
and minutes: the engine's redesign runs them; CI's suite already judges every case by its behaviour).

An intended change of output is recorded again with `python scripts/golden_outputs.py record [--tree]`,
and the diff of outputs.json shows which outputs moved."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "golden_outputs.py"


def _golden():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("golden_outputs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check(measured: dict) -> None:  # type: ignore[type-arg]
    golden = _golden()
    recorded = json.loads(golden.GOLDEN.read_text())
    assert set(measured) <= set(recorded), f"not recorded: {sorted(set(measured) - set(recorded))}"
    # Only what was measured: a part or a target left out of this run is not a difference.
    assert golden.differences(recorded, measured) == []


def test_the_example_fork_prints_what_was_recorded() -> None:
    """At the default target and the latest, whose releases the suite reads anyway; every target
    with MWBMIGRATE_GOLDEN=1."""
    golden = _golden()
    _check(golden.fork_outputs(golden.TARGETS if os.environ.get("MWBMIGRATE_GOLDEN") else ("0.5.13", "0.5.23")))


@pytest.mark.skipif(not os.environ.get("MWBMIGRATE_GOLDEN"), reason="set MWBMIGRATE_GOLDEN=1 (about a minute)")
def test_every_case_migrates_as_recorded() -> None:
    _check(_golden().case_outputs())


@pytest.mark.corpus
@pytest.mark.skipif(not os.environ.get("MWBMIGRATE_GOLDEN_TREE"), reason="set MWBMIGRATE_GOLDEN_TREE=1 (minutes)")
def test_sglangs_tree_migrates_as_recorded() -> None:
    _check(_golden().tree_outputs())


def test_a_difference_is_named() -> None:
    golden = _golden()
    recorded = {"examples/fork": {"0.5.13": {"report": "a", "files": {"x.py": "1"}}}}
    measured = {"examples/fork": {"0.5.13": {"report": "b", "files": {"x.py": "1", "y.py": "2"}}}}
    assert golden.differences(recorded, measured) == [
        "examples/fork/0.5.13/files/y.py: recorded None, now '2'",
        "examples/fork/0.5.13/report: recorded 'a', now 'b'",
    ]
