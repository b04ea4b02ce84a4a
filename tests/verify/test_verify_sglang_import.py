"""The harness that imports an SGLang tree on CPU: locating it, its version, and its stubs.

Each import runs in a fresh interpreter: a tree imported with stubs stays in `sys.modules`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mwbmigrate.verify.sglang_import import SGLangImportError, find_sglang_root, import_sglang_tree, tree_version

REPO = Path(__file__).resolve().parents[2]

SCHEDULE_BATCH = """\
from __future__ import annotations
import dataclasses
import torch
import mwbmigrate_test_gpu_only_pkg as gpu_only          # missing: stubbed
from mwbmigrate_test_gpu_only_pkg.sub import Kernel        # missing: stubbed, subclassable
import sgl_kernel                                          # missing: upstream's MagicMock stub
try:
    import mwbmigrate_test_optional_pkg                    # guarded: stays missing
except ImportError:
    mwbmigrate_test_optional_pkg = None

class MyKernel(Kernel):
    pass

@gpu_only.jit
def kernel(x):
    return x + 1

@dataclasses.dataclass
class ScheduleBatch:
    reqs: list
    seq_lens: torch.Tensor = None
"""


def make_tree(root: Path, schedule_batch: str = SCHEDULE_BATCH) -> Path:
    package = root / "sglang"
    for sub in ("", "srt", "srt/managers"):
        (package / sub).mkdir(parents=True, exist_ok=True)
        (package / sub / "__init__.py").write_text("")
    (package / "_version.py").write_text("__version__ = version = '9.9.9'\n")
    (package / "srt" / "managers" / "schedule_batch.py").write_text(schedule_batch)
    return root


def run_isolated(code: str) -> dict:
    completed = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=str(REPO),
        env={**__import__("os").environ, "PYTHONPATH": str(REPO)},
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_find_sglang_root_layouts(tmp_path):
    tree = make_tree(tmp_path / "wheel")
    assert find_sglang_root(tree) == tree.resolve()
    assert find_sglang_root(tree / "sglang") == tree.resolve()
    checkout = tmp_path / "checkout"
    make_tree(checkout / "python")
    assert find_sglang_root(checkout) == (checkout / "python").resolve()
    assert find_sglang_root(tmp_path / "nothing-here") is None


def test_tree_version_reads_without_importing(tmp_path):
    assert tree_version(make_tree(tmp_path)) == "9.9.9"
    (tmp_path / "sglang" / "_version.py").unlink()
    assert tree_version(tmp_path) is None


def test_not_a_tree_raises_a_clear_reason(tmp_path):
    with pytest.raises(SGLangImportError) as raised:
        import_sglang_tree(tmp_path)
    assert "no sglang/ package" in raised.value.reason
    assert isinstance(raised.value, ImportError)


def test_stubs_only_unguarded_imports_of_the_tree(tmp_path):
    tree = make_tree(tmp_path)
    result = run_isolated(f"""
        import json, importlib.util, sys
        from mwbmigrate.verify.sglang_import import import_sglang_tree
        tree = import_sglang_tree({str(tree)!r})
        sb = tree.schedule_batch
        out = {{
            "version": tree.version,
            "stubbed": list(tree.stubbed),
            "absent": list(tree.absent),
            "problems": tree.problems,
            "optional_is_none": sb.mwbmigrate_test_optional_pkg is None,
            "kernel_passthrough": sb.kernel(1) == 2,
            "subclass_ok": issubclass(sb.MyKernel, sb.Kernel),
            "fields": tree.field_names(),
            # Somebody else's import of a missing module still fails: the stub is the tree's only.
            "foreign_missing": importlib.util.find_spec("mwbmigrate_test_never_there") is None,
        }}
        try:
            import mwbmigrate_test_never_there
            out["foreign_import"] = "stubbed"
        except ImportError:
            out["foreign_import"] = "ImportError"
        print(json.dumps(out))
    """)
    assert result["version"] == "9.9.9"
    assert "mwbmigrate_test_gpu_only_pkg" in result["stubbed"] and "sgl_kernel" in result["stubbed"]
    assert "mwbmigrate_test_optional_pkg" not in result["stubbed"]
    assert result["optional_is_none"] and result["kernel_passthrough"] and result["subclass_ok"]
    assert result["fields"] == ["reqs", "seq_lens"]
    assert result["foreign_missing"] and result["foreign_import"] == "ImportError"
    # A trimmed tree: the modules it lacks are absent, not failures.
    assert "sglang.srt.managers.scheduler" in result["absent"] and result["problems"] == {}


def test_broken_required_module_is_a_clear_failure(tmp_path):
    tree = make_tree(tmp_path, "raise RuntimeError('boom at import')\n")
    result = run_isolated(f"""
        import json
        from mwbmigrate.verify.sglang_import import SGLangImportError, import_sglang_tree
        try:
            import_sglang_tree({str(tree)!r})
            print(json.dumps({{"reason": None}}))
        except SGLangImportError as error:
            print(json.dumps({{"reason": error.reason}}))
    """)
    assert "schedule_batch" in result["reason"] and "boom at import" in result["reason"]


def test_second_tree_replaces_the_first(tmp_path):
    first = make_tree(tmp_path / "a")
    second = make_tree(tmp_path / "b", SCHEDULE_BATCH.replace("seq_lens: torch.Tensor = None", "other: int = 0"))
    result = run_isolated(f"""
        import json
        from mwbmigrate.verify.sglang_import import import_sglang_tree
        a = import_sglang_tree({str(first)!r})
        b = import_sglang_tree({str(second)!r})
        print(json.dumps({{"a": a.field_names(), "b": b.field_names(), "file": b.schedule_batch.__file__}}))
    """)
    assert result["a"] == ["reqs", "seq_lens"] and result["b"] == ["reqs", "other"]
    assert result["file"].startswith(str(second.resolve()))
