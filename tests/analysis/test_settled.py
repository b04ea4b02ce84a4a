"""analysis/settled.py: a codemod says it has nothing left to do in a module only where, run alone on
that module, it changes nothing and reports nothing. Checked against the codemods on every fixture
module, inputs and expected outputs (the migrated shapes a `--check` sees), at three targets and in
the places each test reads, and on hand-written shapes either side of each test."""

from __future__ import annotations

from pathlib import Path

import pytest

from mwbmigrate.analysis.names import ModuleLocation
from mwbmigrate.analysis.settled import SETTLED, ModuleAtTarget
from mwbmigrate.codemods import ALL_CODEMODS
from mwbmigrate.engine.code_view import SCHEDULE_BATCH_MODULE_RULE, code_view
from mwbmigrate.engine.transform import TransformOptions, transform_source
from mwbmigrate.rules import rule_by_key

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SCHEDULE_BATCH = "sglang/srt/managers/schedule_batch.py"
SCHEDULER = "sglang/srt/managers/scheduler.py"
CODEMOD = {codemod.CODE: codemod for codemod in ALL_CODEMODS}
# Per test: besides each fixture's own place, the place inside SGLang's package its codemod reads,
# and the (target, request mirror) pairs where its answer may change.
PLACES = {
    "MWB016": ("sglang/srt/speculative/fixture_worker.py",),
    "MWB012": (SCHEDULE_BATCH,),
    "MWB009": (SCHEDULE_BATCH,),
    "MWB011": (SCHEDULER,),
    "MWB013": (SCHEDULER,),
}
RUNS = {
    "MWB016": (("0.5.13", None), ("0.5.23", None)),
    "MWB012": (("0.5.13", None), ("0.5.13", False), ("0.5.13", True)),
    "MWB009": (("0.5.13", None), ("0.5.16", None)),  # fields declared, or none (0.5.16 on)
    "MWB011": (("0.5.13", None),),
    "MWB013": (("0.5.13", None), ("0.5.16", None)),
}


def _fixture_modules(code: str) -> list[tuple[str, str]]:
    found = []
    for case in sorted(p for p in FIXTURES.glob("*/*") if p.is_dir()):
        own = (case / "path").read_text().strip() if (case / "path").exists() else "plugin/module.py"
        for module in sorted(case.glob("*.py")):
            text = module.read_text(encoding="utf-8")
            found += [(text, path) for path in dict.fromkeys((own, *PLACES[code]))]
    return found


def _leaves_alone(code: str, text: str, path: str, target: str, mirror: bool | None = None) -> bool:
    options = TransformOptions(target_version=target, request_mirror=mirror)
    outcome = transform_source(text, path, options, (CODEMOD[code],))
    return (outcome.text, outcome.review_items) == (text, ())


def _settled(code: str, text: str, path: str, target: str = "0.5.13", mirror: bool | None = None) -> bool:
    prose_only = code_view(text) is not None
    module = ModuleAtTarget(text, ModuleLocation(path), target, request_mirror=mirror, old_api_in_code=not prose_only)
    return SETTLED[code](module)


@pytest.mark.parametrize("code", sorted(SETTLED))
def test_a_module_a_codemod_calls_settled_is_one_it_leaves_alone(code: str) -> None:
    assert set(PLACES) == set(RUNS) == set(SETTLED)
    settled = 0
    for text, path in _fixture_modules(code):
        for target, mirror in RUNS[code]:
            if _settled(code, text, path, target, mirror):
                settled += 1
                assert _leaves_alone(code, text, path, target, mirror), (code, path, target, mirror, text)
    assert settled >= 20, "the fixtures must exercise the test, or it proves nothing"


def test_the_schedule_batch_module_rule_is_class_removal() -> None:
    rule = rule_by_key("class-removal")
    assert rule is not None and rule.code == SCHEDULE_BATCH_MODULE_RULE


_BATCH_WITH_MIRROR = (
    "class ScheduleBatch:\n"
    "    req_pool_indices_cpu = None\n"
    "\n"
    "    def prepare_for_decode(self):\n"
    "        {prepare}\n"
    "        self.seq_lens = self.seq_lens + 1\n"
    "\n"
    "    def merge_batch(self, other):\n"
    "        {merge}\n"
    "        self.reqs.extend(other.reqs)\n"
)
_BUILDER = (
    "import torch\n"
    "\n"
    "\n"
    "def build(batch, reqs, device):\n"
    "    batch.req_pool_indices = torch.tensor([r.req_pool_idx for r in reqs], device=device)\n"
    "{mirror}"
)


@pytest.mark.parametrize(
    ("code", "text", "path", "target", "settled"),
    [
        pytest.param(
            "MWB012",
            _BATCH_WITH_MIRROR.format(
                prepare="ensure_req_pool_indices_cpu(self)",
                merge="ensure_req_pool_indices_cpu(self)\n        ensure_req_pool_indices_cpu(other)",
            ),
            SCHEDULE_BATCH,
            "0.5.13",
            True,
            id="mirror-restored-in-both",
        ),
        pytest.param(
            "MWB012",
            _BATCH_WITH_MIRROR.format(prepare="ensure_req_pool_indices_cpu(self)", merge="pass"),
            SCHEDULE_BATCH,
            "0.5.13",
            False,
            id="merge-without-restoring-the-other-batch",
        ),
        pytest.param(
            "MWB012",
            _BATCH_WITH_MIRROR.format(prepare="ensure_req_pool_indices_cpu(batch=self)", merge="pass"),
            SCHEDULE_BATCH,
            "0.5.13",
            False,
            id="restored-by-keyword-is-not-told",
        ),
        pytest.param("MWB012", _BUILDER.format(mirror=""), "plugin/builder.py", "0.5.13", False, id="builder"),
        pytest.param(
            "MWB012",
            _BATCH_WITH_MIRROR.format(
                prepare="ensure_req_pool_indices_cpu(self); self.forward_mode = None",
                merge="ensure_req_pool_indices_cpu(self)\n        ensure_req_pool_indices_cpu(other)",
            ),
            SCHEDULE_BATCH,
            "0.5.13",
            False,
            id="restored-on-the-line-of-another-statement",
        ),
        pytest.param(
            "MWB012",
            _BATCH_WITH_MIRROR.format(
                prepare="\uff45nsure_req_pool_indices_cpu(self)",
                merge="ensure_req_pool_indices_cpu(self)\n        ensure_req_pool_indices_cpu(other)",
            ),
            SCHEDULE_BATCH,
            "0.5.13",
            False,
            id="a-name-ast-folds-to-the-helper",
        ),
        pytest.param(
            "MWB009",
            "class ScheduleBatch:\n    \uff53eq_lens_cpu_cache: object = None\n"
            "    capture_hidden_mode: object = None\n    return_hidden_states_before_norm: bool = False\n",
            SCHEDULE_BATCH,
            "0.5.13",
            False,
            id="a-field-name-ast-folds",
        ),
        pytest.param(
            "MWB016",
            "class W(TpModelWorker):\n    def forward_batch_generation(self, batch):\n        return 1 +\n",
            "sglang/srt/managers/my_worker.py",
            "0.5.13",
            False,
            id="a-module-that-does-not-parse-is-parsed-to-say-why",
        ),
        pytest.param(
            "MWB011",
            "def stuck(self):\n    return [b for b in self.batch_record_buf if b is not None]\n",
            "sglang/srt/managers/scheduler.py",
            "0.5.13",
            False,
            id="buffer-entries-read",
        ),
        pytest.param(
            "MWB011",
            "class S:\n    def f(self, b):\n        self.batch_record_buf = [None] * 2\n        self.batch_record_buf[0] = b\n",
            "sglang/srt/managers/scheduler.py",
            "0.5.13",
            True,
            id="buffer-only-written",
        ),
        pytest.param(
            "MWB011",
            "class S:\n    def record_batch_in_overlap(self, b):\n        pass\n",
            "plugin/scheduler.py",
            "0.5.13",
            False,
            id="recorder-overridden-in-a-plugin",
        ),
        pytest.param(
            "MWB013",
            "class S:\n    def __init__(self):\n        self.batch_record_buf = [None] * 2\n",
            "sglang/srt/managers/scheduler.py",
            "0.5.13",
            False,
            id="buffer-without-its-ring",
        ),
        pytest.param(
            "MWB013",
            "class S:\n    def __init__(self):\n        self.batch_record_buf = [None] * 2; self.batch_record_ring = R(2)\n",
            "sglang/srt/managers/scheduler.py",
            "0.5.13",
            False,
            id="ring-on-the-line-of-another-statement",
        ),
        pytest.param(
            "MWB013",
            "class S:\n    def run(self, b):\n        self.record_batch_in_overlap(b)\n"
            "        b.sampling_info = b.sampling_info.copy_for_forward()\n"
            "        with self.forward_stream_ctx:\n            return self.w.forward_batch_generation(b)\n",
            "sglang/srt/managers/scheduler.py",
            "0.5.13",
            False,
            id="pinned-then-copied",
        ),
        pytest.param(
            "MWB013",
            "class W:\n    def verify(self, batch, s):\n        batch.seq_lens.record_stream(s)\n",
            "sglang/srt/speculative/eagle_worker_v2.py",
            "0.5.13",
            False,
            id="seq-lens-recorded-in-a-verify",
        ),
        pytest.param(
            "MWB012",
            _BUILDER.format(mirror="    batch.req_pool_indices_cpu = torch.tensor([r.req_pool_idx for r in reqs])\n"),
            "plugin/builder.py",
            "0.5.13",
            True,
            id="builder-with-its-mirror",
        ),
        pytest.param(
            "MWB009",
            "class ScheduleBatch:\n    seq_lens_cpu_cache: object = None\n",
            SCHEDULE_BATCH,
            "0.5.13",
            False,
            id="fields-missing-at-0.5.13",
        ),
        pytest.param(
            "MWB009",
            "class ScheduleBatch:\n    seq_lens_cpu_cache: object = None\n",
            SCHEDULE_BATCH,
            "0.5.16",
            True,
            id="no-field-declared-from-0.5.16",
        ),
        pytest.param(
            "MWB009",
            "class ScheduleBatch:\n    def get_model_worker_batch(self):\n        return None\n",
            SCHEDULE_BATCH,
            "0.5.16",
            False,
            id="old-method-left",
        ),
        pytest.param(
            "MWB016",
            "class W(TpModelWorker):\n    def forward_batch_generation(self, batch):\n        return None\n",
            "plugin/worker.py",
            "0.5.13",
            False,
            id="a-plugin-worker",
        ),
        pytest.param(
            "MWB016",
            "class W(TpModelWorker):\n    def forward_batch_generation(self, batch):\n        return None\n",
            "sglang/srt/speculative/worker.py",
            "0.5.13",
            True,
            id="sglang-own-worker",
        ),
    ],
)
def test_each_test_either_side(code: str, text: str, path: str, target: str, settled: bool) -> None:
    assert _settled(code, text, path, target) is settled
    if settled:
        assert _leaves_alone(code, text, path, target)
