"""mwbmigrate/rule_table.py, the registry as plain data, is what the codemod classes declare: the
command line and a run served by the cache read it instead of importing them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mwbmigrate import rule_table
from mwbmigrate.codemods import ALL_CODEMODS, CODEMODS, CONTRACT_PASS_CODEMODS, PREFILTER_WORDS, SECOND_PASS_CODEMODS

REPO = Path(__file__).resolve().parents[2]


def test_the_checked_in_table_is_what_the_classes_give() -> None:
    check = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "rule_table.py"), "--check"], capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr


def test_every_codemod_is_a_rule_in_its_pass() -> None:
    stages = {c.CODE: "first" for c in CODEMODS} | {c.CODE: "second" for c in SECOND_PASS_CODEMODS}
    stages |= {c.CODE: "contract" for c in CONTRACT_PASS_CODEMODS}
    assert [(r.code, r.name, r.requires, r.stage) for r in rule_table.RULES] == [
        (c.CODE, c.NAME, c.REQUIRES, stages[c.CODE]) for c in ALL_CODEMODS
    ]
    assert rule_table.PREFILTER_WORDS == PREFILTER_WORDS
