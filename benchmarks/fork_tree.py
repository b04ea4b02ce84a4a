"""A generated fork-sized tree for the benchmarks: 3,500 Python files, 50 on the old API, the largest ~4,000 lines.

``build_fork_tree(root, seed)`` lays out, under ``root``, what a fork of SGLang looks like:

* ``python/sglang/``: SGLang 0.5.12.post1's own package (``tests/sglang_corpus.py`` downloads it once into
  the git-ignored ``.cache/``; nothing of SGLang is committed), its ~18 files on the old API included
  (the scheduler, the tp worker, the speculative workers). The files longer than ``max_lines`` (4,100:
  ``srt/server_args.py``, 7,964 lines, and the vendored ``multimodal_gen/third_party/pynvml.py``,
  7,227) are left out, so the largest file is about 4,000 lines (``srt/utils/common.py``, 4,071, and
  the affected ``srt/managers/scheduler.py``, 4,051);
* generated files, until the tree holds ``files`` ``.py`` files and ``affected`` of them name the old
  API (``ModelWorkerBatch``, ``model_worker_batch``, ``get_model_worker_batch``):

  - the fork's own package ``python/sglang_fork_ext/``: library modules (serving, routing, KV
    bookkeeping, observability, ...) and model files written against SGLang's layers
    (``RMSNorm``, ``RadixAttention``, ``QKVParallelLinear``, ``LogitsProcessor``, ``ForwardBatch``);
  - its plugins on the old API, in the shapes the codemods handle (``tests/fixtures/*/before.py``):
    ``TpModelWorker`` subclasses whose ``forward_batch_generation(self, model_worker_batch:
    ModelWorkerBatch)`` calls ``super()``, scheduler mixins calling ``batch.get_model_worker_batch()``
    then ``self.tp_worker.forward_batch_generation(model_worker_batch)``, field reads
    (``model_worker_batch.extend_seq_lens``), speculative workers registered with
    ``SpeculativeAlgorithm.register``, ``TYPE_CHECKING`` imports, ``isinstance`` checks, ...;
  - ``test/`` (unittest server tests on ``sglang.test.test_utils``, pytest unit tests on the fork's
    package), ``benchmark/`` and ``scripts/``.

The generated modules are realistic Python (imports, docstrings, comments, dataclasses, classes,
functions, loops, ``try``), sized from a few dozen lines to ~3,900 (the largest plugin module), never
naming the old API or any other word of mwbmigrate's byte prefilter unless they are plugins. Everything
is drawn from ``random.Random(seed)``: one seed, one tree, byte for byte.
"""

from __future__ import annotations

import importlib
import math
import random
import re
import shutil
import string
import subprocess
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

__all__ = [
    "AFFECTED",
    "FILES",
    "LARGEST_LINES",
    "OLD_API",
    "ForkTreeStats",
    "build_fork_tree",
    "count_tree",
    "generate_files",
]

FILES = 3500
AFFECTED = 50
LARGEST_LINES = 4000  # about: the tree's largest file is within LINE_SLACK of it
LINE_SLACK = 150
MAX_LINES = LARGEST_LINES + 100  # SGLang's own files longer than this are left out
# A file is affected when it names the old API (the brief's definition, and the first words of the
# engine's byte prefilter); `get_model_worker_batch` holds `model_worker_batch`.
OLD_API = re.compile(rb"ModelWorkerBatch|model_worker_batch")
PLUGIN_PACKAGE = "sglang_fork_ext"


@dataclass(frozen=True)
class ForkTreeStats:
    """What `build_fork_tree` made: counts over every `.py` file under `root`."""

    root: Path
    files: int
    affected: int
    largest_lines: int
    largest_path: str  # relative to root
    largest_affected_lines: int
    largest_affected_path: str
    sglang_files: int  # of `files`, SGLang's own
    sglang_affected: int
    left_out: Tuple[str, ...]  # SGLang's files over the line cap, `path (lines)`
    megabytes: float


# --------------------------------------------------------------------------- words

_NOUNS = (
    "request", "token", "prompt", "cache", "slot", "page", "expert", "adapter", "shard", "layer",
    "head", "block", "stream", "chunk", "queue", "metric", "span", "window", "budget", "router",
    "tenant", "session", "sample", "logit", "weight", "kernel", "tensor", "buffer", "profile",
    "trace", "checkpoint", "config", "endpoint", "payload", "score", "rank", "node", "prefix",
    "schema", "image", "video", "audio", "embedding", "rotary", "norm", "gate", "bias",
    "scale", "offset", "length", "mask", "position", "vocab", "quota", "lease", "ticket", "event",
    "signal", "timer", "pool", "allocator", "store", "index", "entry", "tokenizer", "template",
    "message", "response", "latency", "throughput", "device", "stage", "rope", "lora", "quant",
)  # fmt: skip
_VERBS = (
    "build", "load", "parse", "resolve", "compute", "update", "merge", "split", "collect", "emit",
    "check", "normalize", "encode", "decode", "pack", "unpack", "prepare", "apply", "refresh",
    "register", "lookup", "estimate", "schedule", "drain", "flush", "sync", "reset", "select",
    "shrink", "expand", "sort", "rank", "warm", "release", "reserve", "allocate", "trim", "format",
)  # fmt: skip
_ADJECTIVES = (
    "pending", "active", "cached", "shared", "local", "remote", "stale", "fresh", "total", "max",
    "min", "mean", "current", "previous", "next", "default", "fallback", "padded", "sorted",
)  # fmt: skip
_ARCHES = (
    "Kestrel", "Orion", "Halcyon", "Meridian", "Tern", "Corvid", "Lumen", "Sable", "Quill", "Aster",
    "Borealis", "Cygnet", "Dune", "Ember", "Fjord", "Gale", "Heron", "Iris", "Juniper", "Kite",
)  # fmt: skip
_EXCEPTIONS = ("ValueError", "KeyError", "RuntimeError", "OSError", "TypeError", "IndexError")
_AREAS_TEST = (
    "models", "openai_server", "lora", "quant", "sampling", "scheduler", "cache", "multimodal",
    "rl", "ep", "hicache", "function_call", "constrained", "router", "observability",
)  # fmt: skip
_AREAS_LIB = ("utils", "serving", "config", "observability", "kv", "routing", "quant", "lora", "io", "ops")
_AREAS_BENCH = ("serving", "kernels", "latency", "prefix_cache", "lora", "multimodal")
_AREAS_SCRIPT = ("ci", "release", "tools", "data", "playground")
_PLUGIN_AREAS = ("workers", "scheduler", "speculative", "plugins", "patches")

# Real names of SGLang 0.5.12.post1 that forks import (counted over its own modules).
_SGLANG_UTILS = (
    ("sglang.srt.utils", ("add_prefix", "is_cuda", "is_hip", "is_npu", "get_bool_env_var", "get_device")),
    ("sglang.srt.environ", ("envs",)),
    ("sglang.utils", ("is_in_ci",)),
)


class _Words:
    """Identifiers and prose, drawn from one generator."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def noun(self) -> str:
        return self.rng.choice(_NOUNS)

    def name(self, parts: int = 2) -> str:
        words = [self.rng.choice(_ADJECTIVES + _NOUNS)] + [self.noun() for _ in range(parts - 1)]
        return "_".join(dict.fromkeys(words))  # no word twice

    def func(self) -> str:
        return f"{self.rng.choice(_VERBS)}_{self.name(self.rng.choice((1, 2, 2)))}"

    def cls(self) -> str:
        return "".join(w.capitalize() for w in self.name(self.rng.choice((2, 2, 3))).split("_"))

    def sentence(self) -> str:
        rng = self.rng
        templates = (
            "Return the {a} {n1} for every {n2} in the {n3}.",
            "{V} the {n1} {n2} before the {n3} is handed on.",
            "Keep the {a} {n1} per {n2}; the {n3} reads it on every step.",
            "The {n1} of a {n2}, or None when the {n3} has none.",
            "{V} {n1}s whose {n2} changed since the last {n3}.",
            "Called once per {n1}: cheap, no {n2} is copied.",
            "A {a} {n1} keyed by {n2} name, rebuilt when the {n3} changes.",
            "Mirrors upstream's {n1} handling, with the fork's {n2} on top.",
        )
        return rng.choice(templates).format(
            a=rng.choice(_ADJECTIVES),
            n1=self.noun(),
            n2=self.noun(),
            n3=self.noun(),
            V=rng.choice(_VERBS).capitalize(),
        )

    def comment(self) -> str:
        rng = self.rng
        templates = (
            "# {s}",
            "# NOTE: {s}",
            "# TODO(fork): {v} the {n} here once upstream does.",
            "# Upstream changed the {n} layout in 0.5.x; {v} it the old way for now.",
            "# {s} (see the {n} docs)",
        )
        return rng.choice(templates).format(s=self.sentence(), n=self.noun(), v=rng.choice(_VERBS))


# --------------------------------------------------------------------------- code blocks


class _Module:
    """The lines of one generated module, and the names a body may use."""

    def __init__(self, words: _Words) -> None:
        self.words = words
        self.rng = words.rng
        self.lines: List[str] = []
        self.helpers: List[str] = []  # module-level functions defined so far
        self.used: set[str] = set()

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def fresh(self, make: Callable[[], str]) -> str:
        for attempt in range(50):
            candidate = make()
            if attempt > 20:
                candidate = f"{candidate}_{attempt}"
            if candidate not in self.used:
                self.used.add(candidate)
                return candidate
        raise RuntimeError("no fresh identifier")  # pragma: no cover

    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"


def _literal(rng: random.Random) -> str:
    return rng.choice(
        (
            str(rng.randint(0, 64)),
            str(rng.choice((128, 256, 512, 1024, 4096))),
            f"{rng.choice((0.5, 0.9, 1e-6, 1e-5, 0.01, 2.0))!r}",
            "None",
            "True",
            "False",
            f'"{rng.choice(_NOUNS)}"',
            "[]",
            "{}",
        )
    )


def _expression(mod: _Module, names: List[str], in_class: bool) -> str:
    rng, words = mod.rng, mod.words
    # Without a name to use, a literal that takes an attribute and an f-string's braces.
    a = rng.choice(names) if names else rng.choice(("None", "[]", "{}", "()"))
    b = rng.choice(names) if names else rng.choice(("None", "[]", "{}", "()"))
    attr = f"self.{words.name(2)}" if in_class else a
    choices = [
        f"{a} + {rng.randint(1, 8)}",
        f"len({a})",
        f"max({a}, {b})",
        f"min({a}, {rng.choice((16, 64, 256))})",
        f'{a}.get("{words.noun()}", {_literal(rng)})',
        f"[x for x in {a} if x is not None]",
        f"math.ceil({a} / {rng.choice((2, 4, 8, 16, 32))})",
        f'f"{words.noun()}-{{{a}}}"',
        f"dict({words.noun()}={a}, {words.noun()}_{words.noun()}={b})",
        "time.perf_counter()",
        f'os.environ.get("SGLANG_FORK_{words.noun().upper()}_{words.noun().upper()}", "{_literal(rng).strip(chr(34))}")',
        f"{a} if {b} else {_literal(rng)}",
        f"sorted({a}, key=lambda item: item[{rng.randint(0, 2)}])",
        f"sum({a}) / max(len({a}), 1)",
        attr,
    ]
    if mod.helpers:
        helper = rng.choice(mod.helpers)
        choices.append(f"{helper}({a}, {b})" if rng.random() < 0.5 else f"{helper}({a})")
    return rng.choice(choices)


def _statements(mod: _Module, names: List[str], indent: str, count: int, in_class: bool, depth: int = 0) -> List[str]:
    """`count` statements at `indent`; `names` (the parameters and locals so far) grows."""
    rng, words = mod.rng, mod.words
    out: List[str] = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.34 or not names:
            new = words.name(rng.choice((1, 2)))
            out.append(f"{indent}{new} = {_expression(mod, names, in_class)}")
            names.append(new)
        elif kind < 0.44:
            out.append(f"{indent}{words.comment()}")
            new = words.name(2)
            out.append(f"{indent}{new} = {_expression(mod, names, in_class)}")
            names.append(new)
        elif kind < 0.58 and depth < 2:
            cond = rng.choice(
                (
                    f"{rng.choice(names)} is None",
                    f"not {rng.choice(names)}",
                    f"{rng.choice(names)} > {rng.randint(0, 32)}",
                    f"isinstance({rng.choice(names)}, {rng.choice(('dict', 'list', 'str', 'int'))})",
                    f"{rng.choice(names)} and {rng.choice(names)}",
                )
            )
            out.append(f"{indent}if {cond}:")
            out.extend(_statements(mod, list(names), indent + "    ", rng.randint(1, 3), in_class, depth + 1))
            if rng.random() < 0.4:
                out.append(f"{indent}else:")
                out.extend(_statements(mod, list(names), indent + "    ", rng.randint(1, 2), in_class, depth + 1))
        elif kind < 0.68 and depth < 2:
            item = words.noun()
            out.append(f"{indent}for {item} in {rng.choice(names)}:")
            inner = names + [item]
            out.extend(_statements(mod, inner, indent + "    ", rng.randint(1, 3), in_class, depth + 1))
        elif kind < 0.76:
            level = rng.choice(("debug", "debug", "info", "warning"))
            out.append(f'{indent}logger.{level}("{words.sentence()[:-1]}: %s", {rng.choice(names)})')
        elif kind < 0.83 and depth < 2:
            new = words.name(2)
            exc = rng.sample(_EXCEPTIONS, rng.randint(1, 2))
            caught = exc[0] if len(exc) == 1 else f"({', '.join(exc)})"
            out.append(f"{indent}try:")
            out.append(f"{indent}    {new} = {_expression(mod, names, in_class)}")
            out.append(f"{indent}except {caught} as exc:")
            out.append(f'{indent}    logger.warning("Could not {rng.choice(_VERBS)} the {words.noun()}: %s", exc)')
            out.append(f"{indent}    {new} = {_literal(rng)}")
            names.append(new)
        elif kind < 0.9:
            out.append(f'{indent}assert {rng.choice(names)} is not None, "{words.noun()} must be set"')
        elif in_class:
            out.append(f"{indent}self.{words.name(2)} = {_expression(mod, names, in_class)}")
        else:
            out.append(f"{indent}{rng.choice(names)} = {_expression(mod, names, in_class)}")
    return out


def _signature(mod: _Module, self_arg: bool) -> Tuple[str, List[str]]:
    rng, words = mod.rng, mod.words
    params: List[str] = ["self"] if self_arg else []
    names: List[str] = []
    for _ in range(rng.randint(0, 4)):
        name = words.name(rng.choice((1, 2)))
        if name in names:
            continue
        names.append(name)
        annotation, default = rng.choice(
            (
                ("int", str(rng.choice((0, 1, 8, 64, 1024)))),
                ("str", f'"{words.noun()}"'),
                ("float", repr(rng.choice((0.0, 0.5, 1e-6)))),
                ("bool", rng.choice(("False", "True"))),
                ("List[int]", "None"),
                ("Dict[str, Any]", "None"),
                ("Optional[str]", "None"),
                ("Any", "None"),
            )
        )
        if rng.random() < 0.3:
            optional = default == "None" and not annotation.startswith(("Optional", "Any"))
            params.append(f"{name}: {f'Optional[{annotation}]' if optional else annotation} = {default}")
        else:
            params.append(f"{name}: {annotation}")
    # Defaults after the others only.
    required = [p for p in params if "=" not in p]
    defaulted = [p for p in params if "=" in p]
    return ", ".join(required + defaulted), names


def _function(mod: _Module, indent: str = "", method: bool = False, name: Optional[str] = None) -> List[str]:
    rng, words = mod.rng, mod.words
    name = name or mod.fresh(words.func)
    params, names = _signature(mod, method)
    returns = rng.choice(("int", "str", "bool", "None", "List[Any]", "Dict[str, Any]", "Optional[Any]", "float"))
    out = [f"{indent}def {name}({params}) -> {returns}:"]
    doc = rng.random()
    if doc < 0.45:
        out.append(f'{indent}    """{words.sentence()}"""')
    elif doc < 0.75:
        out += [f'{indent}    """{words.sentence()}', "", f"{indent}    {words.sentence()}"]
        for arg in names[: rng.randint(0, 2)]:
            out.append(f"{indent}    `{arg}`: the {words.noun()} to {rng.choice(_VERBS)}.")
        out.append(f'{indent}    """')
    body_names = list(names)
    out += _statements(mod, body_names, indent + "    ", rng.randint(2, 12), method)
    if returns != "None":
        out.append(f"{indent}    return {rng.choice(body_names) if body_names else _literal(rng)}")
    if not method:
        mod.helpers.append(name)
    return out


def _class(mod: _Module) -> List[str]:
    rng, words = mod.rng, mod.words
    name = mod.fresh(words.cls)
    out = [f"class {name}:", f'    """{words.sentence()}"""', ""]
    if rng.random() < 0.35:  # a dataclass
        out.insert(0, "@dataclass")
        for field_name in dict.fromkeys(words.name(2) for _ in range(rng.randint(2, 7))):
            kind, default = rng.choice(
                (("int", str(rng.randint(0, 64))), ("float", "0.0"), ("bool", "False"), ("str", '""'))
            )
            out.append(f"    {field_name}: {kind} = {default}")
        if rng.random() < 0.4:
            out.append(f"    {words.name(2)}: List[str] = field(default_factory=list)")
        out.append("")
        methods = rng.randint(0, 3)
    else:
        attrs = [words.name(2) for _ in range(rng.randint(1, 4))]
        out.append("    def __init__(self, config: Dict[str, Any]) -> None:")
        out.append("        self.config = config")
        for attr in dict.fromkeys(attrs):
            out.append(f'        self.{attr} = config.get("{attr}", {_literal(rng)})')
        out.append("")
        methods = rng.randint(1, 6)
    for _ in range(methods):
        out += _function(mod, "    ", method=True) + [""]
    return out


_TYPING = ("Any", "Dict", "List", "Optional", "Tuple")


def _prelude(mod: _Module, typing: Sequence[str] = (), modules: Sequence[str] = ()) -> None:
    """The standard library every generated module imports (the code blocks use all of it), and `modules`."""
    mod.add(*(f"import {name}" for name in sorted({"logging", "math", "os", "time", *modules})))
    mod.add("from dataclasses import dataclass, field")
    if "sys" in modules:  # a script's
        mod.add("from pathlib import Path")
    mod.add(f"from typing import {', '.join(sorted(set(_TYPING) | set(typing)))}", "")


def _header(
    mod: _Module,
    doc: str,
    imports: Optional[Dict[str, Tuple[str, ...]]] = None,
    typing: Sequence[str] = (),
    checking: Sequence[str] = (),
) -> None:
    """Docstring, imports (`imports`: SGLang module -> names; `checking`: import lines under
    TYPE_CHECKING), logger and a few constants."""
    rng = mod.rng
    mod.add(f'"""{doc}', "", mod.words.sentence(), '"""', "")
    mod.add("from __future__ import annotations", "")
    _prelude(mod, tuple(typing) + (("TYPE_CHECKING",) if checking else ()))
    modules: Dict[str, set[str]] = {module: set(names) for module, names in (imports or {}).items()}
    for module, names in rng.sample(_SGLANG_UTILS, rng.randint(0, 2)):
        modules.setdefault(module, set()).update(rng.sample(names, rng.randint(1, min(2, len(names)))))
    if modules:
        mod.add(*(f"from {module} import {', '.join(sorted(modules[module]))}" for module in sorted(modules)), "")
    if checking:
        mod.add("if TYPE_CHECKING:", *(f"    {line}" for line in checking), "")
    mod.add("logger = logging.getLogger(__name__)", "")
    if rng.random() < 0.6:
        for _ in range(rng.randint(1, 4)):
            mod.add(f"{mod.words.name(2).upper()} = {_literal(rng)}")
        mod.add("")
    mod.add("")


def _pad(mod: _Module, target_lines: int) -> None:
    """Classes and functions until the module is `target_lines` long."""
    while len(mod.lines) < target_lines:
        mod.add(*(_class(mod) if mod.rng.random() < 0.4 else _function(mod)), "", "")


# --------------------------------------------------------------------------- unaffected modules


def _library(words: _Words, target: int, doc: str) -> Tuple[str, List[str]]:
    mod = _Module(words)
    _header(mod, doc)
    _pad(mod, target)
    return mod.text(), list(mod.helpers)


def _unittest(words: _Words, target: int) -> str:
    rng = words.rng
    mod = _Module(words)
    topic = words.name(2)
    mod.add(f'"""Server tests for the fork\'s {topic.replace("_", " ")} handling."""', "")
    _prelude(mod, modules=("json", "unittest"))
    mod.add("import requests", "")
    mod.add("from sglang.srt.utils import kill_process_tree")
    model = rng.choice(
        ("DEFAULT_MODEL_NAME_FOR_TEST", "DEFAULT_SMALL_MODEL_NAME_FOR_TEST", "DEFAULT_MOE_MODEL_NAME_FOR_TEST")
    )
    mod.add(
        "from sglang.test.test_utils import (",
        f"    {model},",
        "    DEFAULT_TIMEOUT_FOR_SERVER_LAUNCH,",
        "    DEFAULT_URL_FOR_TEST,",
        "    CustomTestCase,",
        "    popen_launch_server,",
        ")",
        "",
        "logger = logging.getLogger(__name__)",
        "",
        "",
    )
    while len(mod.lines) < target:
        name = mod.fresh(words.cls)
        flags = rng.sample(
            (
                '"--tp", "2"',
                '"--enable-lora"',
                '"--chunked-prefill-size", "4096"',
                '"--mem-fraction-static", "0.7"',
                '"--disable-radix-cache"',
                '"--max-running-requests", "32"',
                '"--attention-backend", "triton"',
                '"--enable-metrics"',
            ),
            rng.randint(0, 3),
        )
        mod.add(
            f"class Test{name}(CustomTestCase):",
            f'    """{words.sentence()}"""',
            "",
            "    @classmethod",
            "    def setUpClass(cls):",
            f"        cls.model = {model}",
            "        cls.base_url = DEFAULT_URL_FOR_TEST",
            "        cls.process = popen_launch_server(",
            "            cls.model,",
            "            cls.base_url,",
            "            timeout=DEFAULT_TIMEOUT_FOR_SERVER_LAUNCH,",
            f"            other_args=[{', '.join(flags)}],",
            "        )",
            "",
            "    @classmethod",
            "    def tearDownClass(cls):",
            "        kill_process_tree(cls.process.pid)",
            "",
        )
        for _ in range(rng.randint(1, 6)):
            test = mod.fresh(lambda: f"test_{words.name(2)}")
            max_tokens = rng.choice((8, 16, 32, 64, 128))
            mod.add(
                f"    def {test}(self):",
                f'        """{words.sentence()}"""',
                "        response = requests.post(",
                '            self.base_url + "/generate",',
                "            json={",
                f'                "text": "The capital of {rng.choice(("France", "Japan", "Peru", "Kenya"))} is",',
                f'                "sampling_params": {{"temperature": {rng.choice((0, 0.0, 0.7))}, "max_new_tokens": {max_tokens}}},',
                "            },",
                "        )",
                "        self.assertEqual(response.status_code, 200, response.text)",
                "        body = response.json()",
                f'        self.assertIn("{rng.choice(("text", "meta_info"))}", body)',
            )
            if rng.random() < 0.5:
                mod.add(
                    '        meta = body["meta_info"]',
                    f'        self.assertLessEqual(meta["completion_tokens"], {max_tokens})',
                    f"        print(json.dumps(meta, indent={rng.choice((1, 2))}))",
                )
            if rng.random() < 0.4:
                mod.add(*_statements(mod, ["body"], "        ", rng.randint(1, 5), True))
            mod.add("")
        mod.add("")
    mod.add('if __name__ == "__main__":', "    unittest.main()")
    return mod.text()


def _pytest(words: _Words, target: int, subject: Optional[Tuple[str, List[str]]]) -> str:
    rng = words.rng
    mod = _Module(words)
    mod.add(f'"""Unit tests: {words.sentence()}"""', "")
    _prelude(mod)
    mod.add("import pytest", "")
    called: List[str] = []
    if subject is not None and subject[1]:
        module, helpers = subject
        called = sorted(rng.sample(helpers, min(len(helpers), rng.randint(1, 3))))
        mod.add(f"from {module} import {', '.join(called)}", "")
    mod.add("logger = logging.getLogger(__name__)", "", "")
    mod.add("@pytest.fixture", f"def {words.name(2)}():", f'    return {{"{words.noun()}": {_literal(rng)}}}', "", "")
    while len(mod.lines) < target:
        test = mod.fresh(lambda: f"test_{words.name(2)}")
        if rng.random() < 0.4:
            values = ", ".join(_literal(rng) for _ in range(rng.randint(2, 4)))
            mod.add(f'@pytest.mark.parametrize("value", [{values}])', f"def {test}(value):")
            names = ["value"]
        else:
            mod.add(f"def {test}():")
            names = []
        mod.add(f'    """{words.sentence()}"""')
        body = _statements(mod, names, "    ", rng.randint(2, 7), False)
        mod.add(*body)
        if called:
            mod.add(f"    result = {rng.choice(called)}({', '.join(names[:1])})")
            mod.add(rng.choice(("    assert result is not None", "    assert result == result")))
        else:
            mod.add(f"    assert {rng.choice(names) if names else 'True'} is not None")
        mod.add("", "")
    return mod.text()


def _bench(words: _Words, target: int) -> str:
    rng = words.rng
    mod = _Module(words)
    mod.add(f'"""Benchmark the fork\'s {words.name(2).replace("_", " ")} path.', "", "Usage:")
    mod.add(f"    python {words.name(2)}.py --num-prompts 1000 --request-rate 8", '"""', "")
    _prelude(mod, modules=("argparse", "concurrent.futures", "json", "statistics"))
    mod.add("import requests", "")
    mod.add("logger = logging.getLogger(__name__)", "", "")
    mod.add(
        "def send_one(url: str, prompt: str, max_new_tokens: int) -> float:",
        "    start = time.perf_counter()",
        "    response = requests.post(",
        '        url + "/generate",',
        '        json={"text": prompt, "sampling_params": {"max_new_tokens": max_new_tokens}},',
        f"        timeout={rng.choice((60, 120, 600))},",
        "    )",
        "    response.raise_for_status()",
        "    return time.perf_counter() - start",
        "",
        "",
    )
    _pad(mod, max(target - 40, len(mod.lines)))
    mod.add(
        "def main(args: argparse.Namespace) -> None:",
        f'    prompts = [f"{words.sentence()[:-1]} {{i}}" for i in range(args.num_prompts)]',
        "    with concurrent.futures.ThreadPoolExecutor(max_workers=args.concurrency) as pool:",
        "        latencies = list(pool.map(lambda p: send_one(args.url, p, args.max_new_tokens), prompts))",
        "    summary = {",
        '        "mean_s": statistics.mean(latencies),',
        '        "p99_s": sorted(latencies)[int(len(latencies) * 0.99) - 1],',
        '        "throughput": len(latencies) / sum(latencies),',
        "    }",
        "    print(json.dumps(summary, indent=2))",
        "",
        "",
        'if __name__ == "__main__":',
        "    parser = argparse.ArgumentParser()",
        '    parser.add_argument("--url", default="http://127.0.0.1:30000")',
        f'    parser.add_argument("--num-prompts", type=int, default={rng.choice((100, 500, 1000))})',
        f'    parser.add_argument("--concurrency", type=int, default={rng.choice((8, 16, 64))})',
        '    parser.add_argument("--request-rate", type=float, default=float("inf"))',
        f'    parser.add_argument("--max-new-tokens", type=int, default={rng.choice((32, 128, 512))})',
        "    main(parser.parse_args())",
    )
    return mod.text()


def _script(words: _Words, target: int) -> str:
    rng = words.rng
    mod = _Module(words)
    mod.add("#!/usr/bin/env python3", f'"""{words.sentence()}"""', "")
    _prelude(mod, modules=("argparse", "json", "sys"))
    mod.add("logger = logging.getLogger(__name__)", "", "")
    _pad(mod, max(target - 20, len(mod.lines)))
    helper = rng.choice(mod.helpers) if mod.helpers else "print"
    mod.add(
        "def main(argv: Optional[List[str]] = None) -> int:",
        f'    parser = argparse.ArgumentParser(description="{words.sentence()[:-1]}")',
        '    parser.add_argument("paths", nargs="*", type=Path)',
        '    parser.add_argument("--dry-run", action="store_true")',
        "    args = parser.parse_args(argv)",
        "    logging.basicConfig(level=logging.INFO)",
        "    for path in args.paths:",
        f'        logger.info("%s: %s", path, {helper}(path))' if helper != "print" else "        print(path)",
        "    return 0",
        "",
        "",
        'if __name__ == "__main__":',
        "    sys.exit(main())",
    )
    return mod.text()


_MODEL = string.Template("""\
class ${arch}MLP(nn.Module):
    def __init__(
        self,
        hidden_size: int,
        intermediate_size: int,
        hidden_act: str,
        quant_config: Optional[QuantizationConfig] = None,
        prefix: str = "",
    ) -> None:
        super().__init__()
        self.gate_up_proj = MergedColumnParallelLinear(
            hidden_size,
            [intermediate_size] * 2,
            bias=${bias},
            quant_config=quant_config,
            prefix=add_prefix("gate_up_proj", prefix),
        )
        self.down_proj = RowParallelLinear(
            intermediate_size,
            hidden_size,
            bias=${bias},
            quant_config=quant_config,
            prefix=add_prefix("down_proj", prefix),
        )
        if hidden_act != "silu":
            raise ValueError(f"Unsupported activation: {hidden_act}. Only silu is supported for now.")
        self.act_fn = SiluAndMul()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate_up, _ = self.gate_up_proj(x)
        x = self.act_fn(gate_up)
        x, _ = self.down_proj(x)
        return x


class ${arch}Attention(nn.Module):
    def __init__(
        self,
        config: Any,
        layer_id: int = 0,
        quant_config: Optional[QuantizationConfig] = None,
        prefix: str = "",
    ) -> None:
        super().__init__()
        self.hidden_size = config.hidden_size
        tp_size = get_tensor_model_parallel_world_size()
        self.total_num_heads = config.num_attention_heads
        assert self.total_num_heads % tp_size == 0
        self.num_heads = self.total_num_heads // tp_size
        self.total_num_kv_heads = config.num_key_value_heads
        self.num_kv_heads = max(1, self.total_num_kv_heads // tp_size)
        self.head_dim = getattr(config, "head_dim", self.hidden_size // self.total_num_heads)
        self.q_size = self.num_heads * self.head_dim
        self.kv_size = self.num_kv_heads * self.head_dim
        self.scaling = self.head_dim**-0.5
        self.qkv_proj = QKVParallelLinear(
            self.hidden_size,
            self.head_dim,
            self.total_num_heads,
            self.total_num_kv_heads,
            bias=${bias},
            quant_config=quant_config,
            prefix=add_prefix("qkv_proj", prefix),
        )
        self.o_proj = RowParallelLinear(
            self.total_num_heads * self.head_dim,
            self.hidden_size,
            bias=False,
            quant_config=quant_config,
            prefix=add_prefix("o_proj", prefix),
        )
        self.rotary_emb = get_rope(
            self.head_dim,
            rotary_dim=self.head_dim,
            max_position=getattr(config, "max_position_embeddings", ${positions}),
            base=getattr(config, "rope_theta", ${theta}),
            rope_scaling=getattr(config, "rope_scaling", None),
        )
        self.attn = RadixAttention(
            self.num_heads,
            self.head_dim,
            self.scaling,
            num_kv_heads=self.num_kv_heads,
            layer_id=layer_id,
            quant_config=quant_config,
            prefix=add_prefix("attn", prefix),
        )

    def forward(
        self,
        positions: torch.Tensor,
        hidden_states: torch.Tensor,
        forward_batch: ForwardBatch,
    ) -> torch.Tensor:
        qkv, _ = self.qkv_proj(hidden_states)
        q, k, v = qkv.split([self.q_size, self.kv_size, self.kv_size], dim=-1)
        q, k = self.rotary_emb(positions, q, k)
        attn_output = self.attn(q, k, v, forward_batch)
        output, _ = self.o_proj(attn_output)
        return output


class ${arch}DecoderLayer(nn.Module):
    def __init__(
        self,
        config: Any,
        layer_id: int = 0,
        quant_config: Optional[QuantizationConfig] = None,
        prefix: str = "",
    ) -> None:
        super().__init__()
        self.self_attn = ${arch}Attention(config, layer_id, quant_config, prefix=add_prefix("self_attn", prefix))
        self.mlp = ${arch}MLP(
            config.hidden_size,
            config.intermediate_size,
            config.hidden_act,
            quant_config=quant_config,
            prefix=add_prefix("mlp", prefix),
        )
        self.input_layernorm = RMSNorm(config.hidden_size, eps=${eps})
        self.post_attention_layernorm = RMSNorm(config.hidden_size, eps=${eps})

    def forward(
        self,
        positions: torch.Tensor,
        hidden_states: torch.Tensor,
        forward_batch: ForwardBatch,
        residual: Optional[torch.Tensor],
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if residual is None:
            residual = hidden_states
            hidden_states = self.input_layernorm(hidden_states)
        else:
            hidden_states, residual = self.input_layernorm(hidden_states, residual)
        hidden_states = self.self_attn(positions, hidden_states, forward_batch)
        hidden_states, residual = self.post_attention_layernorm(hidden_states, residual)
        hidden_states = self.mlp(hidden_states)
        return hidden_states, residual


class ${arch}Model(nn.Module):
    def __init__(
        self,
        config: Any,
        quant_config: Optional[QuantizationConfig] = None,
        prefix: str = "",
    ) -> None:
        super().__init__()
        self.config = config
        self.embed_tokens = VocabParallelEmbedding(
            config.vocab_size,
            config.hidden_size,
            prefix=add_prefix("embed_tokens", prefix),
        )
        self.layers = nn.ModuleList(
            [
                ${arch}DecoderLayer(config, i, quant_config=quant_config, prefix=add_prefix(f"layers.{i}", prefix))
                for i in range(config.num_hidden_layers)
            ]
        )
        self.norm = RMSNorm(config.hidden_size, eps=${eps})

    def forward(
        self,
        input_ids: torch.Tensor,
        positions: torch.Tensor,
        forward_batch: ForwardBatch,
        input_embeds: Optional[torch.Tensor] = None,
    ) -> torch.Tensor:
        hidden_states = self.embed_tokens(input_ids) if input_embeds is None else input_embeds
        residual = None
        for layer in self.layers:
            hidden_states, residual = layer(positions, hidden_states, forward_batch, residual)
        hidden_states, _ = self.norm(hidden_states, residual)
        return hidden_states


class ${arch}ForCausalLM(nn.Module):
    def __init__(
        self,
        config: Any,
        quant_config: Optional[QuantizationConfig] = None,
        prefix: str = "",
    ) -> None:
        super().__init__()
        self.config = config
        self.quant_config = quant_config
        self.model = ${arch}Model(config, quant_config=quant_config, prefix=add_prefix("model", prefix))
        self.lm_head = ParallelLMHead(
            config.vocab_size,
            config.hidden_size,
            quant_config=quant_config,
            prefix=add_prefix("lm_head", prefix),
        )
        self.logits_processor = LogitsProcessor(config)

    @torch.no_grad()
    def forward(
        self,
        input_ids: torch.Tensor,
        positions: torch.Tensor,
        forward_batch: ForwardBatch,
        input_embeds: Optional[torch.Tensor] = None,
    ) -> Any:
        hidden_states = self.model(input_ids, positions, forward_batch, input_embeds)
        return self.logits_processor(input_ids, hidden_states, self.lm_head, forward_batch)

    def load_weights(self, weights: Iterable[Tuple[str, torch.Tensor]]) -> None:
        stacked_params_mapping = [
            ("qkv_proj", "q_proj", "q"),
            ("qkv_proj", "k_proj", "k"),
            ("qkv_proj", "v_proj", "v"),
            ("gate_up_proj", "gate_proj", 0),
            ("gate_up_proj", "up_proj", 1),
        ]
        params_dict = dict(self.named_parameters())
        for name, loaded_weight in weights:
            if "rotary_emb.inv_freq" in name:
                continue
            for param_name, weight_name, shard_id in stacked_params_mapping:
                if weight_name not in name:
                    continue
                name = name.replace(weight_name, param_name)
                param = params_dict[name]
                param.weight_loader(param, loaded_weight, shard_id)
                break
            else:
                if name not in params_dict:
                    logger.warning("Skipping weight %s not present in the model", name)
                    continue
                param = params_dict[name]
                weight_loader = getattr(param, "weight_loader", default_weight_loader)
                weight_loader(param, loaded_weight)

""")

_MODEL_IMPORTS = """\
import torch
from torch import nn

from sglang.srt.distributed import get_tensor_model_parallel_world_size
from sglang.srt.layers.activation import SiluAndMul
from sglang.srt.layers.layernorm import RMSNorm
from sglang.srt.layers.linear import MergedColumnParallelLinear, QKVParallelLinear, RowParallelLinear
from sglang.srt.layers.logits_processor import LogitsProcessor
from sglang.srt.layers.quantization.base_config import QuantizationConfig
from sglang.srt.layers.radix_attention import RadixAttention
from sglang.srt.layers.rotary_embedding import get_rope
from sglang.srt.layers.vocab_parallel_embedding import ParallelLMHead, VocabParallelEmbedding
from sglang.srt.model_executor.forward_batch_info import ForwardBatch
from sglang.srt.model_loader.weight_utils import default_weight_loader
from sglang.srt.utils import add_prefix

logger = logging.getLogger(__name__)

"""


def _model(words: _Words, target: int, arch: str) -> str:
    """A model file written against SGLang's layers (the shape of `sglang/srt/models/llama.py`)."""
    rng = words.rng
    mod = _Module(words)
    mod.add(f'"""Inference-only {arch} model, adapted from the fork\'s training code.', "", words.sentence(), '"""', "")
    _prelude(mod, ("Iterable",))
    mod.add(*_MODEL_IMPORTS.splitlines(), "")
    body = _MODEL.substitute(
        arch=arch,
        bias=rng.choice(("False", "True")),
        eps=rng.choice(("1e-5", "1e-6")),
        positions=rng.choice((4096, 8192, 32768)),
        theta=rng.choice((10000, 500000, 1000000)),
    )
    mod.add(*body.splitlines(), "")
    while len(mod.lines) < target - 2:
        mod.add(*_function(mod), "", "")
    mod.add(f"EntryClass = [{arch}ForCausalLM]")
    return mod.text()


# --------------------------------------------------------------------------- affected plugins


@dataclass(frozen=True)
class _Shape:
    """One old-API shape the codemods handle (`tests/fixtures/*/before.py`), as a template of
    `$name` (a fresh class name), `$func` / `$func2` (fresh function names), `$noun`, `$doc`."""

    template: str
    imports: Dict[str, Tuple[str, ...]]
    typing: Tuple[str, ...] = ()
    checking: Tuple[str, ...] = ()


_SCHEDULE_BATCH = "sglang.srt.managers.schedule_batch"
_FORWARD_BATCH_INFO = "sglang.srt.model_executor.forward_batch_info"
_SHAPES: Tuple[_Shape, ...] = (
    _Shape(  # worker-signatures/tp_worker_subclass
        """\
class ${name}TpWorker(TpModelWorker):
    \"\"\"A tp worker that keeps the fork's ${noun} bookkeeping around every forward.\"\"\"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.${noun}_steps = 0

    def forward_batch_generation(
        self,
        model_worker_batch: ModelWorkerBatch,
        forward_batch: Optional[ForwardBatch] = None,
    ):
        self.${noun}_steps += 1
        if self.${noun}_steps % ${every} == 0:
            logger.debug("${noun} step %d: %d requests", self.${noun}_steps, len(model_worker_batch.seq_lens))
        return super().forward_batch_generation(model_worker_batch, forward_batch)


class Tracing${name}Worker(TpModelWorker):
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch, *args):
        start = time.perf_counter()
        result = super().forward_batch_generation(model_worker_batch, *args)
        logger.info("forward %s took %.3f s", model_worker_batch.forward_mode, time.perf_counter() - start)
        return result
""",
        {
            _SCHEDULE_BATCH: ("ModelWorkerBatch",),
            "sglang.srt.managers.tp_worker": ("TpModelWorker",),
            _FORWARD_BATCH_INFO: ("ForwardBatch",),
        },
    ),
    _Shape(  # worker-batch-calls/plain_call_site, snapshot_read_and_forwarded_fine
        """\
class ${name}SchedulerMixin:
    \"\"\"Scheduler hooks of the fork: ${doc}\"\"\"

    def run_batch(self, batch: ScheduleBatch):
        model_worker_batch = batch.get_model_worker_batch()
        result = self.tp_worker.forward_batch_generation(model_worker_batch)
        return result, model_worker_batch.seq_lens

    def ${func}(self, batch: ScheduleBatch):
        model_worker_batch = batch.get_model_worker_batch()
        if model_worker_batch is None:
            return None
        tokens = len(model_worker_batch.seq_lens)
        result = self.tp_worker.forward_batch_generation(model_worker_batch)
        return result, tokens
""",
        {_SCHEDULE_BATCH: ("ScheduleBatch",)},
    ),
    _Shape(  # field-renames/computed_field_reads_converted
        """\
def ${func}(model_worker_batch: ModelWorkerBatch) -> Dict[str, Any]:
    \"\"\"${doc}\"\"\"
    stats: Dict[str, Any] = {}
    if model_worker_batch.forward_mode.is_extend():
        stats["extend"] = sum(model_worker_batch.extend_seq_lens)
        stats["prefix"] = sum(model_worker_batch.extend_prefix_lens)
    stats["lora"] = len(set(model_worker_batch.lora_ids or []))
    stats["requests"] = len(model_worker_batch.seq_lens)
    return stats


def ${func2}(model_worker_batch: ModelWorkerBatch, limit: int) -> bool:
    for prefix_len, seq_len in zip(model_worker_batch.extend_prefix_lens, model_worker_batch.extend_seq_lens):
        if prefix_len + seq_len > limit:
            return False
    return True
""",
        {_SCHEDULE_BATCH: ("ModelWorkerBatch",)},
    ),
    _Shape(  # worker-signatures/registered_plugin
        """\
class ${name}SpecWorker:
    \"\"\"A speculative worker of the fork: ${doc}\"\"\"

    def __init__(self, target_worker: Any) -> None:
        self.target_worker = target_worker

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        return self.target_worker.forward_batch_generation(model_worker_batch)


@SpeculativeAlgorithm.register("${key}", supports_overlap=False)
def _${func}_factory(server_args: Any) -> type:
    return ${name}SpecWorker
""",
        {_SCHEDULE_BATCH: ("ModelWorkerBatch",), "sglang.srt.speculative.spec_info": ("SpeculativeAlgorithm",)},
    ),
    _Shape(  # override-arguments/spec_worker
        """\
class ${name}DraftWorker:
    \"\"\"${doc}\"\"\"

    def draft(self, model_worker_batch: ModelWorkerBatch):
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.LAST
        forward_batch = ForwardBatch.init_new(model_worker_batch, self.draft_runner)
        return self.draft_runner.forward(forward_batch)

    def target_extend(self, batch: ScheduleBatch):
        model_worker_batch = batch.get_model_worker_batch()
        model_worker_batch.capture_hidden_mode = CaptureHiddenMode.FULL
        return self.target_worker.forward_batch_generation(model_worker_batch)
""",
        {
            _SCHEDULE_BATCH: ("ModelWorkerBatch", "ScheduleBatch"),
            _FORWARD_BATCH_INFO: ("CaptureHiddenMode", "ForwardBatch"),
        },
    ),
    _Shape(  # isinstance-checks/branch_deleted_else_kept, class-references/union_collapses
        """\
def ${func}(batch: Union[ScheduleBatch, ModelWorkerBatch], worker: Any):
    if isinstance(batch, ModelWorkerBatch):
        # Older call sites still hand the worker batch over.
        return worker.forward_batch_generation(batch)
    return worker.forward_batch_generation(batch.get_model_worker_batch())


def ${func2}(batch: Optional[ModelWorkerBatch]) -> int:
    if batch is None:
        return 0
    return batch.seq_lens_sum
""",
        {_SCHEDULE_BATCH: ("ModelWorkerBatch", "ScheduleBatch")},
        typing=("Union",),
    ),
    _Shape(  # imports/type_checking_only
        """\
def ${func}(batch: ModelWorkerBatch) -> bool:
    \"\"\"${doc}\"\"\"
    return batch.forward_mode.is_decode() and batch.return_logprob
""",
        {},
        checking=(f"from {_SCHEDULE_BATCH} import ModelWorkerBatch",),
    ),
)


def _plugin(words: _Words, target: int, index: int) -> str:
    """An affected module: one or two old-API shapes among ordinary code, `target` lines long."""
    rng = words.rng
    mod = _Module(words)
    shapes = [_SHAPES[index % len(_SHAPES)]]
    if rng.random() < 0.4:
        shapes.append(rng.choice([shape for shape in _SHAPES if shape is not shapes[0]]))
    imports: Dict[str, Tuple[str, ...]] = {}
    for shape in shapes:
        for module, names in shape.imports.items():
            imports[module] = tuple(sorted(set(imports.get(module, ())) | set(names)))
    imported = {name for names in imports.values() for name in names}
    checking = [line for shape in shapes for line in shape.checking if line.split()[-1] not in imported]
    typing = [name for shape in shapes for name in shape.typing]
    _header(mod, f"The fork's {words.name(2).replace('_', ' ')} plugin.", imports, typing, checking)
    _pad(mod, min(len(mod.lines) + rng.randint(0, 60), target // 3))
    for shape in shapes:
        name = mod.fresh(words.cls)
        text = string.Template(shape.template).substitute(
            name=name,
            key=name.upper()[:16],
            func=mod.fresh(words.func),
            func2=mod.fresh(words.func),
            noun=words.noun(),
            doc=words.sentence(),
            every=rng.choice((16, 64, 128)),
        )
        mod.add(*text.splitlines(), "", "")
        _pad(mod, len(mod.lines) + rng.randint(0, max(target // 3, 1)))
    _pad(mod, target)
    return mod.text()


# --------------------------------------------------------------------------- the tree


def _size(rng: random.Random, median: float, low: int, high: int) -> int:
    return max(low, min(high, int(rng.lognormvariate(math.log(median), 0.8))))


def _numbered(stem: str, rng: random.Random) -> str:
    return f"{stem}_{rng.randint(1, 99)}"


def generate_files(
    root: Path, count: int, affected: int, seed: int = 0, largest_plugin_lines: int = 3900
) -> List[Path]:
    """Write `count` generated `.py` files under `root`, `affected` of them on the old API (plugins;
    the largest `largest_plugin_lines` long). Returns their paths, in writing order."""
    packages = 1 + min(affected, len(_PLUGIN_AREAS))  # the plugins' __init__.py files
    if affected + packages > count:
        raise ValueError(f"{affected} affected files and their packages cannot fit in {count}")
    rng = random.Random(seed)
    words = _Words(rng)
    package = root / "python" / PLUGIN_PACKAGE
    written: List[Path] = []
    taken: set[Path] = set()

    def write(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
        taken.add(path)

    def unique(folder: Path, make: Callable[[], str]) -> Path:
        for attempt in range(100):
            stem = make() if attempt < 50 else f"{make()}_{attempt}"
            path = folder / f"{stem}.py"
            if path not in taken and path.name != "__init__.py":
                return path
        raise RuntimeError("no free file name")  # pragma: no cover

    def package_init(folder: Path) -> None:
        init = folder / "__init__.py"
        if init not in taken and len(written) < count:
            write(init, f'"""{words.sentence()}"""\n')

    # The plugins first: their count is fixed, the filler takes what is left.
    package_init(package)
    for index in range(affected):
        area = _PLUGIN_AREAS[index % len(_PLUGIN_AREAS)]
        package_init(package / area)
        target = largest_plugin_lines if index == 0 else _size(rng, 220, 40, min(1800, largest_plugin_lines // 2))
        path = unique(package / area, lambda: words.name(2))
        text = _plugin(words, target, index)
        if not OLD_API.search(text.encode("utf-8")):  # pragma: no cover - every shape names it
            raise AssertionError(f"{path}: a plugin module does not name the old API")
        write(path, text)
    libraries: List[Tuple[str, List[str]]] = []
    kinds = ("library", "library", "model", "unittest", "unittest", "unittest", "pytest", "pytest", "bench", "script")
    while len(written) < count:
        kind = rng.choice(kinds)
        if kind == "library":
            area = rng.choice(_AREAS_LIB)
            package_init(package / area)
            if len(written) >= count:
                break
            path = unique(package / area, words.func if rng.random() < 0.3 else lambda: words.name(2))
            text, helpers = _library(words, _size(rng, 240, 30, 3000), words.sentence())
            dotted = ".".join(path.relative_to(root / "python").with_suffix("").parts)
            libraries.append((dotted, helpers))
        elif kind == "model":
            package_init(package / "models")
            if len(written) >= count:
                break
            arch = f"{rng.choice(_ARCHES)}{rng.choice(('', 'V2', 'Moe', 'Lite', 'VL', '3'))}"
            path = unique(package / "models", partial(_numbered, arch.lower(), rng))
            text = _model(words, _size(rng, 420, 260, 1600), arch)
        elif kind == "unittest":
            path = unique(root / "test" / "srt" / rng.choice(_AREAS_TEST), lambda: f"test_{words.name(2)}")
            text = _unittest(words, _size(rng, 140, 40, 1200))
        elif kind == "pytest":
            path = unique(root / "test" / "unit" / rng.choice(_AREAS_TEST), lambda: f"test_{words.name(2)}")
            text = _pytest(words, _size(rng, 110, 30, 900), rng.choice(libraries) if libraries else None)
        elif kind == "bench":
            path = unique(root / "benchmark" / rng.choice(_AREAS_BENCH), lambda: f"bench_{words.name(2)}")
            text = _bench(words, _size(rng, 200, 70, 1000))
        else:
            path = unique(root / "scripts" / rng.choice(_AREAS_SCRIPT), words.func)
            text = _script(words, _size(rng, 120, 40, 800))
        data = text.encode("utf-8")
        if OLD_API.search(data):  # pragma: no cover - the word lists never spell it
            raise AssertionError(f"{path}: a filler module names the old API")
        write(path, text)
    return written


def _line_count(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def count_tree(
    root: Path, sglang_files: int = 0, sglang_affected: int = 0, left_out: Tuple[str, ...] = ()
) -> ForkTreeStats:
    """The counts over every `.py` file under `root`."""
    files = affected = 0
    size = 0
    largest: Tuple[int, str] = (0, "")
    largest_affected: Tuple[int, str] = (0, "")
    for path in sorted(root.rglob("*.py")):
        data = path.read_bytes()
        files += 1
        size += len(data)
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        relative = str(path.relative_to(root))
        largest = max(largest, (lines, relative))
        if OLD_API.search(data):
            affected += 1
            largest_affected = max(largest_affected, (lines, relative))
    return ForkTreeStats(
        root=root,
        files=files,
        affected=affected,
        largest_lines=largest[0],
        largest_path=largest[1],
        largest_affected_lines=largest_affected[0],
        largest_affected_path=largest_affected[1],
        sglang_files=sglang_files,
        sglang_affected=sglang_affected,
        left_out=left_out,
        megabytes=size / 1e6,
    )


def _default_sglang_package() -> Path:
    """SGLang 0.5.12.post1's `sglang/` package, downloaded once into `.cache/` (tests/sglang_corpus.py)."""
    tests = str(Path(__file__).resolve().parents[1] / "tests")
    if tests not in sys.path:
        sys.path.insert(0, tests)
    corpus = importlib.import_module("sglang_corpus")
    return Path(corpus.sglang_tree(corpus.OLD_VERSION)) / "sglang"


def build_fork_tree(
    root: Path,
    seed: int = 0,
    files: int = FILES,
    affected: int = AFFECTED,
    max_lines: int = MAX_LINES,
    sglang_package: Optional[Path] = None,
    git: bool = True,
) -> ForkTreeStats:
    """Lay out the fork under `root` (created; must not exist): SGLang 0.5.12.post1's package under
    `python/sglang/` (its files over `max_lines` left out), then generated files up to `files`
    `.py` files, `affected` of them on the old API; with `git`, one commit of it all (a fork is a
    work tree). Deterministic: the same seed and SGLang package give the same bytes."""
    package = sglang_package or _default_sglang_package()
    target = root / "python" / "sglang"
    left: Dict[str, int] = {}

    def ignore(folder: str, names: List[str]) -> List[str]:
        skipped = [n for n in names if n == "__pycache__"]
        for name in names:
            path = Path(folder) / name
            if name.endswith(".py") and path.is_file():
                lines = _line_count(path)
                if lines > max_lines:
                    skipped.append(name)
                    left[str(path.relative_to(package))] = lines
        return skipped

    shutil.copytree(package, target, ignore=ignore)
    base = count_tree(target)
    need, need_affected = files - base.files, affected - base.affected
    if need < need_affected or need_affected < 0:
        raise ValueError(
            f"SGLang's package holds {base.files} files, {base.affected} affected: cannot make {files} and {affected}"
        )
    generate_files(root, need, need_affected, seed)
    if git:
        (root / ".gitignore").write_text("__pycache__/\n*.egg-info/\nbuild/\n", encoding="utf-8")
        for command in (
            ["init", "-q"],
            ["add", "-A"],
            ["-c", "user.email=fork@example.com", "-c", "user.name=fork", "commit", "-qm", "fork"],
        ):
            subprocess.run(["git", *command], cwd=root, check=True)
    left_out = tuple(f"{name} ({lines} lines)" for name, lines in sorted(left.items()))
    return count_tree(root, base.files, base.affected, left_out)


if __name__ == "__main__":  # python benchmarks/fork_tree.py DEST [SEED]: build one and print its counts
    destination = Path(sys.argv[1])
    print(build_fork_tree(destination, int(sys.argv[2]) if len(sys.argv) > 2 else 0, git=False))
