"""The one registry of codes agrees with README.md and with what the codemods emit.

README's codemod catalogue and both review-code tables list exactly the registered codes
(`mwbmigrate.codemods.ALL_CODEMODS`, `mwbmigrate.review.REVIEW_CODES`), every review code a codemod
emits is registered, and each review code's example is what `mwbmigrate rewrite` really does.
How to add a review code: `mwbmigrate/review.py`'s docstring.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mwbmigrate.codemods import ALL_CODEMODS
from mwbmigrate.engine.runner import run_rewrite
from mwbmigrate.engine.transform import TransformOptions
from mwbmigrate.review import REVIEW_CODES, is_known_code, valid_codes

REPO_ROOT = Path(__file__).resolve().parents[1]
README = REPO_ROOT / "README.md"
# A table row whose first cell is a code: `| MWB005 | worker-batch-calls | ... |`.
_CODE_ROW = re.compile(r"^\|\s*(MWB\d{3})\s*\|(.*)$")
_MARKER = re.compile(r"[ \t]*# mwbmigrate: MWB\d{3}\b[^#\n]*")
_MARKED_CODE = re.compile(r"(?:# mwbmigrate: |; )(MWB\d{3})\b")
# The examples show each marker at the end of its line, whatever its length, and notes too.
WIDE = 10_000


def _readme_rows() -> list[tuple[str, list[str]]]:
    rows = []
    for line in README.read_text(encoding="utf-8").splitlines():
        match = _CODE_ROW.match(line.strip())
        if match:
            rows.append((match.group(1), [cell.strip() for cell in match.group(2).split("|")]))
    return rows


def test_readme_lists_each_code_once():
    codes = [code for code, _ in _readme_rows()]
    assert sorted({c for c in codes if codes.count(c) > 1}) == []


def test_readme_codemod_catalogue_matches_the_registry():
    readme = {code: cells[0] for code, cells in _readme_rows() if code.startswith("MWB0")}
    registered = {codemod.CODE: codemod.NAME for codemod in ALL_CODEMODS}
    assert readme == registered


def test_readme_review_tables_match_the_registry():
    readme = {code for code, _ in _readme_rows() if code.startswith("MWB1")}
    missing_from_registry = sorted(readme - set(REVIEW_CODES))
    missing_from_readme = sorted(set(REVIEW_CODES) - readme)
    assert missing_from_registry == [], "add these to mwbmigrate/review.py (see its docstring)"
    assert missing_from_readme == [], "add a row for these to README.md's review tables"


def test_every_review_code_in_the_sources_is_registered():
    """A code a codemod emits (or an analysis names) must be explainable."""
    mentioned = set()
    for path in (REPO_ROOT / "mwbmigrate").rglob("*.py"):
        if path.name != "review.py":
            mentioned |= set(re.findall(r"\bMWB1\d\d\b", path.read_text(encoding="utf-8")))
    assert sorted(mentioned - set(REVIEW_CODES)) == [], "register these in mwbmigrate/review.py (see its docstring)"


def test_valid_codes_cover_codemod_codes_names_and_review_codes():
    keys = set(valid_codes())
    assert keys == {c.CODE for c in ALL_CODEMODS} | {c.NAME for c in ALL_CODEMODS} | set(REVIEW_CODES)
    assert all(is_known_code(key) for key in keys)
    assert not is_known_code("MWB199") and not is_known_code("worker-batch") and not is_known_code("")


@pytest.mark.parametrize("code", sorted(REVIEW_CODES))
def test_review_code_entry_is_well_formed(code):
    entry = REVIEW_CODES[code]
    assert entry.code == code and re.fullmatch(r"MWB1\d\d", code)
    assert entry.title and "\n" not in entry.title
    assert entry.meaning and entry.what_to_do and entry.example_before.strip()
    assert code in _MARKED_CODE.findall(entry.example_after)
    names = {c.NAME for c in ALL_CODEMODS}
    assert entry.reported_by and set(entry.reported_by) <= names


def _contract(tmp_path: Path, target: str):
    """The contract check `rewrite --target-version` runs last, against the real release's wheel."""
    from mwbmigrate.verify.against import breaks_by_file, check_rewritten
    from mwbmigrate.verify.release import locate_release
    from sglang_corpus import sglang_tree

    release = locate_release(str(sglang_tree(target)))
    return lambda texts, checked: breaks_by_file(check_rewritten(tmp_path, release, texts, checked))


def _rewrite(tmp_path: Path, source: str, options: TransformOptions, contract: bool = False) -> str:
    """`mwbmigrate rewrite` on a one-file plugin, both passes (keyword callers included), and the
    target's contract check when the example needs it."""
    path = tmp_path / "plugin" / "example.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(source, encoding="utf-8")
    check = _contract(tmp_path, options.target_version) if contract else None
    summary = run_rewrite([tmp_path], options, jobs=1, contract=check)
    (result,) = summary.results
    assert result.error is None, result.error
    return result.rewritten if result.rewritten is not None else source


def _lines_and_codes(text: str) -> list[tuple[str, list[str]]]:
    return [
        (
            _MARKER.sub("", line).rstrip(),
            [code for marker in _MARKER.findall(line) for code in _MARKED_CODE.findall(marker)],
        )
        for line in text.splitlines()
    ]


@pytest.mark.parametrize("code", sorted(REVIEW_CODES))
def test_review_code_example_is_what_rewrite_does(tmp_path, code):
    """The code of `example_after` is the rewrite's, and each line carries exactly the markers shown
    (their reasons may be shortened in the registry)."""
    entry = REVIEW_CODES[code]
    options = TransformOptions(
        target_version=entry.target_version,
        collapse_compat=entry.collapse_compat,
        live_batch=entry.live_batch,
        line_length=WIDE,
        note_markers=True,
    )
    output = _rewrite(tmp_path, entry.setup + entry.example_before, options, entry.contract)
    shown = _lines_and_codes(entry.example_after)
    tail = "\n".join(output.splitlines()[-len(shown) :])
    assert _lines_and_codes(tail) == shown, (
        f"make {code}'s example_after in mwbmigrate/review.py what rewrite does now:\n{tail}"
    )


@pytest.mark.parametrize("code", sorted(REVIEW_CODES))
def test_review_code_is_reported_by_the_codemods_it_names(tmp_path, code):
    """Without the codemods in `reported_by`, the example carries no such marker."""
    entry = REVIEW_CODES[code]
    options = TransformOptions(
        target_version=entry.target_version,
        disabled=frozenset(entry.reported_by),
        collapse_compat=entry.collapse_compat,
        live_batch=entry.live_batch,
        note_markers=True,
    )
    output = _rewrite(tmp_path, entry.setup + entry.example_before, options, entry.contract)
    assert f"# mwbmigrate: {code} " not in output
