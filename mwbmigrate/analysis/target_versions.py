"""The SGLang releases a migration can target, and what differs between them.

The facts per release are data: `analysis/release_table.py`, generated from the published wheels
by `scripts/release_table.py`. This module only answers questions about that table.

0.5.13-0.5.15: the one-shot per-forward overrides are `ScheduleBatch` fields that the next
`ForwardBatch.init_new` consumes and resets (`batch.capture_hidden_mode = M`).
0.5.16 on: the fields are gone. `ForwardBatch.init_new(batch, model_runner, *, capture_hidden_mode=None,
return_hidden_states_before_norm)` takes two of them as keyword arguments,
`TpModelWorker.forward_batch_generation(..., *, capture_hidden_mode=None)` passes the first one
through, and `seq_lens_cpu_cache` has no successor (init_new reads `batch.seq_lens_cpu`).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping, Optional

from mwbmigrate.analysis import release_table

__all__ = [
    "DEFAULT_TARGET_VERSION",
    "KEYWORD_OVERRIDES_SINCE",
    "LATEST",
    "LATEST_ALIAS",
    "OVERRIDE_KEYWORDS",
    "REQUIRED_INIT_NEW_KEYWORD",
    "TARGET_VERSIONS",
    "WORKER_KINDS",
    "CallerParameter",
    "at_least",
    "init_new_parameters",
    "overrides_are_arguments",
    "removed_attributes",
    "renamed_keywords",
    "resolve_target",
    "targets_between",
    "worker_call_parameters",
]

TARGET_VERSIONS: tuple[str, ...] = release_table.RELEASES  # oldest first
DEFAULT_TARGET_VERSION = "0.5.13"
LATEST = TARGET_VERSIONS[-1]
LATEST_ALIAS = "latest"
KEYWORD_OVERRIDES_SINCE = "0.5.16"
WORKER_KINDS = ("tp_worker", "spec_worker")

# Consuming call -> the override keywords it takes from 0.5.16 on, in the order 0.5.16 passes them.
OVERRIDE_KEYWORDS = {
    "init_new": ("capture_hidden_mode", "return_hidden_states_before_norm"),
    "forward_batch_generation": ("capture_hidden_mode",),
}
# 0.5.16 made this keyword of init_new required; every call site passes it (False unless set).
REQUIRED_INIT_NEW_KEYWORD = "return_hidden_states_before_norm"

_ORDER = {version: index for index, version in enumerate(TARGET_VERSIONS)}


@dataclass(frozen=True)
class CallerParameter:
    """A parameter that SGLang's callers may pass, as the release's own class declares it."""

    name: str
    default: str  # source text, e.g. "None"; "" when the parameter is required
    keyword_only: bool


def resolve_target(name: str) -> str:
    """The release a `--target-version` / `target-version =` value names (`latest`: the newest)."""
    if name == LATEST_ALIAS:
        return LATEST
    if name in _ORDER:
        return name
    raise ValueError(
        f"unknown target version {name!r}: use {LATEST_ALIAS!r} or a release from "
        f"{TARGET_VERSIONS[0]} to {LATEST} ({', '.join(TARGET_VERSIONS)})"
    )


def _index(release: str) -> int:
    try:
        return _ORDER[release]
    except KeyError:
        raise ValueError(f"{release!r} is not a release in analysis/release_table.py") from None


def at_least(target: str, release: str) -> bool:
    """True when `target` (a release or `latest`) is `release` or a later one, by release order:
    `0.5.13.post1` comes before `0.5.14`, whatever the strings compare as."""
    return _index(resolve_target(target)) >= _index(release)


def targets_between(since: str, until: Optional[str] = None) -> tuple[str, ...]:
    """The releases from `since` up to, not including, `until` (None: through the newest).

    Empty when `since` or `until` is no release, so a codemod's wrong declaration reaches
    `check_registry()` as a problem instead of failing the import.
    """
    if since not in _ORDER or (until is not None and until not in _ORDER):
        return ()
    return TARGET_VERSIONS[_ORDER[since] : len(TARGET_VERSIONS) if until is None else _ORDER[until]]


def overrides_are_arguments(target_version: str) -> bool:
    """True when the target passes the one-shot overrides as keyword arguments (0.5.16 on)."""
    return at_least(target_version, KEYWORD_OVERRIDES_SINCE)


def _parameters(rows: tuple[tuple[str, str, bool], ...]) -> tuple[CallerParameter, ...]:
    return tuple(CallerParameter(name, default, keyword_only) for name, default, keyword_only in rows)


def worker_call_parameters(target: str, kind: str) -> tuple[CallerParameter, ...]:
    """What the target's callers pass to `forward_batch_generation` after the batch, in order.

    `tp_worker`: to `TpModelWorker` (from the spec-v2 workers and the scheduler); `spec_worker`: to
    a speculative worker (from the scheduler). Defaults are those the release's classes declare.
    """
    if kind not in WORKER_KINDS:
        raise ValueError(f"unknown worker kind {kind!r}: one of {', '.join(WORKER_KINDS)}")
    return _parameters(release_table.WORKER_CALL_PARAMETERS[resolve_target(target)][kind])


def init_new_parameters(target: str) -> tuple[CallerParameter, ...]:
    """`ForwardBatch.init_new`'s parameters after `cls` (a required one has the default "")."""
    return _parameters(release_table.INIT_NEW_PARAMETERS[resolve_target(target)])


def removed_attributes(target: str, on: Optional[str] = None) -> Mapping[str, str]:
    """Attributes the target's `ScheduleBatch` or `ForwardBatch` (`on`: only that class) no longer
    has -> the first release without them. `capture_hidden_mode` left only `ScheduleBatch`."""
    index = _index(resolve_target(target))
    return MappingProxyType(
        {
            name: since
            for name, (since, classes) in release_table.REMOVED_ATTRIBUTES.items()
            if _index(since) <= index and (on is None or on in classes)
        }
    )


def renamed_keywords(target: str) -> Mapping[tuple[str, str], str]:
    """(method, old keyword) -> new keyword, for the renames the target has made."""
    index = _index(resolve_target(target))
    return MappingProxyType(
        {
            (method, old): new
            for (_cls, method, old), (new, since) in release_table.RENAMED_KEYWORDS.items()
            if _index(since) <= index
        }
    )
