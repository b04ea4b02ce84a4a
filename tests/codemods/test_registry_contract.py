"""The codemod contract (issue 14): every codemod declares what it needs, reports and acts on, and the
registry, the review codes and the fixtures agree with those declarations."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import libcst as cst
import pytest
from libcst.codemod import CodemodContext

from mwbmigrate.analysis.names import ModuleLocation
from mwbmigrate.codemods import (
    ALL_CODEMODS,
    CODEMODS,
    SECOND_PASS_CODEMODS,
)
from mwbmigrate.codemods.base import STATE_KEY, MigrationCodemod, MigrationState
from mwbmigrate.engine.prefilter import byte_candidate
from mwbmigrate.registry import check_registry
from mwbmigrate.review import REVIEW_CODES
from mwbmigrate.rules import PREREQUISITES

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CODEMODS_DIR = Path(__file__).resolve().parent.parent.parent / "mwbmigrate" / "codemods"


def test_registry_is_sound():
    assert check_registry() == []


def test_prerequisites_are_the_declared_requires():
    assert PREREQUISITES == {c.CODE: c.REQUIRES for c in ALL_CODEMODS if c.REQUIRES}


def test_every_review_code_is_declared_by_a_codemod():
    declared = {code for codemod in ALL_CODEMODS for code in codemod.REVIEW_CODES}
    assert sorted(set(REVIEW_CODES) - declared) == []


def test_declarations_match_who_reports_each_code():
    """review.py says which codemods report each code; they are the ones declaring it."""
    for code, entry in REVIEW_CODES.items():
        declaring = {codemod.NAME for codemod in ALL_CODEMODS if code in codemod.REVIEW_CODES}
        assert declaring == set(entry.reported_by), code


def test_prefilter_is_the_union_of_the_triggers():
    """Of the two passes' codemods: the contract pass runs on the files they parsed, never on others."""
    for codemod in CODEMODS + SECOND_PASS_CODEMODS:
        for trigger in codemod.TRIGGERS:
            assert byte_candidate(b"x = 1\n" + trigger.encode() + b"\n"), (codemod.NAME, trigger)
    for unrelated in (b"def f(x): return x + 1\n", b"class ScheduleBatchDisaggregationDecodeMixin:\n"):
        assert not byte_candidate(unrelated)


def test_base_declares_no_metadata():
    """LibCST merges METADATA_DEPENDENCIES up the class hierarchy: a base that declared one would
    make every codemod resolve it."""
    assert MigrationCodemod.METADATA_DEPENDENCIES == ()


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}


def test_no_codemod_imports_another():
    modules = {codemod.__module__ for codemod in ALL_CODEMODS}
    for path in CODEMODS_DIR.rglob("*.py"):
        if path.name == "__init__.py" and path.parent == CODEMODS_DIR:
            continue  # the registry imports them all
        parts = path.relative_to(CODEMODS_DIR).with_suffix("").parts
        # A codemod split into a package (wild_shapes/) may import its own modules.
        own = "mwbmigrate.codemods." + parts[0] if len(parts) > 1 else "mwbmigrate.codemods." + parts[0]
        others = {m for m in _imported_modules(path) & modules if m != own and not m.startswith(own + ".")}
        assert sorted(others) == [], path


class _Undeclared(MigrationCodemod):
    CODE = "MWB999"
    NAME = "undeclared"
    SUMMARY = "reports a code it does not declare"
    TRIGGERS = ("x",)
    REVIEW_CODES = ("MWB101",)

    def visit_Pass(self, node: cst.Pass) -> None:
        self.review(node, "MWB102", "not declared")


class _Declared(_Undeclared):
    def visit_Pass(self, node: cst.Pass) -> None:
        self.review(node, "MWB101", "declared")


def _run(codemod: type[MigrationCodemod]) -> MigrationState:
    state = MigrationState(location=ModuleLocation("plugin/module.py"))
    codemod(CodemodContext(scratch={STATE_KEY: state})).transform_module(cst.parse_module("pass\n"))
    return state


def test_review_with_an_undeclared_code_raises():
    with pytest.raises(ValueError, match="MWB102"):
        _run(_Undeclared)


def test_a_finding_leaves_the_module_as_it_was():
    module = cst.parse_module("pass\n")
    state = MigrationState(location=ModuleLocation("plugin/module.py"))
    codemod = _Declared(CodemodContext(scratch={STATE_KEY: state}))
    assert codemod.transform_module(module).code == "pass\n"
    assert codemod.pass_findings().added_text


# -- every review code has a fixture that shows it, and one of its codemod's that does not ---------
def _after_texts(folder: Path) -> list[str]:
    return [p.read_text() for p in folder.rglob("after*.py")]


ALL_AFTERS = _after_texts(FIXTURES)
# A code a marker names: first after the prefix, after "; " when one marker lists several, or first
# on a wrapped line of a marker written above its statement.
_MARKED = re.compile(r"(?:# mwbmigrate: |; |^[ \t]*#   )(MWB\d{3})\b", re.MULTILINE)


def _shows(text: str, code: str) -> bool:
    return code in _MARKED.findall(text)


@pytest.mark.parametrize("code", sorted(REVIEW_CODES))
def test_review_code_has_a_positive_fixture(code):
    assert any(_shows(text, code) for text in ALL_AFTERS), f"no fixture's after*.py shows {code}"


@pytest.mark.parametrize(
    ("codemod", "code"),
    [(c.NAME, code) for c in ALL_CODEMODS for code in c.REVIEW_CODES],
    ids=lambda value: str(value),
)
def test_review_code_has_a_negative_fixture(codemod, code):
    """A near miss: a case of the declaring codemod's own fixtures where the code does not appear."""
    texts = _after_texts(FIXTURES / codemod)
    assert any(not _shows(text, code) for text in texts), f"every {codemod} fixture shows {code}"
