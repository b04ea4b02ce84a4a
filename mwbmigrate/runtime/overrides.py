"""One-shot per-forward overrides on ``ScheduleBatch`` (the SGLang 0.5.13 contract).

SGLang 0.5.13-0.5.15 declare three fields on ``ScheduleBatch`` that a worker sets
immediately before building a ``ForwardBatch``; ``ForwardBatch.init_new`` reads them
and resets them to their defaults *as its very first statements*, so the next
forward on the same batch starts clean even when ``init_new`` later fails:

========================================  ===========  ===============================
field                                     default      meaning
========================================  ===========  ===============================
``seq_lens_cpu_cache``                    ``None``     CPU copy of ``seq_lens`` to use
                                                       instead of ``batch.seq_lens_cpu``
``capture_hidden_mode``                   ``None``     explicit ``CaptureHiddenMode``
``return_hidden_states_before_norm``      ``False``    return pre-norm hidden states
========================================  ===========  ===============================

From 0.5.16 the fields are gone: ``init_new`` takes ``capture_hidden_mode`` and
``return_hidden_states_before_norm`` as keyword arguments and must not mutate the
batch, and ``seq_lens_cpu_cache`` has no successor. Every helper here tolerates a
batch that lacks the fields (it reads the default and writes nothing), and
:func:`resolve_forward_arguments` is the 0.5.16 counterpart of
:func:`apply_forward_overrides`.

Everything is duck-typed. SGLang's ``CaptureHiddenMode`` enum is not importable
here (no sglang import), so :func:`derive_capture_hidden_mode` takes the enum class
or its members as parameters; see its docstring for how they are found otherwise.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Optional

if TYPE_CHECKING:  # pragma: no cover - typing only
    import torch

__all__ = [
    "FORWARD_OVERRIDE_DEFAULTS",
    "FORWARD_OVERRIDE_NAMES",
    "CaptureHiddenModeUnresolvedError",
    "ForwardOverrideFields",
    "ForwardOverrides",
    "ResolvedForwardOverrides",
    "StaleSeqLensCpuCacheError",
    "apply_forward_overrides",
    "consume_forward_overrides",
    "derive_capture_hidden_mode",
    "reset_forward_overrides",
    "resolve_forward_arguments",
]

#: ``(name, default)`` of each one-shot field, in SGLang's declaration order.
FORWARD_OVERRIDE_DEFAULTS: Final[tuple[tuple[str, Any], ...]] = (
    ("seq_lens_cpu_cache", None),
    ("capture_hidden_mode", None),
    ("return_hidden_states_before_norm", False),
)
#: Just the names of :data:`FORWARD_OVERRIDE_DEFAULTS`.
FORWARD_OVERRIDE_NAMES: Final[tuple[str, ...]] = tuple(n for n, _ in FORWARD_OVERRIDE_DEFAULTS)

# Where 0.5.13 defines the enum; looked up in sys.modules only, never imported.
_SGLANG_ENUM_MODULE = "sglang.srt.model_executor.forward_batch_info"
_MISSING: Final[Any] = object()


@dataclasses.dataclass(kw_only=True)
class ForwardOverrideFields:
    """Mixin that declares the three one-shot fields with SGLang's defaults.

    ``@dataclass class ScheduleBatch(ForwardOverrideFields, ...)`` adds the fields
    exactly as 0.5.13 declares them. They are keyword-only, so they never clash with
    the subclass's positional fields or its non-default fields.
    """

    # One-shot per-forward overrides; consume_forward_overrides reads and resets them.
    # Annotated Any (a CPU torch.Tensor in practice) so that get_type_hints() on the
    # batch class works without torch.
    seq_lens_cpu_cache: Optional[Any] = None
    capture_hidden_mode: Optional[Any] = None  # a CaptureHiddenMode member
    return_hidden_states_before_norm: bool = False


class ForwardOverrides(NamedTuple):
    """The three one-shot values as they were on the batch when consumed."""

    seq_lens_cpu_cache: Optional[torch.Tensor]
    capture_hidden_mode: Optional[Any]
    return_hidden_states_before_norm: bool


class ResolvedForwardOverrides(NamedTuple):
    """What ``ForwardBatch.init_new`` ends up using (see :func:`apply_forward_overrides`)."""

    capture_hidden_mode: Any
    return_hidden_states_before_norm: bool
    seq_lens_cpu: Optional[torch.Tensor]


class StaleSeqLensCpuCacheError(ValueError, AssertionError):
    """``seq_lens_cpu_cache`` does not have the shape of ``batch.seq_lens``.

    Upstream raises a bare ``AssertionError`` here ("stale override on batch?"), so this
    also subclasses ``AssertionError`` and code that caught that keeps working. By the
    time it is raised the field has already been reset on the batch.
    """

    def __init__(self, cache_shape: Optional[tuple[int, ...]], seq_lens_shape: Optional[tuple[int, ...]]) -> None:
        self.cache_shape = cache_shape
        self.seq_lens_shape = seq_lens_shape
        super().__init__(
            f"seq_lens_cpu_cache has shape {cache_shape} but batch.seq_lens has shape "
            f"{seq_lens_shape}: stale one-shot override (set it again after "
            "filter_batch/merge_batch changed the batch size). The override has been reset."
        )


class CaptureHiddenModeUnresolvedError(LookupError):
    """The derivation needed ``CaptureHiddenMode.NULL`` or ``.FULL`` and could not find it."""


def _shape(obj: Any) -> Optional[tuple[int, ...]]:
    shape = getattr(obj, "shape", None)
    return None if shape is None else tuple(shape)


def consume_forward_overrides(batch: Any, *, check_shape: bool = True) -> ForwardOverrides:
    """Read the three one-shot fields, reset them to their defaults, and return the values.

    Contract (upstream ``init_new``, 0.5.13):

    * All three fields are reset *before* anything is validated, so a failure leaves them
      at their defaults and the next forward starts clean.
    * A field the batch does not have (0.5.16+ classes) reads as its default and is not
      created.
    * With ``check_shape`` (the default), a ``seq_lens_cpu_cache`` whose shape differs
      from ``batch.seq_lens.shape`` raises :class:`StaleSeqLensCpuCacheError`, naming
      both shapes.

    Idempotent: a second call returns the defaults.
    """
    values = []
    for name, default in FORWARD_OVERRIDE_DEFAULTS:
        value = getattr(batch, name, _MISSING)
        if value is _MISSING:
            values.append(default)
            continue
        setattr(batch, name, default)
        values.append(value)
    result = ForwardOverrides(*values)
    cache = result.seq_lens_cpu_cache
    if check_shape and cache is not None:
        seq_lens = getattr(batch, "seq_lens", None)
        cache_shape, seq_shape = _shape(cache), _shape(seq_lens)
        if cache_shape is None or cache_shape != seq_shape:
            raise StaleSeqLensCpuCacheError(cache_shape, seq_shape)
    return result


def reset_forward_overrides(batch: Any) -> None:
    """Set every one-shot field the batch has back to its default; create none."""
    for name, default in FORWARD_OVERRIDE_DEFAULTS:
        if hasattr(batch, name):
            setattr(batch, name, default)


def _enum_member(name: str, explicit: Any, modes: Any, related: tuple[Any, ...]) -> Any:
    """Find ``CaptureHiddenMode.<name>`` without importing sglang."""
    if explicit is not _MISSING:
        return explicit
    if modes is not None:
        return getattr(modes, name)
    for member in related:
        if member is not None and member is not _MISSING:
            found = getattr(type(member), name, _MISSING)
            if found is not _MISSING:
                return found
    module = sys.modules.get(_SGLANG_ENUM_MODULE)
    enum_cls = getattr(module, "CaptureHiddenMode", None)
    if enum_cls is not None:
        return getattr(enum_cls, name)
    raise CaptureHiddenModeUnresolvedError(
        f"cannot find CaptureHiddenMode.{name}: pass modes=CaptureHiddenMode "
        f"(or {name.lower()}=...) to derive_capture_hidden_mode"
    )


def derive_capture_hidden_mode(
    batch: Any,
    override: Any = None,
    *,
    modes: Any = None,
    null: Any = _MISSING,
    full: Any = _MISSING,
) -> Any:
    """Return the capture-hidden mode a forward of ``batch`` uses.

    Precedence (upstream ``init_new``, 0.5.13):

    1. ``override`` when it is not None -- an explicit ``NULL`` wins too;
    2. ``FULL`` when ``batch.return_hidden_states`` is truthy;
    3. ``batch.spec_info.capture_hidden_mode`` when ``spec_info`` is not None and the
       attribute is set (upstream would return None for an attribute holding None;
       this returns ``NULL`` instead);
    4. ``NULL``.

    ``NULL``/``FULL`` are only looked up when needed, in this order: the ``null``/
    ``full`` arguments; ``modes.NULL``/``modes.FULL`` (pass the ``CaptureHiddenMode``
    class); the enum class of another known member (``null``, ``full``, or the
    spec_info mode); ``CaptureHiddenMode`` from sglang's ``forward_batch_info`` module if
    that module is already imported (it is never imported from here). Failing all of
    those raises :class:`CaptureHiddenModeUnresolvedError`.

    Missing ``return_hidden_states`` / ``spec_info`` attributes read as False / None.
    """
    if override is not None:
        return override
    spec_info = getattr(batch, "spec_info", None)
    spec_mode = getattr(spec_info, "capture_hidden_mode", None) if spec_info is not None else None
    if getattr(batch, "return_hidden_states", False):
        return _enum_member("FULL", full, modes, (null, spec_mode))
    if spec_mode is not None:
        return spec_mode
    return _enum_member("NULL", null, modes, (full,))


def apply_forward_overrides(
    batch: Any,
    *,
    modes: Any = None,
    null: Any = _MISSING,
    full: Any = _MISSING,
) -> ResolvedForwardOverrides:
    """Do what 0.5.13's ``ForwardBatch.init_new`` does with the one-shot fields.

    1. :func:`consume_forward_overrides` (reset first; stale cache raises
       :class:`StaleSeqLensCpuCacheError` with the field already reset);
    2. :func:`derive_capture_hidden_mode` from the consumed override;
    3. ``seq_lens_cpu`` is the cache when one was set (the same object), else
       ``batch.seq_lens_cpu``;
    4. when ``batch.seq_lens_sum`` is None it is computed from that effective
       ``seq_lens_cpu`` and written back to the batch, as upstream does.

    For migrated ``init_new`` shims and tests; a batch without the fields gets the
    defaults.
    """
    consumed = consume_forward_overrides(batch)
    mode = derive_capture_hidden_mode(batch, consumed.capture_hidden_mode, modes=modes, null=null, full=full)
    cache = consumed.seq_lens_cpu_cache
    seq_lens_cpu = cache if cache is not None else getattr(batch, "seq_lens_cpu", None)
    if seq_lens_cpu is not None and getattr(batch, "seq_lens_sum", 0) is None:
        batch.seq_lens_sum = int(seq_lens_cpu.sum())
    return ResolvedForwardOverrides(mode, consumed.return_hidden_states_before_norm, seq_lens_cpu)


def resolve_forward_arguments(
    batch: Any,
    capture_hidden_mode: Any = None,
    return_hidden_states_before_norm: bool = False,
    *,
    modes: Any = None,
    null: Any = _MISSING,
    full: Any = _MISSING,
) -> ResolvedForwardOverrides:
    """Do what 0.5.16's ``ForwardBatch.init_new`` does with its override arguments.

    The overrides arrive as arguments, so no one-shot field is read or reset, even on a
    batch class that still declares them: a value left there by older code is ignored,
    as 0.5.16 would ignore it. The capture mode is derived as in
    :func:`derive_capture_hidden_mode`; ``seq_lens_cpu`` is ``batch.seq_lens_cpu``
    (0.5.16 has no ``seq_lens_cpu_cache`` override); a None ``batch.seq_lens_sum`` is
    computed from it and written back, the one mutation 0.5.16 keeps.
    """
    mode = derive_capture_hidden_mode(batch, capture_hidden_mode, modes=modes, null=null, full=full)
    seq_lens_cpu = getattr(batch, "seq_lens_cpu", None)
    if seq_lens_cpu is not None and getattr(batch, "seq_lens_sum", 0) is None:
        batch.seq_lens_sum = int(seq_lens_cpu.sum())
    return ResolvedForwardOverrides(mode, return_hidden_states_before_norm, seq_lens_cpu)
