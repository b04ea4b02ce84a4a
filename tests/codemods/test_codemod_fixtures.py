import pytest

from fixture_cases import FIXTURES, cases, check_case

ALL_CASES = [case for folder in sorted(FIXTURES.iterdir()) if folder.is_dir() for case in cases(folder.name)]


@pytest.mark.parametrize("case", ALL_CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_pair(case):
    check_case(case)


def test_every_codemod_has_fixtures():
    from mwbmigrate.codemods import ALL_CODEMODS

    assert {c.NAME for c in ALL_CODEMODS} <= {p.name for p in FIXTURES.iterdir() if p.is_dir()}
