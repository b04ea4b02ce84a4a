"""``mwbmigrate verify``: static checks on a tree, then the shipped regression suite through pytest.

1. Static checks (:mod:`mwbmigrate.verify.static`) on PATH when one is given.
2. The suite (:mod:`mwbmigrate.verify.suite`) in a pytest subprocess -- a fresh interpreter, so
   importing the target SGLang tree with stubs cannot leak into this process -- against
   ``mwbmigrate.runtime`` and, when PATH is an SGLang tree that imports here, the tree's own code.
   The suite's conftest writes every test's outcome, group and implementation to a JSON file.
3. On a CUDA host the CUDA module then runs in a process of its own (as upstream runs one test
   file per process); elsewhere its tests are reported as "not run: no CUDA", never as passed.

Exit code: 0 only when everything that ran passed (expected failures allowed); 1 otherwise, and
with ``gpu="require"`` when the CUDA tests could not run. torch and pytest are needed only for
step 2 and are looked up lazily: without the ``verify`` extra the static checks still run and the
message says what to install.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from mwbmigrate.verify.static import CHECKS, REVIEW_MARKER, StaticReport, check_tree

__all__ = ["GPU_MODES", "FORMATS", "VerifyResult", "run_verify"]

GPU_MODES = ("auto", "require", "off")
FORMATS = ("text", "json")
EXTRA_HINT = "pip install 'mwbmigrate[verify]'"
PASSING = frozenset({"passed", "xfailed", "xpassed"})
FAILING = frozenset({"failed", "error"})
CUDA_MODULE = "test_cuda.py"


@dataclass
class SuiteRun:
    """What one pytest process reported."""

    exitstatus: int
    tests: list[dict[str, Any]] = field(default_factory=list)
    document: dict[str, Any] = field(default_factory=dict)
    output: str = ""
    junit: Optional[Path] = None


@dataclass
class VerifyResult:
    path: Optional[str]
    gpu_mode: str
    static: Optional[StaticReport] = None
    suite_ran: bool = False
    suite_error: Optional[str] = None  # why the suite could not run at all
    tests: list[dict[str, Any]] = field(default_factory=list)
    implementations: list[dict[str, Any]] = field(default_factory=list)
    tree: Optional[dict[str, Any]] = None
    cuda_available: Optional[bool] = None
    gpu_status: str = ""
    problems: list[str] = field(default_factory=list)  # reasons for a non-zero exit
    exit_code: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": "mwbmigrate verify",
            "path": self.path,
            "exit_code": self.exit_code,
            "static": None if self.static is None else self.static.to_dict(),
            "suite": {
                "ran": self.suite_ran,
                "error": self.suite_error,
                "groups": _group_counts(self.tests),
                "totals": dict(Counter(t["outcome"] for t in self.tests)),
                "tests": self.tests,
            },
            "implementations": self.implementations,
            "tree": self.tree,
            "gpu": {"mode": self.gpu_mode, "cuda_available": self.cuda_available, "status": self.gpu_status},
            "problems": self.problems,
        }


def _group_counts(tests: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """group -> implementation ("all" when a test has none) -> outcome -> count."""
    groups: dict[str, dict[str, dict[str, int]]] = {}
    for test in tests:
        per_impl = groups.setdefault(test["group"], {})
        counts = per_impl.setdefault(test.get("impl") or "all", {})
        counts[test["outcome"]] = counts.get(test["outcome"], 0) + 1
    return groups


# --------------------------------------------------------------------------- running pytest


def _missing_extra() -> list[str]:
    return [name for name in ("torch", "pytest") if importlib.util.find_spec(name) is None]


def _package_parent() -> str:
    import mwbmigrate

    return str(Path(mwbmigrate.__file__).resolve().parent.parent)


def _run_pytest(
    suite_dir: Path,
    targets: list[str],
    *,
    tree: Optional[Path],
    keyword: Optional[str],
    extra_args: list[str],
    workdir: Path,
    tag: str,
    cuda_mode: Optional[str],
) -> SuiteRun:
    results = workdir / f"{tag}.json"
    junit = workdir / f"{tag}.xml"
    command = [
        sys.executable,
        "-m",
        "pytest",
        *targets,
        "-c",
        os.devnull,
        "--rootdir",
        str(suite_dir),  # no ini file of the caller's project
        "-p",
        "no:cacheprovider",
        "-q",
        "-rfE",
        "--color=no",
        f"--junitxml={junit}",
        "-o",
        f"junit_suite_name=mwbmigrate.verify.{tag}",
        *extra_args,
    ]
    if keyword:
        command += ["-k", keyword]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_package_parent(), env.get("PYTHONPATH")]))
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the user's plugins have no say in this suite
    env.pop("PYTEST_ADDOPTS", None)
    from mwbmigrate.verify.suite import CUDA_MODE_ENV, RESULTS_ENV, TREE_ENV

    env[RESULTS_ENV] = str(results)
    env.pop(TREE_ENV, None)
    if tree is not None:
        env[TREE_ENV] = str(tree)
    env.pop(CUDA_MODE_ENV, None)
    if cuda_mode:
        env[CUDA_MODE_ENV] = cuda_mode
    completed = subprocess.run(command, cwd=str(suite_dir), env=env, capture_output=True, text=True, check=False)
    document: dict[str, Any] = {}
    if results.is_file():
        try:
            document = json.loads(results.read_text(encoding="utf-8"))
        except ValueError:
            document = {}
    return SuiteRun(
        exitstatus=completed.returncode,
        tests=list(document.get("tests", [])),
        document=document,
        output=(completed.stdout or "") + (completed.stderr or ""),
        junit=junit if junit.is_file() else None,
    )


def _summary_line(output: str) -> str:
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


# --------------------------------------------------------------------------- junit


def _static_junit(report: StaticReport) -> ET.Element:
    suite = ET.Element("testsuite", name="mwbmigrate.verify.static")
    failures = 0
    for code, summary in CHECKS.items():
        case = ET.SubElement(suite, "testcase", classname="mwbmigrate.verify.static", name=f"{code} {summary}")
        found = [f for f in report.findings if f.code == code]
        if not found:
            continue
        text = "\n".join(f"{f.location()}: {f.message}" for f in found)
        if code == REVIEW_MARKER and report.allow_review_markers:
            ET.SubElement(case, "system-out").text = text
        else:
            failures += 1
            ET.SubElement(case, "failure", message=f"{len(found)} finding(s)").text = text
    if report.problems:
        case = ET.SubElement(suite, "testcase", classname="mwbmigrate.verify.static", name="files readable")
        failures += 1
        ET.SubElement(case, "failure", message="unreadable files").text = "\n".join(report.problems)
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", "0")
    return suite


def _write_junit(target: Path, static: Optional[StaticReport], runs: list[SuiteRun]) -> None:
    root = ET.Element("testsuites", name="mwbmigrate verify")
    if static is not None:
        root.append(_static_junit(static))
    for run in runs:
        if run.junit is None:
            continue
        parsed = ET.parse(run.junit).getroot()
        for suite in [parsed] if parsed.tag == "testsuite" else list(parsed):
            root.append(suite)
    target.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(target, encoding="utf-8", xml_declaration=True)


# --------------------------------------------------------------------------- the command


def _verify(
    path: Optional[Path],
    gpu: str,
    junit_xml: Optional[Path],
    keyword: Optional[str],
    allow_review_markers: bool,
) -> VerifyResult:
    result = VerifyResult(path=None if path is None else str(path), gpu_mode=gpu)
    if path is not None:
        if not path.exists():
            result.problems.append(f"{path}: no such file or folder")
            result.exit_code = 1
            return result
        result.static = check_tree(path, allow_review_markers=allow_review_markers)
        if not result.static.passed:
            result.problems.append(
                f"static checks: {len(result.static.failing()) + len(result.static.problems)} finding(s)"
            )

    missing = _missing_extra()
    runs: list[SuiteRun] = []
    if missing:
        result.suite_error = f"the verify extra is missing ({', '.join(missing)}): {EXTRA_HINT}"
        result.gpu_status = "not run: the verify extra is missing"
        result.problems.append(result.suite_error)
    else:
        from mwbmigrate.verify.suite import NO_CUDA_REASON, SUITE_DIR

        with tempfile.TemporaryDirectory(prefix="mwbmigrate-verify-") as tmp:
            workdir = Path(tmp)
            cpu = _run_pytest(
                SUITE_DIR,
                ["."],
                tree=None if path is None else path.resolve(),
                keyword=keyword,
                extra_args=["-m", "not cuda"] if gpu == "off" else [],
                workdir=workdir,
                tag="suite",
                cuda_mode="defer",
            )
            runs.append(cpu)
            if not cpu.document:
                result.suite_error = "the suite did not report: " + (_summary_line(cpu.output) or "no output")
                result.problems.append(result.suite_error)
                result.tests = []
            else:
                result.suite_ran = True
                result.implementations = cpu.document.get("implementations", [])
                result.tree = cpu.document.get("tree")
                result.cuda_available = bool(cpu.document.get("cuda_available"))
                result.tests = list(cpu.tests)
                if cpu.exitstatus not in (0, 1, 5):
                    result.problems.append(
                        f"pytest stopped with exit status {cpu.exitstatus}: {_summary_line(cpu.output)}"
                    )
            if result.suite_ran and result.cuda_available and gpu != "off":
                cuda = _run_pytest(
                    SUITE_DIR,
                    [CUDA_MODULE],
                    tree=None if path is None else path.resolve(),
                    keyword=keyword,
                    extra_args=["-m", "cuda"],
                    workdir=workdir,
                    tag="cuda",
                    cuda_mode=None,
                )
                runs.append(cuda)
                result.tests += cuda.tests
                if not cuda.document:
                    result.problems.append(
                        "the CUDA run did not report: " + (_summary_line(cuda.output) or "no output")
                    )
                elif cuda.exitstatus not in (0, 1, 5):
                    result.problems.append(f"the CUDA run stopped with exit status {cuda.exitstatus}")
            if junit_xml is not None:
                _write_junit(junit_xml, result.static, runs)
        cuda_tests = [t for t in result.tests if t["group"] == "cuda"]
        ran = [t for t in cuda_tests if t["outcome"] != "skipped"]
        not_run = Counter(t["message"] for t in cuda_tests if t["outcome"] == "skipped")
        if gpu == "off":
            result.gpu_status = "not run: --gpu off"
        elif result.cuda_available is False:
            result.gpu_status = f"{NO_CUDA_REASON} ({len(cuda_tests)} CUDA tests)"
        elif result.cuda_available:
            parts = [f"{len(ran)} CUDA tests ran"] + [f"{n} {reason}" for reason, n in not_run.items()]
            result.gpu_status = ", ".join(parts)
        if gpu == "require" and (not result.cuda_available or not_run or not ran):
            result.problems.append(f"--gpu require: the CUDA tests did not all run ({result.gpu_status})")

    if junit_xml is not None and missing:
        _write_junit(junit_xml, result.static, runs)
    failed = [t for t in result.tests if t["outcome"] in FAILING]
    if failed:
        result.problems.append(f"{len(failed)} suite test(s) failed")
    if result.suite_ran and not any(t["outcome"] in PASSING | FAILING for t in result.tests):
        result.problems.append("no suite test ran" + (f" (-k {keyword!r} selected none)" if keyword else ""))
    tree = result.tree
    if tree and tree.get("is_core") and not tree.get("importable") and not failed:
        # Reported by the suite's import test too; kept here for a -k run that skipped it.
        result.problems.append(f"the tree cannot be imported: {tree.get('reason')}")
    result.exit_code = 1 if result.problems else 0
    return result


def run_verify(
    path: Path | None,
    *,
    gpu: str = "auto",
    junit_xml: Path | None = None,
    fmt: str = "text",
    keyword: str | None = None,
    allow_review_markers: bool = False,
    console: Any = None,
) -> int:
    """Run ``mwbmigrate verify`` and return its exit code (see the module docstring).

    ``console``: a ``rich.console.Console`` for the text summary (default: stdout); the JSON
    document (``fmt="json"``) is written to its file as plain text.
    """
    if gpu not in GPU_MODES:
        raise ValueError(f"gpu must be one of {', '.join(GPU_MODES)}, not {gpu!r}")
    if fmt not in FORMATS:
        raise ValueError(f"fmt must be one of {', '.join(FORMATS)}, not {fmt!r}")
    result = _verify(
        None if path is None else Path(path),
        gpu,
        None if junit_xml is None else Path(junit_xml),
        keyword,
        allow_review_markers,
    )
    if fmt == "json":
        out = getattr(console, "file", None) or sys.stdout
        out.write(json.dumps(result.to_dict(), indent=2) + "\n")
        out.flush()
    else:
        _render(result, console)
    return result.exit_code


# --------------------------------------------------------------------------- text rendering

_ORDER = ("passed", "failed", "error", "xfailed", "xpassed", "skipped")


def _cell(counts: Optional[dict[str, int]], messages: list[str]) -> str:
    if not counts:
        return "[dim]n/a[/dim]"
    parts = []
    for outcome in _ORDER:
        n = counts.get(outcome)
        if not n:
            continue
        if outcome == "skipped":
            reasons = sorted(set(messages)) or ["skipped"]
            parts.append(f"[yellow]{n} {' / '.join(reasons)}[/yellow]")
        elif outcome in FAILING:
            parts.append(f"[red]{n} {outcome}[/red]")
        else:
            parts.append(f"[green]{n} {outcome}[/green]" if outcome == "passed" else f"{n} {outcome}")
    return ", ".join(parts)


def _render(result: VerifyResult, console: Any) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = console or Console()
    static = result.static
    if static is not None:
        status = "[green]passed[/green]" if static.passed else "[red]failed[/red]"
        console.print(f"[bold]Static checks[/bold] on {escape(static.root)}: {static.files_checked} files, {status}")
        table = Table(show_header=True, header_style="bold")
        table.add_column("check")
        table.add_column("summary")
        table.add_column("findings", justify="right")
        counts = static.counts()
        for code, summary in CHECKS.items():
            n = counts[code]
            shown = (
                str(n)
                if not n
                else (
                    f"[yellow]{n} (allowed)[/yellow]"
                    if code == REVIEW_MARKER and static.allow_review_markers
                    else f"[red]{n}[/red]"
                )
            )
            table.add_row(code, summary, shown)
        console.print(table)
        for finding in static.findings:
            console.print(f"  {escape(finding.location())}: {finding.code} {escape(finding.message)}", highlight=False)
        for problem in static.problems:
            console.print(f"  [red]{escape(problem)}[/red]")

    console.print()
    if result.suite_error:
        console.print(f"[bold]Regression suite[/bold]: [red]not run[/red]: {escape(result.suite_error)}")
    elif result.suite_ran:
        impl_names = [impl["name"] for impl in result.implementations]
        for test in result.tests:  # e.g. the import check of a tree that did not import
            name = test.get("impl") or "all"
            if name not in impl_names:
                impl_names.append(name)
        console.print("[bold]Regression suite by group[/bold]")
        table = Table(show_header=True, header_style="bold")
        table.add_column("group")
        for name in impl_names:
            table.add_column(name)
        groups = _group_counts(result.tests)
        from mwbmigrate.verify.suite import GROUPS

        for group in [*GROUPS, *sorted(set(groups) - set(GROUPS))]:
            if group not in groups:
                continue
            row = [group]
            for name in impl_names:
                cell_counts = groups[group].get(name)
                messages = [
                    t["message"]
                    for t in result.tests
                    if t["group"] == group and t.get("impl") == name and t["outcome"] == "skipped"
                ]
                row.append(_cell(cell_counts, messages))
            table.add_row(*row)
        console.print(table)
        for test in result.tests:
            if test["outcome"] in FAILING:
                console.print(f"  [red]{test['outcome'].upper()}[/red] {escape(test['nodeid'])}", highlight=False)
                if test.get("message"):
                    console.print(f"      {escape(test['message'].splitlines()[0][:300])}", highlight=False)

        console.print("[bold]Implementations tested[/bold]")
        for impl in result.implementations:
            profile = (
                ", ".join(f"{k}={v}" for k, v in impl["profile"].items() if v is not None) or "no contract applies"
            )
            console.print(f"  {impl['name']}: {escape(impl['description'])} [dim]({escape(profile)})[/dim]")
            for note in impl.get("notes", []):
                console.print(f"    [dim]- {escape(note)}[/dim]")
        tree = result.tree
        if tree and not tree.get("importable"):
            console.print(f"  tree: [yellow]not tested[/yellow]: {escape(str(tree.get('reason')))}")

    gpu_colour = "green" if result.cuda_available and "not run" not in result.gpu_status else "yellow"
    console.print(
        f"[bold]GPU[/bold] (--gpu {result.gpu_mode}): [{gpu_colour}]{escape(result.gpu_status)}[/{gpu_colour}]"
    )
    if result.exit_code:
        console.print("[bold red]verify failed[/bold red]: " + escape("; ".join(result.problems)))
    else:
        console.print("[bold green]verify passed[/bold green]")
