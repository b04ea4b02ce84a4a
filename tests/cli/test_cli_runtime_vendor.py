"""`--runtime vendor`: the runtime copied into the migrated package, and imported from there.

The tree is a tiny `sglang` package (it must be called that: only SGLang's own modules are
migrated) holding the core-runtime and req-pool-mirror inputs, committed in a fresh git repository.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import mwbmigrate.runtime

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RUNTIME_DIR = Path(mwbmigrate.runtime.__file__).parent
COPY = "sglang/_mwbmigrate_runtime"
VENDORED_IMPORT = "from sglang._mwbmigrate_runtime import"
RUNTIME_IMPORT = "from mwbmigrate.runtime import"

FORWARD_BATCH_INFO = "sglang/srt/model_executor/forward_batch_info.py"
SCHEDULER = "sglang/srt/managers/scheduler.py"
SCHEDULE_BATCH = "sglang/srt/managers/schedule_batch.py"

# req-pool-mirror's input without torch (importing the migrated tree stays fast), its one-shot
# fields already declared (class-removal has nothing to add).
SCHEDULE_BATCH_BEFORE = textwrap.dedent(
    """\
    from __future__ import annotations

    import dataclasses


    @dataclasses.dataclass
    class ScheduleBatch:
        reqs: list
        req_pool_indices: torch.Tensor = None
        req_pool_indices_cpu: torch.Tensor = None

        # One-shot per-forward overrides, consumed and reset by ForwardBatch.init_new.
        seq_lens_cpu_cache: Optional[torch.Tensor] = None
        capture_hidden_mode: Optional[CaptureHiddenMode] = None
        return_hidden_states_before_norm: bool = False

        def prepare_for_decode(self):
            self.forward_mode = "decode"
    """
)
SCHEDULE_BATCH_AFTER = SCHEDULE_BATCH_BEFORE.replace(
    "import dataclasses\n", f"import dataclasses\n{VENDORED_IMPORT} ensure_req_pool_indices_cpu\n"
).replace(
    "    def prepare_for_decode(self):\n",
    "    def prepare_for_decode(self):\n        ensure_req_pool_indices_cpu(self)\n",
)


def _fixture(case: str, side: str) -> bytes:
    return (FIXTURES / case / f"{side}.py").read_bytes()


def _core_tree() -> dict[str, bytes]:
    # Namespace folders below `sglang/`, as in SGLang itself: only the top has an __init__.py.
    return {
        "sglang/__init__.py": b"",
        FORWARD_BATCH_INFO: _fixture("core-runtime/init_new_view", "before"),
        SCHEDULER: _fixture("core-runtime/overlap_isolation", "before"),
        SCHEDULE_BATCH: SCHEDULE_BATCH_BEFORE.encode(),
    }


def _vendored(after: bytes) -> bytes:
    return after.replace(RUNTIME_IMPORT.encode(), VENDORED_IMPORT.encode())


EXPECTED_REWRITES = {
    FORWARD_BATCH_INFO: _vendored(_fixture("core-runtime/init_new_view", "after")),
    SCHEDULER: _vendored(_fixture("core-runtime/overlap_isolation", "after")),
    SCHEDULE_BATCH: SCHEDULE_BATCH_AFTER.encode(),
}
RUNTIME_COPY = {
    f"{COPY}/{path.name}": path.read_bytes()
    for path in sorted(RUNTIME_DIR.iterdir())
    if path.suffix == ".py" or path.name == "py.typed"
}


def _repo(kit, name: str = "repo", extra: dict[str, bytes] | None = None) -> Path:
    return kit.repo(name, examples=False, files={**_core_tree(), **(extra or {})})


def _json(kit, *args) -> dict:
    result = kit.invoke("rewrite", *args, "--no-progress", "--format", "json")
    document = json.loads(result.stdout)
    document["exit_code"] = result.exit_code
    return document


def test_the_runtime_copy_is_an_exact_copy_of_every_module_and_the_marker():
    assert {"__init__.py", "isolation.py", "py.typed"} <= {name.rsplit("/", 1)[1] for name in RUNTIME_COPY}
    assert not [name for name in RUNTIME_COPY if "__pycache__" in name]


def test_vendor_in_place_creates_the_copy_and_imports_it(kit):
    repo = _repo(kit)
    before = kit.snapshot(repo)
    result = kit.invoke("rewrite", repo, "--runtime", "vendor", "--no-progress")
    assert result.exit_code == 0, result.stderr
    after = kit.snapshot(repo)
    assert after == {**before, **EXPECTED_REWRITES, **RUNTIME_COPY}
    assert (
        f"runtime vendored: sglang/_mwbmigrate_runtime/ created ({len(RUNTIME_COPY)} files)"
        in result.stderr.replace("\n", " ")
    )
    assert all((repo / name).stat().st_mode & 0o777 == 0o644 for name in RUNTIME_COPY)


IMPORT_WITHOUT_MWBMIGRATE = textwrap.dedent(
    """
    import sys
    sys.modules["mwbmigrate"] = None  # any import of mwbmigrate now raises ImportError
    sys.path.insert(0, sys.argv[1])
    try:
        import mwbmigrate.runtime
    except ImportError:
        pass
    else:
        raise AssertionError("mwbmigrate.runtime is importable")
    import sglang.srt.model_executor.forward_batch_info as forward_batch_info
    import sglang.srt.managers.scheduler as scheduler
    import sglang.srt.managers.schedule_batch as schedule_batch
    print(forward_batch_info.forward_batch_view.__module__)
    print(scheduler.overlap_forward_isolation.__module__)
    print(schedule_batch.ensure_req_pool_indices_cpu.__module__)
    print(sorted(m for m in sys.modules if m.startswith("sglang.") and "runtime" in m)[0])
    """
)


def test_the_migrated_tree_imports_without_mwbmigrate(kit):
    repo = _repo(kit)
    assert kit.invoke("rewrite", repo, "--runtime", "vendor", "--no-progress").exit_code == 0
    # -I: neither the current folder nor PYTHONPATH is on sys.path, only the tree the script adds.
    proc = subprocess.run(
        [sys.executable, "-I", "-c", IMPORT_WITHOUT_MWBMIGRATE, str(repo)],
        cwd=kit.tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [
        "sglang._mwbmigrate_runtime.forward_view",
        "sglang._mwbmigrate_runtime.isolation",
        "sglang._mwbmigrate_runtime.req_pool",
        "sglang._mwbmigrate_runtime",
    ]


def test_dry_run_diff_creates_the_copy_with_git_apply(kit):
    in_place, patched = _repo(kit, "in_place"), _repo(kit, "patched")
    assert kit.invoke("rewrite", in_place, "--runtime", "vendor", "--no-progress").exit_code == 0
    before = kit.snapshot(patched)
    dry = kit.run("rewrite", patched, "--runtime", "vendor", "--dry-run", "--no-progress")
    assert dry.returncode == 0, dry.stderr
    assert kit.snapshot(patched) == before, "--dry-run wrote something"
    diff = dry.stdout.decode()
    header = f"diff --git a/{COPY}/ring.py b/{COPY}/ring.py\nnew file mode 100644\n--- /dev/null\n+++ b/{COPY}/ring.py\n@@ -0,"
    assert header in diff
    # An empty file is created by git's header alone.
    assert f"diff --git a/{COPY}/py.typed b/{COPY}/py.typed\nnew file mode 100644\ndiff --git" in diff
    kit.git(patched, "apply", "-", stdin=dry.stdout)
    assert kit.snapshot(patched) == kit.snapshot(in_place)


def test_check_counts_the_missing_copy_and_a_second_run_changes_nothing(kit):
    repo = _repo(kit)
    # Only the copy is missing: the files are already migrated and committed.
    kit.write(repo, {name: text for name, text in EXPECTED_REWRITES.items()})
    kit.commit(repo)
    check = kit.invoke("rewrite", repo, "--runtime", "vendor", "--check", "--no-progress")
    assert check.exit_code == 1, check.stderr
    assert f"would be created ({len(RUNTIME_COPY)} files)" in check.stderr.replace("\n", " ")

    assert kit.invoke("rewrite", repo, "--runtime", "vendor", "--no-progress").exit_code == 0
    migrated = kit.snapshot(repo)
    assert migrated == {**_core_tree(), **EXPECTED_REWRITES, **RUNTIME_COPY}
    assert kit.invoke("rewrite", repo, "--runtime", "vendor", "--check", "--no-progress").exit_code == 0
    second = _json(kit, repo, "--runtime", "vendor")
    assert second["exit_code"] == 0
    assert kit.snapshot(repo) == migrated
    assert second["summary"]["changed"] == 0
    assert {v["status"] for v in second["runtime"]["vendored"]} == {"unchanged"}


def test_an_outdated_copy_is_refreshed_and_reported(kit):
    repo = _repo(kit)
    assert kit.invoke("rewrite", repo, "--runtime", "vendor", "--no-progress").exit_code == 0
    ring = repo / COPY / "ring.py"
    ring.write_bytes(ring.read_bytes().replace(b"depth", b"old_depth"))
    kit.commit(repo)

    check = _json(kit, repo, "--runtime", "vendor", "--check")
    assert check["exit_code"] == 1
    refreshed = [v for v in check["runtime"]["vendored"] if v["status"] != "unchanged"]
    assert [(v["path"], v["status"]) for v in refreshed] == [(f"{COPY}/ring.py", "refreshed")]
    assert refreshed[0]["diff"].startswith(f"diff --git a/{COPY}/ring.py b/{COPY}/ring.py\n--- a/{COPY}/ring.py\n")

    wrote = kit.invoke("rewrite", repo, "--runtime", "vendor", "--no-progress")
    assert wrote.exit_code == 0, wrote.stderr
    assert "sglang/_mwbmigrate_runtime/ refreshed (ring.py)" in wrote.stderr.replace("\n", " ")
    assert ring.read_bytes() == RUNTIME_COPY[f"{COPY}/ring.py"]


def test_a_refreshed_copy_with_uncommitted_edits_is_refused(kit):
    repo = _repo(kit)
    assert kit.invoke("rewrite", repo, "--runtime", "vendor", "--no-progress").exit_code == 0
    kit.commit(repo)
    ring = repo / COPY / "ring.py"
    ring.write_bytes(b"# a local edit\n")
    refused = kit.invoke("rewrite", repo, "--runtime", "vendor", "--no-progress")
    assert refused.exit_code == 2
    assert f"{COPY}/ring.py" in kit.flat(refused.stderr)
    assert ring.read_bytes() == b"# a local edit\n"


def test_a_copy_that_cannot_be_written_keeps_every_file_back(kit):
    repo = _repo(kit)
    (repo / COPY / "ring.py").mkdir(parents=True)  # in the way of the copy's ring.py
    (repo / COPY / "ring.py" / "keep").write_bytes(b"")
    kit.commit(repo)
    before = kit.snapshot(repo)
    result = _json(kit, repo, "--runtime", "vendor")
    assert result["exit_code"] == 2
    assert kit.snapshot(repo) == before, "a file was written although the copy is incomplete"
    errors = {v["path"]: v["error"] for v in result["runtime"]["vendored"]}
    assert errors[f"{COPY}/ring.py"] == "exists and is not a regular file; not replaced"
    assert errors[f"{COPY}/isolation.py"] == "not written: another file of this copy cannot be written"
    failed = {f["path"]: f["error"] for f in result["files"] if f["status"] == "failed"}
    assert set(failed) == set(EXPECTED_REWRITES)
    assert (
        failed[SCHEDULER]
        == "not written: its vendored runtime sglang._mwbmigrate_runtime could not be written completely"
    )


def test_configured_vendor_mode_and_the_flag_that_overrides_it(kit):
    pyproject = {"pyproject.toml": b'[tool.mwbmigrate]\nruntime = "vendor"\n'}
    configured = _repo(kit, "configured", pyproject)
    assert kit.invoke("rewrite", configured, "--no-progress").exit_code == 0
    assert kit.snapshot(configured) == {**_core_tree(), **pyproject, **EXPECTED_REWRITES, **RUNTIME_COPY}

    overridden = _repo(kit, "overridden", pyproject)
    document = _json(kit, overridden, "--runtime", "import")
    assert document["exit_code"] == 0
    assert document["runtime"] == {"mode": "import", "vendored": [], "notes": []}
    assert not (overridden / COPY).exists()
    assert RUNTIME_IMPORT.encode() in (overridden / SCHEDULER).read_bytes()


def test_a_bad_configured_mode_is_refused(kit):
    repo = _repo(kit, extra={"pyproject.toml": b'[tool.mwbmigrate]\nruntime = "copy"\n'})
    result = kit.invoke("rewrite", repo, "--no-progress")
    assert result.exit_code == 2
    assert kit.flat('runtime must be "import" or "vendor"') in kit.flat(result.stderr)


def test_import_mode_is_the_default_and_unchanged(kit):
    repo = _repo(kit)
    document = _json(kit, repo)
    assert document["exit_code"] == 0
    assert document["runtime"] == {"mode": "import", "vendored": [], "notes": []}
    assert kit.snapshot(repo)[SCHEDULER] == _fixture("core-runtime/overlap_isolation", "after")
    assert kit.snapshot(repo)[FORWARD_BATCH_INFO] == _fixture("core-runtime/init_new_view", "after")
    assert not (repo / COPY).exists()


def test_a_file_in_no_package_keeps_the_import_and_is_reported(kit):
    loose = {"tools/loose_scheduler.py": _fixture("core-runtime/overlap_isolation", "before")}
    repo = kit.repo("loose", examples=False, files=loose)
    document = _json(kit, repo, "--runtime", "vendor")
    assert document["exit_code"] == 0
    assert kit.snapshot(repo) == {"tools/loose_scheduler.py": _fixture("core-runtime/overlap_isolation", "after")}
    assert document["runtime"]["vendored"] == []
    assert document["runtime"]["notes"] == [
        "tools/loose_scheduler.py: in no importable package (no __init__.py in its folder or above), so it "
        "imports mwbmigrate.runtime: install mwbmigrate-runtime where it runs, or move it into a package"
    ]


def test_nothing_is_vendored_when_no_file_needs_the_runtime(kit):
    # examples/fork with --live-batch: a plugin package whose rewrite needs no runtime helper (by
    # default its snapshots stay in code, through `worker_batch_snapshot`).
    repo = kit.repo("fork")
    before = kit.snapshot(repo)
    document = _json(kit, repo, "--runtime", "vendor", "--live-batch")
    assert document["exit_code"] == 0 and document["summary"]["changed"] > 0
    assert document["runtime"] == {"mode": "vendor", "vendored": [], "notes": []}
    assert not [name for name in kit.snapshot(repo) if "_mwbmigrate_runtime" in name]
    assert set(kit.snapshot(repo)) == set(before)


def test_a_kept_snapshot_vendors_the_runtime_it_imports(kit):
    repo = kit.repo("fork")
    document = _json(kit, repo, "--runtime", "vendor")
    assert document["exit_code"] == 0
    assert [v["path"] for v in document["runtime"]["vendored"]][:1] == ["my_fork/_mwbmigrate_runtime/__init__.py"]
    backend = (repo / "my_fork" / "hardware_backend.py").read_text()
    assert "from my_fork._mwbmigrate_runtime import worker_batch_snapshot\n" in backend


def test_markdown_report_lists_the_vendored_files(kit):
    repo = _repo(kit)
    result = kit.invoke("rewrite", repo, "--runtime", "vendor", "--dry-run", "--no-progress", "--format", "markdown")
    assert result.exit_code == 0, result.stderr
    section = result.stdout.split("### Vendored runtime\n", 1)[1]
    rows = [f"| `{name}` | created |" for name in RUNTIME_COPY]
    assert section == "\n| file | status |\n|---|---|\n" + "\n".join(rows) + "\n\n"


def test_stdin_cannot_vendor(kit):
    result = kit.invoke("rewrite", "-", "--runtime", "vendor")
    assert result.exit_code == 2
    assert kit.flat("cannot be used with `-` (stdin)") in kit.flat(result.stderr)
