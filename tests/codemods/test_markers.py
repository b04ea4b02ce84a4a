"""A review marker is one comment line, whatever reason a codemod gives (defect class 10).

A reason that quoted a multi-line expression made LibCST reject the comment (`CSTValidationError`)
and cost the user the whole file; `marker_text` now makes every reason safe, for every caller.
"""

from __future__ import annotations

import libcst as cst

from mwbmigrate.codemods.base import MARKER_PREFIX, MAX_REASON_CHARS, add_marker, marker_text
from mwbmigrate.engine.transform import TransformOptions, transform_source


def test_whitespace_and_newlines_collapse_to_single_spaces():
    text = marker_text("MWB135", "on `(\n    runner.workers[\r\n        0\n    ].current\n)`,\tkept")
    assert text == f"{MARKER_PREFIX}MWB135 on `( runner.workers[ 0 ].current )`, kept"


def test_long_reasons_are_cut_to_the_cap_with_an_ellipsis():
    reason = marker_text("MWB151", "x" * 1000)[len(f"{MARKER_PREFIX}MWB151 ") :]
    assert len(reason) == MAX_REASON_CHARS and reason.endswith("...")
    short = "a reason of ordinary length"
    assert marker_text("MWB151", short).endswith(short)


def test_a_multi_line_reason_makes_a_valid_marker_on_any_statement():
    for source in ("x = 1\n", "if x:\n    pass\n", "if x: pass\n"):
        marked = add_marker(cst.parse_statement(source), marker_text("MWB110", "isinstance(\n    x,\n    C,\n)"))
        code = cst.Module([marked]).code
        assert code.count("\n") == source.count("\n") and "MWB110 isinstance( x, C, )" in code


def test_the_file_is_migrated_not_failed_when_a_reason_quotes_multi_line_source():
    source = (
        "def go(runner, batch, worker):\n"
        "    runner.slots[\n"
        "        0\n"
        "    ].last = batch.get_model_worker_batch()\n"
        "    return worker.forward_batch_generation(runner.slots[0].last)\n"
    )
    # `--live-batch`: by default the call becomes the snapshot helper, which needs no marker.
    outcome = transform_source(source, "plugin/module.py", TransformOptions(live_batch=True))
    compile(outcome.text, "module.py", "exec")
    (item,) = [i for i in outcome.review_items if i.code == "MWB135"]
    # The marker is too long for the line: it stands on two lines above the statement, whose last
    # line (the item's) moves down by two.
    lines = outcome.text.splitlines()
    assert lines[1].startswith("    # mwbmigrate: MWB135 ") and lines[2].startswith("    #   ")
    assert item.line == 6 and lines[5] == "    ].last = batch.get_model_worker_batch()"
    assert "runner.slots[ 0 ].last" in item.message
