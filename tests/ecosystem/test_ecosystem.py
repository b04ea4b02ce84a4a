"""pre-commit hook definition, `[tool.mwbmigrate]` configuration, stdin mode."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import yaml
from typer.testing import CliRunner

from mwbmigrate.cli import app

REPO = Path(__file__).resolve().parents[2]
OLD_MODULE = (
    "from sglang.srt.managers.schedule_batch import ModelWorkerBatch\n"
    "\n"
    "\n"
    "def run(model_worker_batch: ModelWorkerBatch):\n"
    "    return model_worker_batch.seq_lens\n"
)


def test_pre_commit_hook_definition_is_valid_and_runs(tmp_path):
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert isinstance(hooks, list) and hooks
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["language"] == "python"
        command = shlex.split(hook["entry"])
        assert command[0] == "mwbmigrate"
        # pre-commit appends the staged file names to the entry.
        target = tmp_path / "worker.py"
        target.write_text(OLD_MODULE)
        result = CliRunner().invoke(app, [*command[1:], str(target)])
        assert result.exit_code == 1, result.output
        assert target.read_text() == OLD_MODULE
        clean = tmp_path / "clean.py"
        clean.write_text("x = 1\n")
        assert CliRunner().invoke(app, [*command[1:], str(clean)]).exit_code == 0


def _tree(tmp_path: Path, config: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "keep").mkdir()
    (tmp_path / "skip").mkdir()
    (tmp_path / "keep" / "a.py").write_text(OLD_MODULE)
    (tmp_path / "skip" / "b.py").write_text(OLD_MODULE)
    return tmp_path


def test_config_exclude_applies_and_flags_override(tmp_path):
    root = _tree(tmp_path, '[tool.mwbmigrate]\nexclude = ["skip/"]\nmarkers = false\n')
    result = CliRunner().invoke(app, ["rewrite", str(root), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "ScheduleBatch" in (root / "keep" / "a.py").read_text()
    assert "# mwbmigrate:" not in (root / "keep" / "a.py").read_text()
    assert (root / "skip" / "b.py").read_text() == OLD_MODULE
    result = CliRunner().invoke(app, ["rewrite", str(root), "--no-progress", "--exclude", "keep/"])
    assert result.exit_code == 0, result.output
    assert "ScheduleBatch" in (root / "skip" / "b.py").read_text()


def test_config_disables_a_codemod(tmp_path):
    root = _tree(tmp_path, '[tool.mwbmigrate]\nignore = ["parameter-renames"]\n')
    result = CliRunner().invoke(app, ["rewrite", str(root / "keep"), "--no-progress"])
    assert result.exit_code == 0, result.output
    text = (root / "keep" / "a.py").read_text()
    assert "def run(model_worker_batch: ScheduleBatch):" in text
    # class-removal needs parameter-renames, so it is turned off too, and the run says so.
    assert "also not run, because they need an ignored codemod: MWB009 (class-removal)" in result.output


def test_bad_config_is_a_usage_error(tmp_path):
    root = _tree(tmp_path, '[tool.mwbmigrate]\njobs = "many"\n')
    result = CliRunner().invoke(app, ["rewrite", str(root), "--no-progress"])
    assert result.exit_code == 2
    assert "jobs must be a positive integer" in result.output
    assert (root / "keep" / "a.py").read_text() == OLD_MODULE


def test_stdin_mode_writes_the_result_to_stdout():
    completed = subprocess.run(
        [sys.executable, "-m", "mwbmigrate", "rewrite", "-", "--no-markers"],
        input=OLD_MODULE,
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == (
        "from sglang.srt.managers.schedule_batch import ScheduleBatch\n"
        "\n"
        "\n"
        "def run(batch: ScheduleBatch):\n"
        "    return batch.seq_lens\n"
    )


def test_stdin_mode_failure_prints_nothing_on_stdout():
    completed = subprocess.run(
        [sys.executable, "-m", "mwbmigrate", "rewrite", "-"],
        input="def f(model_worker_batch:\n",
        capture_output=True,
        text=True,
    )
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert "does not parse" in completed.stderr
