"""Programs whose window (the code between a snapshot and its uses) is arbitrary user code.

`programs.py` draws the window from a menu of hazards we thought of. Here the window calls into a
*pool* of user-defined functions, classes and objects that is generated with the program: each
entry is drawn from a kind, a way to hold a batch, and an effect, with drawn names, and exposes the
statements that fire it in the window. A rewrite that reads the live batch must prove that nothing
of this runs in between; a kept snapshot (`worker_batch_snapshot`) must behave as the old one
whatever runs. Everything stays deterministic: threads wait on an `Event` or a `Queue` and are
joined (never slept on), finalizers run by reference counting, async tasks wait on an
`asyncio.Event`.

What a program draws from:

* an effect (`EFFECTS`, with `{b}` the batch it reaches): an attribute write (`seq_lens`,
  `spec_info`, `forward_mode`, `seq_lens_cpu`, `extend_lens`, `input_ids`,
  `return_hidden_states`), `prepare_for_decode()`, `filter_batch([0])`, an in-place write of a
  request (`reqs[0].lora_id`, `reqs[0].dllm_block_offset`, `reqs.append`), an in-place write of a
  field the snapshot shares (`seq_lens[0]`, `sampling_info[...]`), or nothing (`pass`, a read, a
  rewrite of the same value); it fires on every call, or from the second call on;
* how an entry holds the batch (`Hold`): the batch itself, its owner (`sched`, read through
  `.running_batch`), a module global table of batches (`_BATCHES[key]`, passed in or read as a
  global), or another batch (`others[...]`), so that an entry may or may not reach the batch;
* the kind of an entry (`KINDS`): a closure made with the batch; a module-level function over the
  global table; a component with a method; a `threading.Thread` woken by an `Event` and joined;
  a worker thread fed by a `queue.Queue` and joined on the queue; an object with `__del__`, dropped
  by `del` or by rebinding its name; a context manager class (`__enter__`/`__exit__`) and a
  `contextlib.contextmanager` over the table, used as `with` blocks around window statements; a
  property setter and a property getter; a data descriptor; a `contextlib.ExitStack` callback
  closed in the window; hooks registered before the snapshot and fired by a no-argument call; a
  bound method of the batch kept in a local (or a `functools.partial` of one); a generator function
  advanced by `next`; an object whose dunders (`__eq__`, `__bool__`, `__len__`, `__index__`,
  `__format__`, `__add__`, `__lt__`, `__getitem__`, `__contains__`) change the batch, used in plain
  expressions (comparisons, `len`, `if`, subscripts, f-strings); a metaclass `__instancecheck__`
  run by `isinstance(batch, ...)`; a property installed on the batch's own class before the
  snapshot and read as `batch.<name>`; an object stored in the batch's `spec_info` whose `is_*()`
  test or property changes the batch; an object in a batch field whose member SGLang itself reads
  changes the batch (a draft input's `capture_hidden_mode`, a request's `lora_id`, the forward
  mode's `is_decode_or_idle()`, the sampling info's truth), so the old snapshot method, `init_new`
  and the kept copy run user code in their own order; hooks installed on the batch's own class (a
  light `__copy__`, `__reduce_ex__`, an `__init_subclass__` registry, `__del__`, a `__setattr__`
  that tracks writes, a property over a field the old method reads); SGLang's worker method patched before the
  snapshot to change the batch before it forwards; `ForwardBatch.init_new` patched likewise (an
  attribute store, `setattr` with a literal or a computed name, a helper); in async programs, a
  task waiting on an `asyncio.Event` (set, then awaited or left to the next suspension) and an
  `async with` context manager;
* window statements: the statements that fire the pool's entries (loud ones, calls and stores,
  and quiet ones, plain expressions and assignments to locals); the same effects applied to the
  batch directly or through `max`/`min`/`getattr`/`next(iter(...))` that return their argument;
  reads of the snapshot (`record(...)` of `seq_lens`, `capture_hidden_mode`, `seq_lens_cpu`,
  `extend_seq_lens`, `lora_ids`, ..., or the same fields assigned to locals recorded after the
  window); forwards (`forward_batch_generation` positional and keyword, `forward_batch_embedding`,
  `ForwardBatch.init_new`), once or twice; pieces that keep the snapshot (containers, a module
  global replayed through `init_new` at the end, a local, a deferred lambda); reflection (type name,
  `isinstance` against `ScheduleBatch` in a helper and in place, `hasattr`, type identity), which
  may end `reported` but never `silent`; loops, branches and `with` blocks around them; with
  `mix_menu`, any piece of the menu of `programs.py` too;
* quiet windows (a third of the programs): a pool of the kinds that run from plain-looking code
  (`QUIET_KINDS`) and a window of `ForwardBatch.init_new(...)` statements, quiet triggers, local
  reads and `if`, mostly without the override and with no ending: the windows that the allowlist
  may prove, so that the generator tests the proof, not only the kept snapshot;
* the snapshot itself (`programs.skeletons`): its name, with or without `seq_lens_cpu_cache=`, a
  batch in extend or decode mode, made here or read from its owner, and the program's ending.

Locals bound in the window (`seenN`) are recorded after the window, from `locals()`, so that a
branch not taken leaves no unbound name. The pool and the window are drawn step by step
(`_repeat`), so that Hypothesis shrinks a failing program by deleting entries and statements.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from hypothesis import strategies as st

from tests.soundness import programs as menu

EFFECTS = (
    "{b}.seq_lens = [n + 10 for n in {b}.seq_lens]",
    "{b}.prepare_for_decode()",
    "{b}.filter_batch([0])",
    "{b}.reqs[0].lora_id = 'z'",
    "{b}.reqs[0].dllm_block_offset = 4",
    "{b}.reqs.append(Req(9, 'y', 2))",
    "{b}.spec_info = _SpecInput()",
    "{b}.return_hidden_states = True",
    "{b}.forward_mode = ForwardMode.DECODE",
    "{b}.seq_lens_cpu = [1, 2]",
    "{b}.extend_lens = [1, 1]",
    "{b}.input_ids = [5]",
    "{b}.seq_lens[0] = 42",
    "{b}.sampling_info['temperature'] = 0.5",
)
NOTHING = (
    "pass",
    "{b}.batch_size()",
    "{b}.seq_lens = list({b}.seq_lens)",
)
VERBS = ("tick", "sync", "advance", "refresh", "settle", "flush", "touch", "poll", "drain", "note")
NOUNS = ("Monitor", "Tracker", "Planner", "Ledger", "Relay", "Meter", "Keeper", "Panel", "Gauge", "Lane")
ATTRS = ("level", "budget", "phase", "pending", "ratio")

# Reads of the snapshot `{s}`; `{q}` is a fresh local that the program records after the window.
LOUD_READS = (
    'record("seq_lens", {s}.seq_lens)',
    'record("capture", {s}.capture_hidden_mode)',
    'record("cpu", {s}.seq_lens_cpu)',
    'record("extend", {s}.extend_seq_lens)',
    'record("prefix", {s}.extend_prefix_lens)',
    'record("lora", {s}.lora_ids)',
    'record("offsets", {s}.dllm_block_offsets)',
    'record("decode", {s}.forward_mode.is_decode())',
    'record("spec", {s}.spec_info)',
    'record("input", {s}.input_ids)',
)
QUIET_READS = (
    "{q} = {s}.seq_lens",
    "{q} = {s}.capture_hidden_mode",
    "{q} = {s}.seq_lens_cpu",
    "{q} = {s}.extend_seq_lens",
    "{q} = {s}.lora_ids",
    "{q} = {s}.dllm_block_offsets",
    "{q} = len({s}.seq_lens)",
    "{q} = {s}.forward_mode.is_decode()",
    "{q} = {s}.input_ids",
    "{q} = {s}.return_hidden_states_before_norm",
)
FORWARDS = (
    "ForwardBatch.init_new({s}, None)",
    "{q} = ForwardBatch.init_new({s}, None)",
    "ForwardBatch.init_new({s}, runner)",
    "ForwardBatch.init_new({s}, None)\nForwardBatch.init_new({s}, runner)",
    "worker.forward_batch_generation({s})",
    "worker.forward_batch_generation(model_worker_batch={s})",
    "ForwardBatch.init_new({s}, None)",
    "worker.forward_batch_embedding({s})",
    "{q} = worker.forward_batch_generation({s})",
    "worker.model_runner.forward(ForwardBatch.init_new({s}, worker.model_runner))",
    "worker.forward_batch_generation({s})\nworker.forward_batch_generation({s})",
    "ForwardBatch.init_new({s}, None)\n{q} = worker.forward_batch_generation({s})",
)
KEEPS = (
    "kept.append({s})",
    "_KEPT.append({s})",
    "{q} = {s}",
    "holder['w'] = {s}",
    "deferred.append(lambda: worker.forward_batch_generation({s}))",
)
REFLECTION = (
    'record("type name", type({s}).__name__)',
    'record("is batch", _is_batch({s}))',
    'record("has reqs", hasattr({s}, "reqs"))',
    'record("same type", type({s}) is type(batch))',
    "{q} = isinstance({s}, ScheduleBatch)",
    'record("old fields", hasattr({s}, "extend_seq_lens"))',
)
# Expressions that are the batch (or another one) through a builtin that returns its argument.
ALIASES = (
    "batch",
    "sched.running_batch",
    "max([batch], key=id)",
    "min(batch, batch, key=id)",
    'getattr(sched, "running_batch")',
    "next(iter([batch]))",
    "others[0]",
)
DUNDERS: dict[str, tuple[str, tuple[str, ...]]] = {
    # dunder: (its signature and return, quiet statements that run it; `{o}` is the object)
    "__eq__": ("(self, other):\n{e}\n        return False", ("{q} = {o} == 0", "{q} = 0 != {o}")),
    "__bool__": ("(self):\n{e}\n        return True", ("{q} = not {o}", "{q} = 1 if {o} else 0", "assert {o}")),
    "__len__": ("(self):\n{e}\n        return 1", ("{q} = len({o})",)),
    "__index__": ("(self):\n{e}\n        return 0", ("{q} = batch.seq_lens[{o}]", "{q} = {s}.seq_lens[{o}]")),
    "__format__": ("(self, spec):\n{e}\n        return 'x'", ('{q} = f"{{{o}}}"',)),
    "__add__": ("(self, other):\n{e}\n        return 1", ("{q} = {o} + 1",)),
    "__lt__": ("(self, other):\n{e}\n        return False", ("{q} = {o} < 1",)),
    "__getitem__": ("(self, key):\n{e}\n        return 0", ("{q} = {o}[0]",)),
    "__contains__": ("(self, item):\n{e}\n        return False", ("{q} = 0 in {o}",)),
}


def _repeat(draw: st.DrawFn, least: int, most: int) -> Iterator[int]:
    """Counts from 0 to at least `least`, at most `most`: each step past `least` draws whether to go on,
    next to what the step draws, so that the shrinker deletes a step with its draws."""
    count = 0
    while count < least or (count < most and draw(st.booleans())):
        yield count
        count += 1


def _indent(lines: list[str], by: str) -> list[str]:
    return [by + line if line else line for line in lines]


@dataclass
class Hold:
    """How an entry reaches a batch: `arg` is handed to it (None: it reads the global table), and
    `reach(p)` is the batch from what it was handed."""

    arg: str | None
    reach: Callable[[str], str]
    setup: list[str]


@dataclass
class Entry:
    """One member of the pool: its module-level code, what `main()` runs before the snapshot, and
    the statements that fire it in the window (lines relative to the statement's indentation)."""

    defs: list[str] = field(default_factory=list)
    setup: list[str] = field(default_factory=list)
    loud: list[list[str]] = field(default_factory=list)
    quiet: list[list[str]] = field(default_factory=list)
    once: list[list[str]] = field(default_factory=list)
    blocks: list[str] = field(default_factory=list)  # headers of `with` blocks around window statements
    cleanup: list[str] = field(default_factory=list)


@dataclass
class Window:
    """What a program has drawn so far: its pool, its fresh names, the locals it records at the end."""

    snapshot: str
    is_async: bool
    mix_menu: bool
    reflect: bool
    quiet: bool = False  # only statements the allowlist may prove: plain expressions, local assignments, `if`
    pool: list[Entry] = field(default_factory=list)
    quiet_names: list[str] = field(default_factory=list)
    used_once: set[int] = field(default_factory=set)
    count: int = 0

    def fresh(self) -> int:
        self.count += 1
        return self.count

    def local(self) -> str:
        name = f"seen{len(self.quiet_names) + 1}"
        self.quiet_names.append(name)
        return name


def fill(template: str, window: Window, **names: str) -> list[str]:
    """`template` with the snapshot, a fresh recorded local for each `{q}`, and `names`."""
    text = template
    while "{q}" in text:
        text = text.replace("{q}", window.local(), 1)
    return text.format(s=window.snapshot, **names).split("\n")


# --- pool entries -------------------------------------------------------------------------------------


def _hold(draw: st.DrawFn, n: int, param: bool = True) -> Hold:
    kind = draw(st.sampled_from(["batch", "sched", "other", "table"] if param else ["table"]))
    if kind == "batch":
        return Hold("batch", lambda p: p, [])
    if kind == "sched":
        return Hold("sched", lambda p: f"{p}.running_batch", [])
    if kind == "other":
        return Hold(draw(st.sampled_from(["others[0]", "others[1]"])), lambda p: p, [])
    key = f'"{draw(st.sampled_from(NOUNS)).lower()}{n}"'
    target = draw(st.sampled_from(["batch", "batch", "sched.running_batch", "others[1]"]))
    setup = [f"_BATCHES[{key}] = {target}"]
    if param and draw(st.booleans()):
        return Hold("_BATCHES", lambda p: f"{p}[{key}]", setup)
    return Hold(None, lambda p: f"_BATCHES[{key}]", setup)


def _effect(draw: st.DrawFn, n: int, batch: str, defs: list[str]) -> list[str]:
    """The lines of one effect on `batch`; may fire only from its second run on (a counter in `defs`)."""
    line = draw(st.sampled_from(EFFECTS + NOTHING if draw(st.integers(0, 4)) else NOTHING)).format(b=batch)
    if draw(st.integers(0, 3)) < 3:
        return [line]
    counter = f"_runs{n}"
    if f"{counter} = []" not in defs:
        defs.append(f"{counter} = []")
    return [f"{counter}.append(1)", f"if len({counter}) >= 2:", f"    {line}"]


def _names(draw: st.DrawFn, n: int) -> tuple[str, str, str]:
    verb = draw(st.sampled_from(VERBS))
    noun = draw(st.sampled_from(NOUNS))
    return f"{verb}{n}", f"{noun}{n}", f"{noun.lower()}{n}"


def _closure(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    param = "p" if hold.arg else ""
    body = _effect(draw, n, hold.reach(param or "_BATCHES"), entry.defs)
    entry.defs.append(
        "\n".join(
            [f"def _make_{verb}({param}):", f"    def _{verb}():", *_indent(body, "        "), f"    return _{verb}"]
        )
    )
    entry.setup.append(f"{verb} = _make_{verb}({hold.arg or ''})")
    entry.loud.append([f"{verb}()"])
    return entry


def _global_function(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    hold = _hold(draw, n, param=False)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("_BATCHES"), entry.defs)
    entry.defs.append("\n".join([f"def _{verb}():", *_indent(body, "    ")]))
    entry.loud.append([f"_{verb}()"])
    return entry


def _component(draw: st.DrawFn, n: int) -> Entry:
    verb, cls, obj = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("self.owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"class _{cls}:",
                "    def __init__(self, owner):",
                "        self.owner = owner",
                "",
                f"    def {verb}(self):",
                *_indent(body, "        "),
            ]
        )
    )
    entry.setup.append(f"{obj} = _{cls}({hold.arg or '_BATCHES'})")
    entry.loud += [[f"{obj}.{verb}()"], [f'getattr({obj}, "{verb}")()']]
    return entry


def _event_thread(draw: st.DrawFn, n: int) -> Entry:
    verb, cls, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    arg = hold.arg or "_BATCHES"
    if draw(st.booleans()):
        body = _effect(draw, n, hold.reach("owner"), entry.defs)
        entry.defs.append("\n".join([f"def _{verb}_worker(owner, go):", "    go.wait()", *_indent(body, "    ")]))
        start = f"thread{n} = threading.Thread(target=_{verb}_worker, args=({arg}, go{n}), daemon=True)"
        entry.setup += [f"go{n} = threading.Event()", start]
    else:
        body = _effect(draw, n, hold.reach("self.owner"), entry.defs)
        entry.defs.append(
            "\n".join(
                [
                    f"class _{cls}Thread(threading.Thread):",
                    "    def __init__(self, owner, go):",
                    "        super().__init__(daemon=True)",
                    "        self.owner = owner",
                    "        self.go = go",
                    "",
                    "    def run(self):",
                    "        self.go.wait()",
                    *_indent(body, "        "),
                ]
            )
        )
        entry.setup += [f"go{n} = threading.Event()", f"thread{n} = _{cls}Thread({arg}, go{n})"]
    entry.setup.append(f"thread{n}.start()")
    entry.loud.append([f"go{n}.set()", f"thread{n}.join()"])
    entry.cleanup += [f"go{n}.set()", f"thread{n}.join()"]
    return entry


def _queue_thread(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"def _serve_{verb}(owner, jobs):",
                "    while True:",
                "        job = jobs.get()",
                "        try:",
                "            if job is None:",
                "                return",
                *_indent(body, "            "),
                "        finally:",
                "            jobs.task_done()",
            ]
        )
    )
    entry.setup += [
        f"jobs{n} = queue.Queue()",
        f"thread{n} = threading.Thread(target=_serve_{verb}, args=({hold.arg or '_BATCHES'}, jobs{n}), daemon=True)",
        f"thread{n}.start()",
    ]
    entry.loud.append([f"jobs{n}.put(1)", f"jobs{n}.join()"])
    entry.cleanup += [f"jobs{n}.put(None)", f"thread{n}.join()"]
    return entry


def _finalizer(draw: st.DrawFn, n: int) -> Entry:
    _, cls, obj = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("self.owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"class _{cls}:",
                "    def __init__(self, owner):",
                "        self.owner = owner",
                "",
                "    def __del__(self):",
                *_indent(body, "        "),
            ]
        )
    )
    entry.setup.append(f"{obj} = _{cls}({hold.arg or '_BATCHES'})")
    entry.quiet.append([f"{obj} = None"])
    entry.once.append([f"del {obj}"])
    return entry


def _context_manager(draw: st.DrawFn, n: int) -> Entry:
    verb, cls, obj = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    if draw(st.booleans()):
        enter = _effect(draw, n, hold.reach("self.owner"), entry.defs)
        leave = _effect(draw, n, hold.reach("self.owner"), entry.defs)
        entry.defs.append(
            "\n".join(
                [
                    f"class _{cls}:",
                    "    def __init__(self, owner):",
                    "        self.owner = owner",
                    "",
                    "    def __enter__(self):",
                    *_indent(enter, "        "),
                    "        return self",
                    "",
                    "    def __exit__(self, *exc):",
                    *_indent(leave, "        "),
                    "        return False",
                ]
            )
        )
        entry.setup.append(f"{obj} = _{cls}({hold.arg or '_BATCHES'})")
        entry.blocks.append(f"with {obj}:")
    else:
        table = _hold(draw, n, param=False)
        entry.setup = list(table.setup)
        enter = _effect(draw, n, table.reach("_BATCHES"), entry.defs)
        leave = _effect(draw, n, table.reach("_BATCHES"), entry.defs)
        entry.defs.append(
            "\n".join(
                [
                    "@contextlib.contextmanager",
                    f"def _{verb}_scope():",
                    *_indent(enter, "    "),
                    "    yield",
                    *_indent(leave, "    "),
                ]
            )
        )
        entry.blocks.append(f"with _{verb}_scope():")
    return entry


def _property(draw: st.DrawFn, n: int) -> Entry:
    _, cls, obj = _names(draw, n)
    attr = draw(st.sampled_from(ATTRS))
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    getter = _effect(draw, n, hold.reach("self.owner"), entry.defs) if draw(st.booleans()) else ["pass"]
    setter = _effect(draw, n, hold.reach("self.owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"class _{cls}:",
                "    def __init__(self, owner):",
                "        self.owner = owner",
                "",
                "    @property",
                f"    def {attr}(self):",
                *_indent(getter, "        "),
                "        return 0",
                "",
                f"    @{attr}.setter",
                f"    def {attr}(self, value):",
                *_indent(setter, "        "),
            ]
        )
    )
    entry.setup.append(f"{obj} = _{cls}({hold.arg or '_BATCHES'})")
    entry.loud += [[f"{obj}.{attr} = 1"], ["{q} = " + f"{obj}.{attr}"]]
    return entry


def _descriptor(draw: st.DrawFn, n: int) -> Entry:
    _, cls, obj = _names(draw, n)
    attr = draw(st.sampled_from(ATTRS))
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    get = _effect(draw, n, hold.reach("obj.owner"), entry.defs)
    put = _effect(draw, n, hold.reach("obj.owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"class _{cls}Field:",
                "    def __get__(self, obj, owner=None):",
                "        if obj is None:",
                "            return self",
                *_indent(get, "        "),
                "        return 0",
                "",
                "    def __set__(self, obj, value):",
                *_indent(put, "        "),
                "",
                "",
                f"class _{cls}:",
                f"    {attr} = _{cls}Field()",
                "",
                "    def __init__(self, owner):",
                "        self.owner = owner",
            ]
        )
    )
    entry.setup.append(f"{obj} = _{cls}({hold.arg or '_BATCHES'})")
    entry.loud += [[f"{obj}.{attr} = 1"], ["{q} = " + f"{obj}.{attr}"]]
    return entry


def _exit_stack(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("owner"), entry.defs)
    entry.defs.append("\n".join([f"def _{verb}_on_close(owner):", *_indent(body, "    ")]))
    entry.setup += [
        f"stack{n} = contextlib.ExitStack()",
        f"stack{n}.callback(_{verb}_on_close, {hold.arg or '_BATCHES'})",
    ]
    entry.loud += [[f"stack{n}.close()"], [f"stack{n}.pop_all().close()"]]
    return entry


def _hooks(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("owner"), entry.defs)
    entry.defs += [
        f"_HOOKS{n} = []",
        "\n".join([f"def _{verb}_hook(owner):", *_indent(body, "    ")]),
        "\n".join([f"def _fire{n}():", f"    for hook in _HOOKS{n}:", "        hook()"]),
    ]
    arg = hold.arg or "_BATCHES"
    register = draw(
        st.sampled_from(
            [
                f"_HOOKS{n}.append(functools.partial(_{verb}_hook, {arg}))",
                f"_HOOKS{n}.append(lambda: _{verb}_hook({arg}))",
            ]
        )
    )
    entry.setup.append(register)
    entry.loud.append([f"_fire{n}()"])
    return entry


def _bound_method(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    target = draw(st.sampled_from(["batch", "sched.running_batch", "others[0]", 'getattr(sched, "running_batch")']))
    kept = draw(
        st.sampled_from(
            [
                f"{target}.prepare_for_decode",
                f"functools.partial({target}.filter_batch, [0])",
                f'getattr({target}, "prepare_for_decode")',
                f"{target}.batch_size",
                f"{target}.copy",
            ]
        )
    )
    return Entry(setup=[f"{verb} = {kept}"], loud=[[f"{verb}()"]])


def _generator(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("owner"), entry.defs)
    lazy = ["        yield"] if draw(st.booleans()) else []
    entry.defs.append(
        "\n".join([f"def _{verb}_steps(owner):", "    while True:", *lazy, *_indent(body, "        "), "        yield"])
    )
    entry.setup.append(f"steps{n} = _{verb}_steps({hold.arg or '_BATCHES'})")
    entry.loud += [[f"next(steps{n})"], [f"next(steps{n}, None)"]]
    return entry


def _dunders(draw: st.DrawFn, n: int) -> Entry:
    _, cls, obj = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    chosen = draw(st.lists(st.sampled_from(sorted(DUNDERS)), min_size=1, max_size=3, unique=True))
    lines = [f"class _{cls}:", "    def __init__(self, owner):", "        self.owner = owner"]
    for dunder in chosen:
        signature, uses = DUNDERS[dunder]
        body = "\n".join(_indent(_effect(draw, n, hold.reach("self.owner"), entry.defs), "        "))
        lines += ["", f"    def {dunder}" + signature.replace("{e}", body)]
        entry.quiet += [[use.replace("{o}", obj)] for use in uses]
        if dunder == "__bool__":
            entry.blocks.append(f"if {obj}:")
    if "__eq__" in chosen:
        lines += ["", "    __hash__ = object.__hash__"]
    entry.defs.append("\n".join(lines))
    entry.setup.append(f"{obj} = _{cls}({hold.arg or '_BATCHES'})")
    return entry


def _instancecheck(draw: st.DrawFn, n: int) -> Entry:
    _, cls, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("cls.owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"class _{cls}Meta(type):",
                "    def __instancecheck__(cls, obj):",
                *_indent(body, "        "),
                "        return False",
                "",
                "",
                f"class _{cls}Kind(metaclass=_{cls}Meta):",
                "    owner = None",
            ]
        )
    )
    entry.setup.append(f"_{cls}Kind.owner = {hold.arg or '_BATCHES'}")
    entry.quiet += [["{q} = " + f"isinstance(batch, _{cls}Kind)"], ["{q} = " + f"isinstance(0, _{cls}Kind)"]]
    return entry


def _class_property(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    attr = draw(st.sampled_from(ATTRS)) + f"_{n}"
    entry = Entry()
    body = _effect(draw, n, "self", entry.defs)
    entry.defs.append("\n".join([f"def _{verb}_read(self):", *_indent(body, "    "), "    return 0"]))
    entry.setup.append(f"type(batch).{attr} = property(_{verb}_read)")
    entry.quiet += [["{q} = " + f"batch.{attr}"], ["{q} = " + f"batch.{attr} + len(batch.seq_lens)"]]
    entry.loud.append(["{q} = " + f"sched.running_batch.{attr}"])
    return entry


def _field_object(draw: st.DrawFn, n: int) -> Entry:
    verb, cls, _ = _names(draw, n)
    attr = draw(st.sampled_from(ATTRS))
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    test = _effect(draw, n, hold.reach("self.owner"), entry.defs)
    read = _effect(draw, n, hold.reach("self.owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"class _{cls}Input:",
                "    def __init__(self, owner):",
                "        self.owner = owner",
                "",
                f"    def is_{verb.rstrip('0123456789')}(self):",
                *_indent(test, "        "),
                "        return False",
                "",
                "    @property",
                f"    def {attr}(self):",
                *_indent(read, "        "),
                "        return 0",
            ]
        )
    )
    entry.setup.append(f"batch.spec_info = _{cls}Input({hold.arg or '_BATCHES'})")
    test_name = f"is_{verb.rstrip('0123456789')}"
    entry.quiet += [
        ["{q} = " + f"batch.spec_info.{test_name}()"],
        ["{q} = {s}" + f".spec_info.{test_name}()"],
        ["{q} = " + f"batch.spec_info.{attr}"],
    ]
    entry.blocks.append(f"if batch.spec_info.{test_name}():")
    return entry


def _patched_worker(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"def _{verb}_first(original, owner):",
                "    def forward(self, *args, **kwargs):",
                *_indent(body, "        "),
                "        return original(self, *args, **kwargs)",
                "",
                "    return forward",
            ]
        )
    )
    method = draw(st.sampled_from(["forward_batch_generation", "forward_batch_embedding"]))
    entry.setup.append(f"TpModelWorker.{method} = _{verb}_first(TpModelWorker.{method}, {hold.arg or '_BATCHES'})")
    return entry


def _sglang_field(draw: st.DrawFn, n: int) -> Entry:
    """An object in a batch field whose member that SGLang itself reads (the old snapshot method,
    `init_new`, the kept snapshot) changes the batch: a draft input's `capture_hidden_mode`, a
    request's `lora_id`, the forward mode's `is_decode_or_idle()`, the sampling info's truth."""
    _, cls, obj = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _indent(_effect(draw, n, hold.reach("self.owner"), entry.defs), "        ")
    init = ["    def __init__(self, owner):", "        self.owner = owner", ""]
    arg = hold.arg or "_BATCHES"
    variant = draw(st.sampled_from(["capture", "request", "mode", "sampling"]))
    if variant == "capture":
        mode = draw(st.sampled_from(["NULL", "LAST", "FULL"]))
        lines = [f"class _{cls}Draft:", *init, "    @property", "    def capture_hidden_mode(self):", *body]
        lines.append(f"        return CaptureHiddenMode.{mode}")
        entry.setup.append(f"batch.spec_info = _{cls}Draft({arg})")
    elif variant == "request":
        lines = [f"class _{cls}Req:", "    rid = 0", "    dllm_block_offset = 0", "    grammar = None", "", *init]
        lines += ["    @property", "    def lora_id(self):", *body, "        return 'a'"]
        entry.setup.append(f"batch.reqs[0] = _{cls}Req({arg})")
    elif variant == "mode":
        decode = draw(st.booleans())
        lines = [f"class _{cls}Mode:", *init, "    def is_decode_or_idle(self):", *body, f"        return {decode}", ""]
        lines += ["    def is_decode(self):", f"        return {decode}", "", "    def is_extend(self):"]
        lines.append(f"        return {not decode}")
        entry.setup.append(f"batch.forward_mode = _{cls}Mode({arg})")
    else:
        lines = [
            f"class _{cls}Sampling(dict):",
            "    owner = None",
            "",
            "    def __bool__(self):",
            *body,
            "        return True",
        ]
        entry.setup += [
            f"{obj} = _{cls}Sampling(temperature=1.0)",
            f"{obj}.owner = {arg}",
            f"batch.sampling_info = {obj}",
        ]
    entry.defs.append("\n".join(lines))
    return entry


def _patched_init_new(draw: st.DrawFn, n: int) -> Entry:
    """SGLang's `ForwardBatch.init_new` replaced, before the snapshot, by one that changes the batch
    first: stored as an attribute, by `setattr` with a literal or a computed name, or by a helper."""
    verb, _, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"def _{verb}_init_new(original, owner):",
                "    def init_new(cls, batch, model_runner=None):",
                *_indent(body, "        "),
                "        return original(batch, model_runner)",
                "",
                "    return classmethod(init_new)",
            ]
        )
    )
    arg = hold.arg or "_BATCHES"
    patched = f"_{verb}_init_new(ForwardBatch.init_new, {arg})"
    how = draw(st.sampled_from(["attribute", "setattr", "computed", "helper"]))
    if how == "attribute":
        entry.setup.append(f"ForwardBatch.init_new = {patched}")
    elif how == "setattr":
        entry.setup.append(f'setattr(ForwardBatch, "init_new", {patched})')
    elif how == "computed":
        entry.setup.append(f'setattr(ForwardBatch, "_".join(["init", "new"]), {patched})')
    else:
        entry.defs.append(
            "\n".join(
                [
                    f"def _install{n}(cls, name, owner):",
                    f"    setattr(cls, name, _{verb}_init_new(getattr(cls, name), owner))",
                ]
            )
        )
        entry.setup.append(f'_install{n}(ForwardBatch, "init_new", {arg})')
    return entry


def _async_task(draw: st.DrawFn, n: int) -> Entry:
    verb, _, _ = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    body = _effect(draw, n, hold.reach("owner"), entry.defs)
    entry.defs.append("\n".join([f"async def _{verb}_task(owner, go):", "    await go.wait()", *_indent(body, "    ")]))
    entry.setup += [
        f"go{n} = asyncio.Event()",
        f"task{n} = asyncio.ensure_future(_{verb}_task({hold.arg or '_BATCHES'}, go{n}))",
    ]
    entry.loud += [[f"go{n}.set()", f"await task{n}"], [f"go{n}.set()"], ["await asyncio.sleep(0)"]]
    entry.cleanup += [f"go{n}.set()", f"await task{n}"]
    return entry


def _async_context(draw: st.DrawFn, n: int) -> Entry:
    _, cls, obj = _names(draw, n)
    hold = _hold(draw, n)
    entry = Entry(setup=list(hold.setup))
    enter = _effect(draw, n, hold.reach("self.owner"), entry.defs)
    leave = _effect(draw, n, hold.reach("self.owner"), entry.defs)
    entry.defs.append(
        "\n".join(
            [
                f"class _{cls}Scope:",
                "    def __init__(self, owner):",
                "        self.owner = owner",
                "",
                "    async def __aenter__(self):",
                "        await asyncio.sleep(0)",
                *_indent(enter, "        "),
                "",
                "    async def __aexit__(self, *exc):",
                *_indent(leave, "        "),
                "        return False",
            ]
        )
    )
    entry.setup.append(f"{obj} = _{cls}Scope({hold.arg or '_BATCHES'})")
    entry.blocks.append(f"async with {obj}:")
    return entry


def _batch_class_hooks(draw: st.DrawFn, n: int) -> Entry:
    """A fork's batch class with hooks, installed on the batch's own class before the snapshot: a
    light `__copy__`, a `__reduce_ex__`, an `__init_subclass__` registry, a `__del__`, a
    `__setattr__` that tracks writes, or a property over a field the old method reads. Each records
    what ran (`_HELD`), and may change the batch as well: taking the old object ran none of the
    dunders, and read the property once, in the old method's order. Each program gets classes of
    its own (`standins.modules`), so nothing is uninstalled."""
    verb, _, _ = _names(draw, n)
    entry = Entry()
    body = _effect(draw, n, "self", entry.defs)
    variant = draw(st.sampled_from(["copy", "reduce", "subclass", "del", "setattr", "property"]))
    hook = f"_{verb}_{variant}"
    if variant == "copy":
        entry.defs.append(
            "\n".join([f"def {hook}(self):", f"    _HELD.append('{hook}')", *_indent(body, "    "), "    return self"])
        )
        entry.setup.append(f"type(batch).__copy__ = {hook}")
    elif variant == "reduce":
        entry.defs.append(
            "\n".join(
                [
                    f"def {hook}(self, protocol):",
                    f"    _HELD.append('{hook}')",
                    "    return object.__reduce_ex__(self, protocol)",
                ]
            )
        )
        entry.setup.append(f"type(batch).__reduce_ex__ = {hook}")
    elif variant == "subclass":
        entry.defs.append("\n".join([f"def {hook}(cls, **kwargs):", f"    _HELD.append('{hook} ' + cls.__name__)"]))
        entry.setup.append(f"type(batch).__init_subclass__ = classmethod({hook})")
    elif variant == "del":
        entry.defs.append("\n".join([f"def {hook}(self):", f"    _HELD.append('{hook}')"]))
        entry.setup.append(f"type(batch).__del__ = {hook}")
    elif variant == "setattr":
        entry.defs.append(
            "\n".join(
                [
                    f"def {hook}(self, name, value):",
                    "    if name in ('seq_lens', 'input_ids', 'forward_mode', 'spec_info', 'reqs'):",
                    f"        _HELD.append('{hook} ' + name)",
                    "    object.__setattr__(self, name, value)",
                ]
            )
        )
        entry.setup.append(f"type(batch).__setattr__ = {hook}")
    else:
        field_name = draw(st.sampled_from(["seq_lens_cpu", "input_ids", "return_hidden_states"]))
        entry.defs.append(
            "\n".join(
                [
                    f"def {hook}(self):",
                    f"    _HELD.append('{hook}')",
                    *_indent(body, "    "),
                    f"    return self.__dict__['{field_name}']",
                ]
            )
        )
        entry.setup.append(f"type(batch).{field_name} = property({hook})")
    entry.quiet.append(["{q} = len(_HELD)"])
    return entry


KINDS = (
    _closure,
    _global_function,
    _component,
    _event_thread,
    _queue_thread,
    _finalizer,
    _context_manager,
    _property,
    _descriptor,
    _exit_stack,
    _hooks,
    _bound_method,
    _generator,
    _dunders,
    _instancecheck,
    _class_property,
    _field_object,
    _patched_worker,
    _sglang_field,
    _patched_init_new,
    _batch_class_hooks,
)
ASYNC_KINDS = (_async_task, _async_context)
# The kinds whose effect runs from a statement that looks like a plain read: a quiet window.
QUIET_KINDS = (
    _finalizer,
    _dunders,
    _instancecheck,
    _class_property,
    _field_object,
    _patched_worker,
    _sglang_field,
    _sglang_field,
    _patched_init_new,
    _patched_init_new,
    _batch_class_hooks,
)
SINGLE = (_field_object, _sglang_field)  # each sets a field of the batch


# --- window statements --------------------------------------------------------------------------------


def _block(draw: st.DrawFn, window: Window, depth: int, header: str) -> list[str]:
    lines = [header]
    for _ in _repeat(draw, 1, 2):
        lines += _indent(window_statement(draw, window, depth + 1), "    ")
    return lines


def window_statement(draw: st.DrawFn, window: Window, depth: int) -> list[str]:
    """One statement of the window, as lines relative to its indentation."""
    if window.quiet:
        return _quiet_statement(draw, window, depth)
    kinds = ["read", "read", "forward", "forward", "keep", "direct"]
    if any(e.loud or e.quiet or (e.once and depth == 0) for e in window.pool):
        kinds += ["trigger"] * 4
    if window.reflect:
        kinds.append("reflect")
    if window.mix_menu:
        kinds += ["menu", "menu"]
    if depth < 2:
        kinds += ["loop", "branch"]
        if any(e.blocks for e in window.pool):
            kinds += ["with", "with"]
    kind = draw(st.sampled_from(kinds))
    s = window.snapshot
    if kind == "trigger":
        choices = [
            (index, trigger, once)
            for index, entry in enumerate(window.pool)
            for trigger, once in [*((t, False) for t in entry.loud + entry.quiet), *((t, True) for t in entry.once)]
            if not once or (depth == 0 and index not in window.used_once)
        ]
        index, trigger, once = draw(st.sampled_from(choices))
        if once:
            window.used_once.add(index)
        return fill("\n".join(trigger), window)
    if kind == "read":
        return fill(draw(st.sampled_from(LOUD_READS + QUIET_READS)), window)
    if kind == "forward":
        return fill(draw(st.sampled_from(FORWARDS)), window)
    if kind == "keep":
        return fill(draw(st.sampled_from(KEEPS)), window)
    if kind == "reflect":
        return fill(draw(st.sampled_from(REFLECTION)), window)
    if kind == "direct":
        alias = draw(st.sampled_from(ALIASES))
        effect = draw(st.sampled_from(EFFECTS + NOTHING))
        if draw(st.booleans()) or "{b}.seq_lens = [" in effect:
            name = f"alias{window.fresh()}"
            return [f"{name} = {alias}", effect.format(b=name)]
        return [effect.format(b=alias)]
    if kind == "menu":
        piece = draw(menu.statement(s, depth, "", window.is_async))
        return piece.split("\n")
    if kind == "loop":
        return _block(draw, window, depth, "for _step in range(2):")
    if kind == "branch":
        flag = draw(st.sampled_from(["flag", "not flag"]))
        return _block(draw, window, depth, f"if {flag}:") + _block(draw, window, depth, "else:")
    header = draw(st.sampled_from([h for e in window.pool for h in e.blocks]))
    return _block(draw, window, depth, header)


def _quiet_statement(draw: st.DrawFn, window: Window, depth: int) -> list[str]:
    """A statement of a quiet window: nothing in it calls user code by name, stores or loops."""
    kinds = ["read", "forward", "forward", "init_new", "init_new", "init_new", "init_new", "init_new"]
    if any(e.quiet for e in window.pool):
        kinds += ["trigger"] * 3
    if depth < 2:
        kinds.append("branch")
    kind = draw(st.sampled_from(kinds))
    if kind == "trigger":
        return fill("\n".join(draw(st.sampled_from([t for e in window.pool for t in e.quiet]))), window)
    if kind == "read":
        return fill(draw(st.sampled_from(QUIET_READS)), window)
    if kind == "forward":
        return fill(draw(st.sampled_from(FORWARDS)), window)
    if kind == "init_new":
        return fill(draw(st.sampled_from(FORWARDS[:4])), window)
    tests = ["flag", "not flag", f"{window.snapshot}.forward_mode.is_decode()", "len(batch.seq_lens) > 1"]
    tests += [h[3:-1] for e in window.pool for h in e.blocks if h.startswith("if ")]
    return _block(draw, window, depth, f"if {draw(st.sampled_from(tests))}:") + (
        _block(draw, window, depth, "else:") if draw(st.booleans()) else []
    )


@st.composite
def window_programs(draw: st.DrawFn, is_async: bool | None = None, mix_menu: bool = False) -> str:
    """A program whose window runs a generated pool of user code (see the module docstring)."""
    skeleton = draw(menu.skeletons(is_async))
    quiet = draw(st.integers(0, 2)) == 0
    if quiet and draw(st.integers(0, 3)):  # a window the allowlist may prove takes no override
        skeleton = replace(skeleton, override="")
    window = Window(skeleton.snapshot, skeleton.is_async, mix_menu, reflect=draw(st.integers(0, 3)) == 3, quiet=quiet)
    kinds = QUIET_KINDS if quiet else KINDS + ASYNC_KINDS if skeleton.is_async else KINDS
    kinds_drawn: list[Callable[[st.DrawFn, int], Entry]] = []
    for _ in _repeat(draw, 0, 4):
        kind = draw(st.sampled_from(kinds))
        if kind in SINGLE and any(k in SINGLE for k in kinds_drawn):
            kind = _component  # one object in a field of the batch at a time
        kinds_drawn.append(kind)
        window.pool.append(kind(draw, window.fresh()))
    body: list[str] = []
    for _ in _repeat(draw, 1, 3 if quiet else 5):
        body += window_statement(draw, window, 0)
    if draw(st.integers(0, 2)):  # most windows end in a use of the snapshot
        body += fill(draw(st.sampled_from(FORWARDS[:4] if quiet else FORWARDS + QUIET_READS + LOUD_READS)), window)
    setup = [line for entry in window.pool for line in entry.setup]
    if any(re.search(r"\brunner\b", line) for line in body):
        setup.insert(0, "runner = worker.model_runner")
    finals = []
    if window.quiet_names:  # bound first in the window (maybe in a branch not taken): read after it
        seen = ", ".join(f'names.get("{name}")' for name in window.quiet_names)
        finals += ["names = locals()", f'record("seen", [{seen}])']
    if any("_KEPT" in line for line in body):
        finals += ["for kept_snapshot in _KEPT:", "    ForwardBatch.init_new(kept_snapshot, None)"]
    cleanup = [line for entry in window.pool for line in entry.cleanup]
    defs = "\n\n\n".join(d for entry in window.pool for d in entry.defs)
    return menu.render(
        skeleton,
        body,
        ""
        if quiet
        else draw(
            menu.endings(skeleton.snapshot) | st.just(f"return ForwardBatch.init_new({skeleton.snapshot}, None)")
        ),
        defs=defs,
        setup=setup,
        finals=finals,
        cleanup=cleanup,
    )
