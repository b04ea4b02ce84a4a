"""The registry's check of itself: every codemod's declarations against the others', the release
table's and the review codes' documentation (django-upgrade's model: a fixer declares itself, and
the registry checks it). Above both `codemods` and `review`, which it reads."""

from __future__ import annotations

import mwbmigrate.codemods as codemods
from mwbmigrate.analysis.target_versions import TARGET_VERSIONS, targets_between
from mwbmigrate.codemods.base import MigrationCodemod
from mwbmigrate.review import REVIEW_CODES
from mwbmigrate.rules import prerequisites

__all__ = ["check_registry"]


def check_registry() -> list[str]:
    """One line per broken declaration of the registry (empty: it is sound).

    Codes and names are unique; each REQUIRES names a registered codemod (pass 1 or pass 2; one
    that must see the code after this one, as imports after class-references, comes later) and no
    cycle through itself; TRIGGERS are set; each REVIEW_CODES entry is documented in
    mwbmigrate/review.py; SINCE, UNTIL and BOUNDARIES are releases of analysis/release_table.py,
    in order, and TARGET_VERSIONS is every release from SINCE up to UNTIL."""
    problems: list[str] = []
    codes = [codemod.CODE for codemod in codemods.ALL_CODEMODS]
    names = [codemod.NAME for codemod in codemods.ALL_CODEMODS]
    problems += [f"code {code} used twice" for code in sorted({c for c in codes if codes.count(c) > 1})]
    problems += [f"name {name} used twice" for name in sorted({n for n in names if names.count(n) > 1})]
    problems += [
        f"{c.__name__} is registered in both passes"
        for c in set(codemods.CODEMODS) & set(codemods.SECOND_PASS_CODEMODS)
    ]
    problems += [
        f"{c.__name__} is registered in another pass too"
        for c in set(codemods.CONTRACT_PASS_CODEMODS) & set(codemods.CODEMODS)
    ]
    for codemod in codemods.ALL_CODEMODS:
        label = f"{codemod.CODE} ({codemod.NAME})"
        for required in codemod.REQUIRES:
            if required not in codes:
                problems.append(f"{label} requires {required}, which is not registered")
        if codemod.CODE in prerequisites(codemod.CODE):
            problems.append(f"{label} requires itself (a cycle of REQUIRES)")
        if not getattr(codemod, "TRIGGERS", ()):
            problems.append(f"{label} declares no TRIGGERS")
        for code in codemod.REVIEW_CODES:
            if code not in REVIEW_CODES:
                problems.append(f"{label} declares {code}, which mwbmigrate/review.py does not document")
        problems += _release_problems(label, codemod)
    return problems


def _release_problems(label: str, codemod: type[MigrationCodemod]) -> list[str]:
    declared = [("SINCE", codemod.SINCE), *(("BOUNDARIES", b) for b in codemod.BOUNDARIES)]
    if codemod.UNTIL is not None:
        declared.append(("UNTIL", codemod.UNTIL))
    unknown = [
        f"{label} declares {field} {value!r}, not a release of analysis/release_table.py"
        for field, value in declared
        if value not in TARGET_VERSIONS
    ]
    if unknown:
        return unknown
    problems = []
    order = [TARGET_VERSIONS.index(value) for _field, value in declared]
    if order != sorted(set(order)):
        values = ", ".join(f"{field} {value}" for field, value in declared)
        problems.append(f"{label} declares {values}: not SINCE < BOUNDARIES < UNTIL")
    expected = targets_between(codemod.SINCE, codemod.UNTIL)
    if codemod.TARGET_VERSIONS != expected:
        problems.append(
            f"{label} declares TARGET_VERSIONS {codemod.TARGET_VERSIONS}, but SINCE and UNTIL give {expected}"
        )
    return problems
