"""Work-tree safety and file discovery: the dirty-tree guard, `.gitignore`, skipped folders, include/exclude."""

from __future__ import annotations

import json

import pytest

CHANGED = {"my_fork/custom_worker.py", "my_fork/hardware_backend.py", "my_fork/spec_plugin.py"}
ALL_EXAMPLE_FILES = CHANGED | {"my_fork/__init__.py", "my_fork/sampling_utils.py"}


def _changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def _listed(kit, *args) -> tuple[int, set[str]]:
    """Exit code and the paths the JSON report lists."""
    result = kit.invoke("rewrite", *args, "--format", "json")
    return result.exit_code, {f["path"] for f in json.loads(result.stdout)["files"]}


# --- the dirty-tree guard -------------------------------------------------------------------------


def test_dirty_tree_refusal_names_the_files_and_writes_nothing_then_allow_dirty_rewrites(kit):
    repo = kit.repo()
    worker = repo / "my_fork" / "custom_worker.py"
    worker.write_bytes(worker.read_bytes() + b"\n# local experiment, not committed\n")
    plugin_copy = repo / "my_fork" / "new_plugin.py"  # untracked
    plugin_copy.write_bytes((repo / "my_fork" / "spec_plugin.py").read_bytes())
    before = kit.snapshot(repo)

    refused = kit.invoke("rewrite", repo)
    assert refused.exit_code == 2
    stderr = kit.flat(refused.stderr)
    assert "my_fork/custom_worker.py" in stderr and "my_fork/new_plugin.py" in stderr, refused.stderr
    assert "hardware_backend.py" not in stderr and "spec_plugin.py" not in stderr  # clean files are not named
    assert "--allow-dirty" in stderr
    assert kit.snapshot(repo) == before, "a refused run wrote something"

    allowed = kit.invoke("rewrite", repo, "--allow-dirty")
    assert allowed.exit_code == 0, allowed.stderr
    after = kit.snapshot(repo)
    assert _changed(before, after) == CHANGED | {"my_fork/new_plugin.py"}
    assert after["my_fork/custom_worker.py"].endswith(b"\n# local experiment, not committed\n")
    assert b"model_worker_batch" not in kit.strip_markers(after["my_fork/new_plugin.py"])


def test_staged_but_uncommitted_change_is_dirty(kit):
    repo = kit.repo()
    worker = repo / "my_fork" / "hardware_backend.py"
    worker.write_bytes(worker.read_bytes() + b"\n# staged\n")
    kit.git(repo, "add", "my_fork/hardware_backend.py")
    before = kit.snapshot(repo)
    result = kit.invoke("rewrite", repo)
    assert result.exit_code == 2
    assert "hardware_backend.py" in kit.flat(result.stderr)
    assert kit.snapshot(repo) == before


def test_dirty_file_that_needs_no_change_does_not_block(kit):
    repo = kit.repo()
    untouched = repo / "my_fork" / "sampling_utils.py"
    untouched.write_bytes(untouched.read_bytes() + b"\n# work in progress\n")
    (repo / "notes.py").write_bytes(b"TODO = 1\n")  # untracked, no old API
    before = kit.snapshot(repo)
    result = kit.invoke("rewrite", repo)
    assert result.exit_code == 0, result.stderr
    assert _changed(before, kit.snapshot(repo)) == CHANGED


@pytest.mark.parametrize("mode, code", [("--dry-run", 0), ("--check", 1)])
def test_dry_run_and_check_work_in_a_dirty_tree_and_write_nothing(kit, mode, code):
    repo = kit.repo()
    worker = repo / "my_fork" / "custom_worker.py"
    worker.write_bytes(worker.read_bytes() + b"\n# dirty\n")
    before = kit.snapshot(repo)
    result = kit.invoke("rewrite", repo, mode)
    assert result.exit_code == code, result.stderr
    assert kit.snapshot(repo) == before


def test_files_outside_a_git_work_tree_are_rewritten_without_allow_dirty(kit):
    for parent in [kit.tmp_path, *kit.tmp_path.parents]:
        if (parent / ".git").exists():
            pytest.skip(f"{parent} is a git work tree")
    tree = kit.tree()
    before = kit.snapshot(tree)
    result = kit.invoke("rewrite", tree)
    assert result.exit_code == 0, result.stderr
    assert _changed(before, kit.snapshot(tree)) == CHANGED


def test_gitignored_file_named_explicitly_is_refused_without_allow_dirty(kit):
    plugin = (kit.examples / "my_fork" / "spec_plugin.py").read_bytes()
    repo = kit.repo(files={".gitignore": b"scratch/\n", "scratch/plugin_copy.py": plugin})
    result = kit.invoke("rewrite", repo / "scratch" / "plugin_copy.py")
    assert (repo / "scratch" / "plugin_copy.py").read_bytes() == plugin
    assert result.exit_code == 2


# --- discovery -----------------------------------------------------------------------------------


def test_gitignored_files_virtualenvs_and_build_folders_are_not_touched(kit):
    plugin = (kit.examples / "my_fork" / "spec_plugin.py").read_bytes()
    hidden = {
        ".venv/lib/python3.12/site-packages/vendored/plugin.py": plugin,
        "venv/lib/plugin.py": plugin,
        "custom-env/lib/plugin.py": plugin,  # a virtualenv recognised by its pyvenv.cfg
        "build/lib/my_fork/spec_plugin.py": plugin,
        "dist/plugin.py": plugin,
        "my_fork/__pycache__/plugin.py": plugin,
        "generated/plugin.py": plugin,  # ignored by the top-level .gitignore (folder rule)
        "my_fork/gen_plugin.py": plugin,  # ignored by a nested .gitignore
        "my_fork/scratch_local.py": plugin,  # ignored by the top-level .gitignore (glob rule)
    }
    extra = {
        "custom-env/pyvenv.cfg": b"home = /usr/bin\n",
        ".gitignore": b"generated/\n*_local.py\n",
        "my_fork/.gitignore": b"gen_*.py\n",
    }
    repo = kit.repo(files={**hidden, **extra})
    before = kit.snapshot(repo)

    code, listed = _listed(kit, repo)
    assert code == 0
    assert listed == ALL_EXAMPLE_FILES
    after = kit.snapshot(repo)
    assert _changed(before, after) == CHANGED
    for name in hidden:
        assert after[name] == plugin, name


INCLUDE_EXCLUDE = [
    pytest.param(["--include", "custom_*.py"], {"my_fork/custom_worker.py"}, id="include-glob"),
    pytest.param(
        ["--include", "custom_worker.py", "--include", "spec_plugin.py"],
        {"my_fork/custom_worker.py", "my_fork/spec_plugin.py"},
        id="include-repeated",
    ),
    pytest.param(["--exclude", "spec_plugin.py"], ALL_EXAMPLE_FILES - {"my_fork/spec_plugin.py"}, id="exclude-name"),
    pytest.param(
        ["--include", "my_fork/", "--exclude", "hardware_*.py"],
        ALL_EXAMPLE_FILES - {"my_fork/hardware_backend.py"},
        id="include-folder-exclude-glob",
    ),
    pytest.param(["--exclude", "my_fork/"], set(), id="exclude-folder"),
]


@pytest.mark.parametrize("flags, expected", INCLUDE_EXCLUDE)
def test_include_and_exclude_select_the_files(kit, flags, expected):
    repo = kit.repo()
    before = kit.snapshot(repo)
    code, listed = _listed(kit, repo, *flags)
    assert code == 0
    assert listed == expected
    assert _changed(before, kit.snapshot(repo)) == expected & CHANGED
