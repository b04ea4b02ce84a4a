"""`mwbmigrate/verify/contracts/` is what `scripts/release_contracts.py` reads from the wheels, and
the contract step finds the same breaks with it as with the wheel.

CI reads 0.5.13 and 0.5.23, the two wheels the other corpus tests download anyway: each release's
shipped modules must be the pruned facts of its wheel, module for module, and `check_rewritten`
must give the same mismatches from the shipped contract and from the wheel, on the example fork
and on every differential case and fixture that runs the contract step. With
`MWBMIGRATE_VERIFY_ALL_RELEASES=1`, `scripts/release_contracts.py --check` reads all thirteen
wheels and compares the file byte for byte.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

from mwbmigrate.engine.contract_scope import in_sglang_package
from mwbmigrate.verify.against import _release_codebase, check_rewritten
from mwbmigrate.verify.release import locate_release
from sglang_corpus import REPO_ROOT, sglang_tree

pytestmark = pytest.mark.corpus

CI_RELEASES = ("0.5.13", "0.5.23")


def _script():
    scripts = str(REPO_ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
    spec = importlib.util.spec_from_file_location("release_contracts", REPO_ROOT / "scripts" / "release_contracts.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()


def _trees(tmp_path: Path) -> list[Path]:
    """The example fork, and one folder per contract fixture and per 0.5.23 case."""
    trees = [tmp_path / "fork"]
    shutil.copytree(REPO_ROOT / "examples" / "fork", trees[0], ignore=shutil.ignore_patterns("__pycache__"))
    fixtures = sorted(p.parent for p in (REPO_ROOT / "tests" / "fixtures").rglob("contract"))
    cases = sorted((REPO_ROOT / "tests" / "soundness" / "cases_0523").glob("*.py"))
    for index, source in enumerate([*fixtures, *cases]):
        tree = tmp_path / f"t{index}"
        (tree / "plugin").mkdir(parents=True)
        text = (source / "before.py").read_text() if source.is_dir() else source.read_text()
        (tree / "plugin" / "case.py").write_text(text)
        trees.append(tree)
    return trees


@pytest.mark.parametrize("version", CI_RELEASES)
def test_the_shipped_contract_is_the_wheels_and_finds_what_the_wheel_finds(version: str, tmp_path: Path) -> None:
    wheel = locate_release(str(sglang_tree(version)))
    codebase = _release_codebase(wheel)
    assert SCRIPT.differences(version, SCRIPT.pruned_modules(codebase)) == []
    shipped = locate_release(version, shipped=True)
    assert shipped.shipped
    found = 0
    for tree in _trees(tmp_path):
        texts = {p.resolve(): p.read_bytes() for p in tree.rglob("*.py")}
        checked = [p for p in texts if not in_sglang_package(p)]
        from_wheel = check_rewritten(tree, wheel, texts, checked)
        assert check_rewritten(tree, shipped, texts, checked) == from_wheel, tree
        found += len(from_wheel)
    assert found > 0  # the comparison saw breaks, not only empty lists


@pytest.mark.skipif(not os.environ.get("MWBMIGRATE_VERIFY_ALL_RELEASES"), reason="reads all thirteen wheels")
def test_the_file_is_what_every_wheel_gives() -> None:
    assert SCRIPT.main(["--check"]) == 0
