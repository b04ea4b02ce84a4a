"""`analysis.override_sites.names_bound_in`: the names a closure may bind, so that it does not take
the enclosing function's kept snapshot for its own value of the same name."""

from __future__ import annotations

import libcst as cst

from mwbmigrate.analysis.override_sites import names_bound_in


def _function(source: str) -> cst.FunctionDef:
    return cst.ensure_type(cst.parse_module(source).body[0], cst.FunctionDef)


def test_every_binding_form_counts_and_no_attribute_or_read_does() -> None:
    function = _function(
        """\
def f(a, *b, c=1, **d):
    x = 1
    y: int = 2
    z += 1
    self.held = 1
    mwb.capture_hidden_mode = 2
    items[0] = 3
    (w := 3)
    for (p, [q, *qq]) in rows:
        pass
    [r for r in rows]
    with opened as (s, t):
        pass
    try:
        pass
    except Error as u:
        pass
    import v1, v2.sub
    import v3 as v4
    from m import v5, v6 as v7
    del dd
    def g(h):
        pass
    class K:
        pass
    lambda lam: lam
    match x:
        case [ma, *ms]:
            pass
        case {"k": mv, **mr}:
            pass
    print(unbound.attr)
"""
    )
    assert names_bound_in(function) == {
        *"a b c d f x y z w p q qq r s t u v1 v2 v4 v5 v7 dd g h K lam ma ms mv mr".split(),
    }


def test_a_closure_rebinding_the_name_by_with_or_for_binds_it() -> None:
    closure = _function(
        """\
def inner():
    with holding(other) as model_worker_batch:
        pass
"""
    )
    looping = _function(
        """\
def inner():
    for model_worker_batch in batches:
        pass
"""
    )
    reading = _function(
        """\
def inner():
    model_worker_batch.capture_hidden_mode = None
    return model_worker_batch.seq_lens
"""
    )
    assert "model_worker_batch" in names_bound_in(closure)
    assert "model_worker_batch" in names_bound_in(looping)
    assert "model_worker_batch" not in names_bound_in(reading)
