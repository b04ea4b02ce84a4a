"""Write `mwbmigrate/rule_table.py`: the codemods' declarations as plain data.

    .venv/bin/python scripts/rule_table.py [--check]

The command line, discovery and a run whose every file the result cache already holds read the
registry from this table, so they import no codemod and no LibCST. It is rendered from the codemod
classes (`mwbmigrate.codemods`); `--check` writes nothing and exits 1 when the checked-in table is not
what they give (tests/codemods/test_rule_table.py checks the same).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

from mwbmigrate.codemods import (  # noqa: E402
    CODEMODS,
    CONTRACT_PASS_CODEMODS,
    PREFILTER_WORDS,
    SECOND_PASS_CODEMODS,
)

OUTPUT = REPO_ROOT / "mwbmigrate" / "rule_table.py"
_HEADER = '''"""The codemods' declarations as plain data: written by `scripts/rule_table.py` from the classes
in `mwbmigrate.codemods`, and checked against them (tests/codemods/test_rule_table.py). Do not edit.

The command line, discovery and a run whose every file the result cache holds read the registry
here, so they import no codemod and no LibCST (mwbmigrate/rules.py)."""

from __future__ import annotations

from typing import NamedTuple


class Rule(NamedTuple):
    code: str
    name: str
    summary: str
    requires: tuple[str, ...]  # the codes it needs run with it
    stage: str  # "first", "second" or "contract": the pass of engine/runner.py that runs it
    triggers: tuple[bytes, ...]  # its TRIGGERS: it acts only on a module holding one (or by the project's facts)
    required: tuple[bytes, ...]  # its REQUIRED_WORDS: and, where any, holding one of them too
    since: str  # the first target it runs for
    until: str | None  # the first target it no longer runs for (None: through the newest)

'''


def render() -> str:
    stages = (("first", CODEMODS), ("second", SECOND_PASS_CODEMODS), ("contract", CONTRACT_PASS_CODEMODS))
    lines = [_HEADER, "# fmt: off", "RULES: tuple[Rule, ...] = ("]
    for stage, codemods in stages:
        for codemod in codemods:
            words = tuple(t.encode() for t in codemod.TRIGGERS), tuple(w.encode() for w in codemod.REQUIRED_WORDS)
            lines.append(
                f"    Rule({codemod.CODE!r}, {codemod.NAME!r}, {codemod.SUMMARY!r}, {codemod.REQUIRES!r}, {stage!r},"
                f" {words[0]!r}, {words[1]!r}, {codemod.SINCE!r}, {codemod.UNTIL!r}),"
            )
    lines.append(")")
    lines.append("# The engine's byte prefilter: a module that holds none of these is never parsed.")
    lines.append(f"PREFILTER_WORDS: tuple[bytes, ...] = {PREFILTER_WORDS!r}")
    lines.append("# fmt: on")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when the table is stale")
    arguments = parser.parse_args()
    text = render()
    if arguments.check:
        if OUTPUT.read_text(encoding="utf-8") != text:
            print(f"{OUTPUT.relative_to(REPO_ROOT)} is stale: run scripts/rule_table.py", file=sys.stderr)
            return 1
        return 0
    OUTPUT.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
