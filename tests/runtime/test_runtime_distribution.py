"""`mwbmigrate-runtime`, the second distribution (packaging/runtime/): `mwbmigrate.runtime` alone.

Its wheel is built offline (`--no-build-isolation`: setuptools of this environment) from a copy of
the two folders its pyproject.toml relates, so the build writes nothing into this checkout (a
setuptools build leaves `build/` behind, whose stale files a later wheel would take in). It is then
installed into a fresh virtual environment with no access to this one's packages, where
`mwbmigrate.runtime` must import without the tool's dependencies, and without torch.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import mwbmigrate
from mwbmigrate.engine.dependency import RUNTIME_DISTRIBUTION, runtime_requirement

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO_ROOT = Path(__file__).resolve().parents[2]
PACKAGING = REPO_ROOT / "packaging" / "runtime"
RUNTIME_SOURCE = REPO_ROOT / "mwbmigrate" / "runtime"
TOOL_DEPENDENCIES = ("libcst", "typer", "rich", "pathspec")
# Building and installing take a few seconds; a hang (pip waiting on something) must not stall CI.
STEP_TIMEOUT = 60


def _wheel(project: Path, wheels: Path, pattern: str) -> Path:
    """The one wheel pip builds of `project`, offline, with the build tools of this environment."""
    _run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
        project,
        "-w",
        wheels,
        cwd=wheels.parent,
    )
    (wheel,) = wheels.glob(pattern)
    return wheel


def _run(*command: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=STEP_TIMEOUT
    )
    assert completed.returncode == 0, f"{command} failed:\n{completed.stdout}\n{completed.stderr}"
    return completed


@pytest.fixture(scope="module")
def runtime_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("runtime-wheel")
    source = work / "source"
    shutil.copytree(PACKAGING, source / "packaging" / "runtime", ignore=shutil.ignore_patterns("build", "*.egg-info"))
    # __pycache__ comes along on purpose: the wheel must leave it out.
    shutil.copytree(RUNTIME_SOURCE, source / "mwbmigrate" / "runtime")
    (source / "mwbmigrate" / "runtime" / "__pycache__").mkdir(exist_ok=True)
    (source / "mwbmigrate" / "runtime" / "__pycache__" / "stale.cpython-311.pyc").write_bytes(b"")
    return _wheel(source / "packaging" / "runtime", work / "wheels", "mwbmigrate_runtime-*.whl")


def test_wheel_holds_the_runtime_and_nothing_else(runtime_wheel: Path) -> None:
    with zipfile.ZipFile(runtime_wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    expected = {
        f"mwbmigrate/runtime/{path.name}"
        for path in RUNTIME_SOURCE.iterdir()
        if path.is_file() and (path.suffix == ".py" or path.name == "py.typed")
    }
    assert {n for n in names if ".dist-info/" not in n} == expected
    assert "mwbmigrate/runtime/py.typed" in expected
    assert f"Name: {RUNTIME_DISTRIBUTION}" in metadata
    assert "Requires-Dist" not in metadata  # no dependency at all: torch is the server's own


def test_runtime_imports_alone_in_a_fresh_environment(runtime_wheel: Path, tmp_path: Path) -> None:
    # No pip of its own: this environment's pip installs into it (`--python`), which is faster.
    _run(sys.executable, "-m", "venv", "--without-pip", tmp_path / "venv", cwd=tmp_path)
    python = tmp_path / "venv" / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    _run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--no-index",
        "--no-deps",
        runtime_wheel,
        cwd=tmp_path,
    )
    probe = f"""
import importlib.util, json, sys
import mwbmigrate.runtime as runtime
ring = runtime.BatchRecordRing(depth=2)  # torch-free helpers work as they are
print(json.dumps({{
    "runtime": runtime.__file__,
    "package_file": getattr(sys.modules["mwbmigrate"], "__file__", None),
    "absent": [name for name in {list(TOOL_DEPENDENCIES) + ["torch", "mwbmigrate.cli"]!r}
               if importlib.util.find_spec(name) is None],
    "torch_imported": "torch" in sys.modules,
}}))
"""
    # -I: neither this checkout (the working folder) nor PYTHON* variables reach the environment.
    report = json.loads(_run(python, "-I", "-c", probe, cwd=tmp_path).stdout)
    assert Path(report["runtime"]).is_relative_to(tmp_path / "venv")
    # No mwbmigrate/__init__.py: a namespace package, so the tool's own distribution can add its files.
    assert report["package_file"] is None
    assert report["absent"] == [*TOOL_DEPENDENCIES, "torch", "mwbmigrate.cli"]
    assert report["torch_imported"] is False


def test_versions_move_together() -> None:
    """The tool pins the runtime of its own release: the codemods write that runtime's API."""
    tool = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    runtime = tomllib.loads((PACKAGING / "pyproject.toml").read_text())["project"]
    assert tool["version"] == runtime["version"] == mwbmigrate.__version__
    assert f"{RUNTIME_DISTRIBUTION}=={mwbmigrate.__version__}" in tool["dependencies"]
    assert runtime["dependencies"] == []
    assert runtime_requirement() == f"{RUNTIME_DISTRIBUTION}>={mwbmigrate.__version__}"


def test_the_tool_wheel_leaves_the_runtime_to_its_distribution(tmp_path: Path) -> None:
    """Two distributions owning one file would break uninstalling either; the tool requires it instead."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, source / name)
    shutil.copytree(REPO_ROOT / "mwbmigrate", source / "mwbmigrate", ignore=shutil.ignore_patterns("__pycache__"))
    # What an older build leaves behind: setuptools reads it as a manifest of data files to ship.
    (source / "mwbmigrate.egg-info").mkdir()
    (source / "mwbmigrate.egg-info" / "SOURCES.txt").write_text(
        "".join(f"mwbmigrate/runtime/{path.name}\n" for path in RUNTIME_SOURCE.iterdir() if path.is_file())
    )
    wheel = _wheel(source, tmp_path / "wheels", "mwbmigrate-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "mwbmigrate/cli.py" in names and "mwbmigrate/py.typed" in names
    assert [n for n in names if n.startswith("mwbmigrate/runtime/")] == []
    assert f"Requires-Dist: {RUNTIME_DISTRIBUTION}=={mwbmigrate.__version__}\n" in metadata
