"""The registry as the command line and the engine's cache-hit path read it: codes, names, what each
codemod needs run with it, and the byte prefilter, from the plain-data table (mwbmigrate/rule_table.py),
so none of them imports a codemod or LibCST."""

from __future__ import annotations

from mwbmigrate.rule_table import PREFILTER_WORDS, RULES, Rule

__all__ = [
    "PREFILTER_WORDS",
    "RULES",
    "Rule",
    "byte_candidate",
    "dependents",
    "holds_words_of",
    "prerequisites",
    "rule_by_key",
]

# What each codemod needs run with it (its REQUIRES), by code: `--select`/`--ignore` may not split them.
PREREQUISITES: dict[str, tuple[str, ...]] = {rule.code: rule.requires for rule in RULES if rule.requires}


def byte_candidate(data: bytes) -> bool:
    """The byte prefilter, for any target and selection: False proves the file cannot need a change
    (it is never read further)."""
    return any(word in data for word in PREFILTER_WORDS)


def holds_words_of(rule: Rule, data: bytes, text: bytes | None = None) -> bool:
    """Whether `data` holds one of the rule's TRIGGERS and, where it has REQUIRED_WORDS, `text` (by
    default `data`) one of them: False proves the codemod cannot act on the module by what it names
    (`MigrationCodemod.applies_to`). `data` may be the module's code alone (engine/code_view.py)."""
    text = data if text is None else text
    return any(word in data for word in rule.triggers) and (
        not rule.required or any(word in text for word in rule.required)
    )


def rule_by_key(key: str) -> Rule | None:
    """The codemod a `--select`/`--ignore` key names: its code or its name."""
    return next((rule for rule in RULES if key in (rule.code, rule.name)), None)


def codes_of(stage: str) -> tuple[str, ...]:
    """The codes a pass of the engine runs, in order (what a cached result was produced with)."""
    return tuple(rule.code for rule in RULES if rule.stage == stage)


def prerequisites(code: str) -> set[str]:
    """Every codemod `code` needs, transitively."""
    needed: set[str] = set()
    pending = list(PREREQUISITES.get(code, ()))
    while pending:
        current = pending.pop()
        if current not in needed:
            needed.add(current)
            pending.extend(PREREQUISITES.get(current, ()))
    return needed


def dependents(codes: frozenset[str]) -> set[str]:
    """Every codemod that needs one of `codes`, transitively (turned off with them by `--ignore`)."""
    return {rule.code for rule in RULES if prerequisites(rule.code) & codes}


def split_prerequisites(disabled: frozenset[str]) -> list[str]:
    """One line per codemod that would run without a codemod it needs (empty: the set is sound)."""
    names = {rule.code: rule.name for rule in RULES}
    problems = []
    for rule in RULES:
        if rule.code in disabled:
            continue
        missing = sorted(prerequisites(rule.code) & disabled)
        if missing:
            needed = ", ".join(f"{code} ({names.get(code, code)})" for code in missing)
            problems.append(f"{rule.code} ({rule.name}) needs {needed}")
    return problems
