"""One break of a tree against a release's contract: what `verify --against` finds and reports,
what `--baseline` subtracts and what `rewrite`'s contract step marks."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Mismatch:
    kind: str  # "worker-signature", "call", "attribute", "import"
    path: str
    line: int
    release_path: str
    release_line: int
    message: str
    more: int = 0  # further release sites with the same mismatch
    # What `--baseline` matches on besides the kind (lines shift between a fork and its base): the
    # module's name (`sglang.srt...`, wherever the package sits), the qualified name of the function
    # or method it is in ("" at module level), and why it fails, without the tree's own text (the
    # call as written, the override's parameters, the variable): the same break after a statement
    # was reworded is still the same break.
    module: str = ""
    function: str = ""
    reason: str = ""
    # On the API this migration moves (the batch, the forward batch, a worker, and their
    # signatures): `rewrite`'s contract step owes it wherever it stands in a file the rewrite changes.
    # Every other break is owed only on a statement the rewrite changed (engine/contract_scope.py).
    migrated_api: bool = field(default=False, compare=False)
    attribute: str = field(default="", compare=False)  # an attribute mismatch's attribute

    def render(self) -> str:
        also = f" (and {self.more} more)" if self.more else ""
        where = f" [release: {self.release_path}:{self.release_line}{also}]" if self.release_path else ""
        return f"{self.path}:{self.line}: {self.kind}: {self.message}{where}"
