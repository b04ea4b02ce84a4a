"""A release's facts kept between runs (`verify/codebase.py`): read back module by module, and a
module whose kept facts do not read back is extracted from its text again, never an error."""

from __future__ import annotations

import pickle
from pathlib import Path

from mwbmigrate.verify.codebase import Codebase

MODULE = "def f(a, b=1):\n    pass\n"


def _kept(tmp_path: Path) -> Path:
    (tmp_path / "m.py").write_text(MODULE)
    codebase = Codebase(tmp_path)
    assert codebase.module("m") is not None
    facts = tmp_path / "facts.pickle"
    codebase.save_facts(facts)
    return facts


def test_kept_facts_are_read_back_when_asked_for(tmp_path: Path) -> None:
    facts = _kept(tmp_path)
    again = Codebase(tmp_path)
    again.load_facts(facts)
    assert again.extracted == 1
    module = again.module("m")
    assert module is not None and module.functions["f"][0].signature.required_positional == 1


def test_a_module_whose_kept_facts_are_corrupt_is_extracted_again(tmp_path: Path) -> None:
    facts = _kept(tmp_path)
    saved = pickle.loads(facts.read_bytes())
    saved["facts"]["m"] = (saved["facts"]["m"][0], b"not a pickle")
    facts.write_bytes(pickle.dumps(saved))
    again = Codebase(tmp_path)
    again.load_facts(facts)
    assert [m.name for m in again.scan()] == ["m"]
    module = again.module("m")
    assert module is not None and "f" in module.functions
