"""The runtime stays importable alone: vendored under another name, without mwbmigrate,
without sglang, and (except for the request-pool helpers) without torch."""

from __future__ import annotations

import ast
import pathlib
import shutil
import subprocess
import sys
import textwrap

import pytest

import mwbmigrate.runtime as runtime

RUNTIME_DIR = pathlib.Path(runtime.__file__).parent
MODULES = sorted(RUNTIME_DIR.glob("*.py"))


def _module_level_imports(tree: ast.Module):
    """Imports executed at import time (TYPE_CHECKING blocks excluded)."""
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for sub in ast.walk(node):
            if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                break
            if isinstance(sub, ast.Import):
                yield from (alias.name for alias in sub.names)
            elif isinstance(sub, ast.ImportFrom):
                yield "." * sub.level + (sub.module or "")


def test_expected_modules_and_marker():
    names = {p.name for p in MODULES}
    assert {"__init__.py", "overrides.py", "isolation.py", "ring.py", "streams.py", "req_pool.py"} <= names
    assert (RUNTIME_DIR / "py.typed").exists()


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_absolute_import_of_mwbmigrate_sglang_or_torch(path):
    tree = ast.parse(path.read_text())
    every = [
        n.module if isinstance(n, ast.ImportFrom) else alias.name
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for alias in (n.names if isinstance(n, ast.Import) else [None])
        if not (isinstance(n, ast.ImportFrom) and n.level)
    ]
    assert not [m for m in every if m and m.split(".")[0] in ("mwbmigrate", "sglang")]
    top = list(_module_level_imports(tree))
    assert not [m for m in top if m.split(".")[0] == "torch"], "torch must be imported lazily"


VENDORED_WITHOUT_TORCH = textwrap.dedent(
    """
    import sys, types, dataclasses
    sys.modules["torch"] = None  # any "import torch" now raises ImportError
    from myserver import _mwb_runtime as rt

    @dataclasses.dataclass
    class Batch(rt.ForwardOverrideFields):
        sampling_info: object = None
        ids: object = None
        @property
        def is_spec_v2(self):
            return True

    class Sampling:
        def copy_for_forward(self):
            return Sampling()

    batch = Batch(sampling_info=Sampling(), ids=[1])
    ring = rt.BatchRecordRing()
    with rt.overlap_forward_isolation(batch, ring):
        batch.ids = None
        batch.capture_hidden_mode = "LAST"
        assert rt.consume_forward_overrides(batch).capture_hidden_mode == "LAST"
    assert batch.ids == [1] and ring.current[0] is batch
    assert rt.record_stream_each([[1, None], "x"], None) == 0
    assert rt.record_stream_for_v2_verify(batch, None, None) == 0
    try:
        rt.ensure_req_pool_indices_cpu(types.SimpleNamespace(req_pool_indices=[1], req_pool_indices_cpu=None))
    except ImportError:
        pass
    else:
        raise AssertionError("req_pool needs torch")
    leaked = [m for m in sys.modules if m.split(".")[0] in ("mwbmigrate", "sglang")]
    assert not leaked, leaked
    print("OK")
    """
)

VENDORED_WITH_TORCH = textwrap.dedent(
    """
    import sys, types
    from myserver import _mwb_runtime as rt
    assert "torch" not in sys.modules  # importing the runtime does not import torch
    batch = types.SimpleNamespace(device="cpu")
    rt.clear_req_pool_metadata(batch)
    assert batch.req_pool_indices_cpu.numel() == 0
    assert "mwbmigrate" not in sys.modules
    print("OK")
    """
)


@pytest.mark.parametrize("script", [VENDORED_WITHOUT_TORCH, VENDORED_WITH_TORCH], ids=["no-torch", "torch"])
def test_vendored_copy_works_alone(tmp_path, script):
    package = tmp_path / "myserver"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copytree(RUNTIME_DIR, package / "_mwb_runtime", ignore=shutil.ignore_patterns("__pycache__"))
    # -I: neither the cwd (the repository) nor PYTHONPATH is on sys.path; only the copy is.
    prelude = "import sys; sys.path.insert(0, sys.argv[1])\n"
    proc = subprocess.run(
        [sys.executable, "-I", "-c", prelude + script, str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"
