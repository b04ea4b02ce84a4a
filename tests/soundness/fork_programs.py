"""Fork programs of several modules, generated: a worker override written for SGLang 0.5.12, placed
the ways forks place it across their modules, for `test_generated_forks_0523.py`.

Each program is one text in the format of `cases_0523` (the main module, then each further module
after a `# --- module: plugin/NAME.py ---` line). What varies, independently:

- the worker's role: a `TpModelWorker` subclass that an EAGLE worker drives as its target, an
  `EAGLEWorkerV2` subclass the scheduler drives, or a plugin with no SGLang base that a factory
  registers (`@SpeculativeAlgorithm.register`), returning the class or a value of a dict of classes;
- where the override is: in the worker's class body, in a mixin of another module
  (`class W(Mixin, Base)`), in the fork's own subclass in another module (`class W(ForkBase)`),
  a function of another module installed in the class body (`forward_batch_generation = f`), or
  wrapped by a decorator of another module (a wrapper of fixed signature, one that hands
  `*args, **kwargs` on, or `torch.no_grad()`);
- its body: a `super()` call alone, a read of the batch first, or `**kwargs` taken and handed on;
- how the main module reaches the worker: from its module, or through the package's `__init__.py`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

ROLES = ("target", "spec", "plugin")
PLACEMENTS = ("class", "mixin", "fork_base", "installed", "decorated")
BODIES = ("super", "read_first", "kwargs")
DECORATORS = ("fixed", "pass_through", "no_grad")

_BASES = {
    "target": ("sglang.srt.managers.tp_worker", "TpModelWorker"),
    "spec": ("sglang.srt.speculative.eagle_worker_v2", "EAGLEWorkerV2"),
}


@dataclass(frozen=True)
class Shape:
    role: str
    placement: str
    body: str
    decorator: str = ""
    through_package: bool = False
    registry_dict: bool = False

    def valid(self) -> bool:
        if self.role == "plugin" and self.placement in ("fork_base", "installed"):
            return False  # a plugin has no SGLang base to subclass or to install a function over
        return (self.placement == "decorated") == bool(self.decorator) and (
            self.role == "plugin" or not self.registry_dict
        )


def _parameters(shape: Shape) -> str:
    extra = ", forward_batch=None" if shape.role == "target" else ""
    star = ", **kwargs" if shape.body == "kwargs" else ""
    return f"self, model_worker_batch: ModelWorkerBatch{extra}{star}"


def _call(shape: Shape, callee: str) -> str:
    extra = ", forward_batch" if shape.role == "target" else ""
    star = ", **kwargs" if shape.body == "kwargs" else ""
    return f"{callee}(model_worker_batch{extra}{star})"


def _body(shape: Shape, callee: str, indent: str) -> list[str]:
    lines = [f'{indent}record("seen", model_worker_batch.seq_lens)'] if shape.body == "read_first" else []
    return [*lines, f"{indent}return {_call(shape, callee)}"]


def _override(shape: Shape, callee: str, indent: str = "    ") -> list[str]:
    return [
        f"{indent}def forward_batch_generation({_parameters(shape)}):",
        *_body(shape, callee, indent + "    "),
    ]


def render(shape: Shape) -> str:
    modules: dict[str, list[str]] = {}
    header = [
        "from sglang.srt.managers.schedule_batch import ModelWorkerBatch",
        "from sglang.standin import record",
    ]
    callee = (
        "self.target_worker.forward_batch_generation" if shape.role == "plugin" else "super().forward_batch_generation"
    )
    base_import: list[str] = []
    base = ""
    if shape.role != "plugin":
        module, base = _BASES[shape.role]
        base_import = [f"from {module} import {base}"]
    init = ["    def __init__(self, target_worker):", "        self.target_worker = target_worker", ""]
    worker = [*base_import]
    if shape.placement == "class":
        bases = f"({base})" if base else ""
        worker += [
            *header,
            "",
            "",
            f"class W{bases}:",
            *(init if shape.role == "plugin" else []),
            *_override(shape, callee),
        ]
    elif shape.placement == "mixin":
        modules["plugin/mixins.py"] = [*header, "", "", "class Mixin:", *_override(shape, callee)]
        bases = f"(Mixin, {base})" if base else "(Mixin)"
        worker += [
            "",
            "from .mixins import Mixin",
            "",
            "",
            f"class W{bases}:",
            *(init if shape.role == "plugin" else ["    pass"]),
        ]
    elif shape.placement == "fork_base":
        modules["plugin/base.py"] = [
            *base_import,
            *header,
            "",
            "",
            f"class ForkBase({base}):",
            *_override(shape, callee),
        ]
        worker += ["from .base import ForkBase", "", "", "class W(ForkBase):", "    pass"]
    elif shape.placement == "installed":
        direct = f"{base}.forward_batch_generation"
        function = _override(shape, "", indent="")
        function[0] = function[0].replace("def forward_batch_generation(", "def traced_forward(")
        extra = ", forward_batch" if shape.role == "target" else ""
        star = ", **kwargs" if shape.body == "kwargs" else ""
        function[-1] = f"    return {direct}(self, model_worker_batch{extra}{star})"
        modules["plugin/forwards.py"] = [*base_import, *header, "", "", *function]
        worker += [
            "from .forwards import traced_forward",
            "",
            "",
            f"class W({base}):",
            "    forward_batch_generation = traced_forward",
        ]
    else:  # decorated
        if shape.decorator == "no_grad":
            decorator, decorator_import = "@torch.no_grad()", ["import torch", ""]
        else:
            decorator, decorator_import = "@traced", ["from .decorators import traced", ""]
            wrapper = (
                ["    def wrapper(self, batch):", "        return method(self, batch)"]
                if shape.decorator == "fixed"
                else ["    def wrapper(self, *args, **kwargs):", "        return method(self, *args, **kwargs)"]
            )
            modules["plugin/decorators.py"] = [
                "import functools",
                "",
                "",
                "def traced(method):",
                "    @functools.wraps(method)",
                *wrapper,
                "",
                "    return wrapper",
            ]
        bases = f"({base})" if base else ""
        override = _override(shape, callee)
        worker += [
            *decorator_import,
            *header,
            "",
            "",
            f"class W{bases}:",
            *(init if shape.role == "plugin" else []),
            f"    {decorator}",
            *override,
        ]
    if shape.role == "plugin":
        value = "WORKERS['MY_SPEC']" if shape.registry_dict else "W"
        worker += [
            "",
            "",
            *(["WORKERS = {'MY_SPEC': W}", "", ""] if shape.registry_dict else []),
            "@SpeculativeAlgorithm.register('MY_SPEC')",
            "def _factory(server_args):",
            f"    return {value}",
        ]
        worker.insert(0, "from sglang.srt.speculative.spec_info import SpeculativeAlgorithm")
    modules["plugin/workers.py"] = worker
    source = "from . import W" if shape.through_package else "from .workers import W"
    if shape.through_package:
        modules["plugin/__init__.py"] = ["from .workers import W  # noqa: F401"]
    if shape.role == "target":
        build = "EAGLEWorkerV2(target_worker=W())"
        main_imports = ["from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2"]
        algorithm = "EAGLE"
    elif shape.role == "spec":
        build = "W(target_worker=TpModelWorker())"
        main_imports = ["from sglang.srt.managers.tp_worker import TpModelWorker"]
        algorithm = "EAGLE"
    else:
        build = "create_worker('MY_SPEC', TpModelWorker())"
        main_imports = ["from sglang.srt.managers.tp_worker import TpModelWorker"]
        algorithm = "MY_SPEC"
    main = [
        f'"""Generated: {shape}."""',
        "",
        *main_imports,
        "from sglang.standin import create_worker, make_batch, schedule",
        "",
        source,
        "",
        "",
        "def main():",
        f"    worker = {build}",
        f"    return schedule(worker, make_batch(algorithm={algorithm!r}))",
    ]
    text = "\n".join(main) + "\n"
    for path, lines in modules.items():
        text += f"# --- module: {path} ---\n" + "\n".join(lines) + "\n"
    return text


def every_shape() -> list[Shape]:
    """Every valid combination, in a fixed order: the programs whose share of `same` is measured."""
    shapes = [
        Shape(role, placement, body, decorator, through, registry)
        for role, placement, body, decorator, through, registry in itertools.product(
            ROLES, PLACEMENTS, BODIES, ("", *DECORATORS), (False, True), (False, True)
        )
    ]
    return [shape for shape in shapes if shape.valid()]
