"""`mwbmigrate/analysis/release_table.py` is what `scripts/release_table.py` reads from the wheels.

CI reads 0.5.13 and 0.5.23, the two wheels the other corpus tests download anyway (about 4 s): their
per-release rows must be the checked-in ones, the attributes gone between them those the table
says, and every removal and rename the table lists must hold in both. With
`MWBMIGRATE_VERIFY_ALL_RELEASES=1` all thirteen wheels are read (about 25 s once downloaded, 260 MB
to download) and the regenerated module must equal the checked-in one byte for byte.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from mwbmigrate.analysis import release_table
from mwbmigrate.verify.release import ReleaseUnavailable
from sglang_corpus import CACHE_DIR, REPO_ROOT

pytestmark = pytest.mark.corpus

ALL = bool(os.environ.get("MWBMIGRATE_VERIFY_ALL_RELEASES"))
CI_RELEASES = ("0.5.13", "0.5.23")


def _script():
    spec = importlib.util.spec_from_file_location("release_table_script", REPO_ROOT / "scripts" / "release_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()
_RELEASES: dict[str, object] = {}


def release(version: str):
    if version not in _RELEASES:
        try:
            _RELEASES[version] = SCRIPT.Release.from_wheel(SCRIPT.wheel(version, CACHE_DIR))
        except ReleaseUnavailable as error:
            pytest.fail(f"wheel download failed: {error}")
    return _RELEASES[version]


@pytest.fixture(scope="module")
def regenerated():
    versions = SCRIPT.RELEASES if ALL else CI_RELEASES
    return SCRIPT.build_table(release, versions)


def test_the_script_and_the_table_name_the_same_releases():
    assert SCRIPT.RELEASES == release_table.RELEASES


def test_the_per_release_rows_are_the_checked_in_ones(regenerated):
    for name in ("WORKER_CALL_PARAMETERS", "INIT_NEW_PARAMETERS"):
        checked_in = getattr(release_table, name)
        assert regenerated[name] == {v: checked_in[v] for v in regenerated["RELEASES"]}, name


def test_the_attributes_gone_between_the_releases_read_are_those_the_table_lists(regenerated):
    """Read over fewer releases, a removal is dated to the first release read that lacks it."""
    versions = regenerated["RELEASES"]
    order = {v: i for i, v in enumerate(SCRIPT.RELEASES)}
    expected = {}
    for name, (since, classes) in release_table.REMOVED_ATTRIBUTES.items():
        first_read = next((v for v in versions if order[v] >= order[since]), None)
        if first_read is not None and order[versions[0]] < order[since]:
            expected[name] = (first_read, classes)
    assert dict(sorted(regenerated["REMOVED_ATTRIBUTES"].items())) == dict(sorted(expected.items()))


@pytest.mark.parametrize("version", SCRIPT.RELEASES if ALL else CI_RELEASES)
def test_each_removal_and_rename_holds_in_the_release(version):
    order = {v: i for i, v in enumerate(SCRIPT.RELEASES)}
    read = release(version)
    wrong = []
    for name, (since, classes) in release_table.REMOVED_ATTRIBUTES.items():
        gone = order[version] >= order[since]
        for where in (SCRIPT.SCHEDULE_BATCH, SCRIPT.FORWARD_BATCH):
            if where[1] in classes and (name in read.attributes(*where)) == gone:
                wrong.append(f"{where[1]}.{name} {'still there' if gone else 'missing'}")
    for (cls, method, old), (new, since) in release_table.RENAMED_KEYWORDS.items():
        where = next(w for w in (SCRIPT.SCHEDULE_BATCH, SCRIPT.FORWARD_BATCH, SCRIPT.TP_WORKER) if w[1] == cls)
        names = {row[0] for row in SCRIPT.method_parameters(read, where)[method]}
        present, absent = (new, old) if order[version] >= order[since] else (old, new)
        if present not in names or absent in names:
            wrong.append(f"{cls}.{method} takes {sorted(names)}, not {present}= without {absent}=")
    assert wrong == []


@pytest.mark.skipif(not ALL, reason="reads all thirteen wheels: MWBMIGRATE_VERIFY_ALL_RELEASES=1")
def test_the_checked_in_module_is_what_the_script_writes(regenerated):
    assert SCRIPT.render(regenerated) == Path(release_table.__file__).read_text(encoding="utf-8")
