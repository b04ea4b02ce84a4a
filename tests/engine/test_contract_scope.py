"""What the contract step owes (engine/contract_scope.py): which breaks it marks, and which it counts."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mwbmigrate.engine.contract_scope import (
    ContractScope,
    describe_causes,
    in_sglang_package,
    never_a_break,
    owed_breaks,
)


@dataclass(frozen=True)
class Break:
    kind: str
    line: int
    message: str = "m"
    migrated_api: bool = False
    attribute: str = ""


ORIGINAL = """\
def step(batch, runner):
    helper(1)
    batch.filter_batch(v1_spec_info_filtered=True)
    out = runner.forward(
        batch.get_model_worker_batch(),
        flag=True,
    )
    return out
"""
FINAL = """\
def step(batch, runner):
    helper(1)
    batch.filter_batch(v1_spec_info_filtered=True)
    out = runner.forward(
        batch,
        flag=True,
    )
    return out
"""


def test_a_file_the_rewrite_does_not_change_owes_nothing() -> None:
    scope = ContractScope()
    found = [Break("call", 2), Break("call", 3, migrated_api=True), Break("import", 1)]
    assert owed_breaks(None, None, found, scope) == []
    assert owed_breaks(ORIGINAL, ORIGINAL, found, scope) == []
    assert (scope.owed, dict(scope.elsewhere)) == (0, {"call": 4, "import": 2})


def test_a_changed_statement_and_the_migrated_api_are_owed() -> None:
    scope = ContractScope()
    on_changed = Break("call", 6)  # `flag=True`: a line of the call whose argument the rewrite changed
    on_api = Break("call", 3, migrated_api=True)  # unchanged, but a batch method
    drift = Break("call", 2)  # unchanged, and not the migrated API
    owed = owed_breaks(ORIGINAL, FINAL, [on_changed, on_api, drift], scope)
    assert owed == [on_changed, on_api]
    assert (scope.owed, dict(scope.elsewhere)) == (2, {"call": 1})


def test_an_attribute_no_release_had_is_no_break() -> None:
    scope = ContractScope()
    fork_field = Break("attribute", 3, migrated_api=True, attribute="fork_tenant")
    old_field = Break("attribute", 3, migrated_api=True, attribute="extend_seq_lens")  # the old object's
    assert never_a_break(fork_field) and not never_a_break(old_field)
    assert owed_breaks(ORIGINAL, FINAL, [fork_field, old_field], scope) == [old_field]
    assert (scope.owed, dict(scope.elsewhere)) == (1, {})


def test_the_rest_is_described_by_cause() -> None:
    assert describe_causes({"import": 3, "call": 9, "attribute": 1}) == "9 calls, 3 imports, 1 attribute use"


def test_sglang_is_known_by_its_package_not_a_folder_name(tmp_path: Path) -> None:
    fork = tmp_path / "fork" / "python" / "sglang"
    (fork / "srt" / "managers").mkdir(parents=True)
    (fork / "__init__.py").write_text("")
    collector = tmp_path / "tool" / "collector"
    (collector / "sglang").mkdir(parents=True)
    (collector / "__init__.py").write_text("")
    (collector / "sglang" / "__init__.py").write_text("")
    (collector / "sglang" / "srt").mkdir()
    assert in_sglang_package(fork / "srt" / "managers" / "scheduler.py")
    # A third party's subpackage named `sglang`, even with an `srt` folder, is the third party's.
    assert not in_sglang_package(collector / "sglang" / "hook.py")
    assert not in_sglang_package(tmp_path / "fork" / "tests" / "test_x.py")
    # Off disk (a module read on stdin, named where it would live): the folder's name decides.
    assert in_sglang_package(Path("/nowhere/sglang/srt/x.py"))
