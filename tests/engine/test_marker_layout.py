"""Markers in the code: hazards only by default, one per statement, never past the line length."""

from __future__ import annotations

from pathlib import Path

from mwbmigrate.analysis.isolation import ProjectCallers, called_only_isolated, scan_callers
from mwbmigrate.config import project_line_length
from mwbmigrate.engine.marker_layout import wrapped_marker
from mwbmigrate.engine.transform import TransformOptions, transform_source
from mwbmigrate.report import render_markdown
from mwbmigrate.result import FileResult, FileStatus, RunSummary

SOURCE = """\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch


def forward(model_worker_batch: ModelWorkerBatch):
    return model_worker_batch.seq_lens


class W:
    def step(self, batch):
        mwb = batch.get_model_worker_batch()
        batch = self.next_batch()
        return self.worker.forward_batch_generation(mwb)
"""

AT_88 = """\
from sglang.srt.managers.schedule_batch import ScheduleBatch


def forward(batch: ScheduleBatch):
    return batch.seq_lens


class W:
    def step(self, batch):
        # mwbmigrate: MWB141 `batch = self.next_batch()` changes `batch` before `mwb` is
        #   used: `mwb` was a snapshot, now it is the live batch
        batch = self.next_batch()
        return self.worker.forward_batch_generation(batch)
"""

AT_200_WITH_NOTES = """\
from sglang.srt.managers.schedule_batch import ScheduleBatch


def forward(batch: ScheduleBatch):  # mwbmigrate: MWB113 public parameter renamed `model_worker_batch` -> `batch`: update keyword callers outside this tree
    return batch.seq_lens


class W:
    def step(self, batch):
        batch = self.next_batch()  # mwbmigrate: MWB141 `batch = self.next_batch()` changes `batch` before `mwb` is used: `mwb` was a snapshot, now it is the live batch
        return self.worker.forward_batch_generation(batch)
"""


def _items(text: str, options: TransformOptions) -> list[tuple[str, int, str]]:
    outcome = transform_source(text, "plugin/module.py", options)
    return [(item.code, item.line, item.kind) for item in outcome.review_items]


# The layout is shown on `--live-batch` output, whose MWB141 marker is long (by default the call
# below is kept as a snapshot in code, which needs no marker).
def test_a_long_marker_goes_above_its_statement_wrapped_and_a_note_stays_out_of_the_code() -> None:
    outcome = transform_source(SOURCE, "plugin/module.py", TransformOptions(live_batch=True))
    assert outcome.text == AT_88
    assert all(len(line) <= 88 for line in outcome.text.splitlines())
    # The note is reported on its line; each hazard on its statement, below its marker.
    assert _items(SOURCE, TransformOptions(live_batch=True)) == [
        ("MWB113", 4, "note"),
        ("MWB141", 12, "hazard"),
    ]


def test_a_marker_that_fits_ends_its_line_and_markers_all_writes_notes() -> None:
    options = TransformOptions(line_length=200, note_markers=True, live_batch=True)
    assert transform_source(SOURCE, "plugin/module.py", options).text == AT_200_WITH_NOTES
    assert _items(SOURCE, options) == [("MWB113", 4, "note"), ("MWB141", 10, "hazard")]


def test_a_second_run_writes_no_marker_twice() -> None:
    first = transform_source(SOURCE, "plugin/module.py", TransformOptions(live_batch=True)).text
    assert transform_source(first, "plugin/module.py", TransformOptions(live_batch=True)).text == first


def test_one_marker_per_statement_lists_its_codes() -> None:
    source = (
        "def split_prefill(self, batch):\n"
        "    model_worker_batch = batch.get_model_worker_batch(seq_lens_cpu_cache=batch.seq_lens_cpu_cache)\n"
        "    return self.model_runner.forward(model_worker_batch)\n"
    )
    # With the live batch: a kept snapshot would hold the override for every forward (no MWB103).
    text = transform_source(source, "plugin/module.py", TransformOptions(line_length=1000, live_batch=True)).text
    marked = next(line for line in text.splitlines() if "MWB103" in line)
    assert marked.count("# mwbmigrate:") == 1
    assert "# mwbmigrate: MWB103 " in marked and "; MWB107 " in marked


def test_wrapped_lines_keep_the_indentation_and_the_width() -> None:
    text = "# mwbmigrate: MWB106 " + "word " * 40
    lines = wrapped_marker(text.strip(), "        ", 60)
    assert lines[0].startswith("        # mwbmigrate: MWB106 word")
    assert all(line.startswith("        #   word") for line in lines[1:])
    assert all(len(line) <= 60 for line in lines)


def test_the_line_length_is_read_from_ruff_black_or_flake8(tmp_path: Path) -> None:
    assert project_line_length([tmp_path]) == 88
    (tmp_path / "setup.cfg").write_text("[flake8]\nmax-line-length = 100\n")
    assert project_line_length([tmp_path]) == 100
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 110\n")
    assert project_line_length([tmp_path]) == 110
    (tmp_path / "ruff.toml").write_text("line-length = 120\n")
    assert project_line_length([tmp_path / "ruff.toml"]) == 120
    (tmp_path / "ruff.toml").write_text("not toml [")
    assert project_line_length([tmp_path]) == 110  # an unreadable file is passed over


def test_callers_of_a_helper_are_read_across_the_tree() -> None:
    helper = b"class DraftInput:\n    def prepare(self, batch: ModelWorkerBatch):\n        batch.x = 1\n"
    eagle = b"class D(BaseDraftWorker):\n    def draft(self, model_worker_batch):\n        self.info.prepare(model_worker_batch)\n"
    other = b"def elsewhere(model_worker_batch):\n    info.prepare(model_worker_batch)\n"
    unrelated = b"def f(x):\n    return x.prepare(x)\n"  # names no old API: not read
    callers = scan_callers([helper, eagle, unrelated])
    assert callers == ProjectCallers({"prepare": frozenset({("D", ("BaseDraftWorker",))})})
    assert called_only_isolated("prepare", callers, "0.5.13")
    assert not called_only_isolated("prepare", scan_callers([helper, eagle, other]), "0.5.13")
    assert not called_only_isolated("draft", callers, "0.5.13")  # no call site at all


def test_the_markdown_lists_hazards_by_code_and_folds_the_notes() -> None:
    outcome = transform_source(SOURCE, "plugin/module.py", TransformOptions(live_batch=True))
    result = FileResult(
        "/x/plugin/module.py",
        "plugin/module.py",
        FileStatus.CHANGED,
        original=SOURCE,
        rewritten=outcome.text,
        review_items=outcome.review_items,
    )
    report = render_markdown(RunSummary(discovered=1, results=[result]))
    hazards = report.index("### Review items: hazards")
    assert report.index("#### MWB141 (1): ") > hazards
    notes = report.index("<details><summary>Notes (1): nothing on these lines behaves differently</summary>")
    assert notes > report.index("`mwbmigrate explain MWB141` says what to do.")
    assert report.index("#### MWB113 (1)") > notes
