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
    "RENAMED_KEYWORD_METHODS",
    "REQUIRED_INIT_NEW_KEYWORD",
    "TARGET_VERSIONS",
    "WORKER_KINDS",
    "CallerParameter",
    "DerivedRelease",
    "at_least",
    "init_new_parameters",
    "overrides_are_arguments",
    "register_release",
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
# SGLang's methods whose keywords some release renamed (`filter_batch`).
RENAMED_KEYWORD_METHODS = frozenset(method for _cls, method, _old in release_table.RENAMED_KEYWORDS)

Rows = tuple[tuple[str, str, bool], ...]  # (name, default source, keyword-only), as the table holds them


@dataclass(frozen=True)
class DerivedRelease:
    """A release read from its wheel or folder at run time (`--target-version WHEEL|DIR`), by the
    very functions that wrote the shipped table (`verify/release_contract.py`).

    It stands in for a shipped row of the same label. Where it falls among the known releases comes
    from its version; a version the table does not place comes after the newest. What it removed is
    what the first release has and it lacks, dated by the table where a known release removed it
    first; a keyword the table knows as renamed counts where the release takes the new name and not
    the old one. Any other change is for the contract check to find (`rewrite`'s last step).
    """

    label: str  # the version the release declares
    source: str  # the wheel or folder it was read from
    tp_worker: Rows
    spec_worker: Rows
    init_new: Rows
    attributes: tuple[tuple[str, tuple[str, ...]], ...]  # batch class -> its public attributes
    method_parameters: tuple[tuple[str, str, tuple[str, ...]], ...]  # (class, method, parameter names)

    def attributes_of(self, cls: str) -> frozenset[str]:
        return frozenset(next((names for name, names in self.attributes if name == cls), ()))

    def parameters_of(self, cls: str, method: str) -> Optional[frozenset[str]]:
        found = next((names for c, m, names in self.method_parameters if (c, m) == (cls, method)), None)
        return None if found is None else frozenset(found)


_DERIVED: dict[str, DerivedRelease] = {}


def register_release(release: DerivedRelease) -> None:
    """Make `release` a target in this process (each worker process registers it from its options)."""
    _DERIVED[release.label] = release


def _version_key(label: str) -> Optional[tuple[int, ...]]:
    """`0.5.13` -> (0, 5, 13); `0.5.13.post1` -> (0, 5, 13, 0, 1), after 0.5.13 and before 0.5.14."""
    parts: list[int] = []
    for piece in label.split("."):
        if piece.isdigit():
            parts.append(int(piece))
        elif piece.startswith("post") and piece[4:].isdigit():
            parts += [0, int(piece[4:])]
        else:
            return None
    return tuple(parts)


def _position(release: str) -> float:
    """A release's place in the order: a shipped one's index; a derived one the table does not hold
    sits half a step after the last shipped release below it (after the newest, if unplaced)."""
    if release in _ORDER:
        return _ORDER[release]
    key = _version_key(release)
    below = [i for v, i in _ORDER.items() if key is not None and (_version_key(v) or ()) < key]
    return (max(below) if below and key is not None else len(TARGET_VERSIONS) - 1) + 0.5


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
    if name in _ORDER or name in _DERIVED:
        return name
    raise ValueError(
        f"unknown target version {name!r}: use {LATEST_ALIAS!r} or a release from "
        f"{TARGET_VERSIONS[0]} to {LATEST} ({', '.join(TARGET_VERSIONS)})"
    )


def _index(release: str) -> float:
    if release not in _ORDER and release not in _DERIVED:
        raise ValueError(f"{release!r} is not a release in analysis/release_table.py") from None
    return _position(release)


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
    release = resolve_target(target)
    derived = _DERIVED.get(release)
    if derived is not None:
        return _parameters(derived.tp_worker if kind == "tp_worker" else derived.spec_worker)
    return _parameters(release_table.WORKER_CALL_PARAMETERS[release][kind])


def init_new_parameters(target: str) -> tuple[CallerParameter, ...]:
    """`ForwardBatch.init_new`'s parameters after `cls` (a required one has the default "")."""
    release = resolve_target(target)
    derived = _DERIVED.get(release)
    return _parameters(derived.init_new if derived is not None else release_table.INIT_NEW_PARAMETERS[release])


def removed_attributes(target: str, on: Optional[str] = None) -> Mapping[str, str]:
    """Attributes the target's `ScheduleBatch` or `ForwardBatch` (`on`: only that class) no longer
    has -> the first release without them. `capture_hidden_mode` left only `ScheduleBatch`."""
    release = resolve_target(target)
    derived = _DERIVED.get(release)
    if derived is not None:
        return MappingProxyType(_removed_from(derived, on))
    index = _index(release)
    return MappingProxyType(
        {
            name: since
            for name, (since, classes) in release_table.REMOVED_ATTRIBUTES.items()
            if since in _ORDER and _index(since) <= index and (on is None or on in classes)
        }
    )


def _removed_from(derived: DerivedRelease, on: Optional[str]) -> dict[str, str]:
    """What the first release's batch classes have and `derived`'s lack, dated by the table where
    a known release before it removed them, else by `derived` itself."""
    index = _index(derived.label)
    removed: dict[str, str] = {}
    for cls, first in release_table.FIRST_RELEASE_ATTRIBUTES.items():
        if on is not None and cls != on:
            continue
        for name in sorted(set(first) - derived.attributes_of(cls)):
            since, _classes = release_table.REMOVED_ATTRIBUTES.get(name, (derived.label, ()))
            removed.setdefault(name, since if since in _ORDER and _index(since) <= index else derived.label)
    return dict(sorted(removed.items(), key=lambda item: (_index(item[1]), item[0])))


def renamed_keywords(target: str) -> Mapping[tuple[str, str], str]:
    """(method, old keyword) -> new keyword, for the renames the target has made."""
    release = resolve_target(target)
    derived = _DERIVED.get(release)
    if derived is not None:
        taken = {
            (cls, method, old): (new, since)
            for (cls, method, old), (new, since) in release_table.RENAMED_KEYWORDS.items()
            if (names := derived.parameters_of(cls, method)) is not None and new in names and old not in names
        }
        return MappingProxyType({(method, old): new for (_cls, method, old), (new, _since) in taken.items()})
    index = _index(release)
    return MappingProxyType(
        {
            (method, old): new
            for (_cls, method, old), (new, since) in release_table.RENAMED_KEYWORDS.items()
            if since in _ORDER and _index(since) <= index
        }
    )
