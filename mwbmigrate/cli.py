"""The command line: parse flags, call the engine, render the report, pick the exit code.

Exit codes:
  0  success, or nothing to do
  1  --check found files that would change (or new review items)
  2  bad usage, or at least one file could not be processed (the others still are)
"""

from __future__ import annotations

import codecs
import enum
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, List, Mapping, Optional, Sequence

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from mwbmigrate import __version__
from mwbmigrate.analysis.target_versions import (
    DEFAULT_TARGET_VERSION,
    LATEST,
    LATEST_ALIAS,
    TARGET_VERSIONS,
    DerivedRelease,
    register_release,
    resolve_target,
)
from mwbmigrate.config import (
    MARKER_VALUES,
    ConfigError,
    configured_line_length,
    load_config,
    project_import_sorting,
    project_line_length,
    project_roots,
)
from mwbmigrate.engine.apply import dirty_files, write_result
from mwbmigrate.engine.cache import ResultCache
from mwbmigrate.engine.contract_scope import ContractBreak, counted, describe_causes
from mwbmigrate.engine.dependency import edited_file, plan_runtime_dependency, write_runtime_dependency
from mwbmigrate.engine.discovery import (
    Discovery,
    DiscoveryError,
    discover,
    discover_source,
    display_root,
    root_problem,
)
from mwbmigrate.engine.formatting import Formatter, FormatterMissing, resolve_formatter
from mwbmigrate.engine.options import NO_ELISION_ENV, TransformOptions
from mwbmigrate.engine.runner import ContractCheck, run_rewrite
from mwbmigrate.engine.vendoring import apply_vendoring
from mwbmigrate.log_progress import ProgressLines
from mwbmigrate.report import (
    MARKDOWN_BUDGET,
    colourise,
    dependency_diff,
    file_diff,
    render_json,
    render_markdown,
    render_summary,
    vendored_diff,
    vendored_packages,
)
from mwbmigrate.result import FileStatus, RunSummary
from mwbmigrate.review import REVIEW_CODES
from mwbmigrate.rules import RULES, dependents, rule_by_key, split_prerequisites

EXIT_OK, EXIT_CHANGES, EXIT_ERROR = 0, 1, 2
# Set (to anything), as --no-progress: no bar on a terminal, no progress lines in a log.
NO_PROGRESS_ENV = "MWBMIGRATE_NO_PROGRESS"

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Migrate SGLang forks and plugins from ModelWorkerBatch to ScheduleBatch.\n\n"
    "Exit codes: 0 success or nothing to do; 1 --check found changes; 2 bad usage or a file could not be processed.",
)


def _print_version(given: bool) -> None:
    if given:
        typer.echo(f"mwbmigrate {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _options(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    pass  # the app's help is Typer(help=...); this callback only holds the global --version


class OutputFormat(str, enum.Enum):
    text = "text"
    json = "json"
    markdown = "markdown"


class MarkerChoice(str, enum.Enum):
    hazards = "hazards"
    all = "all"
    none = "none"


class RuntimeMode(str, enum.Enum):
    import_ = "import"
    vendor = "vendor"


class FormatChanged(str, enum.Enum):
    """`--format-changed`: engine.formatting.CHOICES (see engine/formatting.py)."""

    auto = "auto"
    black = "black"
    ruff = "ruff"
    none = "none"


def _stderr() -> Console:
    # soft_wrap: paths and reasons stay on one line when piped, so they can be grepped.
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _fail(message: str) -> typer.Exit:
    _stderr().print(f"[red]error:[/red] {escape(message)}")
    return typer.Exit(EXIT_ERROR)


def _check_codes(keys: list[str]) -> None:
    """Refuse an unknown codemod or review code: dropping it silently would select or ignore nothing."""
    for key in keys:
        if rule_by_key(key) is None and key not in REVIEW_CODES:
            codemods = ", ".join(f"{c.code} ({c.name})" for c in sorted(RULES, key=lambda c: c.code))
            raise _fail(
                f"unknown codemod or review code {key!r}; codemods: {codemods}; review codes: {', '.join(sorted(REVIEW_CODES))}"
            )


def _disabled_codemods(select: list[str], ignore: list[str]) -> frozenset[str]:
    _check_codes([*select, *ignore])
    selected = {c.code for c in map(rule_by_key, select) if c is not None}
    disabled = {c.code for c in RULES if selected and c.code not in selected}
    ignored = {c.code for c in map(rule_by_key, ignore) if c is not None}
    # A codemod never runs without one it needs: ignoring a prerequisite turns off what needs it.
    cascaded = dependents(frozenset(ignored)) - ignored - disabled
    if cascaded:
        names_by_code = {c.code: c.name for c in RULES}
        names = ", ".join(f"{code} ({names_by_code[code]})" for code in sorted(cascaded))
        _stderr().print(f"note: also not run, because they need an ignored codemod: {escape(names)}")
    disabled |= ignored | cascaded
    split = split_prerequisites(frozenset(disabled))
    if split:
        raise _fail("a codemod cannot run without one it needs: " + "; ".join(split) + " (select them together)")
    return frozenset(disabled)


def _formatter(choice: str, paths: list[Path]) -> Formatter | None:
    """The formatter `--format-changed` names, resolved once before the run (a missing one: exit 2).
    `auto` takes the nearest configuration that names one: the pyproject.toml's folder, then the git
    work tree; when the one it finds is not installed, it warns and the run goes on unformatted (the
    rewrite already keeps to the tree's line length and import order)."""
    try:
        for root in project_roots(paths):
            formatter = resolve_formatter(choice, root)
            if formatter is not None or choice != FormatChanged.auto.value:
                return formatter
    except FormatterMissing as error:
        if choice != FormatChanged.auto.value:
            raise _fail(f"--format-changed {choice}: {error}") from error
        _stderr().print(f"warning: --format-changed auto: {escape(str(error))}; the rewrite is not formatted")
    return None


def _refuse_for_stdin(jobs: Optional[int], allow_dirty: bool, runtime: Optional[RuntimeMode]) -> None:
    """Flags that ask for something a module on stdin cannot have: refused rather than ignored."""
    if runtime is RuntimeMode.vendor:
        raise _fail("--runtime vendor writes the runtime into the tree; it cannot be used with `-` (stdin)")
    if allow_dirty:
        raise _fail("--allow-dirty concerns files written in place; it cannot be used with `-` (stdin)")
    if jobs is not None:
        raise _fail("--jobs spreads files over processes; it cannot be used with `-` (stdin), one module")


def _config_anchor(path: Path) -> Path:
    """Where the configuration of `path` is looked up: the path itself, else, for a symbolic link
    loop no resolution ends, the nearest folder above it that resolves (the loop is reported by
    discovery, one line, like any file that cannot be read)."""
    candidate = Path(os.path.abspath(path))
    while candidate.parent != candidate:
        try:
            candidate.resolve()
            return candidate
        except (RuntimeError, OSError):  # RuntimeError before Python 3.13, OSError (ELOOP) from it on
            candidate = candidate.parent
    return candidate


def _derived_target(given: str) -> DerivedRelease:
    """The target a wheel or folder names, read from it now (`verify/release_contract.py`)."""
    from mwbmigrate.verify.release import ReleaseUnavailable, locate_release
    from mwbmigrate.verify.release_contract import ContractUnreadable, Release, derive

    try:
        release = locate_release(given)
        rows = derive(Release.from_folder(release.root))
    except (ReleaseUnavailable, ContractUnreadable, OSError, SyntaxError) as error:
        raise _fail(f"--target-version {given}: {error}") from error
    derived = DerivedRelease(
        label=release.label,
        source=str(release.root),
        tp_worker=rows.tp_worker,
        spec_worker=rows.spec_worker,
        init_new=rows.init_new,
        attributes=tuple(sorted(rows.batch_attributes.items())),
        method_parameters=tuple(
            (cls, method, tuple(row[0] for row in parameters))
            for cls, by_method in sorted(rows.method_parameters.items())
            for method, parameters in sorted(by_method.items())
        ),
    )
    register_release(derived)
    return derived


@dataclass
class _ContractState:
    """What the contract step says of its run, for the report (the engine gets only the breaks)."""

    note: str = ""
    release: str = ""  # the release it ran against, once it ran
    files: int = 0  # how many files it checked

    def describe(self, owed: int, elsewhere: dict[str, int]) -> str:
        """The report's contract line, once the engine has split the breaks (engine/contract_scope.py)."""
        if not self.release:
            return self.note
        owes = (
            f"{counted(owed, 'break')} this migration owes, each marked MWB185 unless a rule marked its statement"
            if owed
            else "no break this migration owes"
        )
        text = f"checked against SGLang {self.release} ({counted(self.files, 'file')} outside SGLang's own modules): {owes}"
        others = sum(elsewhere.values())
        if others:
            text += (
                f"; {counted(others, 'more statement')} that this migration does not change use APIs "
                f"{self.release} changed ({describe_causes(elsewhere)}), not marked: "
                f"`mwbmigrate verify --against {self.release}` lists them"
            )
        return text


def _contract_check(release_name: str, root: Path, state: _ContractState, console: Console) -> ContractCheck:
    """`rewrite --target-version`'s last step: `verify --against`'s check on the rewritten texts."""
    from mwbmigrate.verify.against import breaks_by_file, check_rewritten
    from mwbmigrate.verify.release import ReleaseUnavailable, locate_release

    def check(texts: Mapping[Path, bytes], checked: frozenset[Path]) -> Mapping[Path, Sequence[ContractBreak]]:
        if not checked:
            state.note = "no file outside SGLang's own modules to check against the target's contract"
            return {}
        try:
            release = locate_release(release_name, shipped=True)
        except ReleaseUnavailable as error:
            state.note = f"not run ({error}); run `mwbmigrate verify --against {release_name}` once it can be fetched"
            console.print(f"[yellow]warning[/yellow] contract check {escape(state.note)}", markup=True, highlight=False)
            return {}
        state.release, state.files = release.label, len(checked)
        return breaks_by_file(check_rewritten(root, release, texts, checked))

    return check


@app.command()
def rewrite(
    # readable=False: click's readability check would refuse the whole run for one unreadable file,
    # with a usage error; discovery reports it ("permission denied") and processes the others.
    paths: List[Path] = typer.Argument(..., help="Files or folders to migrate.", show_default=False, readable=False),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Write nothing; print a unified diff that `git apply` accepts."
    ),
    check: bool = typer.Option(False, "--check", help="Write nothing; exit 1 when any file would change."),
    jobs: Optional[int] = typer.Option(
        None, "--jobs", "-j", min=1, help="Worker processes (default: number of cores)."
    ),
    include: List[str] = typer.Option(
        [], "--include", help="Only files matching this glob (gitignore syntax); repeatable."
    ),
    exclude: List[str] = typer.Option(
        [], "--exclude", help="Skip files matching this glob (gitignore syntax); repeatable."
    ),
    output_format: OutputFormat = typer.Option(OutputFormat.text, "--format", help="Report format on stdout."),
    allow_dirty: bool = typer.Option(False, "--allow-dirty", help="Rewrite files that have uncommitted changes."),
    no_progress: bool = typer.Option(
        False,
        "--no-progress",
        help=f"No progress bar on a terminal, no progress line every few seconds in a log (as ${NO_PROGRESS_ENV}).",
    ),
    markers: Optional[MarkerChoice] = typer.Option(
        None,
        "--markers",
        help="Review markers written into the code: hazards (the default: sites that may behave differently), all (notes too) or none (default: the configuration's `markers`).",
    ),
    no_markers: bool = typer.Option(False, "--no-markers", help="Write no review markers (as --markers none)."),
    select: List[str] = typer.Option([], "--select", help="Run only these codemods / report only these review codes."),
    ignore: List[str] = typer.Option([], "--ignore", help="Skip these codemods / review codes."),
    collapse_compat: bool = typer.Option(
        False,
        "--collapse-compat",
        help="Also rewrite version-gated compatibility code (hasattr/try-import/env switches) to the new API only.",
    ),
    live_batch: bool = typer.Option(
        False,
        "--live-batch",
        help="Read the live batch at every `get_model_worker_batch()` site, as upstream did, with a hazard marker where the window allowlist does not prove it the same (default: keep the snapshot in code there, `worker_batch_snapshot`).",
    ),
    clear_emptied_batches: bool = typer.Option(
        False,
        "--clear-emptied-batches",
        help="req-pool-mirror also clears the request-pool metadata where filter_batch empties a batch (upstream PR 28514's fuller repair; no release does it), reported.",
    ),
    stdin_filename: str = typer.Option(
        "<stdin>",
        "--stdin-filename",
        help="With PATH `-`: where the module lives (decides relative imports, the configuration, --include/--exclude and the paths reported).",
    ),
    target_version: Optional[str] = typer.Option(
        None,
        "--target-version",
        metavar="RELEASE",
        help=f"SGLang release whose API to produce: {TARGET_VERSIONS[0]} (the default) to {LATEST}, {LATEST_ALIAS} ({LATEST}), or a release's wheel or unpacked folder (read at run time: any release, also one this tool does not know).",
    ),
    contract_check: Optional[bool] = typer.Option(
        None,
        "--contract-check/--no-contract-check",
        help="Last step of a --target-version run: check the result against the target release's contract (what `verify --against` checks; shipped with mwbmigrate for the releases it knows, else read from the wheel, downloaded once into the cache) and mark each break no rule marked (MWB185). Default: on when a target version is given.",
    ),
    runtime: Optional[RuntimeMode] = typer.Option(
        None,
        "--runtime",
        help="How rewritten files reach the runtime helpers: import `mwbmigrate.runtime` (default), or vendor a private copy into their package.",
    ),
    no_cache: bool = typer.Option(
        False,
        "--no-cache",
        help="Process every file, without the result cache of earlier runs ($MWBMIGRATE_CACHE_DIR, else $XDG_CACHE_HOME/mwbmigrate or ~/.cache/mwbmigrate).",
    ),
    format_changed: Optional[FormatChanged] = typer.Option(
        None,
        "--format-changed",
        help="Format only the statements the rewrite changed: with black, ruff, auto (the formatter the repository configures, and isort where it sorts its imports; else nothing) or none (default: the configuration's `format-changed`, else auto).",
    ),
    markdown_limit: int = typer.Option(
        MARKDOWN_BUDGET,
        "--markdown-limit",
        metavar="N",
        min=1,
        help=f"With --format markdown: the most characters the report may have (default {MARKDOWN_BUDGET:,}, under the 65,536 a GitHub comment holds); what does not fit is left out, hazards last, and the report says what.",
    ),
) -> None:
    """Rewrite a codebase from ModelWorkerBatch to ScheduleBatch (in place unless --dry-run or --check).

    PATH `-` reads one module on stdin and handles it as the file --stdin-filename (its configuration,
    every flag): the module goes to stdout as that file would be written; --dry-run prints the patch,
    --check only the exit code, --format json/markdown the report. --jobs, --allow-dirty and
    --runtime vendor are refused with it.

    Exit codes: 0 success or nothing to do; 1 --check found changes; 2 bad usage or a file could
    not be processed (the others are still processed).
    """
    if dry_run and check:
        raise _fail("--dry-run and --check cannot be combined")
    derived: Optional[DerivedRelease] = None
    try:
        flag_target = resolve_target(target_version) if target_version is not None else None
    except ValueError as error:
        if target_version is None or not Path(target_version).expanduser().exists():
            raise _fail(f"--target-version: {error}") from error
        derived = _derived_target(target_version)
        flag_target = derived.label
    from_stdin = any(str(p) == "-" for p in paths)
    if from_stdin and len(paths) > 1:
        raise _fail("`-` (stdin) cannot be combined with other paths")
    if from_stdin:
        _refuse_for_stdin(jobs, allow_dirty, runtime)
    # The module on stdin gets the configuration of the file it stands for.
    config_paths = [_config_anchor(p) for p in ([Path(stdin_filename)] if from_stdin else paths)]
    try:
        config = load_config(config_paths)
    except ConfigError as error:
        raise _fail(str(error)) from error
    # Flags win over [tool.mwbmigrate]; list flags replace the configured list when given.
    include = include or config.include
    exclude = exclude or config.exclude
    select = select or config.select
    ignore = ignore or config.ignore
    jobs = jobs or config.jobs
    if no_markers:
        write_markers, note_markers = False, False
    elif markers is not None:
        write_markers, note_markers = MARKER_VALUES[markers.value]
    else:
        write_markers, note_markers = config.markers, config.note_markers
    target = flag_target or config.target_version or DEFAULT_TARGET_VERSION
    vendor_runtime = (
        runtime.value if runtime else config.runtime or RuntimeMode.import_.value
    ) == RuntimeMode.vendor.value
    formatter = _formatter(format_changed.value if format_changed else config.format_changed or "auto", config_paths)
    review_select = frozenset(k for k in select if k.startswith("MWB1")) or None
    options = TransformOptions(
        markers=write_markers,
        note_markers=note_markers,
        line_length=project_line_length(config_paths),
        wrap_line_length=configured_line_length(config_paths),
        import_sorting=project_import_sorting(config_paths),
        disabled=_disabled_codemods(select, ignore),
        selected_reviews=review_select,
        ignored_reviews=frozenset(k for k in ignore if k.startswith("MWB1")),
        collapse_compat=collapse_compat,
        live_batch=live_batch or config.live_batch,
        clear_emptied_batches=clear_emptied_batches or config.clear_emptied_batches,
        target_version=target,
        derived_release=derived,
        # The output is the same either way (engine/elision.py); set, it shows that a difference
        # is not elision's, at several times the cost.
        elide=not os.environ.get(NO_ELISION_ENV),
    )
    stdin_data = sys.stdin.buffer.read() if from_stdin else None
    discovery: Discovery
    try:
        # Here rather than in run_rewrite: the report lists the folders discovery skipped.
        if stdin_data is not None:
            discovery = discover_source(stdin_filename, stdin_data, include, exclude)
        else:
            discovery = discover(paths, include, exclude)
    except DiscoveryError as error:
        raise _fail(str(error)) from error
    console = _stderr()
    show_progress = not no_progress and not from_stdin and not os.environ.get(NO_PROGRESS_ENV)
    explicit_target = flag_target is not None or config.target_version is not None
    contract_state = _ContractState()
    contract = None
    if contract_check if contract_check is not None else explicit_target:
        checked_root = display_root([Path(stdin_filename)] if stdin_data is not None else paths)
        contract = _contract_check(derived.source if derived else target, checked_root, contract_state, console)

    bars: list[Progress] = []  # the bar the factory started, stopped whatever happens

    def progress_factory(total: int) -> Callable[[int], None]:
        if not console.is_terminal:
            # A log (CI): a line every few seconds; a bar's redraws would be noise or nothing.
            return ProgressLines(total, lambda line: console.print(line, markup=False, highlight=False))
        bar = Progress(
            TextColumn("rewrite"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        bar.start()
        bars.append(bar)
        task = bar.add_task("files", total=total)
        return lambda n: bar.advance(task, n)

    try:
        summary = run_rewrite(
            paths,
            options,
            include=include,
            exclude=exclude,
            jobs=jobs,
            progress_factory=progress_factory if show_progress else None,
            vendor_runtime=vendor_runtime,
            discovery=discovery,
            cache=None if no_cache else ResultCache.default(),
            formatter=formatter,
            contract=contract,
        )
    finally:
        for bar in bars:
            bar.stop()
    if contract_state.note or contract_state.release:
        summary.contract_note = contract_state.describe(summary.contract_breaks or 0, summary.contract_elsewhere)
    # Rewritten files that now import mwbmigrate.runtime: the tree's packaging must name it.
    tree_root = display_root([Path(stdin_filename)] if stdin_data is not None else paths)
    summary.runtime_dependency = plan_runtime_dependency(summary.results, tree_root)
    declaration_file = edited_file(summary.runtime_dependency)

    writing = not dry_run and not check
    vendored_changes = [v for v in summary.vendored if v.changed]
    if stdin_data is not None and writing and vendored_changes:
        folders = ", ".join(vendored_packages(summary))
        raise _fail(
            f"{stdin_filename}: the vendored runtime {folders} is missing or out of date, and stdin writes "
            "nothing but the module; run `mwbmigrate rewrite` on the tree first"
        )
    if stdin_data is None and writing and (summary.changed or vendored_changes) and not allow_dirty:
        # A refreshed vendored file is overwritten like a rewritten one: the same guard.
        refreshed = [Path(v.path) for v in vendored_changes if v.previous is not None]
        declaration = [declaration_file] if declaration_file is not None else []
        dirty = dirty_files([Path(r.path) for r in summary.changed] + refreshed + declaration)
        if dirty:
            names = "\n  ".join(str(p) for p in dirty)
            raise _fail(
                "refusing to rewrite files with uncommitted changes (commit or stash them, or pass --allow-dirty):\n  "
                + names
            )
    if writing and stdin_data is not None:
        _print_module(summary, stdin_data, output_format is OutputFormat.text)
    elif writing:
        # A run killed mid-write can leave its temporary file; the original beside it is intact.
        for temporary in summary.stale_temporaries:
            temporary.unlink(missing_ok=True)
        # The copy first, so that no rewritten file is ever left importing a missing package.
        apply_vendoring(summary)
        summary.runtime_dependency = write_runtime_dependency(summary.runtime_dependency)
        for index, result in enumerate(summary.results):
            if result.status is FileStatus.CHANGED:
                reason = write_result(result)
                if reason is not None:
                    summary.results[index] = replace(result, status=FileStatus.FAILED, error=reason)

    mode = "dry-run" if dry_run else "check" if check else "write"
    if output_format is OutputFormat.json:
        sys.stdout.write(render_json(summary, mode=mode, skipped_folders=discovery.skipped_folders))
    elif output_format is OutputFormat.markdown:
        sys.stdout.write(
            render_markdown(summary, skipped_folders=discovery.skipped_folders, limit=markdown_limit, wrote=writing)
        )
    else:
        if dry_run:
            colour = sys.stdout.isatty()
            for result in summary.changed:
                diff = file_diff(result)
                sys.stdout.flush()
                sys.stdout.buffer.write(
                    (colourise(diff) if colour else diff).encode(result.encoding, "surrogateescape")
                )
            for file in vendored_changes:
                diff = vendored_diff(file)
                sys.stdout.buffer.write((colourise(diff) if colour else diff).encode("utf-8", "surrogateescape"))
            diff = dependency_diff(summary.runtime_dependency)
            sys.stdout.buffer.write((colourise(diff) if colour else diff).encode("utf-8", "surrogateescape"))
            sys.stdout.flush()
        render_summary(summary, console, wrote=writing, skipped_folders=discovery.skipped_folders)

    declaration_failed = summary.runtime_dependency is not None and summary.runtime_dependency.error is not None
    if summary.failed or any(v.error for v in summary.vendored) or declaration_failed:
        raise typer.Exit(EXIT_ERROR)
    if check and (summary.changed or vendored_changes or declaration_file):
        raise typer.Exit(EXIT_CHANGES)
    raise typer.Exit(EXIT_OK)


class GpuMode(str, enum.Enum):
    auto = "auto"
    require = "require"
    off = "off"


class VerifyFormat(str, enum.Enum):
    text = "text"
    json = "json"


@app.command()
def verify(
    path: Optional[Path] = typer.Argument(
        None,
        help="A migrated tree to check statically (and whose own implementations to test when it is an importable SGLang tree).",
        readable=False,  # an unreadable file is the static check's to report, not a usage error
    ),
    gpu: GpuMode = typer.Option(
        GpuMode.auto,
        "--gpu",
        help="auto: run CUDA tests when CUDA is available; require: fail without CUDA; off: never.",
    ),
    junit_xml: Optional[Path] = typer.Option(None, "--junit-xml", help="Write a JUnit XML report for CI systems."),
    output_format: VerifyFormat = typer.Option(VerifyFormat.text, "--format", help="Summary format."),
    keyword: Optional[str] = typer.Option(None, "-k", help="Only suite tests matching this pytest -k expression."),
    allow_review_markers: bool = typer.Option(
        False, "--allow-review-markers", help="Remaining `# mwbmigrate:` markers are listed but do not fail."
    ),
    against: Optional[str] = typer.Option(
        None,
        "--against",
        help="Instead: check PATH statically against a real SGLang release (a version to download, a wheel or an unpacked folder); exit 1 on a mismatch.",
    ),
    baseline: Optional[str] = typer.Option(
        None,
        "--baseline",
        help="With --against: the SGLang release PATH is based on (a version, a wheel or a folder); what that release's own tree mismatches is not counted (matched by kind, module, function and message, not by line).",
    ),
    changed_since: Optional[str] = typer.Option(
        None,
        "--changed-since",
        metavar="REV",
        help="With --against: count only mismatches in files that changed between the git revision REV and the working tree (untracked files included).",
    ),
    touched_statements: bool = typer.Option(
        False,
        "--touched-statements",
        help="With --changed-since: count only mismatches on statements the diff touches (a changed line in the statement, in a compound statement's header, or in the comments right above it).",
    ),
) -> None:
    """Check a migrated tree and run the regression suite (exit 0 only when everything that ran passed)."""
    from mwbmigrate.verify.runner import run_verify

    # A folder or a regular file only, decided by os.stat: a FIFO would block the check, a link loop raise.
    problem = None if path is None else root_problem(path)
    if problem is not None:
        raise _fail(f"{path}: {problem}")
    if against is not None:
        from mwbmigrate.verify.against import run_against

        if path is None:
            raise _fail("--against needs PATH, the tree to check")
        if touched_statements and changed_since is None:
            raise _fail("--touched-statements needs --changed-since REV, the revision to diff against")
        raise typer.Exit(
            run_against(
                path,
                against,
                fmt=output_format.value,
                allow_review_markers=allow_review_markers,
                baseline=baseline,
                changed_since=changed_since,
                touched_statements=touched_statements,
            )
        )
    for flag, given in (
        ("--baseline", baseline is not None),
        ("--changed-since", changed_since is not None),
        ("--touched-statements", touched_statements),
    ):
        if given:
            raise _fail(f"{flag} needs --against RELEASE: it narrows what that check counts")
    code = run_verify(
        path,
        gpu=gpu.value,
        junit_xml=junit_xml,
        fmt=output_format.value,
        keyword=keyword,
        allow_review_markers=allow_review_markers,
    )
    raise typer.Exit(code)


def _print_module(summary: RunSummary, data: bytes, text_format: bool) -> None:
    """Stdin's "write": the module on stdout, in its own encoding (as the file would be written).

    Nothing when it could not be processed; with --format json/markdown the report takes stdout."""
    if summary.failed or not text_format:
        return
    changed = summary.changed[0] if summary.changed else None
    if changed is None:
        output = data
    else:
        text = (changed.rewritten or "").encode(changed.encoding, "surrogateescape")
        output = codecs.BOM_UTF8 + text if changed.has_bom else text
    sys.stdout.flush()
    sys.stdout.buffer.write(output)
    sys.stdout.flush()


@app.command("list-codemods")
def list_codemods() -> None:
    """List every codemod with its code and one-line description."""
    for rule in RULES:
        typer.echo(f"{rule.code}  {rule.name:<20} {rule.summary}")


@app.command()
def explain(
    code: Optional[str] = typer.Argument(
        None, help="A codemod (MWB0xx or its name) or a review code (MWB1xx).", show_default=False
    ),
    show_all: bool = typer.Option(False, "--all", help="Explain every codemod and review code."),
) -> None:
    """Explain a codemod or review code: what it means, a before/after example, what to do."""
    from mwbmigrate.review import explain as explain_text, explain_all

    if show_all == (code is not None):
        raise _fail("give one CODE, or --all")
    text = explain_all() if code is None else explain_text(code)
    if text is None:
        raise _fail(
            f"unknown code {code!r}; `mwbmigrate list-codemods` lists the codemods, `mwbmigrate explain --all` every code"
        )
    # Plain text: the examples are code, which rich markup would mangle.
    sys.stdout.write(text)


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
