"""Generated programs with an open window never change behaviour silently: between the snapshot and
its uses runs a generated pool of user code (closures, globals, components, threads, finalizers,
context managers, properties, descriptors, ExitStack callbacks, hooks, bound methods, generators,
dunders, patched SGLang methods...) that may or may not change the batch (`open_window`). A shard of
`test_generated_programs.py` (see there)."""

from __future__ import annotations

from hypothesis import given

from tests.soundness.harness import judge
from tests.soundness.open_window import window_programs
from tests.soundness.programs import shard_settings


@shard_settings(1)
@given(window_programs(is_async=False))
def test_never_silent_open_window(program: str) -> None:
    verdict = judge(program)
    assert verdict.outcome in ("same", "reported"), verdict.explain(program)
