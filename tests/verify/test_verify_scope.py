"""`verify --against` narrowed to what a fork is responsible for: `--baseline RELEASE` subtracts what
the release the fork is based on already mismatches; `--changed-since REV [--touched-statements]`
keeps what changed since a git revision.

Each test writes a miniature target release (2.0.0), the older release a fork is based on (1.0.0,
old signatures), and a fork that vendors 1.0.0's modules (moved by a few lines, one call repeated,
one function and one module of its own added), then asserts the exact mismatches.
"""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mwbmigrate.cli import app
from mwbmigrate.verify.against import Mismatch, check_against, check_baseline, narrow
from mwbmigrate.verify.release import Release
from mwbmigrate.verify.scope import ScopeUnavailable, changed_scope, identity, subtract_baseline

TARGET = {
    "sglang/__init__.py": "",
    "sglang/_version.py": "__version__ = '2.0.0'\n",
    "sglang/srt/managers/schedule_batch.py": """
        import dataclasses

        @dataclasses.dataclass
        class ScheduleBatch:
            reqs: list

            def filter_batch(self, chunked_req_to_exclude=None, keep_indices=None):
                pass
    """,
    "sglang/srt/managers/tp_worker.py": """
        class TpModelWorker:
            def forward_batch_generation(self, batch, forward_batch=None):
                return None
    """,
    "sglang/srt/managers/overlap.py": """
        class Overlap:
            def run(self, batch):
                return self.tp_worker.forward_batch_generation(batch, forward_batch=None)
    """,
    "sglang/srt/utils.py": """
        def helper(x, *, device):
            return x
    """,
}

BASELINE_SCHEDULER = """
    from sglang.srt.managers.schedule_batch import ScheduleBatch
    from sglang.srt.utils import helper


    class Scheduler:
        def step(self, batch: ScheduleBatch):
            batch.filter_batch(reqs_to_exclude=[])
            return batch.is_prefill_only

        def other(self):
            return helper(1)
"""

BASELINE = {
    "sglang/__init__.py": "",
    "sglang/_version.py": "__version__ = '1.0.0'\n",
    "sglang/srt/managers/schedule_batch.py": """
        import dataclasses

        @dataclasses.dataclass
        class ScheduleBatch:
            reqs: list
            is_prefill_only: bool = False

            def filter_batch(self, reqs_to_exclude=None):
                pass
    """,
    "sglang/srt/managers/tp_worker.py": """
        class TpModelWorker:
            def forward_batch_generation(self, model_worker_batch):
                return None
    """,
    "sglang/srt/managers/scheduler.py": BASELINE_SCHEDULER,
    "sglang/srt/utils.py": """
        def helper(x):
            return x
    """,
}

# The fork: 1.0.0's modules with lines added above (so every line moved), `helper(1)` twice where
# 1.0.0 has it once, a function of its own with 1.0.0's call in it, and a module of its own.
FORK = {
    **BASELINE,
    "sglang/srt/managers/tp_worker.py": """
        # The fork's copy of SGLang 1.0.0's worker.


        class TpModelWorker:
            def forward_batch_generation(self, model_worker_batch):
                return None
    """,
    "sglang/srt/managers/scheduler.py": """
        from sglang.srt.managers.schedule_batch import ScheduleBatch
        from sglang.srt.utils import helper

        FORK_FLAG = True


        class Scheduler:
            def step(self, batch: ScheduleBatch):
                batch.filter_batch(reqs_to_exclude=[])
                return batch.is_prefill_only

            def other(self):
                first = helper(1)
                return first, helper(1)

            def fork_only(self, batch: ScheduleBatch):
                batch.filter_batch(reqs_to_exclude=[])

            def retyped(self, batch: object):
                return batch.is_prefill_only
    """,
    "my_fork/__init__.py": "",
    "my_fork/plugin.py": """
        from sglang.srt.utils import helper

        def plugin():
            return helper(2)
    """,
}

SCHEDULER = "sglang/srt/managers/scheduler.py"
TP_WORKER = "sglang/srt/managers/tp_worker.py"
PLUGIN = "my_fork/plugin.py"
FILTER = "call: SGLang 2.0.0's ScheduleBatch.filter_batch(chunked_req_to_exclude=..., keep_indices=...) does not take the keyword `reqs_to_exclude`: `batch.filter_batch(...)`"
PREFILL = "attribute: `batch.is_prefill_only` reads an attribute that SGLang 2.0.0's ScheduleBatch does not define"
SIGNATURE = (
    "worker-signature: TpModelWorker.forward_batch_generation(model_worker_batch) does not take the keyword "
    "`forward_batch`, which SGLang 2.0.0 passes: `self.tp_worker.forward_batch_generation(batch, forward_batch=None)`; "
    "the release's TpModelWorker.forward_batch_generation(batch, forward_batch=...) "
    "(sglang/srt/managers/tp_worker.py:2) takes it"
)


def helper_call(argument: int) -> str:
    return f"call: SGLang 2.0.0's helper(x, *, device) requires `device`, which the tree does not pass: `helper({argument})`"


# Every mismatch of the fork (path relative to the fork, line, kind and message): 1.0.0's own four,
# moved, and the fork's three (the second `helper(1)`, `fork_only`, the plugin).
FORK_MISMATCHES = [
    (PLUGIN, 4, helper_call(2)),
    (SCHEDULER, 9, FILTER),
    (SCHEDULER, 10, PREFILL),
    (SCHEDULER, 13, helper_call(1)),
    (SCHEDULER, 14, helper_call(1)),
    (SCHEDULER, 17, FILTER),
    (TP_WORKER, 5, SIGNATURE),
]


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def git(root: Path, *arguments: str) -> str:
    completed = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *arguments],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return completed.stdout


@pytest.fixture
def target(tmp_path: Path) -> Release:
    return Release(write(tmp_path / "target", TARGET), "2.0.0")


@pytest.fixture
def baseline(tmp_path: Path) -> Release:
    return Release(write(tmp_path / "baseline", BASELINE), "1.0.0")


@pytest.fixture
def fork(tmp_path: Path) -> Path:
    return write(tmp_path / "fork", FORK)


def shown(mismatches: list[Mismatch], root: Path) -> list[tuple[str, int, str]]:
    """(path relative to `root`, line, "kind: message") of each mismatch, release site left out."""
    return [(Path(m.path).relative_to(root).as_posix(), m.line, f"{m.kind}: {m.message}") for m in mismatches]


def narrowed(fork: Path, target: Release, baseline: Release | None = None, **scope: object):
    report = check_against(fork, target)
    base = (baseline, check_baseline(baseline, target)) if baseline is not None else None
    changed = changed_scope(fork, str(scope["since"]), bool(scope.get("touched"))) if scope else None
    narrow(report, base, changed)
    return report


def test_without_a_baseline_every_mismatch_of_the_vendored_modules_counts(fork, target):
    assert shown(check_against(fork, target).mismatches, fork) == FORK_MISMATCHES


def test_the_baseline_release_s_own_mismatches_are_subtracted_whatever_their_lines(fork, target, baseline):
    # 1.0.0's own tree: four mismatches against 2.0.0, at other lines than in the fork.
    assert shown(check_baseline(baseline, target).mismatches, baseline.root) == [
        (SCHEDULER, 7, FILTER),
        (SCHEDULER, 8, PREFILL),
        (SCHEDULER, 11, helper_call(1)),
        (TP_WORKER, 2, SIGNATURE),
    ]
    report = narrowed(fork, target, baseline)
    # Left: the fork's own module, its own function, and one of the two `helper(1)` (1.0.0 has one).
    assert shown(report.mismatches, fork) == [
        (PLUGIN, 4, helper_call(2)),
        (SCHEDULER, 14, helper_call(1)),
        (SCHEDULER, 17, FILTER),
    ]
    assert [(Path(m.path).relative_to(fork).as_posix(), m.line) for m in report.baseline_subtracted] == [
        (SCHEDULER, 9),
        (SCHEDULER, 10),
        (SCHEDULER, 13),
        (TP_WORKER, 5),
    ]
    assert report.baseline == "1.0.0" and report.baseline_total == 4


def test_a_reworded_statement_is_still_the_baseline_s_a_new_failure_is_not(tmp_path, target, baseline):
    reworded = BASELINE_SCHEDULER.replace("helper(1)", "helper(1 + 0)").replace("batch:", "renamed:")
    reworded = reworded.replace("batch.", "renamed.").replace("reqs_to_exclude=[]", "reqs_to_exclude=[], keep=1")
    changed = write(tmp_path / "changed", {**BASELINE, SCHEDULER: reworded})
    report = narrowed(changed, target, baseline)
    # `helper(1 + 0)` fails as `helper(1)` did, `renamed.is_prefill_only` as `batch.is_prefill_only`;
    # the `keep` keyword is a new failure of the `filter_batch` call.
    assert shown(report.mismatches, changed) == [
        (
            SCHEDULER,
            7,
            "call: SGLang 2.0.0's ScheduleBatch.filter_batch(chunked_req_to_exclude=..., keep_indices=...) "
            "does not take the keywords `reqs_to_exclude`, `keep`: `renamed.filter_batch(...)`",
        )
    ]
    assert [m.line for m in report.baseline_subtracted] == [8, 11, 2]


def test_the_identity_has_no_line_no_path_above_the_package_and_no_wording_of_the_tree():
    def mismatch(path: str, line: int, text: str) -> Mismatch:
        message = f"X.f(a) does not take `b`: `{text}`"
        return Mismatch("call", path, line, "sglang/srt/x.py", 3, message, 0, "sglang.srt.m", "C.g", "X.f: keyword `b`")

    fork_side = mismatch("/fork/third_party/sglang/srt/m.py", 40, "f(a, b=batch)")
    base_side = mismatch("/cache/1.0.0/sglang/srt/m.py", 10, "f(a, b=model_worker_batch)")
    assert identity(fork_side) == identity(base_side)
    other_function = Mismatch(**{**fork_side.__dict__, "function": "C.h"})
    kept, subtracted = subtract_baseline([fork_side, other_function, fork_side], [base_side, base_side])
    assert kept == [other_function] and subtracted == [fork_side, fork_side]


# -- --changed-since ---------------------------------------------------------------------------------
@pytest.fixture
def migrated(fork: Path) -> Path:
    """The fork committed, then changed as a migration changes it: an override's parameter renamed,
    a call's arguments changed, a review marker above the first `helper(1)` and one at the end of the
    second's line, a parameter retyped as `ScheduleBatch` (its use unchanged), a new untracked module."""
    git(fork, "init", "-q")
    git(fork, "add", "-A")
    git(fork, "commit", "-qm", "fork")
    worker = fork / TP_WORKER
    worker.write_text(worker.read_text().replace("model_worker_batch", "batch"))
    scheduler = fork / SCHEDULER
    text = scheduler.read_text()
    text = text.replace(
        "    def fork_only(self, batch: ScheduleBatch):\n        batch.filter_batch(reqs_to_exclude=[])",
        "    def fork_only(self, batch: ScheduleBatch):\n        batch.filter_batch(\n            reqs_to_exclude=[1],\n        )",
    )
    text = text.replace(
        "        first = helper(1)",
        "        # mwbmigrate: MWB999 look here\n        #   and here\n        first = helper(1)",
    )
    text = text.replace("        return first, helper(1)", "        return first, helper(1)  # mwbmigrate: MWB999 here")
    text = text.replace("batch: object", "batch: ScheduleBatch")
    scheduler.write_text(text)
    write(fork, {"my_fork/new.py": "from sglang.srt.utils import helper\n\nhelper(3)\n"})
    return fork


NEW_SIGNATURE = SIGNATURE.replace("(model_worker_batch)", "(batch)")
FILTER_CHANGED = FILTER  # a batch method's call is shown by its name only


def test_changed_files_only(migrated, target):
    report = narrowed(migrated, target, since="HEAD")
    assert shown(report.mismatches, migrated) == [
        ("my_fork/new.py", 3, helper_call(3)),
        (SCHEDULER, 9, FILTER),
        (SCHEDULER, 10, PREFILL),
        (SCHEDULER, 15, helper_call(1)),
        (SCHEDULER, 16, helper_call(1)),
        (SCHEDULER, 19, FILTER_CHANGED),
        (SCHEDULER, 24, PREFILL),
        (TP_WORKER, 5, NEW_SIGNATURE),
    ]
    assert report.out_of_scope == 1  # the plugin, unchanged
    assert report.scope == "the files changed since HEAD (3 changed files)"


def test_touched_statements_only(migrated, target):
    report = narrowed(migrated, target, since="HEAD", touched=True)
    assert shown(report.mismatches, migrated) == [
        ("my_fork/new.py", 3, helper_call(3)),
        # Not the two `helper(1)`: review markers above the first and at the end of the second's line
        # are the migration's report, not a change of the statement.
        (SCHEDULER, 19, FILTER_CHANGED),  # a changed line inside the statement, not its first
        (SCHEDULER, 24, PREFILL),  # an unchanged use of a parameter retyped in its def's header
        (TP_WORKER, 5, NEW_SIGNATURE),  # the def's header
    ]
    assert report.out_of_scope == 5


def test_with_a_baseline_an_unchanged_copy_is_the_one_subtracted(migrated, target, baseline):
    # Without --changed-since the first `helper(1)` is the one subtracted; with it too, as neither
    # statement changed (markers are not changes), and the second is outside the changed statements.
    unscoped = narrowed(migrated, target, baseline)
    assert [line for _, line, text in shown(unscoped.mismatches, migrated) if text == helper_call(1)] == [16]
    report = narrowed(migrated, target, baseline, since="HEAD", touched=True)
    assert shown(report.mismatches, migrated) == [
        ("my_fork/new.py", 3, helper_call(3)),
        (SCHEDULER, 19, FILTER_CHANGED),
        (SCHEDULER, 24, PREFILL),
    ]
    # The override's parameter renamed: it fails as 1.0.0's does, so it is 1.0.0's.
    assert [(Path(m.path).name, m.line) for m in report.baseline_subtracted] == [
        ("scheduler.py", 9),
        ("scheduler.py", 10),
        ("scheduler.py", 15),
        ("tp_worker.py", 5),
    ]
    assert report.out_of_scope == 2  # the plugin, and the second `helper(1)`: only marked


def test_no_repository_and_no_revision_are_refused(tmp_path, fork, migrated):
    outside = write(tmp_path / "outside", {"a.py": ""})
    with pytest.raises(ScopeUnavailable, match="is not in a git repository"):
        changed_scope(outside, "HEAD", False)
    with pytest.raises(ScopeUnavailable, match="no such revision in the git repository"):
        changed_scope(migrated, "no-such-branch", False)
    with pytest.raises(ScopeUnavailable, match="not a revision"):
        changed_scope(migrated, "--all", False)


# -- the command line ----------------------------------------------------------------------------
def test_the_command_line(migrated, target, baseline, tmp_path):
    runner = CliRunner()
    command = ["verify", str(migrated), "--against", str(target.root)]
    result = runner.invoke(app, [*command, "--baseline", str(baseline.root)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[-1] == (
        "not counted: 4 that the baseline 1.0.0's own tree has too (it has 4 mismatches against 2.0.0; "
        "matched by kind, module, function and reason, not by line; `--format json` lists them)"
    )
    assert lines[-2].startswith("5 mismatches (1 attribute, 4 call); checked")

    result = runner.invoke(
        app, [*command, "--baseline", str(baseline.root), "--changed-since", "HEAD", "--touched-statements"]
    )
    assert result.exit_code == 1
    assert (
        result.output.splitlines()[-1] == "not counted: 2 outside the statements changed since HEAD (3 changed files)"
    )

    result = runner.invoke(app, [*command, "--changed-since", "HEAD", "--touched-statements", "--format", "json"])
    document = json.loads(result.output)
    assert document["scope"] == {"checked": "the statements changed since HEAD (3 changed files)", "left_out": 5}
    assert document["baseline"] is None and len(document["mismatches"]) == 4

    git(migrated, "commit", "-qam", "migrated")
    git(migrated, "add", "my_fork/new.py")
    git(migrated, "commit", "-qm", "new")
    result = runner.invoke(app, [*command, "--changed-since", "HEAD"])
    assert result.exit_code == 0 and "0 mismatches" in result.output

    outside = write(tmp_path / "outside", {"a.py": ""})
    refused = [
        ([*command, "--touched-statements"], "--touched-statements needs --changed-since REV"),
        (["verify", str(migrated), "--baseline", "1.0.0"], "--baseline needs --against RELEASE"),
        ([*command, "--baseline", str(tmp_path / "nowhere")], "error: --baseline"),
        ([*command, "--changed-since", "no-such-branch"], "no such revision"),
        (["verify", str(outside), "--against", str(target.root), "--changed-since", "HEAD"], "not in a git repository"),
    ]
    for arguments, message in refused:
        result = runner.invoke(app, arguments)
        assert result.exit_code == 2 and message in result.output, (arguments, result.output)
