"""`mwbmigrate verify PATH --against RELEASE` on small hand-written releases and trees.

Each test writes a miniature SGLang release (only the worker-facing surface: `ScheduleBatch`,
`ForwardBatch.init_new`, `TpModelWorker`, speculative workers, the scheduler's calls) and a tree
into `tmp_path`, and asserts the exact mismatches, or that there is none.
"""

from __future__ import annotations

import json
import textwrap
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mwbmigrate.cli import app
from mwbmigrate.verify import release as release_module
from mwbmigrate.verify.against import check_against, failures
from mwbmigrate.verify.facts import CallShape, Signature, extract
from mwbmigrate.verify.release import Release, ReleaseUnavailable, locate_release

RELEASE = {
    "sglang/__init__.py": "",
    "sglang/_version.py": "__version__ = version = '9.9.9'\n",
    "sglang/srt/managers/schedule_batch.py": """
        import dataclasses
        from typing import Optional

        class ScheduleBatchMixin:
            def mixin_method(self):
                self.mixin_field = 1

        @dataclasses.dataclass
        class ScheduleBatch(ScheduleBatchMixin):
            reqs: list
            forward_mode: Optional[object] = None
            spec_algorithm: Optional[object] = None
            CLASS_CONSTANT = 3

            @classmethod
            def init_new(cls, reqs):
                batch = cls(reqs=reqs)
                batch.built_by_init_new = True
                return batch

            @property
            def batch_size(self):
                return len(self.reqs)

            def filter_batch(self, reqs_to_exclude=None, keep_indices=None):
                self.filtered = True

            def retract_decode(self):
                pass
    """,
    "sglang/srt/model_executor/forward_batch_info.py": """
        from dataclasses import dataclass

        @dataclass
        class ForwardBatch:
            batch_size: int
            capture_hidden_mode: object = None

            @classmethod
            def init_new(cls, batch, model_runner, *, capture_hidden_mode=None, return_hidden_states_before_norm):
                ret = cls(batch_size=1)
                ret.positions = None
                return ret
    """,
    "sglang/srt/managers/tp_worker.py": """
        from sglang.srt.managers.schedule_batch import ScheduleBatch

        class TpModelWorker:
            def __init__(self, server_args, gpu_id):
                self.gpu_id = gpu_id

            def forward_batch_generation(
                self, batch, forward_batch=None, pp_proxy_tensors=None, is_verify=False, *, capture_hidden_mode=None
            ):
                return None

            def forward_batch_embedding(self, batch):
                return None
    """,
    "sglang/srt/speculative/base_spec_worker.py": """
        from abc import ABC

        class BaseSpecWorker(ABC):
            pass
    """,
    "sglang/srt/speculative/eagle_worker_v2.py": """
        from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

        class EAGLEWorkerV2(BaseSpecWorker):
            def forward_batch_generation(self, batch, on_publish=None, grammar_barrier=None, pp_proxy_tensors=None):
                self.verify(batch, grammar_barrier=grammar_barrier)
                return self.target_worker.forward_batch_generation(batch, capture_hidden_mode=1)

            def verify(self, batch, grammar_barrier=None):
                return None

            def get_stats(self, batch, verbose=False):
                return None
    """,
    "sglang/srt/speculative/ngram_worker.py": """
        from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

        class NGRAMWorker(BaseSpecWorker):
            def forward_batch_generation(self, batch, on_publish=None):
                return self.target_worker.forward_batch_generation(batch, is_verify=True)

            def get_stats(self, batch, verbose=False):
                return None
    """,
    "sglang/srt/speculative/spec_info.py": """
        class SpeculativeAlgorithm:
            @classmethod
            def register(cls, name, supports_overlap=False):
                return lambda factory: factory

            def create_worker(self, server_args):
                if self.is_ngram():
                    from sglang.srt.speculative.ngram_worker import NGRAMWorker

                    return NGRAMWorker
                from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

                return EAGLEWorkerV2
    """,
    "sglang/srt/managers/scheduler.py": """
        from functools import partial

        from sglang.srt.managers.schedule_batch import ScheduleBatch

        class Scheduler:
            def run_batch(self, batch: ScheduleBatch):
                fwd_kwargs = {}
                if not batch.spec_algorithm.is_none():
                    fwd_kwargs["on_publish"] = partial(print)
                    if batch.spec_algorithm.supports_grammar_overlap():
                        fwd_kwargs["grammar_barrier"] = print
                result = self.model_worker.forward_batch_generation(batch, **fwd_kwargs)
                batch.scheduler_note = result
                return result

            def run_batch_sync(self, batch: ScheduleBatch, pp_proxy_tensors):
                if not batch.spec_algorithm.is_none():
                    return self.model_worker.forward_batch_generation(batch, pp_proxy_tensors=pp_proxy_tensors)
                kwargs = {"pp_proxy_tensors": pp_proxy_tensors} if batch.spec_algorithm.is_none() else {}
                return self.model_worker.forward_batch_generation(batch, **kwargs)

            def run_embedding(self, batch: ScheduleBatch):
                self.draft_worker.get_stats(batch, verbose=True)
                return self.tp_worker.forward_batch_embedding(batch)
    """,
}


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.fixture
def release(tmp_path: Path) -> Release:
    return Release(write(tmp_path / "release", RELEASE), "9.9.9")


def findings(tree: Path, release: Release) -> list[tuple[str, str, int, str, int]]:
    report = check_against(tree, release)
    return [(m.kind, m.path.rsplit("/", 1)[-1], m.line, m.release_path, m.release_line) for m in report.mismatches]


def messages(tree: Path, release: Release) -> list[str]:
    return [m.message for m in check_against(tree, release).mismatches]


def fork(tmp_path: Path, source: str, name: str = "plugin.py") -> Path:
    return write(tmp_path / "fork", {f"my_fork/{name}": source, "my_fork/__init__.py": ""})


# -- the release checked against itself ------------------------------------------------------------
def test_a_release_checked_against_itself_has_no_mismatch(release):
    report = check_against(release.root, release)
    assert report.mismatches == [] and report.passed
    assert report.counts["worker_methods"] >= 5 and report.counts["contract_calls"] >= 6


# -- worker signatures ---------------------------------------------------------------------------
def test_an_eagle_subclass_without_grammar_barrier_and_pp_proxy_tensors(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

        class MyEagle(EAGLEWorkerV2):
            def forward_batch_generation(self, batch, on_publish=None):
                return super().forward_batch_generation(batch, on_publish=on_publish)
        """,
    )
    assert findings(tree, release) == [
        ("worker-signature", "plugin.py", 4, "sglang/srt/managers/scheduler.py", 12),
        ("worker-signature", "plugin.py", 4, "sglang/srt/managers/scheduler.py", 18),
    ]
    first, second = messages(tree, release)
    assert first.startswith(
        "MyEagle.forward_batch_generation(batch, on_publish=...) does not take the keyword `grammar_barrier`, "
        "which SGLang 9.9.9 may pass (in a `**` mapping): `self.model_worker.forward_batch_generation(batch, **fwd_kwargs)`"
    )
    assert first.endswith(
        "the release's EAGLEWorkerV2.forward_batch_generation(batch, on_publish=..., grammar_barrier=..., "
        "pp_proxy_tensors=...) (sglang/srt/speculative/eagle_worker_v2.py:4) takes it"
    )
    assert "does not take the keyword `pp_proxy_tensors`, which SGLang 9.9.9 passes" in second


def test_an_ngram_subclass_is_held_only_to_what_ngram_itself_takes(tmp_path, release):
    # NGRAMWorker takes neither grammar_barrier nor pp_proxy_tensors: the release never passes them to it.
    tree = fork(
        tmp_path,
        """
        from sglang.srt.speculative.ngram_worker import NGRAMWorker

        class MyNgram(NGRAMWorker):
            def forward_batch_generation(self, batch, on_publish=None):
                return None
        """,
    )
    assert findings(tree, release) == []


def test_an_ngram_subclass_without_on_publish(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        from sglang.srt.speculative.ngram_worker import NGRAMWorker

        class MyNgram(NGRAMWorker):
            def forward_batch_generation(self, batch):
                return None
        """,
    )
    assert findings(tree, release) == [("worker-signature", "plugin.py", 4, "sglang/srt/managers/scheduler.py", 12)]
    assert "does not take the keyword `on_publish`" in messages(tree, release)[0]


def test_a_tp_worker_subclass_called_as_a_target_worker(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        from sglang.srt.managers.tp_worker import TpModelWorker

        class Fixed(TpModelWorker):
            def forward_batch_generation(self, batch, forward_batch=None, pp_proxy_tensors=None, is_verify=False):
                return None

        class Open(TpModelWorker):
            def forward_batch_generation(self, batch, *args, **kwargs):
                return None
        """,
    )
    assert findings(tree, release) == [
        ("worker-signature", "plugin.py", 4, "sglang/srt/speculative/eagle_worker_v2.py", 6)
    ]
    assert messages(tree, release)[0].startswith(
        "Fixed.forward_batch_generation(batch, forward_batch=..., pp_proxy_tensors=..., is_verify=...) does not take "
        "the keyword `capture_hidden_mode`, which SGLang 9.9.9 passes: "
        "`self.target_worker.forward_batch_generation(batch, capture_hidden_mode=1)`"
    )


def test_an_override_of_a_method_the_base_calls_on_self(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2

        class MyEagle(EAGLEWorkerV2):
            def verify(self, batch):
                return None
        """,
    )
    assert findings(tree, release) == [
        ("worker-signature", "plugin.py", 4, "sglang/srt/speculative/eagle_worker_v2.py", 5)
    ]


def test_a_class_shaped_like_a_tp_worker_is_held_to_tp_model_worker(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        class MyTpWorker:
            def forward_batch_generation(self, batch, launch_done=None):
                return None

            def forward_batch_embedding(self, batch):
                return None

        class NotAWorker:
            def forward_batch_generation(self, batch):
                return None
        """,
    )
    kinds = [(kind, line) for kind, _, line, *_ in findings(tree, release)]
    assert kinds == [("worker-signature", 2)] * 3  # capture_hidden_mode, forward_batch... by keyword
    assert [m.split("keyword ")[1].split(",")[0] for m in messages(tree, release)] == [
        "`capture_hidden_mode`",
        "`is_verify`",
        "`pp_proxy_tensors`",
    ]


def test_a_registered_plugin_worker_is_held_to_what_every_speculative_worker_takes(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        from sglang.srt.speculative.spec_info import SpeculativeAlgorithm

        class MySpec:
            def forward_batch_generation(self, batch, on_publish=None):
                return None

            def get_stats(self, batch):
                return None

        @SpeculativeAlgorithm.register("MY_SPEC")
        def make_worker():
            return MySpec
        """,
    )
    assert findings(tree, release) == [("worker-signature", "plugin.py", 7, "sglang/srt/managers/scheduler.py", 23)]
    assert messages(tree, release)[0].startswith(
        "MySpec.get_stats(batch) does not take the keyword `verbose`, which SGLang 9.9.9 passes"
    )


def test_an_older_sglang_class_of_the_same_module_path(tmp_path, release):
    tree = write(
        tmp_path / "old",
        {
            "sglang/srt/speculative/eagle_worker_v2.py": """
                from sglang.srt.speculative.base_spec_worker import BaseSpecWorker

                class EAGLEWorkerV2(BaseSpecWorker):
                    def forward_batch_generation(self, batch, on_publish=None, grammar_barrier=None, **kwargs):
                        return None
            """,
            # A module the release removed: nothing in the release reaches its classes.
            "sglang/srt/speculative/eagle_worker.py": """
                from sglang.srt.managers.tp_worker import TpModelWorker

                class EAGLEWorker(TpModelWorker):
                    def forward_batch_generation(self, batch):
                        return None
            """,
        },
    )
    assert findings(tree, release) == []


# -- calls into the release ----------------------------------------------------------------------
def test_calls_with_keywords_the_release_does_not_take_or_without_a_required_one(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        from typing import Optional

        from sglang.srt.managers.schedule_batch import ScheduleBatch
        from sglang.srt.managers.tp_worker import TpModelWorker
        from sglang.srt.model_executor.forward_batch_info import ForwardBatch

        class Runner:
            def __init__(self):
                self.last_batch: Optional[ScheduleBatch] = None

            def run(self, batch: ScheduleBatch, runner):
                forward_batch = ForwardBatch.init_new(batch, runner)
                batch.filter_batch(chunked_req_to_exclude=[])
                self.last_batch.filter_batch(chunked_req_to_exclude=[])
                batch.retract_decode(None)
                ok = ForwardBatch.init_new(batch, runner, return_hidden_states_before_norm=False)
                extra = {"return_hidden_states_before_norm": False}
                also_ok = ForwardBatch.init_new(batch, runner, **extra)
                return forward_batch, ok, also_ok

        class MyWorker(TpModelWorker):
            def __init__(self, server_args, gpu_id, tp_rank):
                super().__init__(server_args, gpu_id, tp_rank)

        def build():
            return TpModelWorker(None, 0, 1), TpModelWorker(server_args=None, gpu_id=0)
        """,
    )
    assert findings(tree, release) == [
        ("call", "plugin.py", 12, "sglang/srt/model_executor/forward_batch_info.py", 9),
        ("call", "plugin.py", 13, "sglang/srt/managers/schedule_batch.py", 25),
        ("call", "plugin.py", 14, "sglang/srt/managers/schedule_batch.py", 25),
        ("call", "plugin.py", 15, "sglang/srt/managers/schedule_batch.py", 28),
        ("call", "plugin.py", 23, "sglang/srt/managers/tp_worker.py", 4),
        ("call", "plugin.py", 26, "sglang/srt/managers/tp_worker.py", 4),
    ]
    init_new, filter_batch, _, retract, init, construct = messages(tree, release)
    assert init_new == (
        "SGLang 9.9.9's ForwardBatch.init_new(batch, model_runner, *, capture_hidden_mode=..., "
        "return_hidden_states_before_norm) requires `return_hidden_states_before_norm`, which the tree does not "
        "pass: `ForwardBatch.init_new(batch, runner)`"
    )
    assert filter_batch == (
        "SGLang 9.9.9's ScheduleBatch.filter_batch(reqs_to_exclude=..., keep_indices=...) does not take the keyword "
        "`chunked_req_to_exclude`: `batch.filter_batch(...)`"
    )
    assert "takes 0 positional arguments, not 1" in retract
    assert "TpModelWorker.__init__(server_args, gpu_id) takes 2 positional arguments, not 3" in init
    assert construct.startswith("SGLang 9.9.9's TpModelWorker(server_args, gpu_id) takes 2 positional arguments, not 3")


def test_calls_the_analysis_cannot_pin_to_the_release_are_not_checked(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        from sglang.srt.managers.schedule_batch import ScheduleBatch

        def init_new(batch, runner):
            return None

        class ForwardBatch:
            @classmethod
            def init_new(cls, batch):
                return None

        def run(batch: ScheduleBatch, options, runner):
            init_new(batch, runner)
            ForwardBatch.init_new(batch)
            batch.filter_batch(**options)

        def rebound(batch: ScheduleBatch):
            batch = make()
            batch.filter_batch(chunked_req_to_exclude=[])
        """,
    )
    assert findings(tree, release) == []


# -- batch attributes ----------------------------------------------------------------------------
def test_attributes_a_batch_of_the_release_does_not_define(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        from sglang.srt.managers.schedule_batch import ScheduleBatch
        from sglang.srt.managers.tp_worker import TpModelWorker
        from sglang.srt.model_executor.forward_batch_info import ForwardBatch

        def read(batch: "ScheduleBatch", runner):
            if batch.is_spec_v2:
                batch.all_extend_in_batch = True
            forward_batch = ForwardBatch.init_new(batch, runner, return_hidden_states_before_norm=False)
            return forward_batch.can_run_dp_cuda_graph

        class MyWorker(TpModelWorker):
            def forward_batch_generation(self, batch, *args, **kwargs):
                return batch.seq_lens_cpu_cache
        """,
    )
    assert findings(tree, release) == [
        ("attribute", "plugin.py", 6, "sglang/srt/managers/schedule_batch.py", 9),
        ("attribute", "plugin.py", 7, "sglang/srt/managers/schedule_batch.py", 9),
        ("attribute", "plugin.py", 9, "sglang/srt/model_executor/forward_batch_info.py", 4),
        ("attribute", "plugin.py", 13, "sglang/srt/managers/schedule_batch.py", 9),
    ]
    assert messages(tree, release) == [
        "`batch.is_spec_v2` reads an attribute that SGLang 9.9.9's ScheduleBatch does not define",
        "`batch.all_extend_in_batch` writes an attribute that SGLang 9.9.9's ScheduleBatch does not define",
        "`forward_batch.can_run_dp_cuda_graph` reads an attribute that SGLang 9.9.9's ForwardBatch does not define",
        "`batch.seq_lens_cpu_cache` reads an attribute that SGLang 9.9.9's ScheduleBatch does not define",
    ]


def test_attributes_the_release_defines_anywhere_or_that_are_guarded(tmp_path, release):
    tree = fork(
        tmp_path,
        """
        from typing import Optional

        from sglang.srt.managers.schedule_batch import ScheduleBatch
        from sglang.srt.model_executor.forward_batch_info import ForwardBatch

        def defined(batch: Optional[ScheduleBatch], forward_batch: ForwardBatch):
            # fields, class attributes, properties, methods, self.X in methods, mixins, what the
            # release stores from outside (the scheduler's note), what init_new stores on `ret`
            return (
                batch.reqs, batch.CLASS_CONSTANT, batch.batch_size, batch.filter_batch, batch.filtered,
                batch.mixin_field, batch.built_by_init_new, batch.scheduler_note, forward_batch.positions,
            )

        def guarded(batch: ScheduleBatch):
            if hasattr(batch, "is_spec_v2"):
                return batch.is_spec_v2
            try:
                return batch.all_extend_in_batch
            except AttributeError:
                return getattr(batch, "can_run_dp_cuda_graph", False)

        def not_a_batch(batch, other: "list[ScheduleBatch]"):
            return batch.is_spec_v2, other.is_spec_v2

        def shadowed(batch: ScheduleBatch):
            return [batch.is_spec_v2 for batch in range(3)]
        """,
    )
    assert findings(tree, release) == []


def test_what_the_release_itself_does_is_not_counted_against_the_tree(tmp_path, release):
    # The tree's copy of an SGLang module makes the same (broken) call in the same function as the
    # release does: SGLang's own latent bug, listed apart, not a mismatch of the tree.
    write(
        release.root,
        {
            "sglang/srt/managers/utils.py": """
                from sglang.srt.managers.schedule_batch import ScheduleBatch

                def helper(batch: ScheduleBatch):
                    batch.filter_batch(chunked_req_to_exclude=[])
                    return batch.is_spec_v2
            """
        },
    )
    tree = write(
        tmp_path / "tree", {"sglang/srt/managers/utils.py": (release.root / "sglang/srt/managers/utils.py").read_text()}
    )
    report = check_against(tree, release)
    assert report.mismatches == []
    assert [(m.kind, m.line) for m in report.latent] == [("call", 4), ("attribute", 5)]


# -- binding -------------------------------------------------------------------------------------
def _signature(source: str) -> Signature:
    facts = extract(textwrap.dedent(source).encode(), "m", "m.py", False)
    signature = facts.functions["f"][0].signature
    assert signature is not None
    return signature


@pytest.mark.parametrize(
    ("source", "shape", "expected"),
    [
        ("def f(a, b=1): ...", CallShape(3, ()), [("positional", "3")]),
        ("def f(a, *args): ...", CallShape(3, ()), []),
        ("def f(a, /, b): ...", CallShape(1, ("a", "b")), [("keyword", "a")]),
        ("def f(a, b): ...", CallShape(1, ("a", "b")), [("twice", "a")]),
        ("def f(a, *, b): ...", CallShape(1, ()), [("missing", "b")]),
        ("def f(a, *, b): ...", CallShape(1, (), open_kwargs=True), []),
        ("def f(a, *, b): ...", CallShape(1, (), maybe=frozenset({"b"})), []),
        ("def f(a, **kw): ...", CallShape(1, ("anything",)), []),
        ("def f(a, b): ...", CallShape(None, ()), []),
    ],
)
def test_binding_follows_python(source, shape, expected):
    assert [(f.kind, f.name) for f in failures(_signature(source), shape)] == expected


def test_mapping_keys_are_read_from_the_function_that_builds_them():
    source = textwrap.dedent(
        """
        def f(self, flag, extra):
            kwargs = {"a": 1} if flag else {}
            kwargs["b"] = 2
            kwargs.update(c=3)
            self.model_worker.forward_batch_generation(x, **kwargs)
            self.model_worker.forward_batch_generation(x, **extra)
            handed = {}
            fill(handed)
            self.model_worker.forward_batch_generation(x, **handed)
            self.model_worker.forward_batch_generation(x, **{"d": 4})
        """
    ).encode()
    calls = extract(source, "m", "m.py", False).worker_calls
    assert [(c.shape.maybe, c.shape.open_kwargs) for c in calls] == [
        (frozenset({"a", "b", "c"}), False),
        (frozenset(), True),
        (frozenset(), True),
        (frozenset({"d"}), False),
    ]


# -- where the release comes from ----------------------------------------------------------------
def test_folders_wheels_and_versions(tmp_path, monkeypatch, release):
    assert locate_release(str(release.root)).root == release.root
    assert locate_release(str(release.root)).label == "9.9.9"
    assert locate_release(str(release.root / "sglang")).root == release.root
    checkout = write(tmp_path / "checkout", {"python/sglang/srt/x.py": ""})
    assert locate_release(str(checkout)).root == checkout / "python"
    with pytest.raises(ReleaseUnavailable, match="no sglang/srt package"):
        locate_release(str(tmp_path))
    with pytest.raises(ReleaseUnavailable, match="not a version number"):
        locate_release("not-a-version")

    wheel = tmp_path / "sglang-9.9.9-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in release.root.rglob("*.py"):
            archive.write(path, path.relative_to(release.root).as_posix())
        archive.writestr("sglang-9.9.9.dist-info/METADATA", "Name: sglang\n")
    cache = tmp_path / "cache"
    monkeypatch.setenv("MWBMIGRATE_CACHE_DIR", str(cache))
    unpacked = locate_release(str(wheel))
    assert unpacked.label == "9.9.9" and (unpacked.root / "sglang/srt/managers/tp_worker.py").is_file()
    assert unpacked.root.parent == cache / "sglang-releases" and not (unpacked.root / "sglang-9.9.9.dist-info").exists()

    downloads: list[str] = []

    def download(version: str, wheel_dir: Path) -> Path:
        downloads.append(version)
        return wheel

    monkeypatch.setattr(release_module, "download_wheel", download)
    by_version = locate_release("9.9.9")
    assert by_version.root == cache / "sglang-releases" / "9.9.9" and by_version.label == "9.9.9"
    assert locate_release("9.9.9").root == by_version.root
    assert downloads == ["9.9.9"]  # unpacked once, then found in the cache


def test_cache_directory_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("MWBMIGRATE_CACHE_DIR", str(tmp_path / "a"))
    assert release_module.cache_directory() == tmp_path / "a"
    monkeypatch.delenv("MWBMIGRATE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert release_module.cache_directory() == tmp_path / "xdg" / "mwbmigrate"


# -- the command line ----------------------------------------------------------------------------
def test_the_command_line(tmp_path, monkeypatch, release):
    monkeypatch.setenv("MWBMIGRATE_CACHE_DIR", str(tmp_path / "cache"))
    tree = fork(
        tmp_path,
        """
        from sglang.srt.managers.schedule_batch import ScheduleBatch

        def read(batch: ScheduleBatch):
            return batch.is_spec_v2
        """,
    )
    runner = CliRunner()
    result = runner.invoke(app, ["verify", str(tree), "--against", str(release.root)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[1] == (
        f"{tree}/my_fork/plugin.py:4: attribute: `batch.is_spec_v2` reads an attribute that SGLang 9.9.9's "
        "ScheduleBatch does not define [release: sglang/srt/managers/schedule_batch.py:9]"
    )
    assert lines[2].startswith("1 mismatch (1 attribute); checked")

    one_file = runner.invoke(app, ["verify", str(tree / "my_fork/plugin.py"), "--against", str(release.root)])
    assert one_file.exit_code == 1 and one_file.output.splitlines()[1] == lines[1]

    result = runner.invoke(app, ["verify", str(tree), "--against", str(release.root), "--format", "json"])
    document = json.loads(result.output)
    assert result.exit_code == 1 and document["release"] == "9.9.9" and not document["passed"]
    assert [(m["kind"], m["line"]) for m in document["mismatches"]] == [("attribute", 4)]

    (tree / "my_fork/plugin.py").write_text("def read(batch):\n    return batch.is_spec_v2\n")
    result = runner.invoke(app, ["verify", str(tree), "--against", str(release.root)])
    assert result.exit_code == 0 and "0 mismatches" in result.output

    assert runner.invoke(app, ["verify", "--against", str(release.root)]).exit_code == 2
    assert runner.invoke(app, ["verify", str(tree), "--against", str(tmp_path / "nowhere")]).exit_code == 2
