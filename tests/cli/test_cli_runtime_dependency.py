"""A migrated package declares `mwbmigrate-runtime` once its rewritten files import `mwbmigrate.runtime`.

The tree: a pyproject.toml and a tiny `sglang` package whose `ForwardBatch.init_new` core-runtime
rewrites to call `forward_batch_view` (imported from `mwbmigrate.runtime`), in a fresh git repository.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FORWARD_BATCH_INFO = "sglang/srt/model_executor/forward_batch_info.py"
PYPROJECT_BEFORE = '[project]\nname = "my-fork"\nversion = "1.0"\ndependencies = [\n    "torch",\n]\n'
PYPROJECT_AFTER = '[project]\nname = "my-fork"\nversion = "1.0"\ndependencies = [\n    "torch",\n    "mwbmigrate-runtime>=0.1.0",\n]\n'
FLAGS = ("--no-contract-check", "--no-cache", "--no-progress")


def _package(kit, pyproject: str = PYPROJECT_BEFORE) -> Path:
    files = {
        "pyproject.toml": pyproject.encode(),
        "sglang/__init__.py": b"",
        FORWARD_BATCH_INFO: (FIXTURES / "core-runtime" / "init_new_view" / "before.py").read_bytes(),
    }
    return kit.repo(examples=False, files=files)


def test_rewrite_declares_the_runtime_in_every_mode(kit) -> None:
    root = _package(kit)

    dry = kit.run("rewrite", ".", "--dry-run", *FLAGS, cwd=root)
    assert dry.returncode == 0, dry.stderr
    patch = dry.stdout.decode()
    assert "diff --git a/pyproject.toml b/pyproject.toml\n" in patch
    assert '+    "mwbmigrate-runtime>=0.1.0",\n' in patch
    assert kit.flat("mwbmigrate-runtime>=0.1.0 would be added to pyproject.toml") in kit.flat(dry.stderr)
    kit.git(root, "apply", "--check", stdin=dry.stdout)

    check = kit.run("rewrite", ".", "--check", "--format", "json", *FLAGS, cwd=root)
    assert check.returncode == 1
    dependency = json.loads(check.stdout)["runtime_dependency"]
    assert dependency["status"] == "added"
    assert (dependency["path"], dependency["importers"]) == ("pyproject.toml", [FORWARD_BATCH_INFO])
    assert dependency["diff"] in patch

    wrote = kit.run("rewrite", ".", *FLAGS, cwd=root)
    assert wrote.returncode == 0, wrote.stderr
    assert (root / "pyproject.toml").read_text() == PYPROJECT_AFTER
    assert kit.flat("mwbmigrate-runtime>=0.1.0 added to pyproject.toml") in kit.flat(wrote.stderr)


def test_an_applied_patch_matches_the_write(kit) -> None:
    root = _package(kit)
    dry = kit.run("rewrite", ".", "--dry-run", *FLAGS, cwd=root)
    kit.git(root, "apply", stdin=dry.stdout)
    assert (root / "pyproject.toml").read_text() == PYPROJECT_AFTER
    # Nothing left to do: the declaration is there, and the module is migrated.
    again = kit.run("rewrite", ".", "--check", "--format", "json", *FLAGS, cwd=root)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["runtime_dependency"] is None


def test_a_dirty_declaration_is_guarded_like_a_rewritten_file(kit) -> None:
    root = _package(kit)
    (root / "pyproject.toml").write_text(PYPROJECT_BEFORE + "# local edit\n")
    refused = kit.run("rewrite", ".", *FLAGS, cwd=root)
    assert refused.returncode == 2
    assert kit.flat("uncommitted changes") in kit.flat(refused.stderr)
    assert (root / "pyproject.toml").read_text() == PYPROJECT_BEFORE + "# local edit\n"


def test_dynamic_dependencies_are_advice_not_an_edit(kit) -> None:
    root = _package(kit, '[project]\nname = "my-fork"\nversion = "1.0"\ndynamic = ["dependencies"]\n')
    result = kit.run("rewrite", ".", "--format", "json", *FLAGS, cwd=root)
    assert result.returncode == 0, result.stderr
    dependency = json.loads(result.stdout)["runtime_dependency"]
    assert (dependency["status"], dependency["path"], dependency["diff"]) == ("manual", "pyproject.toml", None)
    assert "dynamic" in dependency["advice"] and "not declared" in dependency["line"]
    assert "dynamic" in (root / "pyproject.toml").read_text()
    assert kit.git(root, "status", "--porcelain", "pyproject.toml").stdout == b""


def test_vendored_runtime_needs_no_declaration(kit) -> None:
    root = _package(kit)
    result = kit.run("rewrite", ".", "--runtime", "vendor", "--format", "json", *FLAGS, cwd=root)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["runtime_dependency"] is None
    assert (root / "pyproject.toml").read_text() == PYPROJECT_BEFORE


def test_stdin_reports_the_declaration_but_writes_only_the_module(kit) -> None:
    root = _package(kit)
    module = (root / FORWARD_BATCH_INFO).read_bytes()

    def run_stdin(*flags: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "mwbmigrate",
                "rewrite",
                "-",
                "--stdin-filename",
                FORWARD_BATCH_INFO,
                *flags,
                *FLAGS,
            ],
            cwd=root,
            input=module,
            capture_output=True,
            timeout=300,
        )

    dry = run_stdin("--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert '+    "mwbmigrate-runtime>=0.1.0",\n' in dry.stdout.decode()
    written = run_stdin()
    assert written.returncode == 0, written.stderr
    assert b"forward_batch_view" in written.stdout
    assert kit.flat("not declared: add mwbmigrate-runtime>=0.1.0 to pyproject.toml") in kit.flat(written.stderr)
    assert (root / "pyproject.toml").read_text() == PYPROJECT_BEFORE
