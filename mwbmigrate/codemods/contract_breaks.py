"""`rewrite --target-version`'s last step: what the target release's contract shows still breaking,
on a statement no other rule marked, is reported there (MWB185).

The engine hands this pass the lines where `verify --against TARGET` finds a mismatch in the
rewritten module (a call the release's signature would not bind, a batch attribute its class does
not define, an override the release's own calls would not bind), each with verify's own message.
The statement that holds the line gets the marker, unless it carries one already: a site another
rule reported stays reported once. Rewrites nothing.

    self.cur_batch.filter_batch(v1_spec_info_filtered=True)
    ->
    self.cur_batch.filter_batch(v1_spec_info_filtered=True)  # mwbmigrate: MWB185 SGLang 0.5.23 would not take this: ...
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from mwbmigrate.codemods.base import MigrationCodemod, MigrationState

CONTRACT_CODE = "MWB185"


class MarkContractBreaks(MigrationCodemod):
    CODE = "MWB021"
    NAME = "contract-breaks"
    SUMMARY = "Rewrites nothing: with --target-version, marks each statement where the target release's contract (verify --against) still finds a break and no rule said so (MWB185)."
    # The engine runs it on its own, after both passes, on the files the contract check names;
    # it never reaches the prefilter (engine/runner.py).
    TRIGGERS = ("# contract break",)
    REVIEW_CODES = (CONTRACT_CODE,)
    METADATA_DEPENDENCIES = (PositionProvider,)

    @classmethod
    def applies_to(cls, text: str, state: MigrationState) -> bool:
        return bool(state.contract_breaks)

    def _mark(self, node: cst.CSTNode, first: int, last: int) -> None:
        for line, reason in self.state.contract_breaks:
            if first <= line <= last and not self.reported_on(node):
                self.review(node, CONTRACT_CODE, reason)

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        span = self.get_metadata(PositionProvider, node)
        self._mark(node, span.start.line, span.end.line)

    def _header(self, node: cst.BaseCompoundStatement) -> None:
        """A compound statement answers for its header only (its body's statements answer for theirs)."""
        span = self.get_metadata(PositionProvider, node)
        body = node.body
        end = body.trailing_whitespace if isinstance(body, cst.SimpleStatementSuite) else getattr(body, "header", None)
        last = self.get_metadata(PositionProvider, end).start.line if end is not None else span.start.line
        self._mark(node, span.start.line, last)

    def visit_If(self, node: cst.If) -> None:
        self._header(node)

    def visit_While(self, node: cst.While) -> None:
        self._header(node)

    def visit_For(self, node: cst.For) -> None:
        self._header(node)

    def visit_With(self, node: cst.With) -> None:
        self._header(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._header(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._header(node)
