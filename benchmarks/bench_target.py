"""Benchmark: what `--target-version 0.5.23` costs over the default run, on the same fork-shaped tree.

Run: ``python benchmarks/bench_target.py [--jobs N] [--repeat N] [--target 0.5.23]``

The tree is shaped as a fork is: SGLang 0.5.12.post1's package under ``python/`` (downloaded once
into the git-ignored ``.cache/`` by ``tests/sglang_corpus.py``), its ``sglang/test`` helpers copied
as a top-level ``test/`` folder and its ``bench_*.py`` scripts into ``benchmark/`` (files outside
SGLang's own modules, which the contract step checks), in a git work tree under a temporary folder.
In one run, side by side, each case its own child process (``bench_rewrite.py``'s measurement:
wall, CPU of the child and its workers, ``ru_maxrss``, and the sampled PSS of the process tree):

* ``default``: ``mwbmigrate rewrite <tree> --dry-run --no-cache``;
* ``target``: the same with ``--target-version TARGET``, its contract step included, after one
  run that keeps the release's facts in the cache (a maintainer's second run; the first one also
  reads the wheel).

Target (issue 35): the target run at most 1.5 times the default run's time and peak memory.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_rewrite import _measure, _mwbmigrate_command  # noqa: E402

from sglang_corpus import OLD_VERSION, sglang_tree  # noqa: E402


def _fork_shaped(work: Path) -> Path:
    package = sglang_tree(OLD_VERSION) / "sglang"
    root = work / "fork"
    shutil.copytree(package, root / "python" / "sglang", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(package / "test", root / "test", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "benchmark").mkdir()
    for script in package.glob("bench_*.py"):
        shutil.copy(script, root / "benchmark" / script.name)
    for command in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.email=b@b", "-c", "user.name=b", "commit", "-qm", "fork"],
    ):
        subprocess.run(["git", *command], cwd=root, check=True)
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--target", default="0.5.23")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = _fork_shaped(Path(folder))
        files = sum(1 for _ in root.rglob("*.py"))
        print(f"fork-shaped tree: {files} files; --jobs {args.jobs}; best of {args.repeat}", file=sys.stderr)
        target_flags = ("--dry-run", "--no-cache", "--target-version", args.target)
        subprocess.run(_mwbmigrate_command(root, args.jobs, *target_flags), capture_output=True)  # the facts kept
        default = _measure("default", _mwbmigrate_command(root, args.jobs), args.repeat)
        target = _measure(
            f"--target-version {args.target}", _mwbmigrate_command(root, args.jobs, *target_flags), args.repeat
        )
    print("| case | wall s | cpu s | peak MB | tree MB |\n|---|---|---|---|---|")
    for case in (default, target):
        print(f"| {case.case} | {case.wall_s:.1f} | {case.cpu_s:.1f} | {case.peak_mb:.0f} | {case.tree_mb:.0f} |")
    print(
        f"\ntarget / default: wall {target.wall_s / default.wall_s:.2f}, cpu {target.cpu_s / default.cpu_s:.2f}, "
        f"peak {target.peak_mb / default.peak_mb:.2f}, tree {target.tree_mb / default.tree_mb:.2f} (target: at most 1.5)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
