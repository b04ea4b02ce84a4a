"""Static checks on a migrated tree: what is left of the old API, without importing anything.

Five checks, each finding carrying a stable code, the file (relative to the checked root), the
line and a message:

=========  ===================================================================================
code       finding
=========  ===================================================================================
VFY001     a code token ``ModelWorkerBatch`` / ``get_model_worker_batch`` / ``model_worker_batch``
           (found with :mod:`tokenize`; comments and strings are allowed)
VFY002     the file does not compile
VFY003     ``ScheduleBatch`` is used but neither imported nor defined in the enclosing scopes
VFY004     a call passes ``model_worker_batch=`` (the parameter was renamed)
VFY005     a ``# mwbmigrate: MWBxxx ...`` review marker is still there
=========  ===================================================================================

VFY005 is a failure unless ``allow_review_markers``; the others always are.

Standard library only: a fork maintainer can run this on a laptop without the ``verify`` extra.
The names are repeated from ``mwbmigrate.analysis.old_api`` on purpose, so this module does not
pull in libcst.
"""

from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from mwbmigrate.engine.source import UnreadableFile, read_regular_file

__all__ = [
    "CHECKS",
    "OLD_API_TOKENS",
    "Finding",
    "StaticReport",
    "check_source",
    "check_tree",
    "count_old_api_tokens",
    "iter_python_files",
]

OLD_API_TOKENS = frozenset({"ModelWorkerBatch", "get_model_worker_batch", "model_worker_batch"})
NEW_CLASS = "ScheduleBatch"
RENAMED_KEYWORD = "model_worker_batch"

OLD_TOKEN = "VFY001"
SYNTAX = "VFY002"
UNDEFINED_SCHEDULE_BATCH = "VFY003"
RENAMED_KEYWORD_CALL = "VFY004"
REVIEW_MARKER = "VFY005"

#: code -> one-line summary, in report order.
CHECKS: dict[str, str] = {
    OLD_TOKEN: "no code token of the old API left",
    SYNTAX: "every file compiles",
    UNDEFINED_SCHEDULE_BATCH: "ScheduleBatch imported or defined where used",
    RENAMED_KEYWORD_CALL: "no call passes the renamed keyword model_worker_batch=",
    REVIEW_MARKER: "no mwbmigrate review marker left",
}

# Folders that never hold the code under check; pruned before descending.
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        "__pycache__",
        "build",
        "dist",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".eggs",
        "node_modules",
        "site-packages",
    }
)

# "# mwbmigrate: MWB101 reason" (the codemods' marker_text); any MWB code is listed.
_MARKER = re.compile(r"#\s*mwbmigrate:\s*(?P<code>MWB\w+)\s*(?P<reason>.*)")
_OLD_OR_MARKER = re.compile(r"ModelWorkerBatch|model_worker_batch|mwbmigrate:")


@dataclass(frozen=True)
class Finding:
    code: str
    file: str  # relative to the checked root, POSIX separators
    line: int
    message: str

    def location(self) -> str:
        return f"{self.file}:{self.line}"

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "file": self.file, "line": self.line, "message": self.message}


@dataclass(frozen=True)
class StaticReport:
    root: str
    files_checked: int
    findings: tuple[Finding, ...] = ()
    allow_review_markers: bool = False
    problems: tuple[str, ...] = field(default=())  # files that could not be read

    def failing(self) -> list[Finding]:
        """The findings that make the check fail (review markers only when not allowed)."""
        return [f for f in self.findings if not (f.code == REVIEW_MARKER and self.allow_review_markers)]

    @property
    def passed(self) -> bool:
        return not self.failing() and not self.problems

    def counts(self) -> dict[str, int]:
        counted = Counter(f.code for f in self.findings)
        return {code: counted.get(code, 0) for code in CHECKS}

    def to_dict(self) -> dict[str, object]:
        return {
            "root": self.root,
            "files_checked": self.files_checked,
            "passed": self.passed,
            "allow_review_markers": self.allow_review_markers,
            "checks": {code: {"summary": summary, "findings": self.counts()[code]} for code, summary in CHECKS.items()},
            "findings": [f.to_dict() for f in self.findings],
            "problems": list(self.problems),
        }


def _is_virtualenv(directory: Path) -> bool:
    return (directory / "pyvenv.cfg").is_file()


def iter_python_files(root: Path) -> Iterator[Path]:
    """``*.py`` files under ``root`` (or ``root`` itself), sorted, skipping VCS, venv and build dirs."""
    if root.is_file():
        yield root
        return
    for directory, dirnames, filenames in os.walk(root):
        here = Path(directory)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIPPED_DIRS and not d.endswith(".egg-info") and not _is_virtualenv(here / d)
        )
        for name in sorted(filenames):
            if name.endswith(".py"):
                yield here / name


# --------------------------------------------------------------------------- token checks


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def count_old_api_tokens(source: str) -> int:
    """How many NAME tokens of the old API the source holds (comments and strings excluded)."""
    try:
        return sum(t.type == tokenize.NAME and t.string in OLD_API_TOKENS for t in _tokens(source))
    except (tokenize.TokenError, SyntaxError):
        return 0


def _token_findings(source: str, rel: str) -> list[Finding]:
    findings = []
    try:
        tokens = _tokens(source)
    except (tokenize.TokenError, SyntaxError):
        return []  # reported by the compile check
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in OLD_API_TOKENS:
            findings.append(
                Finding(
                    OLD_TOKEN,
                    rel,
                    tok.start[0],
                    f"old API name `{tok.string}` in code: {tok.line.strip()[:120]}",
                )
            )
        elif tok.type == tokenize.COMMENT:
            match = _MARKER.search(tok.string)
            if match:
                reason = match.group("reason").strip()
                findings.append(
                    Finding(
                        REVIEW_MARKER,
                        rel,
                        tok.start[0],
                        f"review marker {match.group('code')}" + (f": {reason}" if reason else ""),
                    )
                )
    return findings


# --------------------------------------------------------------------------- ScheduleBatch scopes


def _binds(node: ast.AST, name: str) -> bool:
    """Whether ``node`` (a statement or expression) binds ``name`` in the scope it runs in."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        for alias in node.names:
            if alias.name == "*":
                return True  # cannot know: be conservative
            bound = alias.asname or alias.name.split(".")[0]
            if bound == name:
                return True
        return False
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name == name
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, (ast.Store, ast.Del))
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return name in node.names
    if isinstance(node, ast.arg):
        return node.arg == name
    if isinstance(node, ast.ExceptHandler):
        return node.name == name
    if isinstance(node, ast.alias):
        return False
    if isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return node.name == name
    if isinstance(node, ast.MatchMapping):
        return node.rest == name
    return False


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _scope_binds(scope: ast.AST, name: str) -> bool:
    """Whether a binding of ``name`` happens directly in ``scope`` (not in nested scopes)."""
    stack: list[ast.AST] = []
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        args = scope.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.arg == name:
                return True
        stack.extend(scope.body if isinstance(scope.body, list) else [scope.body])
    elif isinstance(scope, (ast.Module, ast.ClassDef)):
        stack.extend(scope.body)
    while stack:
        node = stack.pop()
        if _binds(node, name):  # a def/class statement binds its own name here
            return True
        if isinstance(node, _SCOPES):
            continue  # its body is another scope
        stack.extend(ast.iter_child_nodes(node))
    return False


def _annotation_strings(tree: ast.AST) -> Iterator[tuple[ast.Constant, ast.AST]]:
    """String annotations (``"ScheduleBatch"``), parsed as expressions, with their location."""

    def annotations() -> Iterator[ast.AST]:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                    if arg is not None and arg.annotation is not None:
                        yield arg.annotation
                if node.returns is not None:
                    yield node.returns
            elif isinstance(node, ast.AnnAssign):
                yield node.annotation

    for annotation in annotations():
        for sub in ast.walk(annotation):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                try:
                    parsed = ast.parse(sub.value, mode="eval")
                except SyntaxError:
                    continue
                yield sub, parsed


def _outer_parts(node: ast.AST) -> list[ast.AST]:
    """The parts of a def/class/lambda that run in the enclosing scope."""
    parts: list[ast.AST] = [*getattr(node, "decorator_list", [])]
    if isinstance(node, ast.ClassDef):
        parts += [*node.bases, *node.keywords]
    else:
        args = node.args  # type: ignore[attr-defined]
        parts += [*args.defaults, *[d for d in args.kw_defaults if d is not None]]
        if not isinstance(node, ast.Lambda):
            parts += [
                a.annotation
                for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                if a is not None and a.annotation is not None
            ]
            if node.returns is not None:  # type: ignore[attr-defined]
                parts.append(node.returns)  # type: ignore[attr-defined]
    return parts


def _undefined_schedule_batch(tree: ast.Module, rel: str) -> list[Finding]:
    uses: list[tuple[int, list[ast.AST]]] = []  # (line, enclosing scopes, innermost last)

    def visit(node: ast.AST, scopes: list[ast.AST]) -> None:
        if isinstance(node, ast.Name):
            if node.id == NEW_CLASS and isinstance(node.ctx, ast.Load):
                uses.append((node.lineno, scopes))
            return
        if isinstance(node, _SCOPES):
            for part in _outer_parts(node):
                visit(part, scopes)
            body = node.body if isinstance(node.body, list) else [node.body]
            for statement in body:
                visit(statement, [*scopes, node])
            return
        for child in ast.iter_child_nodes(node):
            visit(child, scopes)

    visit(tree, [tree])
    for constant, parsed in _annotation_strings(tree):
        if any(isinstance(n, ast.Name) and n.id == NEW_CLASS for n in ast.walk(parsed)):
            uses.append((constant.lineno, [tree]))  # string annotations resolve at module level

    findings = []
    seen_lines: set[int] = set()
    cache: dict[int, bool] = {}
    for line, scopes in sorted(uses, key=lambda u: u[0]):
        defined = False
        for index, scope in enumerate(reversed(scopes)):
            # A class body is visible only to code directly inside it, not to its methods.
            if isinstance(scope, ast.ClassDef) and index != 0:
                continue
            key = id(scope)
            if key not in cache:
                cache[key] = _scope_binds(scope, NEW_CLASS)
            if cache[key]:
                defined = True
                break
        if not defined and line not in seen_lines:
            seen_lines.add(line)
            findings.append(
                Finding(
                    UNDEFINED_SCHEDULE_BATCH,
                    rel,
                    line,
                    "`ScheduleBatch` is used here but not imported or defined in this module",
                )
            )
    return findings


def _renamed_keyword_calls(tree: ast.Module, rel: str) -> list[Finding]:
    findings = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == RENAMED_KEYWORD:
                    findings.append(
                        Finding(
                            RENAMED_KEYWORD_CALL,
                            rel,
                            keyword.value.lineno,
                            f"call passes `{RENAMED_KEYWORD}=`; the parameter is now `batch`",
                        )
                    )
    return findings


# --------------------------------------------------------------------------- entry points


def check_source(source: str, rel: str = "<string>") -> list[Finding]:
    """All findings for one file's text, sorted by line then code."""
    findings: list[Finding] = []
    # Text prefilters: tokenizing and walking the AST are skipped for files that cannot match.
    if _OLD_OR_MARKER.search(source):
        findings += _token_findings(source, rel)
    try:
        compile(source, rel, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        line = getattr(error, "lineno", None) or 1
        message = getattr(error, "msg", None) or str(error)
        findings.append(Finding(SYNTAX, rel, line, f"does not compile: {message}"))
        return sorted(findings, key=lambda f: (f.line, f.code))
    has_new, has_keyword = NEW_CLASS in source, RENAMED_KEYWORD in source
    if has_new or has_keyword:
        tree = ast.parse(source, filename=rel)
        if has_new:
            findings += _undefined_schedule_batch(tree, rel)
        if has_keyword:
            findings += _renamed_keyword_calls(tree, rel)
    return sorted(findings, key=lambda f: (f.line, f.code))


def _read(path: Path) -> str:
    # A regular file only (engine/source.py): a FIFO or device named `*.py` must not block the check.
    data = read_regular_file(path, follow_symlinks=True)
    # As tokenize.open reads: PEP 263 coding cookies and BOMs honoured, newlines universal.
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return io.TextIOWrapper(io.BytesIO(data), encoding, line_buffering=True).read()


def _check_file(args: tuple[Path, str]) -> tuple[str, list[Finding] | None, str | None]:
    path, rel = args
    try:
        source = _read(path)
    except UnreadableFile as error:
        return rel, None, f"{rel}: {error}"
    except (OSError, SyntaxError, UnicodeDecodeError) as error:
        return rel, None, f"{rel}: cannot read: {error}"
    return rel, check_source(source, rel), None


# Compiling is the slow part (a few ms a file); large trees are checked in worker processes.
_PARALLEL_THRESHOLD = 200


def check_tree(
    root: Path,
    *,
    allow_review_markers: bool = False,
    files: Iterable[Path] | None = None,
    jobs: int | None = None,
) -> StaticReport:
    """Run every check on each Python file under ``root``.

    ``jobs``: worker processes for large trees (default: the CPU count; 1 checks in-process).
    """
    root = Path(root)
    base = root if root.is_dir() else root.parent
    work = [
        (path, path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path))
        for path in (files if files is not None else iter_python_files(root))
    ]
    jobs = jobs if jobs is not None else (os.cpu_count() or 1)
    if jobs > 1 and len(work) >= _PARALLEL_THRESHOLD:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_check_file, work, chunksize=32))
    else:
        results = [_check_file(item) for item in work]
    findings: list[Finding] = []
    problems: list[str] = []
    count = 0
    for _rel, found, problem in results:
        if problem is not None:
            problems.append(problem)
            continue
        count += 1
        findings += found or []
    findings.sort(key=lambda f: (f.file, f.line, f.code))
    return StaticReport(
        root=str(root),
        files_checked=count,
        findings=tuple(findings),
        allow_review_markers=allow_review_markers,
        problems=tuple(problems),
    )
