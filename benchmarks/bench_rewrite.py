"""Benchmark: ``mwbmigrate rewrite --dry-run`` on the real sglang tree, against parsing every file with LibCST.

Run: ``python benchmarks/bench_rewrite.py [--jobs N] [--repeat N] [--quick] [--libcst-runner]``,
or ``python benchmarks/bench_rewrite.py --fork-tree [--jobs N] [--repeat N] [--seed N]`` (below).

The tree is sglang 0.5.12.post1 (``tests/sglang_corpus.py`` downloads it once into the
git-ignored ``.cache/``); every case runs on a copy under a temporary folder, removed at
the end. In one run, side by side:

* ``mwbmigrate``: ``mwbmigrate rewrite <copy> --dry-run --no-progress --no-cache --jobs N`` on the whole
  tree, with one process (``-j1``) and with ``--jobs`` processes;
* ``parse-all``: ``libcst.parse_module`` once on every ``.py`` file, sequentially in one
  process (the floor a naive codemod cannot go under), and the same spread over ``--jobs``
  processes with ``multiprocessing`` (the fair comparison against a parallel tool);
* ``--check`` on the migrated tree (the copy rewritten in place, review markers kept): once with
  ``--no-cache`` (what the token prefilter leaves to parse: files whose old-API words are only in
  comments, prose or markers are not parsed), and once with a warm result cache (a private cache
  folder, filled by one run before the measured one);
* ``whole modules``: the ``-j1`` run again with ``MWBMIGRATE_NO_ELISION=1`` (codemods see every
  function body, as before ``engine/elision.py``), and a byte comparison of the two runs' diffs;
* cost per affected file: the ``-j1`` run's CPU seconds per 100 KB of source the prefilter matches,
  with and without elision;
* ``libcst-runner`` (opt-in, takes minutes): LibCST's own ``python -m libcst.tool codemod
  rename.RenameCommand`` renaming ``ModelWorkerBatch`` to ``ScheduleBatch``, on a fresh copy;
* scaling (skipped by ``--quick``): the mwbmigrate run on the tree duplicated 4x (four copies
  under one root, so 4x the affected files), and on a 4x tree where only one copy holds
  affected files (the other three copies leave out every file the prefilter matches).

``--fork-tree`` runs, instead of the cases above, the acceptance case of issue "Speed" on a fork's
size: ``benchmarks/fork_tree.py`` builds a fork-sized tree (3,500 ``.py`` files: SGLang 0.5.12.post1's
package under ``python/sglang/`` and generated tests, benchmarks, scripts, model files and plugins;
50 files on the old API; the largest about 4,000 lines; one git commit; deterministic for a
``--seed``), and ``mwbmigrate rewrite <tree> --dry-run --no-cache --jobs N`` runs on it twice, side by
side: at the default target and with ``--target-version 0.5.23`` (its contract step included; the
0.5.23 contract ships with mwbmigrate, nothing is downloaded). Each figure is set against its target:
at most 20 s wall and 300 MB peak (``peak MB``, the child's ``ru_maxrss`` as below), with a met / NOT
MET verdict.

Every case is its own child process, started by this script and reaped with ``os.wait4``:
``cpu s`` is that rusage's user + system time (the child and the workers it waited for; steadier
than wall time on a loaded machine); ``peak MB`` is its ``ru_maxrss``, the largest resident set
among the child and those workers; ``tree MB`` is the largest sum of PSS over the child's whole process
tree, sampled from ``/proc`` every 50 ms (what a parallel run really holds at once).
Each figure is the best (lowest wall time) of ``--repeat`` runs.

Targets (issue 7, "Speed"): the full-tree run at least 20x faster than parsing every file,
and its cost growing with the number of affected files, not with the size of the tree. Issue 14
restates them: 6x in CPU seconds, 12 s wall with ``--jobs 2``, ``--check`` 30x cold and 1 s warm.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence

REPO_ROOT = Path(__file__).resolve().parents[1]
TARGET_SPEEDUP = 20.0
FORK_TARGET_VERSION = "0.5.23"
FORK_TARGET_WALL_S = 20.0  # the fork-sized tree's targets (--fork-tree)
FORK_TARGET_PEAK_MB = 300.0
SAMPLE_S = 0.05  # RSS sampling period for the process-tree figure
OLD_NAME = "sglang.srt.managers.schedule_batch.ModelWorkerBatch"
NEW_NAME = "sglang.srt.managers.schedule_batch.ScheduleBatch"

try:  # the engine's own prefilter, so "affected" means what mwbmigrate means by it
    sys.path.insert(0, str(REPO_ROOT))
    from mwbmigrate.engine.options import NO_ELISION_ENV  # noqa: E402
    from mwbmigrate.rules import byte_candidate  # noqa: E402
except Exception:  # pragma: no cover - the package is being edited; keep the benchmark usable
    _OLD_API = re.compile(rb"ModelWorkerBatch|model_worker_batch|class ScheduleBatch\b|req_pool_idx for ")
    NO_ELISION_ENV = "MWBMIGRATE_NO_ELISION"

    def byte_candidate(data: bytes) -> bool:
        return _OLD_API.search(data) is not None


# --------------------------------------------------------------------------- child modes


def _parse_one(path: str) -> int:
    import libcst

    with open(path, "rb") as handle:
        libcst.parse_module(handle.read())
    return 1


def _parse_all(root: str, jobs: int) -> None:
    """Child mode: parse every .py file under root once, sequentially (jobs == 1) or in a Pool."""
    files = sorted(str(p) for p in Path(root).rglob("*.py"))
    if jobs <= 1:
        for path in files:
            _parse_one(path)
    else:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            for _ in pool.imap_unordered(_parse_one, files, chunksize=8):
                pass
    print(f"parsed {len(files)} files", file=sys.stderr)


# --------------------------------------------------------------------------- measuring


@dataclass
class Measurement:
    case: str
    wall_s: float
    cpu_s: float
    peak_mb: float
    tree_mb: float
    rc: int
    note: str = ""


def _rss_kb(pid: int) -> int:
    """Proportional set size (shared pages split between sharers; forked workers are not
    counted twice), falling back to plain RSS where smaps_rollup is not readable."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * _PAGE_KB
    except (OSError, ValueError, IndexError):
        return 0


def _children(pid: int) -> List[int]:
    found: List[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.extend(int(c) for c in handle.read().split())
    except (OSError, ValueError):
        pass
    return found


def _tree_rss_kb(root_pid: int) -> int:
    """Sum of proportional resident memory over root_pid and all its descendants (/proc/PID/task/*/children)."""
    total, stack, seen = 0, [root_pid], set()
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _rss_kb(pid)
        stack.extend(_children(pid))
    return total


_PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024 if hasattr(os, "sysconf") else 4


def _measure_once(
    case: str, command: Sequence[str], cwd: Optional[Path] = None, env: Optional[dict] = None
) -> Measurement:
    stderr_file = tempfile.TemporaryFile()
    start = time.perf_counter()
    proc = subprocess.Popen(list(command), cwd=cwd, stdout=subprocess.DEVNULL, stderr=stderr_file, env=env or _ENV)
    peak_tree = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak_tree[0] = max(peak_tree[0], _tree_rss_kb(proc.pid))
            done.wait(SAMPLE_S)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr_file.seek(0)
    err = stderr_file.read().decode(errors="replace")
    stderr_file.close()
    note = ""
    if proc.returncode not in (0, 1):  # mwbmigrate --dry-run: 0 or 1; anything else is a failure
        errors = [line for line in err.splitlines() if line.startswith("error ")]
        note = f"{len(errors)} file errors" if errors else (err.strip().splitlines() or ["?"])[-1][:60]
    # Linux reports ru_maxrss in KiB.
    return Measurement(
        case, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, peak_tree[0] / 1024, proc.returncode, note
    )


def _measure(
    case: str,
    command: Sequence[str],
    repeat: int,
    cwd: Optional[Path] = None,
    prepare: Optional[Callable[[], None]] = None,
    env: Optional[dict] = None,
) -> Measurement:
    best: Optional[Measurement] = None
    for _ in range(repeat):
        if prepare is not None:
            prepare()
        result = _measure_once(case, command, cwd, env)
        if best is None or result.wall_s < best.wall_s:
            best = result
        print(
            f"  {case}: {result.wall_s:.2f} s wall, {result.cpu_s:.2f} s cpu, {result.peak_mb:.0f} MB, rc={result.rc}",
            file=sys.stderr,
            flush=True,
        )
    assert best is not None
    return best


# --------------------------------------------------------------------------- trees


def _affected(path: Path) -> bool:
    return path.suffix == ".py" and byte_candidate(path.read_bytes())


def _copy_tree(source: Path, dest: Path, drop_affected: bool = False) -> None:
    def ignore(folder: str, names: List[str]) -> List[str]:
        if not drop_affected:
            return []
        return [n for n in names if n.endswith(".py") and (Path(folder) / n).is_file() and _affected(Path(folder) / n)]

    shutil.copytree(source, dest, ignore=ignore)


def _count(root: Path) -> tuple:
    files = [p for p in root.rglob("*.py")]
    return len(files), sum(1 for p in files if _affected(p))


def _affected_kb(root: Path) -> float:
    return sum(p.stat().st_size for p in root.rglob("*.py") if _affected(p)) / 1024


# The children's environment: the result cache in a folder of this run, never the user's.
_ENV = dict(os.environ)


def _mwbmigrate_command(target: Path, jobs: int, *flags: str) -> List[str]:
    """A rewrite of `target`: `--dry-run --no-cache` unless other flags are given."""
    script = REPO_ROOT / ".venv" / "bin" / "mwbmigrate"
    head = [str(script)] if script.exists() else [sys.executable, "-m", "mwbmigrate"]
    return head + [
        "rewrite",
        str(target),
        *(flags or ("--dry-run", "--no-cache")),
        "--no-progress",
        "--jobs",
        str(jobs),
    ]


# --------------------------------------------------------------------------- the fork-sized tree


def _verdict(value: float, target: float) -> str:
    return "met" if value <= target else "NOT MET"


def _fork_tree_main(jobs: int, repeat: int, seed: int) -> int:
    """`--fork-tree`: the dry-run at the default target and at FORK_TARGET_VERSION on a generated
    fork-sized tree, side by side, against FORK_TARGET_WALL_S and FORK_TARGET_PEAK_MB."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fork_tree import AFFECTED, FILES, LARGEST_LINES, LINE_SLACK, build_fork_tree  # noqa: E402

    load_before = os.getloadavg()
    work = Path(tempfile.mkdtemp(prefix="bench_fork_tree_"))
    _ENV["MWBMIGRATE_CACHE_DIR"] = str(work / "cache")
    try:
        started = time.perf_counter()
        stats = build_fork_tree(work / "fork", seed)
        built_s = time.perf_counter() - started
        candidates = sum(1 for p in stats.root.rglob("*.py") if _affected(p))
        print(
            f"fork-sized tree (seed {seed}, built in {built_s:.1f} s): {stats.files} .py files "
            f"({stats.sglang_files} of SGLang 0.5.12.post1, {stats.files - stats.sglang_files} generated), "
            f"{stats.megabytes:.1f} MB",
            flush=True,
        )
        print(
            f"  affected (name ModelWorkerBatch / model_worker_batch / get_model_worker_batch): {stats.affected} "
            f"({stats.sglang_affected} of SGLang, {stats.affected - stats.sglang_affected} generated plugins); "
            f"{candidates} match the engine's byte prefilter"
        )
        print(
            f"  largest file: {stats.largest_lines} lines ({stats.largest_path}); largest affected: "
            f"{stats.largest_affected_lines} lines ({stats.largest_affected_path})"
        )
        print(f"  SGLang files over the line cap, left out: {', '.join(stats.left_out) or 'none'}")
        print(f"  jobs={jobs}, repeat={repeat}, cores={os.cpu_count()}", flush=True)
        assert stats.files == FILES, stats
        assert stats.affected == AFFECTED, stats
        assert abs(stats.largest_lines - LARGEST_LINES) <= LINE_SLACK, stats

        target_flags = ("--dry-run", "--no-cache", "--target-version", FORK_TARGET_VERSION)
        default = _measure(f"fork tree, default target (-j{jobs})", _mwbmigrate_command(stats.root, jobs), repeat)
        target = _measure(
            f"fork tree, --target-version {FORK_TARGET_VERSION} (-j{jobs})",
            _mwbmigrate_command(stats.root, jobs, *target_flags),
            repeat,
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()

    results = [default, target]
    width = max(len(r.case) for r in results)
    print()
    print(
        f"{'case':<{width}}  {'wall s':>8}  {'target':>7}  {'':<7}  {'peak MB':>8}  {'target':>7}  {'':<7}  "
        f"{'cpu s':>8}  {'tree MB':>8}  rc  note"
    )
    for r in results:
        print(
            f"{r.case:<{width}}  {r.wall_s:>8.2f}  {FORK_TARGET_WALL_S:>7.0f}  {_verdict(r.wall_s, FORK_TARGET_WALL_S):<7}  "
            f"{r.peak_mb:>8.0f}  {FORK_TARGET_PEAK_MB:>7.0f}  {_verdict(r.peak_mb, FORK_TARGET_PEAK_MB):<7}  "
            f"{r.cpu_s:>8.2f}  {r.tree_mb:>8.0f}  {r.rc:>2}  {r.note}"
        )
    print()
    met = all(r.wall_s <= FORK_TARGET_WALL_S and r.peak_mb <= FORK_TARGET_PEAK_MB for r in results)
    print(
        f"targets (<= {FORK_TARGET_WALL_S:.0f} s wall, <= {FORK_TARGET_PEAK_MB:.0f} MB peak, at both targets): "
        f"{'met' if met else 'NOT MET'}"
    )
    print(
        f"{FORK_TARGET_VERSION} / default: wall {target.wall_s / default.wall_s:.2f}x, "
        f"cpu {target.cpu_s / max(default.cpu_s, 1e-9):.2f}x, peak {target.peak_mb / max(default.peak_mb, 1e-9):.2f}x"
    )
    print(
        f"load average (1/5/15 min): before {' '.join(f'{x:.2f}' for x in load_before)}, "
        f"after {' '.join(f'{x:.2f}' for x in load_after)}"
    )
    return 0 if all(r.rc in (0, 1) for r in results) else 1


# --------------------------------------------------------------------------- main


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: cores)")
    parser.add_argument("--repeat", type=int, default=1, help="take the best of N runs per case")
    parser.add_argument("--quick", action="store_true", help="skip the 4x-tree scaling cases")
    parser.add_argument("--libcst-runner", action="store_true", help="also time libcst.tool codemod rename (minutes)")
    parser.add_argument(
        "--fork-tree",
        action="store_true",
        help=f"only the fork-sized tree (benchmarks/fork_tree.py): default target and {FORK_TARGET_VERSION}, against their targets",
    )
    parser.add_argument("--seed", type=int, default=0, help="the fork-sized tree's seed (--fork-tree)")
    parser.add_argument("--_parse-all", dest="parse_all", metavar="DIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.parse_all:
        _parse_all(args.parse_all, args.jobs)
        return 0

    jobs = max(1, args.jobs)
    repeat = max(1, args.repeat)
    if args.fork_tree:
        return _fork_tree_main(jobs, repeat, args.seed)

    sys.path.insert(0, str(REPO_ROOT / "tests"))
    from sglang_corpus import OLD_VERSION, sglang_tree  # noqa: E402

    source = sglang_tree(OLD_VERSION) / "sglang"
    load_before = os.getloadavg()
    results: List[Measurement] = []
    work = Path(tempfile.mkdtemp(prefix="bench_rewrite_"))
    _ENV["MWBMIGRATE_CACHE_DIR"] = str(work / "cache")
    try:
        one = work / "x1" / "sglang"
        _copy_tree(source, one)
        n_files, n_affected = _count(one)
        affected_kb = _affected_kb(one)
        print(
            f"sglang {OLD_VERSION}: {n_files} .py files, {n_affected} match the prefilter ({affected_kb:.0f} KB); "
            f"jobs={jobs}, repeat={repeat}, cores={os.cpu_count()}",
            flush=True,
        )

        this = str(Path(__file__).resolve())
        m1_one = _measure("mwbmigrate x1 --no-cache (-j1)", _mwbmigrate_command(one, 1), repeat)
        m1 = (
            _measure(f"mwbmigrate x1 --no-cache (-j{jobs})", _mwbmigrate_command(one, jobs), repeat)
            if jobs > 1
            else m1_one
        )
        seq = _measure("parse-all, 1 process", [sys.executable, this, "--_parse-all", str(one), "--jobs", "1"], repeat)
        par = _measure(
            f"parse-all, {jobs} processes",
            [sys.executable, this, "--_parse-all", str(one), "--jobs", str(jobs)],
            repeat,
        )
        whole_env = {**_ENV, NO_ELISION_ENV: "1"}
        whole = _measure("mwbmigrate x1 whole modules (-j1)", _mwbmigrate_command(one, 1), repeat, env=whole_env)
        results += [m1_one, m1, whole, seq, par] if jobs > 1 else [m1_one, whole, seq, par]
        # Leaving bodies out must not change a byte of the diff.
        reduced_diff = subprocess.run(_mwbmigrate_command(one, jobs), env=_ENV, check=False, capture_output=True).stdout
        whole_diff = subprocess.run(
            _mwbmigrate_command(one, jobs), env=whole_env, check=False, capture_output=True
        ).stdout
        identical = "yes" if reduced_diff == whole_diff and reduced_diff else "NO"

        # --check on the migrated tree: its markers and comments still name the old API.
        migrated = work / "migrated" / "sglang"
        _copy_tree(source, migrated)
        subprocess.run(
            _mwbmigrate_command(migrated, jobs, "--allow-dirty", "--no-cache"),
            env=_ENV,
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        check_cold = _measure(
            f"--check migrated, --no-cache (-j{jobs})",
            _mwbmigrate_command(migrated, jobs, "--check", "--no-cache"),
            repeat,
        )
        warm_command = _mwbmigrate_command(migrated, jobs, "--check")
        check_warm = _measure(
            f"--check migrated, warm cache (-j{jobs})",
            warm_command,
            repeat,
            prepare=lambda: subprocess.run(
                warm_command, env=_ENV, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            ),
        )
        results += [check_cold, check_warm]

        m4 = m4_one = None
        if not args.quick:
            four = work / "x4"
            for i in range(4):
                _copy_tree(source, four / f"copy{i}" / "sglang")
            m4 = _measure("mwbmigrate x4 tree, x4 affected", _mwbmigrate_command(four, jobs), repeat)
            four_one = work / "x4one"
            _copy_tree(source, four_one / "copy0" / "sglang")
            for i in range(1, 4):
                _copy_tree(source, four_one / f"copy{i}" / "sglang", drop_affected=True)
            f4, a4 = _count(four_one)
            m4_one = _measure("mwbmigrate x4 tree, x1 affected", _mwbmigrate_command(four_one, jobs), repeat)
            m4_one.note = (m4_one.note + "; " if m4_one.note else "") + f"{f4} files, {a4} affected"
            results += [m4, m4_one]

        if args.libcst_runner:
            runner_root = work / "libcst"

            def fresh_copy() -> None:
                shutil.rmtree(runner_root, ignore_errors=True)
                _copy_tree(source, runner_root / "sglang")
                subprocess.run(
                    [sys.executable, "-m", "libcst.tool", "initialize", str(runner_root)],
                    check=True,
                    stdout=subprocess.DEVNULL,
                )

            command = [
                sys.executable,
                "-m",
                "libcst.tool",
                "codemod",
                "rename.RenameCommand",
                "--old_name",
                OLD_NAME,
                "--new_name",
                NEW_NAME,
                "-j",
                str(jobs),
                "--no-format",
                "--hide-progress",
                "sglang",
            ]
            results.append(
                _measure(f"libcst.tool codemod rename (-j{jobs})", command, repeat, cwd=runner_root, prepare=fresh_copy)
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()

    width = max(len(r.case) for r in results)
    print()
    print(f"{'case':<{width}}  {'wall s':>8}  {'cpu s':>8}  {'peak MB':>8}  {'tree MB':>8}  rc  note")
    for r in results:
        print(
            f"{r.case:<{width}}  {r.wall_s:>8.2f}  {r.cpu_s:>8.2f}  {r.peak_mb:>8.0f}  {r.tree_mb:>8.0f}  {r.rc:>2}  {r.note}"
        )
    print()

    def ratio(label: str, top: Measurement, bottom: Measurement, target: str) -> None:
        print(
            f"{label:<34} {top.wall_s / bottom.wall_s:7.2f}x wall  {top.cpu_s / max(bottom.cpu_s, 1e-9):7.2f}x cpu   {target}"
        )

    ratio("parse-all 1 process / mwbmigrate -j1", seq, m1_one, f"(target >= {TARGET_SPEEDUP:.0f}x)")
    if jobs > 1:
        ratio(f"parse-all {jobs} processes / mwbmigrate -j{jobs}", par, m1, "")
        ratio(f"mwbmigrate -j{jobs} / -j1", m1, m1_one, "(cpu ~1x: one file per task, largest first)")
    ratio("parse-all 1 process / --check cold", seq, check_cold, "")
    ratio(f"parse-all {jobs} processes / --check warm", par, check_warm, "")
    print(f"{'--check migrated, warm cache':<34} {check_warm.wall_s:7.2f} s wall  {check_warm.cpu_s:7.2f} s cpu")
    for label, run in (("cost per affected file (-j1)", m1_one), ("  same, whole modules (-j1)", whole)):
        print(
            f"{label:<34} {run.cpu_s / max(affected_kb / 100, 1e-9):7.2f} cpu s per 100 KB "
            f"of affected source ({affected_kb:.0f} KB in {n_affected} files)"
        )
    ratio("whole modules / bodies left out", whole, m1_one, "(engine/elision.py)")
    print(
        f"{'diff identical to whole modules':<34} {identical} ({len(reduced_diff)} bytes, {NO_ELISION_ENV}=1 for the other)"
    )
    if m4 is not None and m4_one is not None:
        ratio("x4 tree, x4 affected / x1 tree", m4, m1, "(cost tracks affected files: ~4x)")
        ratio("x4 tree, x1 affected / x1 tree", m4_one, m1, "(not the tree size: ~1x)")
    print(
        f"load average (1/5/15 min): before {' '.join(f'{x:.2f}' for x in load_before)}, "
        f"after {' '.join(f'{x:.2f}' for x in load_after)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
