"""Review items point at their statement's first line; markers an earlier run left in the code are
open review items: read from the comments (never from strings), at their statement's first line,
and not counted twice when a rule reports them again."""

from __future__ import annotations

from mwbmigrate.engine.review_locations import final_review_items, standing_markers
from mwbmigrate.result import ReviewItem

SOURCE = """\
x = 1  # mwbmigrate: MWB101 kept: `batch` is rebound; MWB106 another reason
s = "# mwbmigrate: MWB101 a string, not a marker"


def f(batch):
    # mwbmigrate: MWB101 `get_model_worker_batch()` kept: `batch` is rebound before the last use
    #   of `mwb`
    mwb = batch.get_model_worker_batch()
    y = g(
        mwb,
    )  # mwbmigrate: MWB150 on the closing line of a statement that starts two lines up
    # an ordinary comment
    return y
"""


def test_each_entry_of_each_marker_at_its_statements_first_line() -> None:
    found = [(i.code, i.line, i.column, i.message, i.standing) for i in standing_markers(SOURCE, "m.py")]
    assert found == [
        ("MWB101", 1, 1, "kept: `batch` is rebound", True),
        ("MWB106", 1, 1, "another reason", True),
        ("MWB101", 8, 5, "`get_model_worker_batch()` kept: `batch` is rebound before the last use of `mwb`", True),
        ("MWB150", 9, 5, "on the closing line of a statement that starts two lines up", True),
    ]


def test_a_reported_item_moves_to_its_first_line_and_is_not_open_twice() -> None:
    """The rule reported the MWB101 above (at the line its statement ends) and the MWB150 (at the
    closing `)`): both move to their statements' first lines, and only the markers no rule
    reported are open."""
    reported = [
        ReviewItem(
            "MWB101", "m.py", 8, 5, "`get_model_worker_batch()` kept: `batch` is rebound before the last use of `mwb`"
        ),
        ReviewItem("MWB150", "m.py", 11, 5, "on the closing line of a statement that starts two lines up"),
    ]
    found = [(i.code, i.line, i.column, i.standing) for i in final_review_items(SOURCE, "m.py", reported)]
    assert found == [("MWB101", 1, 1, True), ("MWB106", 1, 1, True), ("MWB101", 8, 5, False), ("MWB150", 9, 5, False)]


def test_a_module_without_markers_or_items_is_left_alone() -> None:
    assert final_review_items("x = 1\n", "m.py", ()) == ()


def test_text_that_does_not_tokenize_has_none() -> None:
    assert standing_markers("x = (  # mwbmigrate: MWB101 reason\n", "m.py") == []
