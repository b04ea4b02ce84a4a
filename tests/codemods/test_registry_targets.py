"""The releases a codemod declares it models (SINCE, UNTIL, BOUNDARIES), the targets that gives it,
and what `check_registry()` says of a wrong declaration."""

from __future__ import annotations

import pytest

import mwbmigrate.codemods as registry
from mwbmigrate.analysis.target_versions import TARGET_VERSIONS
from mwbmigrate.codemods import ALL_CODEMODS, modelled_targets
from mwbmigrate.codemods.base import MigrationCodemod
from mwbmigrate.codemods.override_arguments import PassOverridesAsArguments
from mwbmigrate.registry import check_registry


class _Every(MigrationCodemod):
    CODE = "MWB901"
    NAME = "every-target"
    SUMMARY = "runs for every target"
    TRIGGERS = ("x",)


class _From0519(_Every):
    CODE = "MWB902"
    NAME = "from-0.5.19"
    SINCE = "0.5.19"
    BOUNDARIES = ("0.5.22",)


class _Until0516(_Every):
    CODE = "MWB903"
    NAME = "until-0.5.16"
    UNTIL = "0.5.16"


class _NoSuchRelease(_Every):
    CODE = "MWB904"
    NAME = "no-such-release"
    SINCE = "0.5.24"
    BOUNDARIES = ("0.5.12",)


class _OutOfOrder(_Every):
    CODE = "MWB905"
    NAME = "out-of-order"
    SINCE = "0.5.19"
    BOUNDARIES = ("0.5.16",)
    UNTIL = "0.5.19"


class _ByHand(_Every):
    CODE = "MWB906"
    NAME = "by-hand"
    SINCE = "0.5.16"
    TARGET_VERSIONS = ("0.5.16",)


def test_the_targets_follow_from_since_and_until():
    assert _Every.TARGET_VERSIONS == TARGET_VERSIONS
    assert _From0519.TARGET_VERSIONS == ("0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23")
    assert _Until0516.TARGET_VERSIONS == ("0.5.13", "0.5.13.post1", "0.5.14", "0.5.15", "0.5.15.post1")
    assert _NoSuchRelease.TARGET_VERSIONS == ()


def test_override_arguments_runs_for_every_target_from_0_5_16():
    assert PassOverridesAsArguments.SINCE == "0.5.16"
    assert PassOverridesAsArguments.TARGET_VERSIONS == TARGET_VERSIONS[TARGET_VERSIONS.index("0.5.16") :]


@pytest.fixture
def with_codemods(monkeypatch):
    def install(*codemods: type[MigrationCodemod]) -> None:
        monkeypatch.setattr(registry, "ALL_CODEMODS", (*ALL_CODEMODS, *codemods))

    return install


def test_sound_declarations_pass(with_codemods):
    with_codemods(_Every, _From0519, _Until0516)
    assert check_registry() == []


def test_a_release_the_table_does_not_hold_is_reported(with_codemods):
    with_codemods(_NoSuchRelease)
    assert check_registry() == [
        "MWB904 (no-such-release) declares SINCE '0.5.24', not a release of analysis/release_table.py",
        "MWB904 (no-such-release) declares BOUNDARIES '0.5.12', not a release of analysis/release_table.py",
    ]


def test_releases_out_of_order_are_reported(with_codemods):
    with_codemods(_OutOfOrder)
    assert check_registry() == [
        "MWB905 (out-of-order) declares SINCE 0.5.19, BOUNDARIES 0.5.16, UNTIL 0.5.19: not SINCE < BOUNDARIES < UNTIL",
    ]


def test_targets_declared_by_hand_must_agree_with_since(with_codemods):
    with_codemods(_ByHand)
    assert check_registry() == [
        "MWB906 (by-hand) declares TARGET_VERSIONS ('0.5.16',), but SINCE and UNTIL give "
        "('0.5.16', '0.5.17', '0.5.18', '0.5.19', '0.5.20', '0.5.21', '0.5.22', '0.5.23')",
    ]


def test_modelled_targets_are_the_default_and_every_declared_boundary(monkeypatch):
    monkeypatch.setattr(registry, "ALL_CODEMODS", (_Every, _From0519, _Until0516))
    assert modelled_targets() == ("0.5.13", "0.5.16", "0.5.19", "0.5.22")
