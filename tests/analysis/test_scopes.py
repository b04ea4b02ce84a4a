"""analysis/scopes.py: an annotation that Python never evaluates where it stands names the binding below it."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import GlobalScope, MetadataWrapper, ScopeProvider

from mwbmigrate.analysis.scopes import link_deferred_annotations

_BELOW = "def f(batch: Batch) -> Batch:\n    return batch\n\nx: Batch\nfrom m import Batch\n"


def _references(source: str) -> tuple[int, int]:
    """(references of the import of `Batch`, accesses of `Batch` with a referent) after linking."""
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    link_deferred_annotations(wrapper)
    scope = next(s for s in wrapper.resolve(ScopeProvider).values() if isinstance(s, GlobalScope))
    (binding,) = scope.assignments["Batch"]
    return len(binding.references), sum(1 for access in scope.accesses["Batch"] if access.referents)


def test_under_deferred_annotations_an_annotation_names_the_import_below_it() -> None:
    assert _references("from __future__ import annotations\n" + _BELOW) == (3, 3)


def test_without_them_the_annotation_is_evaluated_first_and_names_nothing() -> None:
    assert _references(_BELOW) == (0, 0)


def test_a_read_that_is_no_annotation_is_left_as_libcst_resolves_it() -> None:
    source = "from __future__ import annotations\nprint(Batch)\nfrom m import Batch\n"
    assert _references(source) == (0, 0)
