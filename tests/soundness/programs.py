"""A Hypothesis strategy for small programs that use the old API in the ways real code does.

A program is a `main()` (or an `async` one run by `asyncio.run`) that takes a snapshot
(`get_model_worker_batch()`, with or without the override, of a batch made here or read from an
owner, `sched.running_batch`) and then runs a random sequence of pieces: uses of the snapshot
(forwards, field reads, keyword calls, isinstance tests, reflection on its type and fields, helpers
that read overrides), inline snapshots in every expression position (arguments, containers,
comprehensions, defaults, `:=`, lambdas), mutations of the batch of every kind (attribute writes,
method calls, calls that take the batch, writes through an alias, tuple targets, `setattr`,
`__dict__`, in-place element writes, a method of its owner, an object built with it, suspension at
`await`, `async with` and `async for` while another task decodes it), writes to the snapshot, escapes
into containers, calls that keep their argument (`functools.partial`, a constructor, a helper that
stores it), aliases, and nested scopes that bind `batch`, inside loops and branches.

`render` builds every generated program (this menu's and `open_window`'s): the prelude, trimmed by
`prune` to the definitions and imports the program names, then `main()`. `open_window.py` draws
programs whose window is arbitrary generated user code. `shard_settings` splits the profiles'
examples among the test modules `test_generated_programs*.py`.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Sequence
from dataclasses import dataclass

from hypothesis import HealthCheck, settings, strategies as st

PRELUDE = """\
import asyncio
import contextlib
import functools
import queue
import threading

from sglang.srt.managers.schedule_batch import ModelWorkerBatch, ScheduleBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import Req, make_batch, record


def _grow(b):
    b.seq_lens = [n + 10 for n in b.seq_lens]


def _peek(b):
    record("peek", b.seq_lens)


class _Other:
    def run(self, model_worker_batch: int = 0):
        record("other.run", model_worker_batch)


def _forward_it(worker, model_worker_batch):
    record("helper sees", model_worker_batch.extend_seq_lens)
    return worker.forward_batch_generation(model_worker_batch=model_worker_batch)


def _pair_up(model_worker_batch, others):
    return [(model_worker_batch.seq_lens, batch.seq_lens) for batch in others]


def _late_reader(model_worker_batch, batch):
    batch.seq_lens = [0, 0]
    return model_worker_batch.seq_lens


def _cpu_reader(snapshot):
    return snapshot.seq_lens_cpu


def _gated_lengths(model_worker_batch):
    if model_worker_batch.forward_mode.is_extend():
        return _lengths(model_worker_batch)
    return None


def _lengths(model_worker_batch):
    return model_worker_batch.extend_seq_lens


def _draft(model_worker_batch):
    forward_batch = ForwardBatch.init_new(model_worker_batch, None)
    return forward_batch.capture_hidden_mode


_HELD = []
_LIVE = []


def _hold(snapshot):
    _HELD.append(snapshot)


class _Record:
    def __init__(self, held, step=0):
        self.held = held
        self.step = step


class _Sched:
    def __init__(self, batch):
        self.running_batch = batch

    def update_running_batch(self):
        self.running_batch.prepare_for_decode()


class _Stepper:
    def __init__(self, batch):
        self.batch = batch

    def step(self):
        self.batch.seq_lens = [n + 1 for n in self.batch.seq_lens]


class _Pause:
    async def __aenter__(self):
        await asyncio.sleep(0)
        _LIVE[0].prepare_for_decode()

    async def __aexit__(self, *exc):
        return False


async def _ticks():
    for _ in range(1):
        await asyncio.sleep(0)
        _LIVE[0].seq_lens = [n + 2 for n in _LIVE[0].seq_lens]
        yield 0


async def _nap():
    await asyncio.sleep(0)
    _LIVE[0].forward_mode = ForwardMode.DECODE


_BATCHES = {}
_KEPT = []


class _SpecInput:
    capture_hidden_mode = CaptureHiddenMode.LAST


def _is_batch(value):
    return isinstance(value, ScheduleBatch)


"""

SNAPSHOT_NAMES = ("model_worker_batch", "mwb", "worker_batch")

USES = (
    "worker.forward_batch_generation({s})",
    "worker.forward_batch_generation(model_worker_batch={s})",
    "ForwardBatch.init_new({s}, None)",
    'record("seq_lens", {s}.seq_lens)',
    'record("extend", {s}.extend_seq_lens)',
    'record("prefix", {s}.extend_prefix_lens)',
    'record("lora", {s}.lora_ids)',
    'record("offsets", ({s}.dllm_block_offsets, 1))',
    'record("mode", {s}.forward_mode)',
    'record("cpu", {s}.seq_lens_cpu)',
    'record("is_old", isinstance({s}, ModelWorkerBatch))',
    'record("pair", [({s}.seq_lens, batch) for batch in others])',
    'record("lam", (lambda batch: {s}.input_ids)(others[0]))',
    "_peek({s})",
    "_forward_it(worker, {s})",
    'record("pairs", _pair_up({s}, others))',
    'record("late", _late_reader({s}, batch))',
    'record("cpu via helper", _cpu_reader({s}))',
    'record("gated lengths", _gated_lengths({s}))',
    'record("draft", _draft({s}))',
    'record("type name", type({s}).__name__)',
    'record("class name", {s}.__class__.__name__ == "ModelWorkerBatch")',
    'record("has old field", hasattr({s}, "extend_seq_lens"))',
    'record("old field by name", getattr({s}, "lora_ids", None))',
    'record("field by computed name", getattr({s}, "_".join(["seq", "lens"])))',
)
# Inline snapshots: `{b}` is the batch; each stands where a snapshot's value may outlive its statement.
INLINE = (
    "worker.forward_batch_generation({b}.get_model_worker_batch())",
    "ForwardBatch.init_new({b}.get_model_worker_batch(), None)",
    "kept.append({b}.get_model_worker_batch())",
    "deferred.append(functools.partial(worker.forward_batch_generation, {b}.get_model_worker_batch()))",
    "records.append(_Record({b}.get_model_worker_batch()))",
    "holder['inline'] = [{b}.get_model_worker_batch() for _ in range(1)]",
    "deferred.append(lambda m={b}.get_model_worker_batch(): worker.forward_batch_generation(m))",
    "if (walrus := {b}.get_model_worker_batch()) is not None:\n{i}    kept.append(walrus)",
    "_hold({b}.get_model_worker_batch())",
    "worker.forward_batch_generation({b}.get_model_worker_batch(), skip_sample=_grow({b}) is None)",
)

MUTATIONS = (
    "batch.seq_lens = [7, 7]",
    "batch.forward_mode = ForwardMode.DECODE",
    "batch.prepare_for_decode()",
    "batch.filter_batch([0])",
    "_grow(batch)",
    "alias = batch\n{i}alias.seq_lens = [8, 8]",
    'setattr(batch, "input_ids", [5])',
    "batch.seq_lens, unused = [6, 6], 0",
    "batch.seq_lens[0] = 42",
    "batch.extend_lens = [1, 1]",
    "batch = others[1]",
    "batch.__dict__.update(seq_lens=[3, 3])",
    "sched.update_running_batch()",
    "stepper.step()",
)
ASYNC_MUTATIONS = (
    "await _nap()",
    "async with _Pause():\n{i}    pass",
    "async for _ in _ticks():\n{i}    pass",
)

SNAPSHOT_WRITES = (
    "{s}.capture_hidden_mode = CaptureHiddenMode.FULL",
    "{s}.seq_lens = [1, 1]",
    "{s}.lora_ids.append('z')",
    "{s}.return_hidden_states_before_norm = True",
)

ESCAPES = (
    "kept.append({s})",
    "holder['x'] = {s}",
    "second = {s}",
    "deferred.append(functools.partial(worker.forward_batch_generation, {s}))",
    "records.append(_Record({s}, 1))",
    "_hold({s})",
)

OTHERS = (
    "_Other().run(model_worker_batch=3)",
    'record("other batch", others[0].seq_lens)',
)


@st.composite
def statement(draw: st.DrawFn, snapshot: str, depth: int, indent: str, is_async: bool = False) -> str:
    kinds = ["use", "use", "mutation", "write", "escape", "other", "inline"]
    if is_async:
        kinds.append("suspend")
    if depth < 2:
        kinds += ["loop", "branch"]
    kind = draw(st.sampled_from(kinds))
    if kind in ("loop", "branch"):
        inner = indent + "    "
        body = draw(st.lists(statement(snapshot, depth + 1, inner, is_async), min_size=1, max_size=3))
        block = "\n".join(inner + line for line in body)
        if kind == "loop":
            return f"for _step in range(2):\n{block}"
        other = draw(st.lists(statement(snapshot, depth + 1, inner, is_async), min_size=1, max_size=2))
        flag = draw(st.sampled_from(["flag", "not flag"]))
        return f"if {flag}:\n{block}\n{indent}else:\n" + "\n".join(inner + line for line in other)
    table = {
        "use": USES,
        "mutation": MUTATIONS,
        "write": SNAPSHOT_WRITES,
        "escape": ESCAPES,
        "other": OTHERS,
        "inline": INLINE,
        "suspend": ASYNC_MUTATIONS,
    }[kind]
    return draw(st.sampled_from(table)).format(s=snapshot, i=indent, b="batch")


def prune(text: str, roots: frozenset[str] = frozenset({"main"})) -> str:
    """`text` without the module-level imports, functions, classes and plain assignments that neither
    `roots` nor anything kept refers to (by name), so that a program carries only the prelude it uses.
    Any other module-level statement is kept, and so is everything it names."""
    tree = ast.parse(text)
    lines = text.splitlines()

    def source(node: ast.stmt) -> str:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
        return "\n".join(lines[first - 1 : node.end_lineno])

    def defined(node: ast.stmt) -> set[str] | None:
        """The names a prunable statement binds; None for a statement that is always kept."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return {node.name}
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            return {t.id for t in node.targets if isinstance(t, ast.Name)}
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return {(a.asname or a.name).split(".")[0] for a in node.names}
        return None

    def used(node: ast.AST) -> set[str]:
        return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

    needed: set[str] = set(roots)
    kept: set[int] = set()
    changed = True
    while changed:
        changed = False
        for index, node in enumerate(tree.body):
            names = defined(node)
            if index in kept or (names is not None and not names & needed):
                continue
            kept.add(index)
            needed |= used(node)
            changed = True
    imports: list[str] = []
    others: list[str] = []
    for index, node in enumerate(tree.body):
        if index not in kept:
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a for a in node.names if (a.asname or a.name).split(".")[0] in needed]
            clone = (
                ast.ImportFrom(node.module, names, node.level)
                if isinstance(node, ast.ImportFrom)
                else ast.Import(names)
            )
            imports.append(ast.unparse(clone))
        else:
            others.append(source(node))
    return "\n".join(imports) + "\n\n\n" + "\n\n\n".join(others) + "\n"


@dataclass
class Skeleton:
    """The parts every generated `main()` shares; `render` puts a drawn body around them."""

    snapshot: str
    override: str
    decode: bool
    is_async: bool
    from_owner: bool
    flag: bool


@st.composite
def skeletons(draw: st.DrawFn, is_async: bool | None = None) -> Skeleton:
    return Skeleton(
        snapshot=draw(st.sampled_from(SNAPSHOT_NAMES)),
        override=draw(st.sampled_from(["", "seq_lens_cpu_cache=[30, 40]"])),
        decode=draw(st.booleans()),
        is_async=draw(st.booleans()) if is_async is None else is_async,
        from_owner=draw(st.booleans()),
        flag=draw(st.booleans()),
    )


def render(
    skeleton: Skeleton,
    body: list[str],
    ending: str,
    *,
    defs: str = "",
    setup: Sequence[str] = (),
    finals: Sequence[str] = (),
    cleanup: Sequence[str] = (),
) -> str:
    """The program: the prelude and `defs` (pruned to what is used), then `main()`: the shared setup,
    `setup` (before the snapshot), the snapshot, `body`, the final observations, `finals`, `ending`;
    from `setup` to `ending` inside `try:` when there is a `cleanup` for `finally:`. Lines of `body`,
    `setup`, `finals`, `cleanup` are relative to the function body's indentation."""
    made = f"make_batch({'forward_mode=ForwardMode.DECODE' if skeleton.decode else ''})"
    head = [
        f"flag = {skeleton.flag}",
        f"sched = _Sched({made})",
        *(
            ["batch = sched.running_batch"]
            if skeleton.from_owner
            else [f"batch = {made}", "sched.running_batch = batch"]
        ),
        "_LIVE.append(batch)",
        "stepper = _Stepper(batch)",
        "others = [make_batch(seq_lens=[5, 6]), make_batch(seq_lens=[7, 8])]",
        "worker = TpModelWorker()",
        "kept, holder, deferred, records = [], {}, [], []",
    ]
    guarded = [
        *setup,
        f"{skeleton.snapshot} = batch.get_model_worker_batch({skeleton.override})",
        *body,
        'record("kept", (kept, holder, _HELD))',
        'record("deferred", [call() for call in deferred])',
        'record("records", [r.held for r in records])',
        *finals,
        *([ending] if ending else []),
    ]
    if cleanup:
        guarded = ["try:", *("    " + line for line in guarded), "finally:", *("    " + line for line in cleanup)]
    lines = ["async def _amain():" if skeleton.is_async else "def main():"]
    lines += ["    " + line for line in [*head, *guarded]]
    if skeleton.is_async:
        lines += ["", "", "def main():", "    return asyncio.run(_amain())"]
    main = "\n".join(lines) + "\n"
    return prune(PRELUDE + defs + "\n\n" + main)


def endings(snapshot: str) -> st.SearchStrategy[str]:
    return st.sampled_from(["", f"return {snapshot}", f"return worker.forward_batch_generation({snapshot})"])


@st.composite
def programs(draw: st.DrawFn, is_async: bool | None = None) -> str:
    """A program of the menu: a snapshot, then 1 to 5 pieces of the tables above."""
    skeleton = draw(skeletons(is_async))
    body = draw(st.lists(statement(skeleton.snapshot, 0, "", skeleton.is_async), min_size=1, max_size=5))
    lines = [line for piece in body for line in piece.split("\n")]
    return render(skeleton, lines, draw(endings(skeleton.snapshot)))


# --- the tests' settings: the generated-program tests are split into shards (test_generated_programs*.py)
# so that pytest-xdist spreads them; each takes its share of the profile's examples.
settings.register_profile(
    "soundness-ci",
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "soundness-long",
    max_examples=3000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def shard_settings(share: int, of: int = 4) -> settings:
    """`share` parts in `of` of the examples of the profile `HYPOTHESIS_PROFILE` names (default the
    derandomized CI profile, 120 examples in all; `soundness-long`: 3000)."""
    profile = settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE", "soundness-ci"))
    return settings(profile, max_examples=max(1, profile.max_examples * share // of))
