"""`mwbmigrate rewrite` end to end: dry-run diffs, --check, unprocessable files, idempotence, encodings, modes.

Tests whose stdout bytes matter (diffs) run the tool in a subprocess; the rest use typer's CliRunner.
"""

from __future__ import annotations

import codecs
import json
import os
import stat
import sys

import pytest

IMPORT = b"from sglang.srt.managers.schedule_batch import ModelWorkerBatch"

CRLF_SOURCE = (
    IMPORT + b"\r\n\r\n\r\n"
    b"def tokens(model_worker_batch: ModelWorkerBatch):\r\n"
    b"    return model_worker_batch.extend_seq_lens\r\n"
)
CRLF_EXPECTED = (
    b"from sglang.srt.managers.schedule_batch import ScheduleBatch\r\n\r\n\r\n"
    b"def tokens(batch: ScheduleBatch):\r\n"
    b"    return batch.extend_lens\r\n"
)
BOM_BODY = IMPORT + b"\n\n\ndef run(model_worker_batch: ModelWorkerBatch):\n    return model_worker_batch\n"
BOM_SOURCE = codecs.BOM_UTF8 + BOM_BODY
BOM_EXPECTED = codecs.BOM_UTF8 + (
    b"from sglang.srt.managers.schedule_batch import ScheduleBatch\n\n\n"
    b"def run(batch: ScheduleBatch):\n    return batch\n"
)
LATIN1_SOURCE = (
    b"# -*- coding: latin-1 -*-\n"
    b'"""Backend for the caf\xe9 accelerator (na\xefve port)."""\n' + IMPORT + b"\n\n\n"
    b"def label(model_worker_batch: ModelWorkerBatch):\n"
    b'    return "\xe9t\xe9", model_worker_batch\n'
)
LATIN1_EXPECTED = (
    b"# -*- coding: latin-1 -*-\n"
    b'"""Backend for the caf\xe9 accelerator (na\xefve port)."""\n'
    b"from sglang.srt.managers.schedule_batch import ScheduleBatch\n\n\n"
    b"def label(batch: ScheduleBatch):\n"
    b'    return "\xe9t\xe9", batch\n'
)
NO_FINAL_NEWLINE_SOURCE = (
    IMPORT + b"\n\n\ndef last(model_worker_batch: ModelWorkerBatch):\n    return model_worker_batch"
)
CR_ONLY_SOURCE = IMPORT + b"\r\r\rdef run(model_worker_batch: ModelWorkerBatch):\r    return model_worker_batch\r"

SYNTAX_ERROR_SOURCE = IMPORT + b"\n\n\ndef broken(model_worker_batch: ModelWorkerBatch:\n    pass\n"
NOT_UTF8_SOURCE = IMPORT + b'\n\nGREETING = "Gr\xfc\xdfe"  # latin-1 bytes, no coding declaration\n'

EXAMPLE_FILES = {
    "my_fork/__init__.py",
    "my_fork/custom_worker.py",
    "my_fork/hardware_backend.py",
    "my_fork/sampling_utils.py",
    "my_fork/spec_plugin.py",
}
EXAMPLES_CHANGED = {"my_fork/custom_worker.py", "my_fork/hardware_backend.py", "my_fork/spec_plugin.py"}
EXAMPLES_UNTOUCHED = EXAMPLE_FILES - EXAMPLES_CHANGED


def _changed(before: dict[str, bytes], after: dict[str, bytes]) -> set[str]:
    assert before.keys() == after.keys(), "files appeared or disappeared"
    return {name for name in before if before[name] != after[name]}


# --- dry-run diff == in-place result ----------------------------------------------------------


@pytest.mark.parametrize("target", [".", "my_fork"], ids=["repo-root", "subfolder"])
def test_dry_run_diff_applied_with_git_apply_equals_in_place_result(kit, target):
    extras = {
        "extras/crlf_worker.py": CRLF_SOURCE,
        "extras/latin1_backend.py": LATIN1_SOURCE,
        "extras/no_final_newline.py": NO_FINAL_NEWLINE_SOURCE,
    }
    patched = kit.repo("patched", files=extras)
    written = kit.repo("written", files=extras)
    before = kit.snapshot(patched)

    dry = kit.run("rewrite", target, "--dry-run", "--no-progress", cwd=patched)
    assert dry.returncode == 0, dry.stderr.decode()
    assert dry.stdout.startswith(b"diff --git a/"), dry.stdout[:200]
    assert kit.snapshot(patched) == before, "--dry-run wrote to disk"

    patch = kit.tmp_path / "rewrite.patch"
    patch.write_bytes(dry.stdout)
    kit.git(patched, "apply", "--check", os.fspath(patch))
    kit.git(patched, "apply", os.fspath(patch))

    wrote = kit.run("rewrite", target, "--no-progress", cwd=written)
    assert wrote.returncode == 0, wrote.stderr.decode()
    in_place = kit.snapshot(written)
    assert kit.snapshot(patched) == in_place

    expected = EXAMPLES_CHANGED | (set(extras) if target == "." else set())
    assert _changed(before, in_place) == expected
    # one `diff --git` header per changed file, paths relative to the work-tree root
    headers = [line for line in dry.stdout.split(b"\n") if line.startswith(b"diff --git ")]
    assert sorted(headers) == sorted(f"diff --git a/{p} b/{p}".encode() for p in expected)


def test_dry_run_outside_git_uses_paths_relative_to_the_given_folder(kit):
    for parent in [kit.tmp_path, *kit.tmp_path.parents]:
        if (parent / ".git").exists():
            pytest.skip(f"{parent} is a git work tree; this test needs a folder outside one")
    patched = kit.tree("patched") / "my_fork"
    written = kit.tree("written") / "my_fork"
    before = kit.snapshot(patched)

    dry = kit.run("rewrite", patched, "--dry-run")
    assert dry.returncode == 0, dry.stderr.decode()
    assert b"diff --git a/custom_worker.py b/custom_worker.py\n" in dry.stdout
    assert kit.snapshot(patched) == before

    patch = kit.tmp_path / "plain.patch"
    patch.write_bytes(dry.stdout)
    kit.git(patched, "apply", os.fspath(patch))  # git apply works outside a repository too
    assert kit.run("rewrite", written).returncode == 0
    assert kit.snapshot(patched) == kit.snapshot(written)


def test_dry_run_diff_of_a_bom_file_applies(kit):
    repo = kit.repo(examples=False, files={"bom_worker.py": BOM_SOURCE})
    dry = kit.run("rewrite", repo, "--dry-run", "--no-markers")
    assert dry.returncode == 0, dry.stderr.decode()
    patch = kit.tmp_path / "bom.patch"
    patch.write_bytes(dry.stdout)
    kit.git(repo, "apply", os.fspath(patch))
    assert (repo / "bom_worker.py").read_bytes() == BOM_EXPECTED


def test_cr_only_file_is_refused_and_left_untouched(kit):
    # LibCST does not round-trip classic-Mac line endings, so such a file is reported, not rewritten.
    repo = kit.repo(examples=False, files={"cr_worker.py": CR_ONLY_SOURCE})
    dry = kit.run("rewrite", repo, "--dry-run")
    assert dry.returncode == 2
    assert dry.stdout == b""
    assert "CR-only" in dry.stderr.decode()
    assert kit.invoke("rewrite", repo).exit_code == 2
    assert (repo / "cr_worker.py").read_bytes() == CR_ONLY_SOURCE


# --- --check -----------------------------------------------------------------------------------


def test_check_exits_1_and_writes_nothing_then_0_after_a_write(kit):
    repo = kit.repo()
    before = kit.snapshot(repo)

    check = kit.invoke("rewrite", repo, "--check")
    assert check.exit_code == 1, check.stderr
    assert kit.snapshot(repo) == before

    write = kit.invoke("rewrite", repo)
    assert write.exit_code == 0, write.stderr
    assert _changed(before, kit.snapshot(repo)) == EXAMPLES_CHANGED

    again = kit.invoke("rewrite", repo, "--check")
    assert again.exit_code == 0, again.stderr


def test_check_on_a_tree_without_the_old_api_exits_0(kit):
    repo = kit.repo(examples=False, files={"clean.py": b"def f(batch):\n    return batch\n"})
    assert kit.invoke("rewrite", repo, "--check").exit_code == 0


def test_dry_run_and_check_together_is_a_usage_error(kit):
    repo = kit.repo()
    result = kit.invoke("rewrite", repo, "--dry-run", "--check")
    assert result.exit_code == 2
    assert "--dry-run" in result.stderr and "--check" in result.stderr


# --- files that cannot be processed --------------------------------------------------------------

UNPROCESSABLE = [
    pytest.param("my_fork/syntax_error.py", SYNTAX_ERROR_SOURCE, "does not parse", id="syntax-error"),
    pytest.param("my_fork/not_utf8.py", NOT_UTF8_SOURCE, "utf-8", id="not-utf8"),
    pytest.param(
        "my_fork/unknown_codec.py",
        b"# -*- coding: klingon -*-\n" + IMPORT + b"\n",
        "encoding",
        id="unknown-declared-encoding",
    ),
    pytest.param("my_fork/nul_bytes.py", IMPORT + b"\nx = 1\x00\n", "null", id="nul-bytes"),
]


@pytest.mark.parametrize("name, data, reason", UNPROCESSABLE)
def test_unprocessable_file_is_reported_and_left_alone_while_others_are_rewritten(kit, name, data, reason):
    repo = kit.repo(files={name: data})
    before = kit.snapshot(repo)

    result = kit.invoke("rewrite", repo)
    assert result.exit_code == 2
    stderr = kit.flat(result.stderr)
    assert name in stderr and kit.flat(reason) in stderr.lower(), result.stderr
    assert (repo / name).read_bytes() == data
    assert _changed(before, kit.snapshot(repo)) == EXAMPLES_CHANGED


def test_unprocessable_files_under_dry_run_exit_2_and_the_other_diffs_are_still_printed(kit):
    files = {"my_fork/syntax_error.py": SYNTAX_ERROR_SOURCE, "my_fork/not_utf8.py": NOT_UTF8_SOURCE}
    repo = kit.repo(files=files)
    before = kit.snapshot(repo)

    dry = kit.run("rewrite", repo, "--dry-run")
    assert dry.returncode == 2
    stderr = kit.flat(dry.stderr)
    for name in files:
        assert name in stderr, dry.stderr.decode()
        assert f"b/{name}".encode() not in dry.stdout
    for name in EXAMPLES_CHANGED:
        assert f"diff --git a/{name} b/{name}\n".encode() in dry.stdout
    assert kit.snapshot(repo) == before


def test_check_with_an_unprocessable_file_exits_2_not_1(kit):
    repo = kit.repo(files={"my_fork/syntax_error.py": SYNTAX_ERROR_SOURCE})
    assert kit.invoke("rewrite", repo, "--check").exit_code == 2


def test_broken_symlink_is_reported_and_a_directory_named_py_is_walked(kit):
    repo = kit.repo()
    (repo / "my_fork" / "package.py").mkdir()
    (repo / "my_fork" / "package.py" / "inner.py").write_bytes(IMPORT + b"\n")
    try:
        (repo / "my_fork" / "dangling.py").symlink_to("does_not_exist.py")
    except (OSError, NotImplementedError):
        pytest.skip("cannot create symlinks here")
    kit.commit(repo)
    result = kit.invoke("rewrite", repo)
    assert result.exit_code == 2
    stderr = kit.flat(result.stderr)
    assert kit.flat("my_fork/dangling.py: broken symbolic link") in stderr
    assert "package.py" not in stderr  # walked, not an error
    assert (repo / "my_fork" / "dangling.py").is_symlink()
    assert (repo / "my_fork" / "package.py" / "inner.py").read_bytes() == b"\n"  # migrated: its unused import removed


# --- idempotence and the prefilter ------------------------------------------------------------------


def test_second_run_changes_nothing(kit):
    extras = {"extras/crlf.py": CRLF_SOURCE, "extras/bom.py": BOM_SOURCE, "extras/latin1.py": LATIN1_SOURCE}
    repo = kit.repo(files=extras)
    first = kit.invoke("rewrite", repo)
    assert first.exit_code == 0, first.stderr
    kit.commit(repo, "migrated")
    after_first = kit.snapshot(repo)

    second = kit.invoke("rewrite", repo, "--format", "json")
    assert second.exit_code == 0, second.stderr
    assert json.loads(second.stdout)["summary"]["changed"] == 0
    assert kit.snapshot(repo) == after_first
    assert kit.invoke("rewrite", repo, "--check").exit_code == 0
    assert kit.invoke("rewrite", repo, "--dry-run").stdout == ""


def test_file_without_the_old_api_is_scanned_but_not_parsed(kit):
    # The second file does not even parse: only the prefilter can keep it out of the failures.
    never_parses = b"def not python(:\n    pass\n"
    repo = kit.repo(files={"my_fork/unparsable_but_unrelated.py": never_parses})
    before = kit.snapshot(repo)

    result = kit.invoke("rewrite", repo, "--format", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    statuses = {f["path"]: f["status"] for f in document["files"]}
    assert statuses["my_fork/sampling_utils.py"] == "skipped"
    assert statuses["my_fork/__init__.py"] == "skipped"
    assert statuses["my_fork/unparsable_but_unrelated.py"] == "skipped"
    assert document["summary"]["scanned"] == 6
    assert document["summary"]["parsed"] == 3
    after = kit.snapshot(repo)
    for name in [*EXAMPLES_UNTOUCHED, "my_fork/unparsable_but_unrelated.py"]:
        assert after[name] == before[name]


# --- encodings, newlines, modes ---------------------------------------------------------------------

ENCODED_FILES = {"crlf_worker.py": CRLF_SOURCE, "bom_worker.py": BOM_SOURCE, "latin1_backend.py": LATIN1_SOURCE}


def test_crlf_bom_and_declared_encoding_survive_an_in_place_rewrite(kit):
    """With review markers on (the default): every line the tool adds or edits keeps the file's conventions."""
    repo = kit.repo(examples=False, files=ENCODED_FILES)
    result = kit.invoke("rewrite", repo)
    assert result.exit_code == 0, result.stderr

    crlf = (repo / "crlf_worker.py").read_bytes()
    assert b"ScheduleBatch" in crlf
    assert b"\n" not in crlf.replace(b"\r\n", b""), "a bare LF crept into a CRLF file"
    assert b"\r" not in crlf.replace(b"\r\n", b""), "a bare CR crept into a CRLF file"

    bom = (repo / "bom_worker.py").read_bytes()
    assert b"ScheduleBatch" in bom
    assert bom.startswith(codecs.BOM_UTF8) and not bom[3:].startswith(codecs.BOM_UTF8)
    bom[3:].decode("utf-8")

    latin1 = (repo / "latin1_backend.py").read_bytes()
    assert latin1.startswith(b"# -*- coding: latin-1 -*-\n")
    assert b"ScheduleBatch" in latin1 and b"\xc3" not in latin1, "latin-1 text was re-encoded as UTF-8"
    assert "café" in latin1.decode("latin-1")

    for name in ENCODED_FILES:
        compile((repo / name).read_bytes(), name, "exec")


def test_crlf_bom_and_declared_encoding_exact_bytes_without_markers(kit):
    repo = kit.repo(examples=False, files=ENCODED_FILES)
    result = kit.invoke("rewrite", repo, "--no-markers")
    assert result.exit_code == 0, result.stderr
    assert (repo / "crlf_worker.py").read_bytes() == CRLF_EXPECTED
    assert (repo / "bom_worker.py").read_bytes() == BOM_EXPECTED
    assert (repo / "latin1_backend.py").read_bytes() == LATIN1_EXPECTED


def test_utf8_text_stays_utf8(kit):
    source = (
        IMPORT
        + "\n\n\ndef f(model_worker_batch: ModelWorkerBatch):\n    return 'naïve ✓', model_worker_batch\n".encode()
    )
    repo = kit.repo(examples=False, files={"utf8.py": source})
    assert kit.invoke("rewrite", repo).exit_code == 0
    assert "return 'naïve ✓', batch\n" in (repo / "utf8.py").read_bytes().decode("utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes")
def test_file_mode_is_kept_and_no_temporary_file_is_left(kit):
    repo = kit.repo()
    modes = {"my_fork/custom_worker.py": 0o755, "my_fork/spec_plugin.py": 0o600, "my_fork/hardware_backend.py": 0o640}
    for name, mode in modes.items():
        os.chmod(repo / name, mode)
    kit.commit(repo)
    before = kit.snapshot(repo)

    result = kit.invoke("rewrite", repo)
    assert result.exit_code == 0, result.stderr
    assert _changed(before, kit.snapshot(repo)) == set(modes)
    for name, mode in modes.items():
        assert stat.S_IMODE(os.stat(repo / name).st_mode) == mode, name
    leftovers = [
        p
        for p in repo.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(repo).parts and p.relative_to(repo).as_posix() not in before
    ]
    assert leftovers == []


# --- output streams, colour, parallelism ----------------------------------------------------------


def test_diff_goes_to_stdout_and_summary_to_stderr_without_colour_when_piped(kit):
    repo = kit.repo()
    dry = kit.run("rewrite", repo, "--dry-run")
    assert dry.returncode == 0
    assert b"\x1b[" not in dry.stdout and b"\x1b[" not in dry.stderr
    assert all(line[:1] in (b"d", b"-", b"+", b"@", b" ", b"\\") for line in dry.stdout.splitlines()), (
        "stdout holds something other than the diff"
    )
    stderr = dry.stderr.decode()
    assert "scanned" in stderr and "diff --git" not in stderr

    write = kit.run("rewrite", repo)
    assert write.returncode == 0
    assert write.stdout == b"", "an in-place text run printed to stdout"
    assert "changed" in write.stderr.decode()


def test_parallel_jobs_give_the_same_output_in_path_order(kit):
    plugin = (kit.examples / "my_fork" / "spec_plugin.py").read_bytes()
    files = {f"my_fork/plugins/plugin_{index:02d}.py": plugin for index in range(6)}
    repo = kit.repo(files=files)
    serial = kit.run("rewrite", repo, "--dry-run", "--jobs", "1")
    parallel = kit.run("rewrite", repo, "--dry-run", "--jobs", "4")
    assert serial.returncode == parallel.returncode == 0, parallel.stderr.decode()
    assert parallel.stdout == serial.stdout
    headers = [line for line in parallel.stdout.split(b"\n") if line.startswith(b"diff --git ")]
    assert len(headers) == 9
    assert headers == sorted(headers)


BUILDER = b"""import torch


def build_decode_batch(batch, reqs, device):
    batch.req_pool_indices = torch.tensor([r.req_pool_idx for r in reqs], dtype=torch.int64, device=device)
    return batch
"""


@pytest.mark.parametrize("mirror", [False, True], ids=["batch_without_mirror", "batch_with_mirror"])
def test_request_pool_builders_follow_the_trees_own_schedule_batch(kit, mirror):
    """0.5.12's ScheduleBatch has no req_pool_indices_cpu: a mirror built there would go stale."""
    fields = b"    req_pool_indices: object = None\n" + (
        b"    req_pool_indices_cpu: object = None\n" if mirror else b""
    )
    schedule_batch = b"import dataclasses\n\n\n@dataclasses.dataclass\nclass ScheduleBatch:\n" + fields
    repo = kit.repo(
        examples=False,
        files={
            "sglang/srt/managers/schedule_batch.py": schedule_batch,
            "sglang/srt/managers/scheduler.py": BUILDER,
        },
    )
    result = kit.invoke("rewrite", repo, "--no-progress")
    assert result.exit_code == 0, result.output
    builder = (repo / "sglang/srt/managers/scheduler.py").read_bytes()
    if mirror:
        assert b"batch.req_pool_indices, batch.req_pool_indices_cpu = build_req_pool_indices(reqs, device)" in builder
    else:
        assert builder == BUILDER
