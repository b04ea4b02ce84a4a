"""Shared helpers for the CLI tests, exposed as the `kit` fixture (test modules never import this file).

Every test works on copies in `tmp_path`: the `examples/fork` tree, put into a fresh git repository
with a hermetic git configuration (no user or system config, fixed author), so that the dirty-tree
guard and `git apply` behave the same on every machine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mwbmigrate.cli import app

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_FORK = REPO_ROOT / "examples" / "fork"

# Variables that would make git act on another repository, or rich pretend to be on a terminal.
_SCRUBBED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_CEILING_DIRECTORIES",
    "GIT_CONFIG",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "FORCE_COLOR",
    "NO_COLOR",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "COLUMNS",
    "LINES",
)
_GIT_SETTINGS = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "mwbmigrate tests",
    "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "mwbmigrate tests",
    "GIT_COMMITTER_EMAIL": "tests@example.invalid",
}

_MARKER = re.compile(rb"[ \t]*# mwbmigrate: MWB\d+[^\r\n]*")
# A marker too long for its line stands above its statement, wrapped: `#   ` continues it.
_MARKER_ABOVE = re.compile(rb"(?m)^[ \t]*# mwbmigrate: MWB\d+[^\r\n]*\r?\n(?:[ \t]*#   [^\r\n]*\r?\n)*")


class CliKit:
    """Run the CLI (in a subprocess or in-process) and build/inspect temporary trees."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.examples = EXAMPLES_FORK

    # --- running the tool -------------------------------------------------------------------
    def run(self, *args: str | os.PathLike, cwd: Path | None = None) -> subprocess.CompletedProcess:
        """`python -m mwbmigrate ARGS` in a subprocess; stdout/stderr are raw bytes."""
        return subprocess.run(
            [sys.executable, "-m", "mwbmigrate", *map(os.fspath, args)],
            cwd=cwd or self.tmp_path,
            capture_output=True,
            timeout=300,
        )

    def invoke(self, *args: str | os.PathLike):
        """The typer app in-process (fast); `.stdout` / `.stderr` are text."""
        return CliRunner().invoke(app, [os.fspath(a) for a in args], catch_exceptions=False)

    # --- git --------------------------------------------------------------------------------
    def git(self, cwd: Path, *args: str, check: bool = True, stdin: bytes | None = None) -> subprocess.CompletedProcess:
        if shutil.which("git") is None:
            pytest.skip("needs the git binary")
        completed = subprocess.run(["git", *args], cwd=cwd, capture_output=True, input=stdin)
        if check and completed.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed:\n{completed.stderr.decode(errors='replace')}")
        return completed

    def repo(
        self, name: str = "repo", *, examples: bool = True, files: dict[str, bytes] | None = None, commit: bool = True
    ) -> Path:
        """A fresh git work tree under tmp_path holding a copy of examples/fork (and `files`), committed."""
        root = self.tmp_path / name
        if examples:
            shutil.copytree(self.examples, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        root.mkdir(parents=True, exist_ok=True)
        self.write(root, files or {})
        self.git(root, "init", "-q")
        self.git(root, "config", "core.autocrlf", "false")
        self.git(root, "config", "commit.gpgsign", "false")
        if commit:
            self.commit(root)
        return root

    def commit(self, root: Path, message: str = "snapshot") -> None:
        self.git(root, "add", "-A")
        self.git(root, "commit", "-q", "--allow-empty", "-m", message)

    def tree(self, name: str = "plain", *, files: dict[str, bytes] | None = None) -> Path:
        """A copy of examples/fork (plus `files`) outside any git work tree."""
        root = self.tmp_path / name
        shutil.copytree(self.examples, root, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        self.write(root, files or {})
        return root

    # --- files ------------------------------------------------------------------------------
    @staticmethod
    def write(root: Path, files: dict[str, bytes]) -> None:
        for relative, data in files.items():
            target = root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)

    @staticmethod
    def snapshot(root: Path) -> dict[str, bytes]:
        """Every regular file under root (outside .git) -> its bytes."""
        result = {}
        for path in sorted(root.rglob("*")):
            relative = path.relative_to(root)
            if relative.parts[0] == ".git" or path.is_symlink() or not path.is_file():
                continue
            result[relative.as_posix()] = path.read_bytes()
        return result

    @staticmethod
    def strip_markers(data: bytes) -> bytes:
        """The code without the `# mwbmigrate: MWB1xx ...` review markers the tool appends to lines."""
        return _MARKER.sub(b"", _MARKER_ABOVE.sub(b"", data))

    @staticmethod
    def flat(text: str | bytes) -> str:
        """Text with all whitespace removed: rich hard-wraps stderr (see the xfail in test_cli_commands),
        so look messages up as `kit.flat(needle) in kit.flat(stderr)`."""
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        return "".join(text.split())


@pytest.fixture(autouse=True)
def _hermetic_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in _SCRUBBED:
        monkeypatch.delenv(name, raising=False)
    for name, value in _GIT_SETTINGS.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def kit(tmp_path: Path) -> CliKit:
    return CliKit(tmp_path)
