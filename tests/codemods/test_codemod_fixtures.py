import pytest

from corpus_trees import marked_statement
from fixture_cases import FIXTURES, cases, check_case

ALL_CASES = [case for folder in sorted(FIXTURES.iterdir()) if folder.is_dir() for case in cases(folder.name)]


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_pair(case):
    check_case(case)


def test_every_codemod_has_fixtures():
    from mwbmigrate.codemods import ALL_CODEMODS

    assert {c.NAME for c in ALL_CODEMODS} <= {p.name for p in FIXTURES.iterdir() if p.is_dir()}


# Cases whose remaining tokens are not SGLang's old API: another project's class of the same name,
# and parameters named `model_worker_batch` that are typed as something else.
NOT_SGLANG_OLD_API = {
    "imports/relative_outside_sglang_untouched",
    "imports/unrelated_same_name_untouched",
    # a class of the case's own whose `model_worker_batch` parameter is typed as something else
    "keyword-callers/override_renames_differently_kept",
    "keyword-callers/unrelated_class_same_method_name",
    "keyword-callers/upstream_api_and_local_fakes",
    "parameter-renames/name_that_lies_untouched",
    "wild-shapes/shape06_names_that_lie",
    "wild-shapes/shape11_jax_port_calls_untouched",
    "wild-shapes/shape11_jax_port_types_untouched",
}


@pytest.mark.parametrize(
    "case",
    [c for c in ALL_CASES if f"{c.parent.name}/{c.name}" not in NOT_SGLANG_OLD_API],
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_old_api_left_only_on_marked_lines(case):
    """Every old-API code token that survives the migration sits on a line with a review marker."""
    from corpus_trees import old_api_code_tokens

    text = (case / "after.py").read_text()
    unmarked = [(n, token) for n, token in old_api_code_tokens(text) if not marked_statement(text, n)]
    assert unmarked == []
