"""Acceptance on the real tree: rewrite sglang 0.5.12.post1 and hold it against what upstream made (0.5.13)."""

from __future__ import annotations

import ast
import json
import re

import pytest
from typer.testing import CliRunner

from corpus_trees import old_api_code_tokens, statement_marker_text
from mwbmigrate.cli import app

pytestmark = pytest.mark.corpus

# Upstream renamed one method for an unrelated reason (migration spec, section 5).
RENAMED_UPSTREAM = {
    "EAGLEWorkerV2.move_accepted_tokens_to_target_kvcache": "EAGLEWorkerV2.move_accept_tokens_to_target_kvcache"
}


def signatures(source: str) -> dict[str, list[tuple[str, str]]]:
    """qualname -> [(parameter, annotation source)] for every function in a module."""
    result: dict[str, list[tuple[str, str]]] = {}

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                args = [*child.args.posonlyargs, *child.args.args, *child.args.kwonlyargs]
                result[name] = [(a.arg, ast.unparse(a.annotation) if a.annotation else "") for a in args]
                walk(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(ast.parse(source), "")
    return result


def pyflakes_problems(source: str, filename: str) -> set[str]:
    from pyflakes import api, messages, reporter as pyflakes_reporter

    collected: list = []

    class Collect(pyflakes_reporter.Reporter):
        def __init__(self) -> None:
            pass

        def flake(self, message) -> None:
            collected.append(message)

        def syntaxError(self, *args) -> None:
            collected.append(args)

        def unexpectedError(self, *args) -> None:
            collected.append(args)

    api.check(source, filename, Collect())
    wanted = (messages.UndefinedName, messages.UnusedImport, messages.RedefinedWhileUnused)
    return {f"{type(m).__name__}:{m.message_args[0]}" for m in collected if isinstance(m, wanted)}


def test_rewrite_succeeds(trees):
    assert trees["result"].exit_code == 0, trees["result"].output


def test_no_old_api_token_left_in_code(trees):
    affected = [path for path, data in trees["old"].items() if old_api_code_tokens(data.decode())]
    assert len(affected) == 18
    leftovers = {path: old_api_code_tokens(trees["new"][path].decode()) for path in affected}
    assert {p: t for p, t in leftovers.items() if t} == {}


def test_only_affected_files_changed_and_all_compile(trees):
    old, new = trees["old"], trees["new"]
    changed = sorted(p for p in old if old[p] != new[p])
    mentioned = sorted(p for p in old if b"ModelWorkerBatch" in old[p] or b"model_worker_batch" in old[p])
    assert set(changed) <= set(mentioned)
    assert len(changed) == 18
    for path in changed:
        compile(new[path], path, "exec", dont_inherit=True)


def test_pyflakes_reports_nothing_new(trees):
    old, new = trees["old"], trees["new"]
    introduced = {}
    for path in (p for p in old if old[p] != new[p]):
        extra = pyflakes_problems(new[path].decode(), path) - pyflakes_problems(old[path].decode(), path)
        if extra:
            introduced[path] = sorted(extra)
    assert introduced == {}


def test_signatures_match_upstream(trees):
    """Each parameter that mentioned the old API reads, after migration, as upstream's does in 0.5.13.

    Only those parameters are compared: upstream changed other parameters of the same functions
    for unrelated reasons (FutureMap's `on_publish`, `skip_attn_backend_init`'s annotation).
    """
    matched, compared, mismatches = 0, 0, []
    for path, data in trees["old"].items():
        text = data.decode()
        if path not in trees["upstream"] or not old_api_code_tokens(text):
            continue
        before = signatures(text)
        migrated = signatures(trees["new"][path].decode())
        upstream = signatures(trees["upstream"][path].decode())
        for name, params in before.items():
            positions = [i for i, (p, a) in enumerate(params) if p == "model_worker_batch" or "ModelWorkerBatch" in a]
            counterpart = upstream.get(RENAMED_UPSTREAM.get(name, name))
            if not positions or counterpart is None or name not in migrated:
                continue  # deleted upstream, or deleted by the migration with its class
            compared += 1
            ours = [migrated[name][i] for i in positions]
            if all(param in counterpart for param in ours):
                matched += 1
            else:
                mismatches.append((path, name, ours, counterpart))
    print(f"signatures matching 0.5.13: {matched}/{compared}")
    assert compared >= 25
    assert mismatches == []


def test_second_run_changes_nothing(trees):
    result = CliRunner().invoke(app, ["rewrite", str(trees["work"]), "--check", "--no-progress", "--jobs", "2"])
    assert result.exit_code == 0, result.output


def _neighbours(source: str, qualname: str, anchor: str) -> tuple[str, str]:
    """(statement before, statement after) the one in `qualname` whose code starts with `anchor`,
    within its own block, as `ast.unparse` prints them (so comments and review markers drop out)."""
    scope: ast.AST = ast.parse(source)
    for part in qualname.split("."):
        scope = next(n for n in ast.iter_child_nodes(scope) if getattr(n, "name", None) == part)
    for node in ast.walk(scope):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for index, statement in enumerate(block):
                if isinstance(statement, ast.stmt) and ast.unparse(statement).startswith(anchor):
                    before = ast.unparse(block[index - 1]) if index else ""
                    after = ast.unparse(block[index + 1]) if index + 1 < len(block) else ""
                    return before, after
    raise AssertionError(f"{qualname}: no statement starting with {anchor!r}")


# (file, function, the consuming statement's start, what upstream put right before / after it)
UPSTREAM_OVERRIDE_SITES = [
    (
        "srt/speculative/frozen_kv_mtp_worker.py",
        "FrozenKVMTPWorker.verify",
        "batch_result = self.target_worker.forward_batch_generation(",
        "batch.seq_lens_cpu_cache = spec_info.seq_lens_cpu",
        None,
    ),
    (
        "srt/speculative/eagle_info_v2.py",
        "EagleDraftInputV2Mixin.prepare_for_v2_draft",
        "forward_batch = ForwardBatch.init_new(",
        "batch.capture_hidden_mode = capture_mode",
        None,
    ),
    (
        "srt/speculative/eagle_info_v2.py",
        "EagleDraftInputV2Mixin.prepare_for_extend_to_fill_draft_kvcache",
        "forward_batch = ForwardBatch.init_new(",
        "batch.capture_hidden_mode = capture_mode",
        None,
    ),
    (
        "srt/speculative/eagle_info_v2.py",
        "EagleVerifyInputV2Mixin.prepare_for_v2_verify",
        "verify_forward_batch = ForwardBatch.init_new(",
        "batch.capture_hidden_mode = capture_mode",
        None,
    ),
    (
        "srt/speculative/multi_layer_eagle_worker_v2.py",
        "MultiLayerEagleDraftWorker._draft_extend_for_prefill",
        "forward_batch = ForwardBatch.init_new(",
        "batch.return_hidden_states_before_norm = True",
        None,
    ),
    (
        "srt/speculative/eagle_worker_v2.py",
        "EAGLEWorkerV2.forward_batch_generation",
        "batch_output = self.target_worker.forward_batch_generation(",
        "batch.capture_hidden_mode = target_capture_mode",
        None,
    ),
]


@pytest.mark.parametrize(
    "path, qualname, anchor, before, after", UPSTREAM_OVERRIDE_SITES, ids=[site[1] for site in UPSTREAM_OVERRIDE_SITES]
)
def test_overrides_sit_where_upstream_put_them(live_trees, path, qualname, anchor, before, after):
    """With `--live-batch`, override-moves puts each one-shot override where 0.5.13 has it. (The
    derived-mode assert in FrozenKVMTPWorker.draft, which upstream moved after `init_new`, reads the
    old derivation where it stands: allowlist entry 6, in both modes.)"""
    ours = _neighbours(live_trees["new"][path].decode(), qualname, anchor)
    upstream = _neighbours(live_trees["upstream"][path].decode(), qualname, anchor)
    if before is not None:
        assert ours[0] == upstream[0] == before
    if after is not None:
        assert ours[1] == upstream[1] == after


def test_moved_sites_carry_no_marker_and_the_rest_keep_theirs(live_trees):
    """With `--live-batch`: a site override-moves resolved has no marker; the draft's assert reads the
    old derivation from the batch (entry 6); the verify assert (upstream deleted it) keeps MWB104;
    the draft-mode writes before `_draft_extend_for_prefill`, whose `init_new` consumes them one call
    away (proof rule 8), carry no MWB103."""
    trees = live_trees
    frozen = trees["new"]["srt/speculative/frozen_kv_mtp_worker.py"].decode()
    assert "    ) == CaptureHiddenMode.LAST\n        forward_batch = ForwardBatch.init_new(\n" in frozen
    assert "batch.seq_lens_cpu_cache = spec_info.seq_lens_cpu\n" in frozen
    number = next(n for n, line in enumerate(frozen.splitlines(), 1) if "== spec_info.capture_hidden_mode" in line)
    assert "MWB104" in statement_marker_text(frozen, number)
    for path in ("srt/speculative/eagle_worker_v2.py", "srt/speculative/multi_layer_eagle_worker_v2.py"):
        text = trees["new"][path].decode()
        assert "# mwbmigrate: MWB116" not in text
        assert len(re.findall(r"(?:# mwbmigrate: |; |#   )MWB103\b", text)) == 0
    assert (
        "forward_batch.return_hidden_states_before_norm = True\n"
        in trees["new"]["srt/speculative/multi_layer_eagle_worker_v2.py"].decode()
    )


def test_every_kept_snapshot_is_a_note_naming_the_statement_that_forced_it(trees):
    """By default an unproven `get_model_worker_batch()` stays a snapshot in code: one MWB182 note each,
    naming the first window statement the allowlist did not prove, and no hazard marker for it."""
    report = json.loads(trees["result"].output)
    notes = [item for entry in report["files"] for item in entry["review_items"] if item["code"] == "MWB182"]
    kept = sum(text.decode().count("worker_batch_snapshot(") for text in trees["new"].values())
    assert notes and len(notes) == kept
    assert all(item["kind"] == "note" and "delete the copy if" in item["message"] for item in notes)
    assert not [item for entry in report["files"] for item in entry["review_items"] if item["code"] == "MWB141"]
