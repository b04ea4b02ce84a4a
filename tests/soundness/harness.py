"""The differential oracle: does `mwbmigrate rewrite` keep a program's behaviour, or say why not?

A case is a module with `main()` written against SGLang <= 0.5.12. The original runs against the old
stand-in (`standins.OLD`); the rewrite, produced exactly as `mwbmigrate rewrite` produces it (both
passes, default options), runs against the new one. Everything observed is compared: the forwards'
views (`ForwardBatch.init_new`), `record(label, value)` calls, `main()`'s return value, and the
type of any exception.

Outcomes:
- same: identical observations;
- reported: they differ and the rewrite carries review markers;
- silent: they differ and nothing was said (the one outcome the tool must never produce);
- refused: the file was left untouched with a reason (a failure here: every case is valid code).

`python -m tests.soundness.harness CASE.py...` prints each outcome, with the diff and the
observations of every case that is not `same`.
"""

from __future__ import annotations

import difflib
import re
import sys
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mwbmigrate.codemods import CODEMODS, SECOND_PASS_CODEMODS
from mwbmigrate.engine.runner import merge_signatures
from mwbmigrate.engine.transform import TransformOptions, transform_source
from mwbmigrate.result import FileResult, FileStatus
from tests.soundness import standins

CASE_PATH = "plugin/case.py"
# `same unmarked`: same, and with no hazard marked either (a proof rule's positive case).
_EXPECT = re.compile(r"^# expect: (same|reported)( unmarked)?((?: MWB\d+)*)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Migration:
    text: str
    codes: tuple[str, ...]
    refused: str | None = None


@dataclass(frozen=True)
class Verdict:
    outcome: str  # same | reported | silent | refused
    migration: Migration
    old: Any
    new: Any

    def explain(self, original: str) -> str:
        lines = [f"outcome: {self.outcome}  codes: {' '.join(self.migration.codes) or '-'}"]
        if self.migration.refused:
            lines.append(f"refused: {self.migration.refused}")
        lines += difflib.unified_diff(
            original.splitlines(), self.migration.text.splitlines(), "original", "rewritten", lineterm=""
        )
        if self.old != self.new:
            lines.append(first_difference(self.old or [], self.new or []))
        return "\n".join(lines)


def first_difference(old: list[Any], new: list[Any]) -> str:
    """The first observation that differs, field by field where both are forwards."""
    for index, (before, after) in enumerate(zip(old, new, strict=False)):
        if before == after:
            continue
        if before[0] == after[0] and isinstance(before[1], dict) and isinstance(after[1], dict):
            fields = {
                k: (before[1].get(k), after[1].get(k))
                for k in before[1].keys() | after[1].keys()
                if before[1].get(k) != after[1].get(k)
            }
            return f"observation {index} ({before[0]}) differs: {fields}"
        return f"observation {index} differs: old {before!r} / new {after!r}"
    return f"observations differ in number: old {len(old)} / new {len(new)}; old tail {old[len(new) :]!r}, new tail {new[len(old) :]!r}"


def migrate(text: str, options: TransformOptions | None = None, path: str = CASE_PATH) -> Migration:
    """Both passes of a rewrite, as the engine runs them on a one-file project."""
    options = options or TransformOptions()
    try:
        first = transform_source(text, path, options, CODEMODS, prose_gate=True)  # as the file path runs it
        signatures = merge_signatures(
            [FileResult(path, path, FileStatus.CHANGED, renamed_signatures=first.renamed_signatures)]
        )
        second = transform_source(
            first.text, path, replace(options, project_signatures=signatures), SECOND_PASS_CODEMODS
        )
        compile(second.text, path, "exec", dont_inherit=True)
    except Exception as error:  # whatever stops a file stops it from being written
        return Migration(text, (), f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}")
    # Only a hazard reports a site: a note says that nothing on its line behaves differently, so a
    # behaviour change that only a note names is silent.
    items = (*first.review_items, *second.review_items)
    codes = tuple(sorted({item.code for item in items if item.kind == "hazard"}))
    return Migration(second.text, codes)


def observe(text: str, version: str) -> list[Any]:
    """Run `main()` of `text` against the stand-in of `version`; what it observed, in order."""
    with standins.installed(version):
        namespace: dict[str, Any] = {"__name__": "soundness_case"}
        try:
            exec(compile(text, CASE_PATH, "exec", dont_inherit=True), namespace)
            # A module without `main()` (a codemod fixture) is judged on what importing it does.
            result = namespace["main"]() if "main" in namespace else None
            ending: Any = ("returned", standins.canonical(result))
        except Exception as error:
            ending = ("raised", type(error).__name__)
        return [*standins.LOG, ending]


def judge(text: str, options: TransformOptions | None = None, path: str = CASE_PATH) -> Verdict:
    migration = migrate(text, options, path)
    if migration.refused:
        return Verdict("refused", migration, None, None)
    old = observe(text, standins.OLD)
    new = observe(migration.text, standins.NEW)
    if old == new:
        return Verdict("same", migration, old, new)
    return Verdict("reported" if migration.codes else "silent", migration, old, new)


@dataclass(frozen=True)
class Expectation:
    outcome: str
    codes: tuple[str, ...]
    unmarked: bool = False


def expectation(text: str) -> Expectation:
    match = _EXPECT.search(text)
    if match is None:
        raise ValueError("a case starts with `# expect: same` or `# expect: reported MWBnnn...`")
    return Expectation(match.group(1), tuple(match.group(3).split()), bool(match.group(2)))


def main(paths: list[str]) -> int:
    bad = 0
    for path in paths:
        text = Path(path).read_text()
        try:
            verdict = judge(text)
            wanted = expectation(text)
        except Exception:
            print(f"{path}: harness error\n{traceback.format_exc()}")
            bad += 1
            continue
        ok = verdict.outcome == wanted.outcome and set(wanted.codes) <= set(verdict.migration.codes)
        bad += not ok
        print(
            f"{'ok ' if ok else 'BAD'} {path}: {verdict.outcome} (expected {wanted.outcome} {' '.join(wanted.codes)})"
        )
        if verdict.outcome != "same" or not ok:
            print("    " + verdict.explain(text).replace("\n", "\n    "))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
