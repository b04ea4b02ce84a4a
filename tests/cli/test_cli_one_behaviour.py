"""Issue 13: one behaviour on every path in. Discovery (folders named `*.py`, ignore and exclude rules
first, symbolic links), several roots outside git, `--markers/--no-markers`, prerequisites between
codemods and unknown codes. The stdin matrix is test_cli_stdin_parity.py."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from mwbmigrate.codemods import ALL_CODEMODS, codemod_by_key
from mwbmigrate.review import REVIEW_CODES
from mwbmigrate.rules import PREREQUISITES

OLD = textwrap.dedent(
    """\
    from sglang.srt.managers.schedule_batch import ModelWorkerBatch


    def forward(model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.seq_lens
    """
).encode()
PLAIN = b"def untouched():\n    return 1\n"


def _symlink(link, target) -> None:
    try:
        os.symlink(target, link)
    except (OSError, NotImplementedError):
        pytest.skip("cannot create symlinks here")


def _statuses(result) -> dict[str, dict]:
    return {f["path"]: f for f in json.loads(result.stdout)["files"]}


# --- item 2: discovery -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rule",
    ["exclude-flag", "exclude-config", "gitignore"],
)
def test_an_excluded_or_ignored_folder_named_py_is_neither_an_error_nor_scanned(kit, rule):
    files = {"pkg/gen.py/inner.py": OLD, "pkg/ok.py": OLD}
    flags: list[str] = []
    if rule == "exclude-flag":
        flags = ["--exclude", "pkg/gen.py/"]
    elif rule == "exclude-config":
        files["pyproject.toml"] = b'[tool.mwbmigrate]\nexclude = ["gen.py/"]\n'
    else:
        files[".gitignore"] = b"gen.py/\n"
    repo = kit.repo(examples=False, files=files)
    result = kit.invoke("rewrite", repo, "--dry-run", "--format", "json", *flags)
    assert result.exit_code == 0, result.stderr
    assert set(_statuses(result)) == {"pkg/ok.py"}


def test_a_folder_named_py_is_walked(kit):
    repo = kit.repo(examples=False, files={"pkg/gen.py/inner.py": OLD})
    result = kit.invoke("rewrite", repo, "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert _statuses(result)["pkg/gen.py/inner.py"]["status"] == "changed"
    assert b"ScheduleBatch" in (repo / "pkg" / "gen.py" / "inner.py").read_bytes()


def test_an_explicitly_named_symlink_without_the_old_api_is_fine(kit):
    repo = kit.repo(examples=False, files={"pkg/real.py": PLAIN})
    _symlink(repo / "pkg" / "alias.py", "real.py")
    kit.commit(repo)
    result = kit.invoke("rewrite", repo / "pkg" / "alias.py", "--check")
    assert result.exit_code == 0, result.stderr
    assert kit.flat(
        "skipped pkg/alias.py: symbolic link; not followed (its target does not use the old API)"
    ) in kit.flat(result.stderr)


@pytest.mark.parametrize("named", [False, True], ids=["walked", "named"])
def test_a_symlink_to_old_api_code_is_reported_skipped_and_never_written_through(kit, named):
    repo = kit.repo(examples=False, files={"pkg/plain.py": PLAIN})
    outside = kit.tmp_path / "outside"
    outside.mkdir()
    (outside / "vendored.py").write_bytes(OLD)
    _symlink(repo / "pkg" / "vendored.py", outside / "vendored.py")
    _symlink(repo / "pkg" / "linked_dir", outside)
    kit.commit(repo)
    target = repo / "pkg" / "vendored.py" if named else repo
    result = kit.invoke("rewrite", target, "--format", "json")
    assert result.exit_code == 0, result.stderr
    files = _statuses(result)
    assert files["pkg/vendored.py"]["status"] == "skipped"
    assert files["pkg/vendored.py"]["note"] == (
        f"symbolic link; not followed: its target {outside / 'vendored.py'} uses the old API, rewrite it there"
    )
    if not named:
        assert files["pkg/linked_dir"]["note"] == "symbolic link to a folder; not followed"
    assert (repo / "pkg" / "vendored.py").is_symlink()
    assert (outside / "vendored.py").read_bytes() == OLD


def test_a_symlink_is_never_written_through_even_when_a_result_names_it(tmp_path):
    from mwbmigrate.engine.apply import write_result
    from mwbmigrate.result import FileResult, FileStatus

    (tmp_path / "real.py").write_bytes(OLD)
    _symlink(tmp_path / "alias.py", "real.py")
    result = FileResult(
        str(tmp_path / "alias.py"), "alias.py", FileStatus.CHANGED, original=OLD.decode(), rewritten="x = 1\n"
    )
    assert write_result(result) == "is a symbolic link; not written through"
    assert (tmp_path / "real.py").read_bytes() == OLD and (tmp_path / "alias.py").is_symlink()


# --- item 3: several roots outside git ------------------------------------------------------------------


def test_several_roots_outside_git_print_unambiguous_paths_that_apply_from_their_ancestor(kit):
    top = kit.tmp_path / "top"
    for name in ("a", "b"):
        kit.write(top / name, {"mod.py": OLD})
    copy = kit.tmp_path / "copy"
    kit.write(copy, {"a/mod.py": OLD, "b/mod.py": OLD})
    dry = kit.run("rewrite", top / "a", top / "b", "--dry-run", "--no-progress")
    assert dry.returncode == 0, dry.stderr
    headers = [line for line in dry.stdout.decode().splitlines() if line.startswith("diff --git")]
    assert headers == ["diff --git a/a/mod.py b/a/mod.py", "diff --git a/b/mod.py b/b/mod.py"]
    kit.git(copy, "apply", "-", stdin=dry.stdout)
    assert kit.invoke("rewrite", top / "a", top / "b").exit_code == 0
    assert kit.snapshot(copy) == kit.snapshot(top)


# --- item 4: markers, prerequisites, unknown codes ------------------------------------------------------


def test_markers_flag_turns_configured_markers_back_on(kit):
    repo = kit.repo(
        examples=False, files={"pkg/mod.py": OLD, "pyproject.toml": b"[tool.mwbmigrate]\nmarkers = false\n"}
    )
    off = kit.invoke("rewrite", repo, "--dry-run")
    assert "# mwbmigrate: MWB113" not in off.stdout and "MWB113" in off.stderr
    hazards = kit.invoke("rewrite", repo, "--dry-run", "--markers", "hazards")
    assert "# mwbmigrate: MWB113" not in hazards.stdout and "MWB113" in hazards.stderr  # a note: reported only
    on = kit.invoke("rewrite", repo, "--dry-run", "--markers", "all")
    assert "# mwbmigrate: MWB113" in on.stdout
    assert "# mwbmigrate:" not in kit.invoke("rewrite", repo, "--dry-run", "--markers", "all", "--no-markers").stdout


@pytest.mark.parametrize(
    "flags, also_off",
    [
        (["--ignore", "MWB001"], "MWB002 (class-references)"),
        (["--ignore", "imports"], "MWB002 (class-references)"),
        (["--ignore", "keyword-callers"], "MWB004 (parameter-renames)"),
        (["--ignore", "semantic-review"], "MWB005 (worker-batch-calls)"),
    ],
    ids=["ignore-imports-code", "ignore-imports-name", "ignore-keyword-callers", "ignore-semantic-review"],
)
def test_ignoring_a_prerequisite_turns_off_what_needs_it(kit, flags, also_off):
    repo = kit.repo(examples=False, files={"pkg/mod.py": OLD})
    result = kit.invoke("rewrite", repo, *flags, "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert kit.flat("also not run, because they need an ignored codemod") in kit.flat(result.stderr)
    assert kit.flat(also_off) in kit.flat(result.stderr)


def test_ignoring_imports_leaves_no_unimported_name(kit):
    repo = kit.repo(examples=False, files={"pkg/mod.py": OLD})
    assert kit.invoke("rewrite", repo, "--ignore", "imports").exit_code == 0
    source = (repo / "pkg" / "mod.py").read_text()
    compile(source, "mod.py", "exec")
    # class-references is off with imports: no annotation names a class the module does not import.
    named = {n for n in ("ScheduleBatch", "ModelWorkerBatch") if n in source}
    imported = {
        n for n in named if any(line.startswith(("from ", "import ")) and n in line for line in source.splitlines())
    }
    assert named and named == imported, source


def test_selecting_without_a_prerequisite_is_refused(kit):
    repo = kit.repo(examples=False, files={"pkg/mod.py": OLD})
    result = kit.invoke("rewrite", repo, "--select", "class-references")
    assert result.exit_code == 2
    needed = "MWB002 (class-references) needs MWB001 (imports), MWB010 (semantic-review), MWB011 (wild-shapes)"
    assert kit.flat(needed) in kit.flat(result.stderr)
    assert (repo / "pkg" / "mod.py").read_bytes() == OLD


def test_a_configured_ignore_cascades_too(kit):
    repo = kit.repo(
        examples=False, files={"pkg/mod.py": OLD, "pyproject.toml": b'[tool.mwbmigrate]\nignore = ["imports"]\n'}
    )
    result = kit.invoke("rewrite", repo)
    assert result.exit_code == 0 and kit.flat("MWB002 (class-references)") in kit.flat(result.stderr)


@pytest.mark.parametrize(
    "flags",
    [
        ["--select", "req-pool-mirror"],
        ["--select", "docstrings"],
        ["--ignore", "docstrings"],
        ["--ignore", "class-references", "--ignore", "class-removal", "--ignore", "imports"],
    ],
    ids=["req-pool-mirror-alone", "docstrings-alone", "without-docstrings", "imports-with-its-dependents"],
)
def test_sound_selections_still_run(kit, flags):
    repo = kit.repo(examples=False, files={"pkg/mod.py": OLD})
    assert kit.invoke("rewrite", repo, "--dry-run", *flags).exit_code == 0


def test_prerequisites_name_registered_codemods_only():
    codes = {c.CODE for c in ALL_CODEMODS}
    assert set(PREREQUISITES) <= codes
    assert all(set(needed) <= codes for needed in PREREQUISITES.values())
    assert all(codemod_by_key(code) is not None for code in PREREQUISITES)


@pytest.mark.parametrize("flag", ["--select", "--ignore"])
@pytest.mark.parametrize("code", ["MWB199", "MWB999", "no-such-codemod"])
def test_unknown_code_is_refused_with_the_valid_ones(kit, flag, code):
    repo = kit.repo(examples=False, files={"pkg/mod.py": OLD})
    result = kit.invoke("rewrite", repo, flag, code)
    assert result.exit_code == 2
    stderr = kit.flat(result.stderr)
    assert kit.flat(f"unknown codemod or review code '{code}'") in stderr
    assert kit.flat("MWB001 (imports)") in stderr and "MWB101" in stderr and "MWB140" in stderr
    assert (repo / "pkg" / "mod.py").read_bytes() == OLD


def test_known_review_codes_are_accepted(kit):
    repo = kit.repo(examples=False, files={"pkg/mod.py": OLD})
    for code in ("MWB101", "MWB113", "MWB140", *sorted(REVIEW_CODES)[-1:]):
        assert kit.invoke("rewrite", repo, "--dry-run", "--ignore", code).exit_code == 0, code
    assert "MWB199" not in REVIEW_CODES
