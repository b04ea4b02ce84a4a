"""The window facts know SGLang's own modules by where they are, not by how the run names them: a
tree given as its `sglang/` folder (`mwbmigrate rewrite python/sglang`) names its batch module
`srt/managers/schedule_batch.py`, and SGLang's own property there still breaks no window (before,
every kept snapshot of such a run was reported: 56 MWB183 on SGLang 0.5.12.post1's tree, 6 from
the folder above it)."""

from __future__ import annotations

from mwbmigrate.analysis.tree_facts import WindowFactsScan

BATCH_MODULE = b"""
class Req:
    @property
    def is_prefill_only(self) -> bool:
        return self.sampling_params.max_new_tokens == 0


class ScheduleBatch:
    pass
"""


def facts(display: str, location: str | None) -> object:
    scan = WindowFactsScan()
    scan.feed(display, BATCH_MODULE, location)
    return scan.facts().code_on_read


def test_sglangs_own_property_is_known_by_where_the_module_is() -> None:
    assert facts("srt/managers/schedule_batch.py", "/work/fork/python/sglang/srt/managers/schedule_batch.py") is None
    assert facts("sglang/srt/managers/schedule_batch.py", None) is None


def test_the_same_property_elsewhere_still_runs_code_on_a_read() -> None:
    assert facts("srt/managers/schedule_batch.py", None) == "srt/managers/schedule_batch.py:3 `is_prefill_only`"
    found = facts("plugin/batch.py", "/work/fork/plugin/batch.py")
    assert found == "plugin/batch.py:3 `is_prefill_only`"
