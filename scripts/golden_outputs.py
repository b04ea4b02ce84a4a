"""Golden outputs: a fingerprint of everything `rewrite` prints, to hold a redesign of the engine to
the outputs of today's, byte for byte.

Run: ``python scripts/golden_outputs.py record [--tree]`` writes ``tests/golden/outputs.json``;
``python scripts/golden_outputs.py check [--tree]`` compares and names what differs.
``tests/test_golden_outputs.py`` runs the check (the SGLang tree only with ``MWBMIGRATE_GOLDEN_TREE=1``).

What is fingerprinted, for each target (0.5.13, 0.5.16, 0.5.23; the contract step included), and for
`--live-batch` at 0.5.13:
- ``examples/fork``: the JSON report of a dry-run (per-file status, diff, review items, the runtime
  dependency, the contract's count), and each changed file's diff;
- every hand-written differential case (``tests/soundness/cases``), at the default target: the
  migrated text and the hazard codes of both passes;
- with ``--tree``, SGLang 0.5.12.post1's own tree (downloaded into the git-ignored ``.cache/``): the
  JSON report and each changed file's diff. Only SHA-256 digests are kept, never SGLang's code.

The contract note names the cache folder it read the release from: that folder is replaced by
``<cache>`` before hashing, so the digests do not depend on the machine.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

GOLDEN = REPO / "tests" / "golden" / "outputs.json"
TARGETS = ("0.5.13", "0.5.16", "0.5.23")
_READ_FROM = re.compile(r"\(read from [^)]*\)")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


# `--live-batch` is fingerprinted at the default target: its own outputs, held like the others.
LIVE = "0.5.13 --live-batch"


def _report(tree: Path, target: str) -> dict[str, Any]:
    """The dry-run's JSON report on `tree` (a copy, changed by nothing), fingerprinted. `target` is a
    release, or `LIVE`."""
    from typer.testing import CliRunner

    from mwbmigrate.cli import app

    arguments = ["rewrite", str(tree), "--dry-run", "--no-cache", "--no-progress", "--format", "json"]
    result = CliRunner().invoke(app, [*arguments, "--jobs", "2", "--target-version", *target.split()])
    document = json.loads(result.stdout)
    document["contract"]["note"] = _READ_FROM.sub("(read from <cache>)", document["contract"]["note"])
    files = {entry["path"]: _digest(entry["diff"]) for entry in document["files"] if entry["diff"]}
    return {"exit_code": result.exit_code, "report": _digest(json.dumps(document, sort_keys=True)), "files": files}


def _copied(source: Path, work: Path, name: str) -> Path:
    target = work / name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return target


def _cases() -> dict[str, str]:
    from tests.soundness.harness import migrate

    cases = sorted((REPO / "tests" / "soundness" / "cases").rglob("*.py"))
    return {
        case.relative_to(REPO).as_posix(): _digest(migration.text + "\n" + " ".join(migration.codes))
        for case in cases
        for migration in [migrate(case.read_text())]
    }


def fork_outputs(targets: tuple[str, ...] = TARGETS) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mwbmigrate-golden-") as scratch:
        fork = _copied(REPO / "examples" / "fork", Path(scratch), "fork")
        return {"examples/fork": {target: _report(fork, target) for target in (*targets, LIVE)}}


def case_outputs() -> dict[str, Any]:
    return {"cases": _cases()}


def tree_outputs() -> dict[str, Any]:
    from sglang_corpus import OLD_VERSION, sglang_tree

    with tempfile.TemporaryDirectory(prefix="mwbmigrate-golden-") as scratch:
        sglang = _copied(sglang_tree(OLD_VERSION) / "sglang", Path(scratch) / "tree", "sglang")
        return {f"sglang-{OLD_VERSION}": {target: _report(sglang, target) for target in (*TARGETS, LIVE)}}


def compute(*, tree: bool) -> dict[str, Any]:
    """Every fingerprint: the example fork's and the cases' always, SGLang's tree's when `tree`."""
    return {**fork_outputs(), **case_outputs(), **(tree_outputs() if tree else {})}


def differences(recorded: dict[str, Any], measured: dict[str, Any]) -> list[str]:
    """One line per fingerprint that differs (or is missing on one side), for what was measured."""
    lines: list[str] = []

    def compare(path: str, old: Any, new: Any) -> None:
        if isinstance(old, dict) and isinstance(new, dict):
            for key in sorted(old.keys() | new.keys()):
                compare(f"{path}/{key}", old.get(key), new.get(key))
        elif old != new:
            lines.append(f"{path}: recorded {old!r}, now {new!r}")

    for part, entries in measured.items():
        # A target (or a case) this run did not measure is not a difference; one it did is compared whole.
        known = recorded.get(part) or {}
        for key in sorted(entries):
            compare(f"{part}/{key}", known.get(key), entries[key])
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("record", "check"))
    parser.add_argument("--tree", action="store_true", help="SGLang 0.5.12.post1's own tree too (minutes)")
    args = parser.parse_args()
    measured = compute(tree=args.tree)
    recorded = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    if args.action == "record":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps({**recorded, **measured}, indent=1, sort_keys=True) + "\n")
        print(f"recorded {', '.join(measured)} in {GOLDEN.relative_to(REPO)}")
        return 0
    found = differences(recorded, measured)
    print("\n".join(found) if found else f"the same: {', '.join(measured)}")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
