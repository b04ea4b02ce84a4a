"""`--format json` and `--format markdown` reports."""

from __future__ import annotations

import json
import re

IMPORT = b"from sglang.srt.managers.schedule_batch import ModelWorkerBatch"
SYNTAX_ERROR_SOURCE = IMPORT + b"\n\n\ndef broken(model_worker_batch: ModelWorkerBatch:\n    pass\n"
NOT_UTF8_SOURCE = IMPORT + b'\n\nNAME = "M\xfcller"\n'

CHANGED = ["my_fork/custom_worker.py", "my_fork/hardware_backend.py", "my_fork/spec_plugin.py"]
SKIPPED = ["my_fork/__init__.py", "my_fork/sampling_utils.py"]
FAILED = ["my_fork/not_utf8.py", "my_fork/syntax_error.py"]


def _repo(kit):
    return kit.repo(files={"my_fork/syntax_error.py": SYNTAX_ERROR_SOURCE, "my_fork/not_utf8.py": NOT_UTF8_SOURCE})


def test_json_document_lists_every_file_with_its_status_diff_and_error(kit):
    repo = _repo(kit)
    result = kit.run("rewrite", repo, "--dry-run", "--format", "json")
    assert result.returncode == 2  # the two unprocessable files
    document = json.loads(result.stdout)  # stdout is exactly one JSON document

    assert document["mode"] == "dry-run"
    files = {entry["path"]: entry for entry in document["files"]}
    assert [entry["path"] for entry in document["files"]] == sorted(files), "not in stable path order"
    assert set(files) == set(CHANGED + SKIPPED + FAILED)
    for path in CHANGED:
        entry = files[path]
        assert entry["status"] == "changed"
        assert entry["diff"].startswith(f"diff --git a/{path} b/{path}\n")
        assert entry["error"] is None
        assert entry["codemods"], path
        assert isinstance(entry["review_items"], list)
    for path in SKIPPED:
        assert files[path]["status"] == "skipped" and files[path]["diff"] is None
    for path in FAILED:
        assert files[path]["status"] == "failed" and files[path]["diff"] is None
        assert files[path]["error"] and "\n" not in files[path]["error"]
    assert "does not parse" in files["my_fork/syntax_error.py"]["error"]
    assert "utf-8" in files["my_fork/not_utf8.py"]["error"]
    summary = document["summary"]
    assert {k: summary[k] for k in ("scanned", "parsed", "changed", "failed")} == {
        "scanned": 7,
        "parsed": 4,
        "changed": 3,
        "failed": 2,
    }
    items = [item for entry in document["files"] for item in entry["review_items"]]
    assert summary["review_items"] == len(items)
    for item in items:
        assert re.fullmatch(r"MWB\d{3}", item["code"]) and item["line"] >= 1 and item["message"]


def test_json_diffs_are_the_text_dry_run_diffs(kit):
    repo = kit.repo()
    text = kit.run("rewrite", repo, "--dry-run")
    report = kit.run("rewrite", repo, "--dry-run", "--format", "json")
    assert text.returncode == report.returncode == 0
    document = json.loads(report.stdout)
    assert "".join(f["diff"] for f in document["files"] if f["diff"]).encode() == text.stdout


def test_json_in_write_and_check_modes(kit):
    repo = kit.repo()
    check = kit.invoke("rewrite", repo, "--check", "--format", "json")
    assert check.exit_code == 1
    assert json.loads(check.stdout)["mode"] == "check"

    write = kit.invoke("rewrite", repo, "--format", "json")
    assert write.exit_code == 0, write.stderr
    document = json.loads(write.stdout)
    assert document["mode"] == "write"
    assert sorted(f["path"] for f in document["files"] if f["status"] == "changed") == CHANGED
    for path in CHANGED:
        assert b"ModelWorkerBatch" not in kit.strip_markers((repo / path).read_bytes())


def test_markdown_report_has_a_summary_table_and_one_details_block_per_changed_file(kit):
    repo = _repo(kit)
    before = kit.snapshot(repo)
    result = kit.run("rewrite", repo, "--dry-run", "--format", "markdown")
    assert result.returncode == 2
    report = result.stdout.decode("utf-8")
    assert kit.snapshot(repo) == before

    lines = report.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("|") and "scanned" in line)
    columns = [cell.strip() for cell in lines[header].strip("|").split("|")]
    assert columns == ["scanned", "parsed", "changed", "failed", "review items"]
    assert re.fullmatch(r"\|(:?-+:?\|){5}", lines[header + 1].replace(" ", "")), lines[header + 1]
    values = [cell.strip() for cell in lines[header + 2].strip("|").split("|")]
    review_items = json.loads(kit.invoke("rewrite", repo, "--dry-run", "--format", "json").stdout)["summary"][
        "review_items"
    ]
    assert values == ["7", "4", "3", "2", str(review_items)]

    # One block per changed file; the notes are folded into one more, before them.
    blocks = re.findall(r"<details><summary><code>(.*?)</details>", report, flags=re.S)
    blocks = [f"<summary><code>{block}" for block in blocks]
    assert len(blocks) == len(CHANGED) == report.count("<details><summary><code>")
    for path, block in zip(CHANGED, blocks, strict=False):
        summary = re.search(r"<summary>(.*?)</summary>", block).group(1)
        assert path in summary
        assert re.search(r"^(```+)diff\n.*?^\1$", block, flags=re.S | re.M), block
        assert f"diff --git a/{path} b/{path}" in block
        assert re.search(r"^-.*model_worker_batch", block, flags=re.M) and re.search(
            r"^\+.*\bbatch\b", block, flags=re.M
        )
    for path in FAILED:
        assert path in report  # the failures are listed too


def test_markdown_report_with_nothing_to_do(kit):
    repo = kit.repo(examples=False, files={"clean.py": b"X = 1\n"})
    result = kit.invoke("rewrite", repo, "--dry-run", "--format", "markdown")
    assert result.exit_code == 0
    report = result.stdout
    assert "<details>" not in report and "scanned" in report
