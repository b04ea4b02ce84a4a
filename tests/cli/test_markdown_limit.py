"""`--format markdown` stays within a GitHub comment (65,536 characters) whatever the tree's size.

The big report is built from a real run of a few generated old-API modules, each result replicated
under many folders: rewriting thousands of files would prove nothing more and take minutes.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from mwbmigrate.engine.discovery import SkippedFolder
from mwbmigrate.engine.runner import run_rewrite
from mwbmigrate.engine.transform import TransformOptions
from mwbmigrate.report import GITHUB_COMMENT_LIMIT, MARKDOWN_BUDGET, render_markdown
from mwbmigrate.result import FileResult, FileStatus, ReviewItem, RunSummary
from mwbmigrate.review import HAZARD, REVIEW_CODES

UNCAPPED = 10**9
MODULES = 4
COPIES = 24  # 96 changed files: about 290,000 characters of report uncapped
SKIPPED_FOLDERS = 40

# Reads of derived fields (MWB104, MWB105: hazards), a renamed public parameter (MWB113) and a kept
# snapshot (MWB182): notes.
OLD_API_MODULE = """\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.model_executor.forward_batch_info import ForwardBatch


class Worker{n}:
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.model_runner)
        mode = model_worker_batch.capture_hidden_mode
        return self.model_runner.forward(forward_batch), mode

    def num_tokens(self, model_worker_batch: ModelWorkerBatch) -> int:
        if model_worker_batch.extend_seq_lens is None:
            return 0
        return sum(model_worker_batch.extend_seq_lens)

    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        batch = self.next_batch()
        return self.forward_batch_generation(mwb)
"""
BROKEN_MODULE = "from sglang.srt.managers.schedule_batch import ModelWorkerBatch\n\n\ndef broken(x: ModelWorkerBatch:\n"


@pytest.fixture(scope="module")
def one_run(tmp_path_factory: pytest.TempPathFactory) -> RunSummary:
    root = tmp_path_factory.mktemp("fork")
    package = root / "fork"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for n in range(MODULES):
        (package / f"worker_{n}.py").write_text(OLD_API_MODULE.format(n=n))
    (package / "broken.py").write_text(BROKEN_MODULE)
    return run_rewrite([root], TransformOptions(), jobs=1)


def _copy(result: FileResult, folder: str) -> FileResult:
    return replace(
        result,
        path=f"/{folder}{result.path}",
        display_path=f"{folder}/{result.display_path}",
        review_items=tuple(replace(item, path=f"{folder}/{item.path}") for item in result.review_items),
    )


@pytest.fixture(scope="module")
def big_run(one_run: RunSummary) -> RunSummary:
    results = [_copy(result, f"copy{k:02d}") for k in range(COPIES) for result in one_run.results]
    return RunSummary(results=results, discovered=len(results))


FOLDERS = [
    SkippedFolder(Path(f"/r/vendor{i}/build"), f"vendor{i}/build/", "build output") for i in range(SKIPPED_FOLDERS)
]


def _outside_fences(report: str) -> list[str]:
    """The report's lines outside code fences; fails when a fence is left open."""
    lines, fence = [], None
    for line in report.splitlines():
        if fence is None:
            opening = re.fullmatch(r"(`{3,})\w*", line)
            if opening:
                fence = opening.group(1)
            else:
                lines.append(line)
        elif line == fence:
            fence = None
    assert fence is None, "a code fence is left open"
    return lines


def _assert_well_formed(report: str) -> None:
    depth = 0
    for line in _outside_fences(report):
        depth += line.count("<details>") - line.count("</details>")
        assert depth >= 0, line
    assert depth == 0, "a <details> is left open"


def _section(lines: list[str], start: str, stop: re.Pattern[str]) -> list[str]:
    """The lines after the one starting with `start`, up to the first matching `stop` ([] when absent)."""
    begin = next((i for i, line in enumerate(lines) if line.startswith(start)), None)
    if begin is None:
        return []
    end = next((i for i in range(begin + 1, len(lines)) if stop.match(lines[i])), len(lines))
    return lines[begin + 1 : end]


def _left_out(report: str, noun: str) -> tuple[int, int] | None:
    notice = next(line for line in report.splitlines() if line.startswith("**Not shown in this comment**"))
    found = re.search(rf"(\d+) of (\d+) {noun}s?\b", notice)
    return (int(found.group(1)), int(found.group(2))) if found else None


def _check_capped(report: str, summary: RunSummary, limit: int) -> None:
    """The report fits, is well formed, names every hazard code, and says exactly what it leaves out."""
    assert len(report) <= limit < GITHUB_COMMENT_LIMIT
    _assert_well_formed(report)
    assert "`mwbmigrate rewrite ... --format json`" in report and "--dry-run" in report
    lines = _outside_fences(report)
    items = summary.review_items
    for kind, start, stop in (
        (HAZARD, "### Review items: hazards", re.compile(r"<details>|### ")),
        ("note", "<details><summary>Notes", re.compile(r"</details>")),
    ):
        group = [item for item in items if item.kind == kind]
        section = _section(lines, start, stop)
        rows = [line for line in section if line.startswith("| `")]
        hidden_per_code = [int(m.group(1)) for line in section if (m := re.match(r"\| … \| (\d+) more", line))]
        noun = "hazard row" if kind == HAZARD else "note"
        expected = (len(group) - len(rows), len(group)) if len(rows) < len(group) else None
        assert _left_out(report, noun) == expected, noun
        if section:  # each cut table says how many of its rows it leaves out
            assert sum(hidden_per_code) == len(group) - len(rows)
        if kind == HAZARD:  # never dropped silently: every code keeps its heading, with its full count
            for code in {item.code for item in group}:
                count = sum(item.code == code for item in group)
                assert f"#### {code} ({count}): {REVIEW_CODES[code].title}" in report
    diffs = report.count("<details><summary><code>")
    assert _left_out(report, "diff") == (
        (len(summary.changed) - diffs, len(summary.changed)) if diffs < len(summary.changed) else None
    )
    folders = [
        line for line in _section(lines, "### Folders skipped", re.compile(r"<details>|### ")) if line.startswith("- `")
    ]
    assert _left_out(report, "skipped folder") == (
        (SKIPPED_FOLDERS - len(folders), SKIPPED_FOLDERS) if len(folders) < SKIPPED_FOLDERS else None
    )
    failed = [
        line
        for line in _section(lines, "### Files not processed", re.compile(r"<details>|### "))
        if line.startswith("- `")
    ]
    assert _left_out(report, "failed file") == (
        (len(summary.failed) - len(failed), len(summary.failed)) if len(failed) < len(summary.failed) else None
    )


def test_a_big_run_fits_in_a_github_comment_and_says_what_it_leaves_out(big_run: RunSummary) -> None:
    uncapped = render_markdown(big_run, skipped_folders=FOLDERS, limit=UNCAPPED)
    capped = render_markdown(big_run, skipped_folders=FOLDERS)
    assert len(uncapped) > 200_000  # else the cap is not tested
    assert {item.kind for item in big_run.review_items} == {HAZARD, "note"}
    _check_capped(capped, big_run, MARKDOWN_BUDGET)
    assert _left_out(capped, "diff") is not None  # the diffs are what the limit cuts first here
    assert render_markdown(big_run, skipped_folders=FOLDERS) == capped  # the same bytes every time


@pytest.mark.parametrize("limit", [4_000, 12_000, 30_000])
def test_when_even_the_hazard_rows_do_not_fit_the_comment_says_how_many_are_left_out(
    big_run: RunSummary, limit: int
) -> None:
    report = render_markdown(big_run, skipped_folders=FOLDERS, limit=limit)
    _check_capped(report, big_run, limit)
    hidden, total = _left_out(report, "hazard row") or (0, 0)
    assert 0 < hidden < total  # some rows of each code shown, the rest counted
    # Each code keeps its first rows as examples: the rows are shared among the codes in turn.
    section = _section(_outside_fences(report), "### Review items: hazards", re.compile(r"<details>|### "))
    shown_codes = {
        item.code
        for item in big_run.review_items
        if item.kind == HAZARD and any(line.startswith(f"| `{item.location()}` |") for line in section)
    }
    assert shown_codes == {item.code for item in big_run.review_items if item.kind == HAZARD}


def test_the_cut_report_keeps_the_order_of_importance(big_run: RunSummary) -> None:
    report = render_markdown(big_run, skipped_folders=FOLDERS)
    # Hazards, then the files not processed or skipped, then notes, then diffs.
    for noun in ("hazard row", "failed file", "skipped folder"):
        assert _left_out(report, noun) is None, noun
    hidden_notes, notes = _left_out(report, "note") or (0, 0)
    assert 0 < hidden_notes < notes
    assert _left_out(report, "diff") == (len(big_run.changed), len(big_run.changed))


def _small_run() -> tuple[RunSummary, list[SkippedFolder]]:
    hazard = ReviewItem("MWB105", "pkg/a.py", 3, 12, "`extend_seq_lens` | was None in decode", kind=HAZARD)
    note = ReviewItem("MWB113", "pkg/a.py", 1, 1, "public parameter renamed", kind="note")
    summary = RunSummary(
        discovered=4,
        results=[
            FileResult(
                "/r/pkg/a.py",
                "pkg/a.py",
                FileStatus.CHANGED,
                original="def f(model_worker_batch):\n    pass\n",
                rewritten="def f(batch):\n    pass\n",
                review_items=(hazard, note),
                parsed=True,
            ),
            FileResult("/r/pkg/b.py", "pkg/b.py", FileStatus.FAILED, error="does not parse: line 2", parsed=True),
            FileResult("/r/pkg/c.py", "pkg/c.py", FileStatus.SKIPPED, note="generated file"),
        ],
        runtime_notes=["pkg/d.py: outside the package"],
        contract_note="0.5.23: 0 breaks",
    )
    return summary, [SkippedFolder(Path("/r/build"), "build/", "build output")]


def test_a_report_that_fits_is_the_whole_report_byte_for_byte() -> None:
    summary, folders = _small_run()
    expected = [
        "## mwbmigrate: ModelWorkerBatch → ScheduleBatch",
        "",
        "| scanned | parsed | changed | failed | review items |",
        "|---:|---:|---:|---:|---:|",
        "| 4 | 2 | 1 | 1 | 2 |",
        "",
        "Contract check: 0.5.23: 0 breaks",
        "",
        "### Review items: hazards",
        "",
        f"#### MWB105 (1): {REVIEW_CODES['MWB105'].title}",
        "",
        "| location | reason |",
        "|---|---|",
        "| `pkg/a.py:3:12` | `extend_seq_lens` \\| was None in decode |",
        "",
        "`mwbmigrate explain MWB105` says what to do.",
        "",
        "<details><summary>Notes (1): nothing on these lines behaves differently</summary>",
        "",
        f"#### MWB113 (1): {REVIEW_CODES['MWB113'].title}",
        "",
        "| location | reason |",
        "|---|---|",
        "| `pkg/a.py:1:1` | public parameter renamed |",
        "",
        "`mwbmigrate explain MWB113` says what to do.",
        "",
        "</details>",
        "",
        "### Files not processed",
        "",
        "- `pkg/b.py`: does not parse: line 2",
        "",
        "### Files skipped",
        "",
        "- `pkg/c.py`: generated file",
        "",
        "### Folders skipped",
        "",
        "- `build/`: build output",
        "",
        "<details><summary><code>pkg/a.py</code></summary>",
        "",
        "```diff",
        "diff --git a/pkg/a.py b/pkg/a.py",
        "--- a/pkg/a.py",
        "+++ b/pkg/a.py",
        "@@ -1,2 +1,2 @@",
        "-def f(model_worker_batch):",
        "+def f(batch):",
        "     pass",
        "```",
        "",
        "</details>",
        "",
        "### Vendored runtime",
        "",
        "- pkg/d.py: outside the package",
        "",
    ]
    report = render_markdown(summary, skipped_folders=folders)
    assert report == "\n".join(expected) + "\n"
    assert render_markdown(summary, skipped_folders=folders, limit=len(report)) == report  # exactly at the limit
    cut = render_markdown(summary, skipped_folders=folders, limit=len(report) - 1)
    assert "**Not shown in this comment**" in cut and len(cut) < len(report)


def test_every_hazard_code_heading_fits_well_within_the_default_limit() -> None:
    """Hazard headings are kept even past the limit: the registry must leave the limit room for them."""
    items = [ReviewItem(code, "a/very/long/path/to/some/module_name.py", 1000, 80, "m") for code in REVIEW_CODES]
    result = FileResult("/r/a.py", "a.py", FileStatus.SKIPPED, review_items=tuple(items))
    report = render_markdown(RunSummary(discovered=1, results=[result]), limit=1)
    assert len(report) < MARKDOWN_BUDGET // 2
    assert all(f"#### {code} (1)" in report for code in REVIEW_CODES)


def test_markdown_limit_flag(kit) -> None:
    repo = kit.repo()
    whole = kit.invoke("rewrite", repo, "--dry-run", "--format", "markdown", "--no-contract-check", "--no-cache")
    assert "Not shown" not in whole.stdout
    limit = len(whole.stdout) // 2
    result = kit.invoke(
        "rewrite",
        repo,
        "--dry-run",
        "--format",
        "markdown",
        "--no-contract-check",
        "--no-cache",
        "--markdown-limit",
        str(limit),
    )
    assert result.exit_code == 0, result.output
    assert len(result.stdout) <= limit and "**Not shown in this comment**" in result.stdout
    _assert_well_formed(result.stdout)
