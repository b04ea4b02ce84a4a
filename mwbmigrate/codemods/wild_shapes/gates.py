"""Shape 1: version-gated compatibility code. Fixtures: shape01_* (shape01_hasattr_gate_kept,
shape01_import_guard_kept, shape01_env_switch_kept, shape01_version_switch_kept,
shape01_gate_scoped_to_function, shape01_gated_keyword_call, shape01_gated_override_keeps_parameter,
shape01_collapse_unresolved_gates, shape01_debug_flags_migrated).

    if hasattr(batch, "get_model_worker_batch"):                # before
        model_worker_batch = batch.get_model_worker_batch()

    if hasattr(batch, "get_model_worker_batch"):  # mwbmigrate: MWB120 feature check ...   (after)
        model_worker_batch = batch.get_model_worker_batch()  # mwbmigrate: MWB120 old API kept in version-gated code

Gates are `analysis.version_gates`' facts: each keeps its function (or module-level statement)
untouched, every other codemod skips it, and this reporter marks the gate and each old-API token
of the region it keeps. With --collapse-compat (`collapse.py`) what is left is a gate that could
not be resolved: MWB154.

    MWB120  a feature check (`hasattr`/`getattr` of `get_model_worker_batch`), and what it gates
    MWB121  `ModelWorkerBatch` imported under `try/except ImportError`, and every use of it
    MWB122  an `if` on an environment variable or SGLang's version that picks the old API
    MWB154  (--collapse-compat) a gate whose side on 0.5.13 cannot be told: kept
    MWB155  a version-gated override of an SGLang method renamed in 0.5.13 keeps `model_worker_batch`
    MWB156  `model_worker_batch=` kept in version-gated code, where the callee may take `batch=` now
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from mwbmigrate.analysis.names import OLD_PARAMETER, UPSTREAM_RENAMED_PARAMETERS
from mwbmigrate.analysis.receivers import all_params
from mwbmigrate.analysis.version_gates import VersionGates
from mwbmigrate.codemods.wild_shapes.collapse import is_flag_definition
from mwbmigrate.codemods.wild_shapes.facts import region_tokens
from mwbmigrate.codemods.wild_shapes.reporter import Handler, ShapeReporter

KEPT_IN_GATE = "old API kept in version-gated code"
# --collapse-compat: what each kind of gate it could not collapse is called in its marker.
NOT_COLLAPSED = {
    "MWB120": "a feature check",
    "MWB121": "an ImportError-guarded import",
    "MWB122": "an environment or version switch",
}
# What wild-shapes still reports inside a gated region: the gates themselves.
GATE_CODES = frozenset({"MWB120", "MWB121", "MWB122", "MWB154", "MWB155", "MWB156"})


class VersionGateReporter(ShapeReporter):
    SHAPE = "1: version-gated compatibility code"
    CODES = ("MWB120", "MWB121", "MWB122", "MWB154", "MWB155", "MWB156")

    def handlers(self) -> Mapping[type[cst.CSTNode], Handler]:
        return {cst.Module: self.visit_module}

    def visit_module(self, node: cst.Module) -> None:
        self._report_gates(self.shapes.state.version_gates(node))

    def _report_gates(self, gates: VersionGates) -> None:
        """Mark each gate, and every old-API token of the regions they keep (nothing there is rewritten)."""
        gate_statements = set()
        for gate in gates.gates:
            gate_statements.add(id(gate.statement))
            if self.shapes.state.collapse_compat and is_flag_definition(gate.statement):
                continue  # its readers were collapsed; it is merely false on 0.5.13, and others may import it
            if isinstance(gate.statement, cst.Try):
                for line in gate.statement.body.body if isinstance(gate.statement.body, cst.IndentedBlock) else ():
                    if isinstance(line, cst.SimpleStatementLine) and any(s in gates.guarded_imports for s in line.body):
                        gate_statements.add(id(line))
                        self._review_gate(line, gate.code, gate.reason)
            else:
                self._review_gate(gate.statement, gate.code, gate.reason)
        # A gate's one marker covers the branches it chooses between: only the old API kept
        # around it (elsewhere in the function it keeps whole) is marked again.
        inside_gates = {
            id(inner)
            for gate in gates.gates
            if isinstance(gate.statement, cst.If)
            for inner in _statements_within(gate.statement)
        }
        for region in gates.regions:
            code = gates.region_codes[id(region)]
            if isinstance(region, cst.FunctionDef):
                self._report_kept_parameter(region)
            for token, statement in region_tokens(region):
                if id(statement) not in gate_statements and id(statement) not in inside_gates:
                    self._review_gate(statement, code, KEPT_IN_GATE)
                if isinstance(token, cst.Name) and token.value == OLD_PARAMETER and _is_keyword(token, statement):
                    self.review(
                        statement,
                        "MWB156",
                        f"`{OLD_PARAMETER}=` kept in version-gated code: a callee whose parameter the migration renamed (this project's, or SGLang 0.5.13's) now takes `batch=`",
                    )

    def _review_gate(self, statement: cst.CSTNode, code: str, reason: str) -> None:
        if self.shapes.state.collapse_compat:
            # What --collapse-compat left: it cannot tell which side runs on the new API.
            kind = NOT_COLLAPSED[code]
            code, reason = (
                "MWB154",
                (
                    f"{kind} kept: --collapse-compat cannot tell what it runs on 0.5.13"
                    if reason != KEPT_IN_GATE
                    else f"old API kept: it is gated by {kind} that --collapse-compat could not resolve"
                ),
            )
        self.review(statement, code, reason)

    def _report_kept_parameter(self, function: cst.FunctionDef) -> None:
        """A gated SGLang method override keeps `model_worker_batch`, which 0.5.13 passes as `batch=`."""
        if function.name.value not in UPSTREAM_RENAMED_PARAMETERS:
            return
        if any(p.name.value == OLD_PARAMETER for p in all_params(function.params)):
            self.review(
                function,
                "MWB155",
                f"`{function.name.value}` keeps `{OLD_PARAMETER}` in version-gated code: SGLang 0.5.13 and the migrated keyword callers pass it as `batch=`",
            )


def _statements_within(gate: cst.If) -> list[cst.CSTNode]:
    """Every statement in the branches of `gate` (nested ones too)."""

    class _Statements(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            if node is not gate and isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                self.found.append(node)
            return True

    collector = _Statements()
    gate.visit(collector)
    return collector.found


def _is_keyword(name: cst.Name, statement: cst.CSTNode) -> bool:
    """Whether `name` is the keyword of an argument (`f(model_worker_batch=...)`) within `statement`."""

    class _Keywords(cst.CSTVisitor):
        found = False

        def visit_Arg(self, arg: cst.Arg) -> None:
            self.found = self.found or arg.keyword is name

    finder = _Keywords()
    statement.visit(finder)
    return finder.found
