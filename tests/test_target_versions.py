"""`mwbmigrate.analysis.target_versions`: the target releases and the facts it answers from
`analysis/release_table.py` (which tests/corpus/test_corpus_release_table.py holds to the wheels)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

from mwbmigrate.analysis import release_table
from mwbmigrate.analysis.target_versions import (
    DEFAULT_TARGET_VERSION,
    KEYWORD_OVERRIDES_SINCE,
    LATEST,
    OVERRIDE_KEYWORDS,
    REQUIRED_INIT_NEW_KEYWORD,
    TARGET_VERSIONS,
    CallerParameter,
    at_least,
    init_new_parameters,
    overrides_are_arguments,
    removed_attributes,
    renamed_keywords,
    resolve_target,
    targets_between,
    worker_call_parameters,
)

ALL = (
    "0.5.13",
    "0.5.13.post1",
    "0.5.14",
    "0.5.15",
    "0.5.15.post1",
    "0.5.16",
    "0.5.17",
    "0.5.18",
    "0.5.19",
    "0.5.20",
    "0.5.21",
    "0.5.22",
    "0.5.23",
)


def test_the_targets_are_every_release_from_0_5_13_to_0_5_23_in_order():
    assert TARGET_VERSIONS == ALL
    assert (DEFAULT_TARGET_VERSION, LATEST) == ("0.5.13", "0.5.23")


def test_latest_and_each_release_resolve_to_a_release():
    assert resolve_target("latest") == "0.5.23"
    assert [resolve_target(v) for v in ALL] == list(ALL)


@pytest.mark.parametrize("name", ["0.5.12.post1", "0.5.24", "0.5.9", "Latest", "", "0.5.16 "])
def test_an_unknown_target_is_refused_in_one_line(name):
    with pytest.raises(ValueError) as raised:
        resolve_target(name)
    assert str(raised.value) == (
        f"unknown target version {name!r}: use 'latest' or a release from 0.5.13 to 0.5.23 ("
        "0.5.13, 0.5.13.post1, 0.5.14, 0.5.15, 0.5.15.post1, 0.5.16, 0.5.17, 0.5.18, 0.5.19, 0.5.20, "
        "0.5.21, 0.5.22, 0.5.23)"
    )


def test_at_least_follows_release_order_not_string_order():
    assert at_least("0.5.13.post1", "0.5.13") and not at_least("0.5.13.post1", "0.5.14")
    assert at_least("0.5.15.post1", "0.5.15") and not at_least("0.5.15.post1", "0.5.16")
    assert at_least("0.5.23", "0.5.19") and not at_least("0.5.19", "0.5.23")
    assert at_least("latest", "0.5.23")
    with pytest.raises(ValueError, match="'0.5.9' is not a release"):
        at_least("0.5.23", "0.5.9")


def test_overrides_are_arguments_from_0_5_16_on():
    assert [overrides_are_arguments(v) for v in ALL] == [False] * 5 + [True] * 8
    assert KEYWORD_OVERRIDES_SINCE == "0.5.16"


def test_targets_between_is_a_half_open_range_and_empty_for_no_release():
    assert targets_between("0.5.16") == ALL[5:]
    assert targets_between("0.5.13", "0.5.14") == ("0.5.13", "0.5.13.post1")
    assert targets_between("0.5.99") == ()
    assert targets_between("0.5.13", "0.5.99") == ()


def _rows(params: tuple[CallerParameter, ...]) -> list[str]:
    return [f"{'*' if p.keyword_only else ''}{p.name}={p.default}" for p in params]


def test_what_callers_pass_a_tp_worker():
    assert _rows(worker_call_parameters("0.5.13", "tp_worker")) == [
        "forward_batch=None",
        "pp_proxy_tensors=None",
        "is_verify=False",
    ]
    assert _rows(worker_call_parameters("0.5.16", "tp_worker")) == [
        "forward_batch=None",
        "pp_proxy_tensors=None",
        "is_verify=False",
        "skip_attn_backend_init=None",
        "*capture_hidden_mode=None",
    ]
    assert worker_call_parameters("latest", "tp_worker") == (
        CallerParameter("forward_batch", "None", False),
        CallerParameter("pp_proxy_tensors", "None", False),
        CallerParameter("is_verify", "False", False),
        CallerParameter("skip_attn_backend_init", "None", False),
        CallerParameter("capture_hidden_mode", "None", True),
        CallerParameter("return_kv_loc_plan", "False", True),
    )


def test_what_the_scheduler_passes_a_speculative_worker():
    by_release = {v: _rows(worker_call_parameters(v, "spec_worker")) for v in ("0.5.13", "0.5.16", "0.5.17", "0.5.19")}
    assert by_release == {
        "0.5.13": ["on_publish=None"],
        "0.5.16": ["on_publish=None"],
        "0.5.17": ["on_publish=None", "grammar_barrier=None"],
        "0.5.19": ["on_publish=None", "grammar_barrier=None", "pp_proxy_tensors=None"],
    }
    assert worker_call_parameters("0.5.23", "spec_worker") == worker_call_parameters("0.5.19", "spec_worker")


def test_an_unknown_worker_kind_is_refused():
    with pytest.raises(ValueError, match="unknown worker kind 'draft_worker': one of tp_worker, spec_worker"):
        worker_call_parameters("0.5.23", "draft_worker")


def test_init_new_takes_a_required_keyword_from_0_5_16():
    assert _rows(init_new_parameters("0.5.15.post1")) == ["batch=", "model_runner="]
    assert _rows(init_new_parameters("0.5.16")) == [
        "batch=",
        "model_runner=",
        "*capture_hidden_mode=None",
        "*return_hidden_states_before_norm=",
    ]
    assert _rows(init_new_parameters("0.5.22"))[4:] == [
        "*extend_position_info=None",
        "*spec_mrope_positions=None",
        "*kv_loc_plan=None",
        "*write_cols=None",
    ]


def test_the_override_keywords_are_those_of_the_table():
    """OVERRIDE_KEYWORDS and REQUIRED_INIT_NEW_KEYWORD, which the codemods read, say what 0.5.16's
    table says: init_new's keyword-only parameters, the required one, and the keyword-only
    parameter the tp worker's callers pass."""
    init_new = [p for p in init_new_parameters(KEYWORD_OVERRIDES_SINCE) if p.keyword_only]
    assert tuple(p.name for p in init_new) == OVERRIDE_KEYWORDS["init_new"]
    assert [p.name for p in init_new if not p.default] == [REQUIRED_INIT_NEW_KEYWORD]
    passed = worker_call_parameters(KEYWORD_OVERRIDES_SINCE, "tp_worker")
    assert tuple(p.name for p in passed if p.keyword_only) == OVERRIDE_KEYWORDS["forward_batch_generation"]


def test_removed_attributes_grow_with_the_target():
    assert dict(removed_attributes("0.5.13.post1")) == {}
    assert dict(removed_attributes("0.5.14")) == {"is_spec_v2": "0.5.14"}
    on_the_batch = removed_attributes("0.5.23", on="ScheduleBatch")
    assert dict(on_the_batch) == {
        "is_spec_v2": "0.5.14",
        "all_extend_in_batch": "0.5.16",
        "capture_hidden_mode": "0.5.16",
        "retract_all": "0.5.16",
        "return_hidden_states_before_norm": "0.5.16",
        "seq_lens_cpu_cache": "0.5.16",
        "can_run_dp_breakable_cuda_graph": "0.5.19",
        "can_run_dp_cuda_graph": "0.5.19",
        "fpm_start_time": "0.5.23",
    }
    on_forward_batch = removed_attributes("0.5.20", on="ForwardBatch")
    assert on_forward_batch["num_token_non_padded_cpu"] == "0.5.20"
    assert "capture_hidden_mode" not in on_forward_batch  # it left only ScheduleBatch
    assert set(removed_attributes("0.5.23")) == set(on_the_batch) | set(removed_attributes("0.5.23", on="ForwardBatch"))


def test_renamed_keywords_from_0_5_22():
    assert dict(renamed_keywords("0.5.21")) == {}
    assert dict(renamed_keywords("0.5.22")) == {("filter_batch", "chunked_req_to_exclude"): "reqs_to_exclude"}
    assert dict(renamed_keywords("latest")) == dict(renamed_keywords("0.5.22"))


def test_the_generated_table_imports_nothing_and_says_so():
    source = Path(release_table.__file__).read_text(encoding="utf-8")
    tree = ast.parse(source)
    assert [type(n).__name__ for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))] == []
    assert "Generated by scripts/release_table.py; do not edit." in (ast.get_docstring(tree) or "")


def _script():
    path = Path(__file__).resolve().parent.parent / "scripts" / "release_table.py"
    spec = importlib.util.spec_from_file_location("release_table_script", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_readme_summary_is_the_one_the_table_gives():
    script = _script()
    readme = script.README.read_text(encoding="utf-8")
    block = script.readme_table(script.checked_in_table())
    assert readme[readme.index(script.README_BEGIN) :].startswith(block)
