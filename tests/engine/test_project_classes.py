"""The project's worker classes across modules (analysis/project_classes.py): bases and registered
classes resolved through relative and absolute imports, re-exports and a `src/` layout, mixins that
take the kind of the workers they are mixed into, and what stays unknown."""

from __future__ import annotations

from mwbmigrate.analysis.project_classes import ProjectClassScan
from mwbmigrate.analysis.worker_kinds import SPEC_WORKER, TP_WORKER, WorkerClass


def workers(files: dict[str, str]):  # type: ignore[no-untyped-def]
    scan = ProjectClassScan()
    for display, text in files.items():
        scan.feed(f"/repo/{display}", display, text.encode())
    return scan.workers()


def test_a_mixin_takes_the_kind_of_the_worker_it_is_mixed_into_in_another_module() -> None:
    found = workers(
        {
            "plugin/__init__.py": "from .mixins import Tracing\n",
            "plugin/mixins.py": "class Tracing:\n    def forward_batch_generation(self, b):\n        pass\n",
            "plugin/workers.py": (
                "from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2\n"
                "from plugin import Tracing\n"  # through the package's re-export
                "class W(Tracing, EAGLEWorkerV2):\n    pass\n"
            ),
        }
    )
    spec = WorkerClass(SPEC_WORKER, "EAGLEWorkerV2", SPEC_WORKER)
    assert found.of_module("/repo/plugin/mixins.py") == {"Tracing": spec}
    assert found.of_module("/repo/plugin/workers.py") == {"W": spec}


def test_a_subclass_chain_across_modules_and_a_src_layout() -> None:
    found = workers(
        {
            "src/fork/base.py": (
                "from sglang.srt.managers.tp_worker import TpModelWorker as Base\n"
                "class ForkTp(Base):\n    def forward_batch_generation(self, b):\n        pass\n"
            ),
            "src/fork/tuned.py": "from fork.base import ForkTp\nclass Tuned(ForkTp):\n    pass\n",
            "src/fork/more.py": "from . import tuned\nclass More(tuned.Tuned):\n    pass\n",
        }
    )
    assert found.of_module("/repo/src/fork/base.py") == {"ForkTp": WorkerClass(TP_WORKER, "TpModelWorker", TP_WORKER)}
    # ForkTp overrides the method: a subclass's super() reaches the fork's own override.
    assert found.of_module("/repo/src/fork/tuned.py") == {"Tuned": WorkerClass(TP_WORKER, None, TP_WORKER)}
    assert found.of_module("/repo/src/fork/more.py") == {"More": WorkerClass(TP_WORKER, None, TP_WORKER)}


def test_a_class_a_registered_factory_returns_through_a_dict_of_another_module() -> None:
    found = workers(
        {
            "plugin/registry.py": (
                "from sglang.srt.speculative.spec_info import SpeculativeAlgorithm\n"
                "from .spec import MySpec\n"
                "WORKERS = {'MY': MySpec}\n"
                "@SpeculativeAlgorithm.register('MY')\n"
                "def factory(args):\n    return WORKERS['MY']\n"
            ),
            "plugin/spec.py": "class MySpec:\n    def forward_batch_generation(self, b):\n        pass\n",
        }
    )
    assert found.of_module("/repo/plugin/spec.py") == {"MySpec": WorkerClass(SPEC_WORKER, None, "")}


def test_what_stays_unknown() -> None:
    found = workers(
        {
            "plugin/mixins.py": "class M:\n    def forward_batch_generation(self, b):\n        pass\n",
            "plugin/a.py": (
                "from sglang.srt.managers.tp_worker import TpModelWorker\nfrom .mixins import M\n"
                "class A(M, TpModelWorker):\n    pass\n"
            ),
            "plugin/b.py": (
                "from sglang.srt.speculative.eagle_worker_v2 import EAGLEWorkerV2\nfrom .mixins import M\n"
                "class B(M, EAGLEWorkerV2):\n    pass\n"
            ),
            # A cycle of bases, a base from a module that does not parse, a name bound to no class.
            "plugin/cycle.py": "from .cycle2 import Y\nclass X(Y):\n    pass\n",
            "plugin/cycle2.py": "from .cycle import X\nclass Y(X):\n    pass\n",
            "plugin/broken.py": "class Broken(:\n",
            "plugin/c.py": "from .broken import Broken\nfrom .nowhere import Z\nclass C(Broken, Z):\n    pass\n",
        }
    )
    assert found.of_module("/repo/plugin/mixins.py") == {"M": None}  # mixed into two kinds
    assert found.of_module("/repo/plugin/cycle.py") == {}
    assert found.of_module("/repo/plugin/c.py") == {}
