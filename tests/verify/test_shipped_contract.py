"""The contracts shipped with mwbmigrate (`verify/shipped_contract.py`): the codec gives back the
facts it was given, pruning keeps what the contract step reads, and the shipped file names the
releases of the release table. That the file is what the wheels give is checked against the wheels
themselves in tests/corpus/test_corpus_shipped_contract.py."""

from __future__ import annotations

import lzma
from pathlib import Path

from mwbmigrate.analysis import release_table
from mwbmigrate.verify.facts import Binding, extract
from mwbmigrate.verify.shipped_contract import (
    decode_module,
    encode_module,
    prune,
    shipped_release,
    shipped_versions,
    write_contracts,
)

MODULE = b"""
import torch
from typing import Optional
from sglang.srt.managers.schedule_batch import ScheduleBatch
from .utils import helper as _helper

LIMIT = 4


def build(batch: ScheduleBatch, *, mode: str = "x", **extra) -> None:
    batch.seq_lens_cpu_cache = None
    batch.tag = mode


class Worker(Base):
    draft: Optional[int] = None

    def forward_batch_generation(self, batch, /, forward_batch=None, *args, is_verify: bool = False):
        self.prepare(batch)
        helper(batch, 1)
        return self.run(batch, is_verify=is_verify)

    @property
    def device(self):
        return torch.device("cpu")


class Other:
    def go(self):
        self.prepare(1)
"""


def facts():
    return extract(MODULE, "sglang.srt.managers.example", "sglang/srt/managers/example.py", False)


def test_the_codec_gives_back_the_facts_it_was_given() -> None:
    original = facts()
    assert original.calls and original.typed_functions and original.classes["Worker"][0].methods
    assert decode_module(encode_module(original)) == original
    pruned = prune(original, ["Worker"])
    assert decode_module(encode_module(pruned)) == pruned


def test_pruning_keeps_a_workers_calls_of_its_own_methods_and_the_writes_on_typed_values() -> None:
    pruned = prune(facts(), ["Worker"])
    assert [(c.cls, c.callee) for c in pruned.calls] == [("Worker", "self.prepare"), ("Worker", "self.run")]
    (function,) = pruned.typed_functions
    (typed,) = function.typed
    assert (function.qualname, typed.name, [(u.attr, u.write) for u in typed.uses]) == (
        "build",
        "batch",
        [("seq_lens_cpu_cache", True), ("tag", True)],
    )
    # What a module binds stays bound; an import from outside SGLang no longer says from where.
    assert pruned.bindings["torch"] == [Binding("other")]
    assert pruned.bindings["ScheduleBatch"] == [Binding("from", "sglang.srt.managers.schedule_batch", "ScheduleBatch")]
    assert pruned.bindings["_helper"] == [Binding("from", "sglang.srt.managers.utils", "helper")]
    assert set(pruned.bindings) == set(facts().bindings)
    # Signatures, attributes and bases are kept whole.
    worker = pruned.classes["Worker"][0]
    original = facts().classes["Worker"][0]
    assert worker.attrs == original.attrs and worker.bases == original.bases
    assert {m: [f.signature for f in fs] for m, fs in worker.methods.items()} == {
        m: [f.signature for f in fs] for m, fs in original.methods.items()
    }
    assert prune(facts(), []).calls == []


def test_a_release_reads_back_only_its_own_modules(tmp_path: Path) -> None:
    one, two = facts(), extract(b"X = 1\n", "sglang.srt.extra", "sglang/srt/extra.py", False)
    changed = extract(MODULE + b"\nY = 2\n", "sglang.srt.managers.example", "sglang/srt/managers/example.py", False)
    path = tmp_path
    for name, data in write_contracts({"1.0": {one.name: one}, "2.0": {changed.name: changed, two.name: two}}).items():
        (path / name).write_bytes(data)
    assert shipped_versions.__wrapped__(path) == ("1.0", "2.0")
    first, second = shipped_release.__wrapped__("1.0", path), shipped_release.__wrapped__("2.0", path)
    assert first is not None and second is not None
    assert sorted(first.names) == [one.name] and first.facts(one.name) == one
    assert sorted(second.names) == [two.name, changed.name] and second.facts(changed.name) == changed
    assert second.mentions(changed.name) == changed.mentions and second.display(two.name) == "sglang/srt/extra.py"
    assert shipped_release.__wrapped__("3.0", path) is None


def test_a_damaged_file_ships_no_release(tmp_path: Path) -> None:
    files = write_contracts({"1.0": {facts().name: facts()}})
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    assert shipped_release.__wrapped__("1.0", tmp_path) is not None
    damaged = next(name for name, data in files.items() if len(data) > 200)
    (tmp_path / damaged).write_bytes(files[damaged][:-40])
    assert shipped_release.__wrapped__("1.0", tmp_path) is None
    (tmp_path / damaged).write_bytes(lzma.compress(b'{"format": 0, "releases": ["1.0"]}\n'))
    assert shipped_versions.__wrapped__(tmp_path) == ()  # one file of another format: none ships
    assert shipped_versions.__wrapped__(tmp_path / "absent") == ()


def test_every_release_of_the_release_table_ships_its_contract() -> None:
    assert shipped_versions() == release_table.RELEASES
    contract = shipped_release("0.5.23")
    assert contract is not None
    assert contract.facts("sglang.srt.managers.tp_worker").classes["TpModelWorker"]
