"""The command surface: `list-codemods`, `--help` via `python -m`, usage errors, missing paths, stderr layout."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mwbmigrate.codemods as codemods_package
from mwbmigrate.codemods.base import MigrationCodemod


def _defined_codemods() -> list[type[MigrationCodemod]]:
    """Every concrete codemod class defined anywhere in `mwbmigrate.codemods`, registered or not."""
    found = []
    # walk_packages: a codemod may live in a subpackage (wild_shapes/codemod.py).
    for info in pkgutil.walk_packages(codemods_package.__path__, prefix=f"{codemods_package.__name__}."):
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if (
                inspect.isclass(obj)
                and issubclass(obj, MigrationCodemod)
                and obj.__module__ == module.__name__
                and "CODE" in vars(obj)
            ):
                found.append(obj)
    return found


def test_list_codemods_lists_every_codemod_once(kit):
    result = kit.run("list-codemods")
    assert result.returncode == 0, result.stderr.decode()
    lines = result.stdout.decode().splitlines()
    listed = [re.match(r"(MWB\d{3})\s+(\S+)\s+\S", line) for line in lines]
    assert all(listed), lines
    codes = [match.group(1) for match in listed]
    assert len(codes) == len(set(codes)), "a code is listed twice"

    defined = _defined_codemods()
    assert len(defined) >= 9
    assert {match.group(1): match.group(2) for match in listed} == {c.CODE: c.NAME for c in defined}


def test_python_m_help_documents_the_commands_and_exit_codes(kit):
    result = kit.run("--help")
    assert result.returncode == 0, result.stderr.decode()
    text = " ".join(result.stdout.decode().split())
    for command in ("rewrite", "list-codemods"):
        assert command in text
    assert re.search(r"\b0\b[^.;]*success", text), text
    assert re.search(r"\b1\b[^.;]*--check", text), text
    assert re.search(r"\b2\b[^.;]*(usage|could not be processed)", text), text


def test_rewrite_help_lists_every_option(kit):
    result = kit.run("rewrite", "--help")
    assert result.returncode == 0
    text = result.stdout.decode()
    for option in (
        "--dry-run",
        "--check",
        "--jobs",
        "--include",
        "--exclude",
        "--format",
        "--allow-dirty",
        "--no-progress",
        "--no-markers",
        "--select",
        "--ignore",
    ):
        assert option in text, option


def test_console_script_and_module_agree(kit):
    script = Path(sys.executable).with_name("mwbmigrate")
    if not script.exists():
        script = shutil.which("mwbmigrate")
        if script is None:
            pytest.skip("console script not installed")
    via_script = subprocess.run([str(script), "list-codemods"], capture_output=True)
    assert via_script.returncode == 0
    assert via_script.stdout == kit.run("list-codemods").stdout


def test_nonexistent_path_exits_2_with_a_clear_message(kit):
    result = kit.run("rewrite", kit.tmp_path / "no_such_folder")
    assert result.returncode == 2
    stderr = kit.flat(result.stderr)
    assert "no_such_folder" in stderr and kit.flat("no such file") in stderr.lower(), stderr
    assert "Traceback" not in stderr
    assert result.stdout == b""


def test_nonexistent_path_next_to_a_real_one_still_exits_2(kit):
    repo = kit.repo()
    result = kit.invoke("rewrite", repo, repo / "typo_fork", "--format", "json")
    assert result.exit_code == 2
    assert "typo_fork" in kit.flat(result.stderr)


@pytest.mark.parametrize(
    "flags",
    [
        pytest.param(["--format", "yaml"], id="unknown-format"),
        pytest.param(["--jobs", "0"], id="zero-jobs"),
        pytest.param(["--select", "MWB999"], id="unknown-codemod"),
        pytest.param(["--ignore", "no-such-codemod"], id="unknown-ignore"),
        pytest.param(["--no-such-flag"], id="unknown-flag"),
    ],
)
def test_usage_errors_exit_2_without_a_traceback_and_write_nothing(kit, flags):
    repo = kit.repo()
    before = kit.snapshot(repo)
    result = kit.invoke("rewrite", repo, *flags)
    assert result.exit_code == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert kit.snapshot(repo) == before


def test_select_runs_only_the_chosen_codemod(kit):
    repo = kit.repo()
    result = kit.invoke("rewrite", repo, "--dry-run", "--format", "json", "--select", "MWB003")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    changed = [f for f in document["files"] if f["status"] == "changed"]
    assert [f["path"] for f in changed] == ["my_fork/custom_worker.py"]  # only it has the data-flow docstring
    assert changed[0]["codemods"] == ["MWB003"]


def test_failure_reason_is_one_line_on_stderr(kit):
    broken = b"from sglang.srt.managers.schedule_batch import ModelWorkerBatch\n\ndef f(:\n    pass\n"
    repo = kit.repo(files={"my_fork/backends/experimental/broken_kernel_launcher.py": broken})
    report = json.loads(kit.invoke("rewrite", repo, "--dry-run", "--format", "json").stdout)
    error = next(f["error"] for f in report["files"] if f["status"] == "failed")
    result = kit.run("rewrite", repo, "--dry-run")
    line = f"my_fork/backends/experimental/broken_kernel_launcher.py: {error}"
    assert any(line in text for text in result.stderr.decode().splitlines()), result.stderr.decode()


def test_directory_named_py_is_walked_like_any_folder(kit):
    repo = kit.repo(
        files={
            "my_fork/odd.py/inner.py": b"from sglang.srt.managers.schedule_batch import ModelWorkerBatch\n"
            b"x: ModelWorkerBatch\n"
        }
    )
    result = kit.invoke("rewrite", repo, "--dry-run", "--format", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert {f["path"]: f["status"] for f in document["files"]}["my_fork/odd.py/inner.py"] == "changed"
    assert not [f for f in document["files"] if f["status"] == "failed"]
    assert document["summary"]["parsed"] <= document["summary"]["scanned"]
