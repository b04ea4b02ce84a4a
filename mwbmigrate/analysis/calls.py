"""What a call calls, by spelling: the last name of its callee.

`f(...)` -> "f", `a.b.f(...)` -> "f", anything else (`fs[0](...)`, `g()(...)`) -> None. A first cut
only: which function the name denotes is for scope metadata (qualified names) to decide.
"""

from __future__ import annotations

import libcst as cst


def last_name(func: cst.BaseExpression) -> str | None:
    """The name a callee expression ends in: `f` -> "f", `a.b.f` -> "f"; None for any other shape."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def callee_name(call: cst.Call) -> str | None:
    """The last name of what `call` calls (see `last_name`)."""
    return last_name(call.func)
