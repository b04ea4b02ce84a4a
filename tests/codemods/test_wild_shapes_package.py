"""wild-shapes is one module per documented shape: each names its fixtures, and the codemod declares
every review code its reporters can emit."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import mwbmigrate.codemods.wild_shapes as package
from mwbmigrate.codemods.wild_shapes import REPORTERS, ReportWildShapes

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "wild-shapes"


def _modules() -> dict[str, object]:
    return {
        info.name: importlib.import_module(f"{package.__name__}.{info.name}")
        for info in pkgutil.iter_modules(package.__path__)
    }


def test_every_fixture_is_named_by_a_module_docstring():
    docstrings = " ".join([package.__doc__ or "", *((m.__doc__ or "") for m in _modules().values())])
    named = set(re.findall(r"\bshape\d\d_\w+", docstrings))
    fixtures = {p.name for p in FIXTURES.iterdir() if p.is_dir()}
    assert fixtures - named == set()
    assert named - fixtures == set()  # a docstring names no fixture that is gone


def test_review_codes_are_the_reporters_codes_and_every_code_the_package_writes():
    source = "".join(Path(m.__file__).read_text() for m in _modules().values())
    written = set(re.findall(r'"(MWB1\d\d)"', source))
    declared = {code for reporter in REPORTERS for code in reporter.CODES}
    assert written == declared == set(ReportWildShapes.REVIEW_CODES)
    for reporter in REPORTERS:  # each code is one reporter's
        assert sum(code in r.CODES for r in REPORTERS for code in reporter.CODES) == len(reporter.CODES)


def test_each_reporter_module_has_its_example_and_fixtures():
    for reporter in REPORTERS:
        doc = importlib.import_module(reporter.__module__).__doc__ or ""
        assert re.search(r"\bshape\d\d_\w+", doc), reporter.__module__
        assert all(code in doc for code in reporter.CODES), reporter.__module__
