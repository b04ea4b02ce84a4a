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
from mwbmigrate.engine.code_view import SCHEDULE_BATCH_MODULE_RULE
from mwbmigrate.engine.transform import TransformOptions, transform_source
from mwbmigrate.rules import rule_by_key

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
TARGETS = ("0.5.13", "0.5.16", "0.5.23")
SCHEDULE_BATCH = "sglang/srt/managers/schedule_batch.py"
# Besides each fixture's own place: inside SGLang's package, where the location tests answer.
PLACES = (SCHEDULE_BATCH, "sglang/srt/speculative/fixture_worker.py")
CODEMOD = {codemod.CODE: codemod for codemod in ALL_CODEMODS}


def _fixture_modules() -> list[tuple[str, str]]:
    found = []
    for case in sorted(p for p in FIXTURES.glob("*/*") if p.is_dir()):
        own = (case / "path").read_text().strip() if (case / "path").exists() else "plugin/module.py"
        for module in sorted(case.glob("*.py")):
            text = module.read_text(encoding="utf-8")
            found += [(text, path) for path in dict.fromkeys((own, *PLACES))]
    return found


def _leaves_alone(code: str, text: str, path: str, target: str) -> bool:
    outcome = transform_source(text, path, TransformOptions(target_version=target), (CODEMOD[code],))
    return (outcome.text, outcome.review_items) == (text, ())


def _settled(code: str, text: str, path: str, target: str = "0.5.13") -> bool:
    return SETTLED[code](ModuleAtTarget(text, ModuleLocation(path), target))


@pytest.mark.parametrize("code", sorted(SETTLED))
def test_a_module_a_codemod_calls_settled_is_one_it_leaves_alone(code: str) -> None:
    settled = 0
    for text, path in _fixture_modules():
        for target in TARGETS:
            if _settled(code, text, path, target):
                settled += 1
                assert _leaves_alone(code, text, path, target), (code, path, target, text)
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
