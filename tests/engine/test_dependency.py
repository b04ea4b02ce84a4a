"""engine/dependency.py: where a migrated tree declares `mwbmigrate-runtime`, and the exact edit."""

from __future__ import annotations

from pathlib import Path

import pytest

from mwbmigrate.engine.dependency import (
    NO_METADATA,
    declare_in_pyproject,
    declare_in_requirements,
    plan_runtime_dependency,
    write_runtime_dependency,
)
from mwbmigrate.result import FileResult, FileStatus

REQUIREMENT = "mwbmigrate-runtime>=0.1.0"
HEAD = '[project]\nname = "fork"\nversion = "1"\n'


@pytest.mark.parametrize(
    ("before", "after"),
    [
        pytest.param(
            HEAD + 'dependencies = ["torch", "numpy"]\n',
            HEAD + 'dependencies = ["torch", "numpy", "mwbmigrate-runtime>=0.1.0"]\n',
            id="one-line",
        ),
        pytest.param(
            HEAD + "dependencies = ['torch',]\n",
            HEAD + "dependencies = ['torch', 'mwbmigrate-runtime>=0.1.0',]\n",
            id="one-line-trailing-comma-single-quotes",
        ),
        pytest.param(
            HEAD + "dependencies = []\n",
            HEAD + 'dependencies = ["mwbmigrate-runtime>=0.1.0"]\n',
            id="empty",
        ),
        pytest.param(
            HEAD
            + 'dependencies = [\n    "torch",\n    "numpy",  # pinned by torch\n]\n\n[tool.ruff]\nline-length = 100\n',
            HEAD
            + 'dependencies = [\n    "torch",\n    "numpy",  # pinned by torch\n    "mwbmigrate-runtime>=0.1.0",\n]\n'
            + "\n[tool.ruff]\nline-length = 100\n",
            id="multi-line-trailing-comma",
        ),
        pytest.param(
            HEAD + 'dependencies = [\n  "torch",\n  "numpy"\n]\n',
            HEAD + 'dependencies = [\n  "torch",\n  "numpy",\n  "mwbmigrate-runtime>=0.1.0"\n]\n',
            id="multi-line-without-trailing-comma",
        ),
        pytest.param(
            HEAD.replace("\n", "\r\n") + 'dependencies = [\r\n    "torch",\r\n]\r\n',
            HEAD.replace("\n", "\r\n")
            + 'dependencies = [\r\n    "torch",\r\n    "mwbmigrate-runtime>=0.1.0",\r\n]\r\n',
            id="crlf",
        ),
        pytest.param(
            HEAD + "\n[project.optional-dependencies]\ndev = []\n",
            '[project]\ndependencies = ["mwbmigrate-runtime>=0.1.0"]\nname = "fork"\nversion = "1"\n'
            + "\n[project.optional-dependencies]\ndev = []\n",
            id="no-dependencies-key",
        ),
    ],
)
def test_pyproject_gets_one_element_in_its_layout(before: str, after: str) -> None:
    edit = declare_in_pyproject(before, REQUIREMENT)
    assert (edit.status, edit.updated) == ("added", after)


@pytest.mark.parametrize(
    "text",
    [
        HEAD + 'dependencies = ["torch", "mwbmigrate-runtime"]\n',
        HEAD + "dependencies = [\"Mwbmigrate_Runtime[extra]>=0.0.9; python_version >= '3.10'\"]\n",
    ],
)
def test_pyproject_already_declaring_is_left_alone(text: str) -> None:
    assert declare_in_pyproject(text, REQUIREMENT).status == "declared"


@pytest.mark.parametrize(
    ("text", "advice"),
    [
        (HEAD + 'dynamic = ["dependencies"]\n', "[project].dependencies is dynamic"),
        ('[tool.poetry]\nname = "fork"\n', "[tool.poetry.dependencies]"),
        ("[project\nname = 'fork'\n", "does not parse as TOML"),
        # Parses, but the text has no `dependencies = [` of its own to extend: never guessed.
        ('project.name = "fork"\nproject.dependencies = ["torch"]\n', "could not be edited safely"),
    ],
)
def test_pyproject_that_cannot_be_edited_safely_gets_advice(text: str, advice: str) -> None:
    edit = declare_in_pyproject(text, REQUIREMENT)
    assert edit.status == "manual" and edit.updated is None
    assert advice in edit.advice and ("mwbmigrate-runtime" in edit.advice)


def test_pyproject_of_tool_settings_only_declares_nothing() -> None:
    assert declare_in_pyproject("[tool.black]\nline-length = 100\n", REQUIREMENT).status == NO_METADATA


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("torch\nnumpy\n", "torch\nnumpy\nmwbmigrate-runtime>=0.1.0\n"),
        ("torch\nnumpy", "torch\nnumpy\nmwbmigrate-runtime>=0.1.0\n"),
        ("torch\r\n", "torch\r\nmwbmigrate-runtime>=0.1.0\r\n"),
        ("", "mwbmigrate-runtime>=0.1.0\n"),
    ],
)
def test_requirements_gets_one_line(before: str, after: str) -> None:
    edit = declare_in_requirements(before, REQUIREMENT)
    assert (edit.status, edit.updated) == ("added", after)


def test_requirements_already_declaring_or_continued() -> None:
    assert declare_in_requirements("torch  # gpu\nmwbmigrate_runtime==0.1.0\n", REQUIREMENT).status == "declared"
    # A comment naming it declares nothing.
    assert declare_in_requirements("# mwbmigrate-runtime later\n", REQUIREMENT).status == "added"
    continued = declare_in_requirements("torch \\\n", REQUIREMENT)
    assert continued.status == "manual" and "continued line" in continued.advice


# -- the tree ------------------------------------------------------------------------------


def _importer(root: Path, relative: str, imports_runtime: bool = True) -> FileResult:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x = 1\n")
    rewritten = "from mwbmigrate.runtime import forward_batch_view\n" if imports_runtime else "x = 2\n"
    return FileResult(str(path), relative, FileStatus.CHANGED, original="x = 1\n", rewritten=rewritten)


def test_nothing_when_no_rewritten_file_imports_the_runtime(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(HEAD)
    assert plan_runtime_dependency([_importer(tmp_path, "pkg/mod.py", imports_runtime=False)], tmp_path) is None


def test_the_nearest_declaration_below_the_root_is_edited_and_written(tmp_path: Path) -> None:
    # SGLang keeps its pyproject.toml in python/, below the repository's root.
    (tmp_path / "python").mkdir()
    pyproject = tmp_path / "python" / "pyproject.toml"
    pyproject.write_text(HEAD + 'dependencies = ["torch"]\n')
    (tmp_path / "requirements-docs.txt").write_text("sphinx\n")
    results = [_importer(tmp_path, "python/sglang/srt/a.py"), _importer(tmp_path, "python/sglang/srt/b/c.py")]
    dependency = plan_runtime_dependency(results, tmp_path)
    assert dependency is not None
    assert (dependency.status, dependency.display_path) == ("added", "python/pyproject.toml")
    assert dependency.importers == ("python/sglang/srt/a.py", "python/sglang/srt/b/c.py")
    written = write_runtime_dependency(dependency)
    assert written is not None and written.error is None
    assert pyproject.read_text() == HEAD + 'dependencies = ["torch", "mwbmigrate-runtime>=0.1.0"]\n'


def test_the_package_that_imports_it_decides_never_a_test(tmp_path: Path) -> None:
    # A fork: its package's pyproject.toml in python/, a requirements file for one backend at the
    # root, and a test at the root that imports the runtime too. The common folder of all three
    # importers is the root; the package's own file is the one edited.
    (tmp_path / "python").mkdir()
    pyproject = tmp_path / "python" / "pyproject.toml"
    pyproject.write_text(HEAD + 'dependencies = ["torch"]\n')
    (tmp_path / "requirements_hcu.txt").write_text("torch\n")
    results = [
        _importer(tmp_path, "python/sglang/srt/a.py"),
        _importer(tmp_path, "test/srt/test_worker.py"),
        _importer(tmp_path, "scripts/replay.py"),
    ]
    dependency = plan_runtime_dependency(results, tmp_path)
    assert dependency is not None
    assert (dependency.status, dependency.display_path) == ("added", "python/pyproject.toml")
    assert dependency.importers == ("python/sglang/srt/a.py", "test/srt/test_worker.py", "scripts/replay.py")


def test_tests_decide_only_where_nothing_else_imports_it(tmp_path: Path) -> None:
    (tmp_path / "requirements-test.txt").write_text("pytest\n")
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "pyproject.toml").write_text(HEAD + 'dependencies = ["torch"]\n')
    dependency = plan_runtime_dependency([_importer(tmp_path, "tests/test_worker.py")], tmp_path)
    assert dependency is not None
    assert (dependency.status, dependency.display_path) == ("manual", "requirements-test.txt")


def test_importers_in_two_packages_name_both_and_edit_none(tmp_path: Path) -> None:
    for package in ("server", "plugin"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "pyproject.toml").write_text(HEAD + 'dependencies = ["torch"]\n')
    results = [_importer(tmp_path, "server/pkg/a.py"), _importer(tmp_path, "plugin/pkg/b.py")]
    dependency = plan_runtime_dependency(results, tmp_path)
    assert dependency is not None
    assert (dependency.status, dependency.path) == ("manual", None)
    assert (
        dependency.advice == "files in 2 packages import it (plugin, server); declare mwbmigrate-runtime>=0.1.0 in each"
    )


def test_a_declaration_changed_during_the_run_is_not_written(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("torch\n")
    dependency = plan_runtime_dependency([_importer(tmp_path, "pkg/mod.py")], tmp_path)
    (tmp_path / "requirements.txt").write_text("torch\nnumpy\n")
    written = write_runtime_dependency(dependency)
    assert written is not None and written.error == "changed on disk during the run; not written"
    assert (tmp_path / "requirements.txt").read_text() == "torch\nnumpy\n"


@pytest.mark.parametrize(
    ("files", "status", "where", "advice"),
    [
        ({"setup.py": "setup()\n"}, "manual", "setup.py", "install_requires"),
        ({"pyproject.toml": "[tool.black]\n", "setup.py": "setup()\n"}, "manual", "setup.py", "install_requires"),
        ({"pyproject.toml": "[tool.black]\n", "requirements.txt": "torch\n"}, "added", "requirements.txt", ""),
        ({"requirements-gpu.txt": "torch\n"}, "manual", "requirements-gpu.txt", "requirements-gpu.txt"),
        ({"requirements-gpu.txt": "mwbmigrate-runtime\n"}, "declared", "requirements-gpu.txt", ""),
        ({"pyproject.toml": HEAD + 'dynamic = ["dependencies"]\n'}, "manual", "pyproject.toml", "dynamic"),
        ({"pyproject.toml": "[tool.black]\n"}, "manual", "pyproject.toml", "no [project] table"),
        ({}, "manual", None, "no pyproject.toml, setup.py or requirements*.txt found"),
    ],
)
def test_where_the_tree_declares_it(
    tmp_path: Path, files: dict[str, str], status: str, where: str | None, advice: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    dependency = plan_runtime_dependency([_importer(tmp_path, "pkg/mod.py")], tmp_path)
    assert dependency is not None
    assert (dependency.status, dependency.display_path) == (status, where)
    assert advice in dependency.advice
