"""`rewrite --format-changed auto|black|ruff|none`: only what the rewrite changed is formatted, and
every output (the dry-run patch, --check, the in-place write, stdin's module, the report) carries
the same formatted text.

Tests whose stdout bytes matter (patches, stdin's module) run the tool in a subprocess; the rest
use typer's CliRunner in-process, where a formatter can be made unavailable with monkeypatch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mwbmigrate.engine import formatting

MODULE = b"""\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch

untouched = {  "a":1 }


def _run(worker, model_worker_batch: ModelWorkerBatch):
    result = worker.forward_batch_generation(model_worker_batch,
                                             "greedy")
    return result
"""
# The rewrite alone: the call keeps the layout it had, now misaligned.
RAW = b"""\
from sglang.srt.managers.schedule_batch import ScheduleBatch

untouched = {  "a":1 }


def _run(worker, batch: ScheduleBatch):
    result = worker.forward_batch_generation(batch,
                                             "greedy")
    return result
"""
# With black (or ruff, whose defaults agree here): the changed call joined; `untouched` as it was.
FORMATTED = b"""\
from sglang.srt.managers.schedule_batch import ScheduleBatch

untouched = {  "a":1 }


def _run(worker, batch: ScheduleBatch):
    result = worker.forward_batch_generation(batch, "greedy")
    return result
"""
# One line each: a patch's context lines for blank lines are a single space.
FORMATTED_PATCH = b"".join(
    line + b"\n"
    for line in [
        b"diff --git a/pkg/mod.py b/pkg/mod.py",
        b"--- a/pkg/mod.py",
        b"+++ b/pkg/mod.py",
        b"@@ -1,9 +1,8 @@",
        b"-from sglang.srt.managers.schedule_batch import ModelWorkerBatch",
        b"+from sglang.srt.managers.schedule_batch import ScheduleBatch",
        b" ",
        b' untouched = {  "a":1 }',
        b" ",
        b" ",
        b"-def _run(worker, model_worker_batch: ModelWorkerBatch):",
        b"-    result = worker.forward_batch_generation(model_worker_batch,",
        b'-                                             "greedy")',
        b"+def _run(worker, batch: ScheduleBatch):",
        b'+    result = worker.forward_batch_generation(batch, "greedy")',
        b"     return result",
    ]
)
# ruff with the repository's `quote-style = "single"`: tells ruff's output from black's.
FORMATTED_SINGLE_QUOTES = FORMATTED.replace(b'(batch, "greedy")', b"(batch, 'greedy')")

# Two review items: a note (MWB113, in the report only) and a hazard whose marker is too long for
# its line, so it stands above the statement; black joins the statements the rewrite changed.
MARKED = b"""\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch


def run(worker, model_worker_batch: ModelWorkerBatch):
    model_worker_batch.seq_lens = worker.lens(model_worker_batch,
                                              0)
    return worker.forward_batch_generation(model_worker_batch,
                                           "greedy")
"""
MWB106 = "# mwbmigrate: MWB106 write to `seq_lens` now mutates the scheduler's ScheduleBatch"
MARKED_FORMATTED = f"""\
from sglang.srt.managers.schedule_batch import ScheduleBatch


def run(worker, batch: ScheduleBatch):
    {MWB106}
    #   (it hit a throw-away copy before)
    batch.seq_lens = worker.lens(batch, 0)
    return worker.forward_batch_generation(batch, "greedy")
""".encode()


def _run(*args: str | os.PathLike[str], cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "mwbmigrate", "rewrite", *map(os.fspath, args), "--no-progress"],
        cwd=cwd,
        capture_output=True,
        input=stdin,
        timeout=300,
    )


def _plain(kit, files: dict[str, bytes], name: str = "tree") -> Path:
    """A tree outside git (in-place writes allowed) holding `files`."""
    root = kit.tmp_path / name
    kit.write(root, files)
    return root


# --- (a) the dry-run patch is the in-place write --------------------------------------------------


def test_dry_run_patch_applies_to_the_in_place_result(kit) -> None:
    root = kit.repo(examples=False, files={"pkg/mod.py": MODULE})
    dry = _run("pkg", "--dry-run", "--format-changed", "black", cwd=root)
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout == FORMATTED_PATCH
    kit.git(root, "apply", "-", stdin=dry.stdout)
    assert (root / "pkg" / "mod.py").read_bytes() == FORMATTED

    kit.git(root, "checkout", "--", ".")
    written = _run("pkg", "--format-changed", "black", cwd=root)
    assert written.returncode == 0, written.stderr
    assert written.stdout == b""
    assert (root / "pkg" / "mod.py").read_bytes() == FORMATTED


def test_none_leaves_the_rewrite_as_it_is_and_the_default_formats_as_the_tree_does(kit) -> None:
    root = _plain(kit, {"pkg/mod.py": MODULE, "pyproject.toml": b"[tool.black]\n"}, name="none")
    assert kit.invoke("rewrite", root, "--no-progress", "--format-changed", "none").exit_code == 0
    assert (root / "pkg" / "mod.py").read_bytes() == RAW
    # No flag: `auto`, the formatter the tree configures.
    root = _plain(kit, {"pkg/mod.py": MODULE, "pyproject.toml": b"[tool.black]\n"}, name="default")
    assert kit.invoke("rewrite", root, "--no-progress").exit_code == 0
    assert (root / "pkg" / "mod.py").read_bytes() == FORMATTED
    # A tree that configures no formatter gets the rewrite as it is.
    root = _plain(kit, {"pkg/mod.py": MODULE}, name="unconfigured")
    assert kit.invoke("rewrite", root, "--no-progress").exit_code == 0
    assert (root / "pkg" / "mod.py").read_bytes() == RAW


def _unformatted(kit, files: dict[str, bytes], *flags: str) -> dict[str, bytes]:
    """What the rewrite alone writes (`--format-changed none`), in a tree of its own."""
    root = _plain(kit, files, name="unformatted")
    assert kit.invoke("rewrite", root, "--no-progress", "--format-changed", "none", *flags).exit_code == 0
    return {name: (root / name).read_bytes() for name in files}


def test_review_items_point_at_their_markers_after_formatting(kit) -> None:
    root = _plain(kit, {"pkg/marked.py": MARKED})
    result = kit.invoke("rewrite", root, "--format-changed", "black", "--format", "json", "--no-progress")
    assert result.exit_code == 0, result.stderr
    assert (root / "pkg" / "marked.py").read_bytes() == MARKED_FORMATTED
    (entry,) = json.loads(result.stdout)["files"]
    assert [(i["code"], i["line"], i["column"]) for i in entry["review_items"]] == [("MWB113", 4, 1), ("MWB106", 7, 5)]
    lines = MARKED_FORMATTED.decode().splitlines()
    assert lines[5 - 1].strip() == MWB106 and lines[7 - 1].startswith("    batch.seq_lens = ")


def test_without_markers_review_items_follow_their_statements(kit) -> None:
    root = _plain(kit, {"pkg/marked.py": MARKED})
    result = kit.invoke(
        "rewrite", root, "--format-changed", "black", "--no-markers", "--format", "json", "--no-progress"
    )
    assert result.exit_code == 0, result.stderr
    assert (root / "pkg" / "marked.py").read_bytes() == (
        b"from sglang.srt.managers.schedule_batch import ScheduleBatch\n\n\n"
        b"def run(worker, batch: ScheduleBatch):\n"
        b"    batch.seq_lens = worker.lens(batch, 0)\n"  # MWB106: line 6 of the rewrite, 5 now
        b'    return worker.forward_batch_generation(batch, "greedy")\n'
    )
    (entry,) = json.loads(result.stdout)["files"]
    assert [(i["code"], i["line"], i["column"]) for i in entry["review_items"]] == [("MWB113", 4, 1), ("MWB106", 5, 5)]


def test_without_markers_a_statement_the_formatter_splits_is_left_unformatted(kit) -> None:
    source = MARKED.replace(b"    model_worker_batch.seq_lens", b"    x = 1; model_worker_batch.seq_lens")
    root = _plain(kit, {"pkg/marked.py": source})
    result = kit.invoke("rewrite", root, "--format-changed", "black", "--no-markers", "--no-progress")
    assert result.exit_code == 0
    # A formatter never costs a migration: the file is migrated, as the rewrite wrote it.
    assert (root / "pkg" / "marked.py").read_bytes() == _unformatted(kit, {"pkg/marked.py": source}, "--no-markers")[
        "pkg/marked.py"
    ]
    assert kit.flat(
        "not formatted pkg/marked.py: black changed the statement of line 6, where MWB106 is reported, "
        "beyond recognition; the rewrite stands as written"
    ) in kit.flat(result.stderr)


# --- (b) lines the rewrite did not change stay as they were ------------------------------------------


def test_untouched_lines_stay_byte_identical(kit) -> None:
    # Black would rewrite each of these lines; the rewrite changes none of them.
    ugly = b"\r\n\r\nx = [  1,2 ]\r\ny = {  'b' : 2 }\r\n"
    source = MODULE.replace(b"\n", b"\r\n") + ugly + b"z = (  3 )"  # CRLF, no final newline
    root = _plain(kit, {"pkg/mod.py": source})
    result = kit.invoke("rewrite", root, "--format-changed", "black", "--no-progress")
    assert result.exit_code == 0, result.stderr
    assert (root / "pkg" / "mod.py").read_bytes() == FORMATTED.replace(b"\n", b"\r\n") + ugly + b"z = (  3 )"


def test_mixed_newlines_are_left_unformatted(kit) -> None:
    source = MODULE.replace(b'untouched = {  "a":1 }\n', b'untouched = {  "a":1 }\r\n')
    root = _plain(kit, {"pkg/mod.py": source})
    result = kit.invoke("rewrite", root, "--format-changed", "black", "--no-progress")
    assert result.exit_code == 0
    assert (root / "pkg" / "mod.py").read_bytes() == RAW.replace(
        b'untouched = {  "a":1 }\n', b'untouched = {  "a":1 }\r\n'
    )
    assert kit.flat(
        "not formatted pkg/mod.py: mixed line endings (CRLF and LF); the rewrite stands as written"
    ) in kit.flat(result.stderr)


def test_a_formatter_touching_an_untouched_line_leaves_the_rewrite_as_written(
    kit, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As black does in a file that was not black-clean before: the file is still migrated.
    def everything(text: str, ranges: list[tuple[int, int]], settings: dict[str, object]) -> str:
        return text.replace('{  "a":1 }', '{"a": 1}')

    monkeypatch.setattr(formatting, "_format_with_black", everything)
    root = _plain(kit, {"pkg/mod.py": MODULE})
    result = kit.invoke("rewrite", root, "--format-changed", "black", "--no-progress", "--format", "json")
    assert result.exit_code == 0
    assert (root / "pkg" / "mod.py").read_bytes() == RAW
    (entry,) = json.loads(result.stdout)["files"]
    assert entry["unformatted"] == "black changed line 3, which the rewrite did not change"


def test_a_formatter_failure_leaves_only_that_file_unformatted(kit, monkeypatch: pytest.MonkeyPatch) -> None:
    real = formatting._format_with_black

    def fails_on_marked(text: str, ranges: list[tuple[int, int]], settings: dict[str, object]) -> str:
        if "seq_lens" in text:
            raise formatting.FormattingFailed("black could not format the rewritten text: Cannot parse: 5:4:\n  x")
        return real(text, ranges, settings)

    monkeypatch.setattr(formatting, "_format_with_black", fails_on_marked)
    root = _plain(kit, {"pkg/mod.py": MODULE, "pkg/marked.py": MARKED})
    result = kit.invoke("rewrite", root, "--format-changed", "black", "--no-progress")
    assert result.exit_code == 0
    assert (root / "pkg" / "marked.py").read_bytes() == _unformatted(kit, {"pkg/marked.py": MARKED})["pkg/marked.py"]
    assert (root / "pkg" / "mod.py").read_bytes() == FORMATTED
    assert kit.flat(
        "not formatted pkg/marked.py: black could not format the rewritten text: Cannot parse: 5:4: x; "
        "the rewrite stands as written"
    ) in kit.flat(result.stderr)


# --- (c) auto: the formatter the repository configures -----------------------------------------------


BLACK_HOOK = b"repos:\n- repo: https://github.com/psf/black\n  rev: 24.1.0\n  hooks:\n  - id: black\n"
RUFF_HOOK = (
    b"repos:\n- repo: https://github.com/astral-sh/ruff-pre-commit\n  rev: v0.6.0\n  hooks:\n  - id: ruff-format\n"
)
SINGLE_QUOTES = b'[format]\nquote-style = "single"\n'


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({}, RAW),
        ({"pyproject.toml": b"[tool.black]\n"}, FORMATTED),
        ({"pyproject.toml": b'[tool.ruff.format]\nquote-style = "single"\n'}, FORMATTED_SINGLE_QUOTES),
        ({"pyproject.toml": b"[tool.ruff]\nline-length = 100\n"}, RAW),  # ruff lints; nothing says it formats
        ({".pre-commit-config.yaml": BLACK_HOOK}, FORMATTED),
        ({".pre-commit-config.yaml": RUFF_HOOK, "ruff.toml": SINGLE_QUOTES}, FORMATTED_SINGLE_QUOTES),
    ],
    ids=["nothing", "tool-black", "tool-ruff-format", "ruff-lint-only", "black-hook", "ruff-format-hook"],
)
def test_auto_uses_the_formatter_the_repository_configures(kit, files: dict[str, bytes], expected: bytes) -> None:
    root = kit.repo(examples=False, files={"pkg/mod.py": MODULE, **files})
    result = kit.invoke("rewrite", root, "--format-changed", "auto", "--no-progress")
    assert result.exit_code == 0, result.stderr
    assert (root / "pkg" / "mod.py").read_bytes() == expected


def test_auto_finds_a_monorepos_hook_at_the_work_tree_root(kit) -> None:
    # SGLang's layout: python/pyproject.toml, .pre-commit-config.yaml at the root.
    root = kit.repo(
        examples=False,
        files={
            "python/pyproject.toml": b"[project]\nname = 'x'\n",
            "python/pkg/mod.py": MODULE,
            ".pre-commit-config.yaml": BLACK_HOOK,
        },
    )
    result = kit.invoke("rewrite", root / "python" / "pkg", "--format-changed", "auto", "--no-progress")
    assert result.exit_code == 0, result.stderr
    assert (root / "python" / "pkg" / "mod.py").read_bytes() == FORMATTED


def test_configuration_key_and_flag_override(kit) -> None:
    config = b'[tool.mwbmigrate]\nformat-changed = "black"\n'
    root = _plain(kit, {"pkg/mod.py": MODULE, "pyproject.toml": config})
    dry = kit.invoke("rewrite", root, "--check", "--no-progress", "--format", "json")
    assert json.loads(dry.stdout)["files"][0]["diff"] == FORMATTED_PATCH.decode()
    assert kit.invoke("rewrite", root, "--format-changed", "none", "--no-progress").exit_code == 0
    assert (root / "pkg" / "mod.py").read_bytes() == RAW


def test_a_bad_configured_value_is_one_line_and_exit_2(kit) -> None:
    root = _plain(kit, {"pkg/mod.py": MODULE, "pyproject.toml": b'[tool.mwbmigrate]\nformat-changed = "yapf"\n'})
    result = kit.invoke("rewrite", root, "--no-progress")
    assert result.exit_code == 2
    assert result.stderr == (
        f'error: {root / "pyproject.toml"}: [tool.mwbmigrate] format-changed must be one of "auto", "black", "ruff", '
        '"none"\n'
    )
    assert (root / "pkg" / "mod.py").read_bytes() == MODULE


def test_a_bad_flag_value_is_refused(kit) -> None:
    root = _plain(kit, {"pkg/mod.py": MODULE})
    result = kit.invoke("rewrite", root, "--format-changed", "yapf")
    assert result.exit_code == 2
    assert kit.flat("'yapf' is not one of 'auto', 'black', 'ruff', 'none'") in kit.flat(result.stderr).replace("│", "")


# --- (d) a formatter that is not installed ---------------------------------------------------------


def _without_ruff(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No ruff beside the interpreter and none on PATH (an empty folder)."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setattr(sys, "executable", str(empty / "python"))
    monkeypatch.setenv("PATH", str(empty))


@pytest.mark.parametrize(
    ("flag", "config", "message"),
    [
        (
            "black",
            b"",
            "error: --format-changed black: black is not installed: pip install 'mwbmigrate[black]' (or black)\n",
        ),
        (
            "ruff",
            b"",
            "error: --format-changed ruff: ruff is not installed: pip install 'mwbmigrate[ruff]' (or ruff)\n",
        ),
    ],
)
def test_a_missing_formatter_is_one_line_and_exit_2(
    kit,
    monkeypatch: pytest.MonkeyPatch,
    flag: str,
    config: bytes,
    message: str,
) -> None:
    monkeypatch.setitem(sys.modules, "black", None)  # `import black` raises ImportError
    _without_ruff(monkeypatch, kit.tmp_path)
    root = _plain(kit, {"pkg/mod.py": MODULE, "pyproject.toml": config})
    result = kit.invoke("rewrite", root, "--format-changed", flag, "--no-progress")
    assert result.exit_code == 2
    assert result.stderr == message
    assert result.stdout == ""
    assert (root / "pkg" / "mod.py").read_bytes() == MODULE


def test_auto_needs_nothing_installed_when_nothing_is_configured(kit, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "black", None)
    _without_ruff(monkeypatch, kit.tmp_path)
    root = _plain(kit, {"pkg/mod.py": MODULE})
    assert kit.invoke("rewrite", root, "--format-changed", "auto", "--no-progress").exit_code == 0
    assert (root / "pkg" / "mod.py").read_bytes() == RAW


# --- (e) --check reports what the write would change -----------------------------------------------


def test_check_reports_the_files_the_write_changes(kit) -> None:
    files = {
        "pkg/mod.py": MODULE,
        "pkg/marked.py": MARKED,
        "pkg/clean.py": b"def run(batch):\n    return  batch\n",
    }
    root = kit.repo(examples=False, files=files)
    check = _run("pkg", "--check", "--format-changed", "black", "--format", "json", cwd=root)
    assert check.returncode == 1, check.stderr
    report = json.loads(check.stdout)
    would_change = sorted(f["path"] for f in report["files"] if f["status"] == "changed")
    assert would_change == ["pkg/marked.py", "pkg/mod.py"]
    assert {f["path"]: f["diff"] for f in report["files"] if f["diff"]} == {
        "pkg/marked.py": _run("pkg/marked.py", "--dry-run", "--format-changed", "black", cwd=root).stdout.decode(),
        "pkg/mod.py": FORMATTED_PATCH.decode(),
    }

    written = _run("pkg", "--format-changed", "black", cwd=root)
    assert written.returncode == 0, written.stderr
    changed = kit.git(root, "status", "--porcelain").stdout.decode().split()
    assert sorted(changed[1::2]) == would_change
    assert (root / "pkg" / "marked.py").read_bytes() == MARKED_FORMATTED
    assert _run("pkg", "--check", "--format-changed", "black", cwd=root).returncode == 0


# --- (f) stdin prints what the in-place write writes ----------------------------------------------


@pytest.mark.parametrize(
    "name, source, expected", [("mod.py", MODULE, FORMATTED), ("marked.py", MARKED, MARKED_FORMATTED)]
)
def test_stdin_prints_the_in_place_result(kit, name: str, source: bytes, expected: bytes) -> None:
    root = _plain(kit, {f"pkg/{name}": source})
    stdin = _run("-", "--stdin-filename", f"pkg/{name}", "--format-changed", "black", cwd=root, stdin=source)
    assert stdin.returncode == 0, stdin.stderr
    written = _run(f"pkg/{name}", "--format-changed", "black", cwd=root)
    assert written.returncode == 0, written.stderr
    assert stdin.stdout == (root / "pkg" / name).read_bytes() == expected
    # The same summary and review items on stderr, for the same display path.
    assert stdin.stderr == written.stderr


# --- (d) the default run passes the tree's own black and isort ------------------------------------------

BLACK_AND_ISORT = b"""\
[tool.black]
line-length = 120

[tool.isort]
profile = "black"
line_length = 120
"""
# Black- and isort-clean at 120 columns; the rewrite keeps a snapshot (the runner is picked per call),
# so it adds an import, and renames a parameter that shortens a call black had split.
CLEAN = b"""\
# Copyright the fork's authors.
import os

# SGLang's modules
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


def run(batch, runner):
    model_worker_batch = batch.get_model_worker_batch()
    forward_batch = ForwardBatch.init_new(model_worker_batch, runner.pick(os.environ.get("RUNNER", "default")))
    return forward_batch


def step(worker, model_worker_batch: ModelWorkerBatch, sampling_options_for_this_step, extra_options_for_this_step):
    return worker.forward_batch_generation(
        model_worker_batch, sampling_options_for_this_step, extra_options_for_this_step, "greedy", "x"
    )
"""
# Not black-clean (a line black would reformat, which the rewrite does not touch): still migrated.
UNCLEAN = b"""\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch

untouched = {  "a":1 }


def step(worker, model_worker_batch: ModelWorkerBatch):
    return worker.forward_batch_generation(model_worker_batch)
"""


def test_a_default_run_passes_the_trees_black_and_isort(kit) -> None:
    import black
    import isort

    root = _plain(kit, {"pkg/clean.py": CLEAN, "pkg/unclean.py": UNCLEAN, "pyproject.toml": BLACK_AND_ISORT})
    mode = black.Mode(line_length=120)
    config = isort.Config(settings_path=str(root))
    assert black.format_str(CLEAN.decode(), mode=mode) == CLEAN.decode()
    assert isort.check_code(CLEAN.decode(), config=config) and isort.check_code(UNCLEAN.decode(), config=config)
    result = kit.invoke("rewrite", root, "--no-progress")
    assert result.exit_code == 0, result.stderr
    clean = (root / "pkg" / "clean.py").read_text()
    assert "worker_batch_snapshot(batch)" in clean and "model_worker_batch" not in clean
    assert black.format_str(clean, mode=mode) == clean
    assert isort.check_code(clean, config=config)
    unclean = (root / "pkg" / "unclean.py").read_text()
    assert unclean == UNCLEAN.decode().replace("ModelWorkerBatch", "ScheduleBatch").replace(
        "model_worker_batch", "batch"
    )
    assert isort.check_code(unclean, config=config)
