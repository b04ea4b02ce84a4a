"""Run the codemods over a tree: discover, prefilter, transform in parallel (two passes), collect.

The parent reads every file once and prefilters it (bytes, then tokens: engine/prefilter.py); only
the files left, the candidates, go to worker processes, largest first and one file per task, so
that no worker is left holding a run of big files while the others idle. Results are put back in
discovery order, so the output is the same whatever order the workers finish in.

Pass 1 transforms every candidate and records the signatures whose parameters were renamed. The
signatures are merged, then pass 2 rewrites keyword callers in the files that still pass
`model_worker_batch=`. With a result cache (engine/cache.py), a file whose result is known for its
bytes, its path and the options is not transformed again, in either pass.
"""

from __future__ import annotations

import functools
import os
import re
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

from mwbmigrate.analysis.isolation import ProjectCallers, scan_callers
from mwbmigrate.analysis.names import ModuleLocation
from mwbmigrate.analysis.project_classes import ProjectClassScan, ProjectWorkers
from mwbmigrate.analysis.signatures import ProjectSignatures, RenamedSignature, module_parts
from mwbmigrate.analysis.target_versions import RENAMED_KEYWORD_METHODS
from mwbmigrate.analysis.tree_facts import OwnWorkerBatchFields, WindowFacts, WindowFactsScan, own_worker_batch_fields
from mwbmigrate.engine.cache import ResultCache
from mwbmigrate.engine.code_view import code_candidate
from mwbmigrate.engine.contract_scope import ContractBreak, ContractScope, in_sglang_package, owed_breaks
from mwbmigrate.engine.discovery import DiscoveredFile, Discovery, discover
from mwbmigrate.engine.formatting import Formatter, format_result
from mwbmigrate.engine.options import TransformOptions
from mwbmigrate.engine.pause import pause_point
from mwbmigrate.engine.review_locations import MARKER_BYTES, final_review_items
from mwbmigrate.engine.source import UnreadableFile, UnreadableSource, decode_source, read_regular_file
from mwbmigrate.engine.vendoring import is_vendored, options_for_file, plan_vendoring
from mwbmigrate.result import FileResult, FileStatus, ReviewItem, RunSummary
from mwbmigrate.rules import codes_of

_KEYWORD_USE = re.compile(r"\b(\w+)\s*=")
# Below this many candidate files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 8

Progress = Callable[[int], None]
# `rewrite --target-version`'s last step, given by the caller (the CLI builds it from `verify`):
# the final text of every file the run parsed (resolved path -> bytes) and the files to check in,
# and for each file the breaks the target release's contract still finds out (of which the run marks
# those it owes: engine/contract_scope.py).
ContractCheck = Callable[[Mapping[Path, bytes], frozenset[Path]], Mapping[Path, Sequence[ContractBreak]]]
_Item = TypeVar("_Item")
_PassOne = tuple[DiscoveredFile, TransformOptions]
_PassTwo = tuple[FileResult, TransformOptions, "bytes | None"]


# The transform and the codemods are imported where a file is transformed, never at the module's top:
# a run whose every result comes from the cache (a `--check` in CI) imports no codemod and no LibCST.


def _pass_one(item: _PassOne) -> FileResult:
    from mwbmigrate.codemods import CODEMODS
    from mwbmigrate.engine.transform import transform_file

    discovered, options = item
    pause_point("transform")
    return transform_file(discovered.path, discovered.display_path, options, CODEMODS, data=discovered.data)


def _pass_two(item: _PassTwo) -> FileResult:
    from mwbmigrate.codemods import SECOND_PASS_CODEMODS
    from mwbmigrate.engine.transform import transform_file

    first, options, data = item
    text = first.rewritten if first.rewritten is not None else None
    second = transform_file(
        Path(first.path), first.display_path, options, SECOND_PASS_CODEMODS, source_text=text, data=data
    )
    if second.status is FileStatus.FAILED:
        return second
    if text is None and second.status is FileStatus.UNCHANGED:
        return first
    suggestions = {(i.code, i.message): i.suggestion for i in first.review_items}
    items = tuple(
        replace(i, suggestion=i.suggestion or suggestions.get((i.code, i.message), "")) for i in second.review_items
    )
    return _after(first, second, items)


def _after(earlier: FileResult, later: FileResult, items: tuple[ReviewItem, ...]) -> FileResult:
    """`later`'s result of a pass run on `earlier`'s text, with both passes' findings and codemods.
    Findings are each pass's own (never read back off the text): the earlier's, then the later's on a line."""
    return replace(
        later,
        review_items=tuple(sorted(earlier.review_items + items, key=lambda i: (i.line, i.column))),
        applied=tuple(dict.fromkeys(earlier.applied + later.applied)),
        renamed_signatures=earlier.renamed_signatures,
    )


def _text_after_pass_one(result: FileResult, data: bytes | None) -> str:
    """The module's text now: pass 1's output, else the original (from the bytes read, or the file)."""
    if result.rewritten is not None:
        return result.rewritten
    if data is not None:
        return data.decode(result.encoding, "replace")
    try:
        return read_regular_file(result.path).decode(result.encoding, "replace")
    except UnreadableFile:
        return ""  # an unchanged file that is no longer a regular file: nothing for pass 2 to look at


@dataclass(frozen=True)
class ProjectFacts:
    """What the pre-pass reads of the whole tree, for every file's transform (TransformOptions'
    fields of the same meaning)."""

    request_mirror: bool | None
    own_worker_batch_fields: OwnWorkerBatchFields
    project_callers: ProjectCallers
    project_defines: frozenset[str]
    window_facts: WindowFacts
    project_workers: ProjectWorkers


def _project_facts(files: Sequence[DiscoveredFile], options: TransformOptions) -> ProjectFacts:
    """The pre-pass over `files` (their bytes read already; an unreadable file is left out), with
    `options.project_workers` and `options.request_mirror` read already (`_prefilter_facts`):

    - which of SGLang's methods whose keywords a release renamed the tree defines outside SGLang's
      own modules: a call on a receiver nothing types may then be the tree's own method
      (removed-fields);
    - what breaks a snapshot window's proof anywhere in the tree (analysis/tree_facts.py);
    - the modules outside SGLang's own package (analysis/project_classes.py);
    - the call sites of the functions that take the old object (analysis/isolation.py);
    - the fields the tree's own `ModelWorkerBatch` adds to 0.5.12.post1's (a fork of SGLang)."""
    defined: set[str] = set()
    window = WindowFactsScan()
    own = OwnWorkerBatchFields()
    readable: list[bytes] = []
    for discovered in files:
        data = discovered.data
        if data is None:
            continue
        readable.append(data)
        window.feed(discovered.display_path, data, Path(discovered.path).resolve().as_posix())
        location = ModuleLocation(Path(discovered.path).as_posix(), options.extra_modules)
        if location.is_schedule_batch_module and b"class ModelWorkerBatch" in data:
            own = own_worker_batch_fields(data)
        if not location.inside_sglang:
            defined.update(name for name in RENAMED_KEYWORD_METHODS if f"def {name}".encode() in data)
    return ProjectFacts(
        options.request_mirror,
        own,
        scan_callers(readable, own.copied),
        frozenset(defined),
        window.facts(),
        options.project_workers,
    )


def _prefilter_facts(files: Sequence[DiscoveredFile], options: TransformOptions) -> TransformOptions:
    """`options` with the first of the pre-pass's facts, those the prefilter reads:

    - the project index of worker classes (analysis/project_classes.py): a mixin's module may name
      no worker;
    - whether the tree's own ScheduleBatch keeps `req_pool_indices_cpu` (0.5.13 on), None when the
      tree holds no SGLang `schedule_batch.py` (a plugin: its builders serve a newer SGLang)."""
    classes = ProjectClassScan()
    request_mirror: bool | None = None
    for discovered in files:
        location = ModuleLocation(Path(discovered.path).as_posix(), options.extra_modules)
        if discovered.data is None:
            continue
        if location.is_schedule_batch_module:
            request_mirror = bool(request_mirror) or b"req_pool_indices_cpu" in discovered.data
        if not location.inside_sglang:
            classes.feed(location.path, discovered.display_path, discovered.data)
    return replace(options, project_workers=classes.workers(), request_mirror=request_mirror)


def _cached_project_facts(
    files: Sequence[DiscoveredFile], options: TransformOptions, cache: ResultCache | None
) -> ProjectFacts:
    """`_project_facts`, kept in the result cache under every file's path and bytes: a run over a
    tree that did not change since the last one reads nothing more than their hashes."""
    if cache is None:
        return _project_facts(files, options)
    key = cache.key("project", options.extra_modules, [(str(f.path), f.display_path, f.data) for f in files])
    found = cache.load_object(key, ProjectFacts)
    if found is None:
        found = _project_facts(files, options)
        cache.store_object(key, found)
    return found


def _read_once(files: Sequence[DiscoveredFile]) -> list[DiscoveredFile]:
    """Each file with its bytes, read now, once, for every step of the run; one that cannot be read
    is kept without them, and the first pass reports why."""
    read = []
    for discovered in files:
        if discovered.data is None:
            try:
                discovered = replace(discovered, data=read_regular_file(discovered.path))
            except UnreadableFile:
                pass
        read.append(discovered)
    return read


def merge_signatures(results: Iterable[FileResult]) -> ProjectSignatures:
    """Every file's renamed signatures, each with the module that defines it (its path), so a
    keyword caller is renamed only where its callee is that definition (keyword-callers).

    SGLang's own renames come with them, so a plugin's keyword callers follow SGLang's API.
    """
    renamed: dict[RenamedSignature, None] = {}
    for result in results:
        module = module_parts(result.path)
        for qualified, old, new in result.renamed_signatures:
            renamed[RenamedSignature(module, qualified, old, new)] = None
    return ProjectSignatures(tuple(renamed))


def _map(
    function: Callable[[_Item], FileResult],
    items: Sequence[tuple[int, _Item, int]],
    jobs: int,
    progress: Progress | None,
) -> dict[int, FileResult]:
    """`function` over `(index, item, size)` items, largest first, one item per task; results by index."""
    ordered = sorted(items, key=lambda entry: -entry[2])
    results: dict[int, FileResult] = {}
    if jobs <= 1 or len(ordered) < PARALLEL_THRESHOLD:
        for index, item, _ in ordered:
            results[index] = function(item)
            if progress:
                progress(1)
        return results
    with ProcessPoolExecutor(max_workers=min(jobs, len(ordered))) as pool:
        futures: dict[Future[FileResult], int] = {pool.submit(function, item): index for index, item, _ in ordered}
        try:
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                if progress:
                    progress(1)
        except BaseException:
            for future in futures:  # queued files are not started once the run is stopping
                future.cancel()
            # Ctrl-C reaches the workers too: one it catches while it reads the task queue can leave
            # the pool's shutdown waiting for ever, so a stopping run ends its workers itself.
            for process in list(pool._processes.values()):
                process.terminate()
            raise
    return results


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _read(discovered: DiscoveredFile) -> bytes:
    """The file's bytes; `UnreadableFile` with the reason when it is no regular file now (it may have
    been replaced since discovery: engine/source.py never lets that block the run)."""
    if discovered.data is not None:
        return discovered.data
    return read_regular_file(discovered.path)


@dataclass
class _FirstPass:
    """Pass 1's bookkeeping, by discovery index."""

    results: dict[int, FileResult]
    data: dict[int, bytes]  # the bytes read, for the byte-prefilter candidates
    keys: dict[int, str]  # their cache keys (with a cache)
    marked: dict[int, bytes]  # the bytes of the files the prefilter let go that carry review markers
    prose_only: set[int]  # candidates the token prefilter let go: still read by pass 2


def _first_pass(
    files: list[DiscoveredFile],
    prefilter_options: TransformOptions,
    options_of: Callable[[DiscoveredFile], TransformOptions],
    jobs: int,
    progress: Progress | None,
    cache: ResultCache | None,
) -> _FirstPass:
    """`prefilter_options`: the run's options with the facts the prefilter reads (the project's
    workers); `options_of`: a file's whole options, asked only for a file the prefilter keeps (the
    rest of the pre-pass runs then, once)."""
    state = _FirstPass({}, {}, {}, {}, set())
    work: list[tuple[int, _PassOne, int]] = []
    for index, discovered in enumerate(files):
        try:
            data = _read(discovered)
        except UnreadableFile as error:
            # Said here, not by the transform: reading the path again there could block on a FIFO.
            state.results[index] = FileResult(
                str(discovered.path), discovered.display_path, FileStatus.FAILED, error=str(error)
            )
            if progress:
                progress(1)
            continue
        if not prefilter_options.candidate(data, str(discovered.path)):
            state.results[index] = FileResult(str(discovered.path), discovered.display_path, FileStatus.SKIPPED)
            if MARKER_BYTES in data:
                state.marked[index] = data
            if progress:
                progress(1)
            continue
        state.data[index] = data
        if not _code_candidate(discovered, data, prefilter_options, cache):
            # Its words are in prose only, or no codemod has work left in it (a migrated module):
            # pass 2 still reads it, for a keyword caller.
            state.results[index] = FileResult(str(discovered.path), discovered.display_path, FileStatus.SKIPPED)
            state.prose_only.add(index)
            if progress:
                progress(1)
            continue
        options = options_of(discovered)
        if cache is not None:
            # Not the absolute path: a copy of the tree elsewhere gets the same results.
            location = ModuleLocation(Path(discovered.path).as_posix(), options.extra_modules).sglang_context
            state.keys[index] = key = cache.key(
                "pass-1", location, discovered.display_path, data, options, codes_of("first")
            )
            cached = cache.load(key, str(discovered.path), discovered.display_path)
            if cached is not None:
                state.results[index] = cached
                if cached.status is FileStatus.SKIPPED:
                    state.prose_only.add(index)
                if progress:
                    progress(1)
                continue
        from mwbmigrate.engine.prefilter import needs_parsing, prose_only_result

        if not needs_parsing(data, str(discovered.path), options):
            state.results[index] = prose_only_result(discovered.path, discovered.display_path)
            state.prose_only.add(index)
            if cache is not None:
                cache.store(state.keys[index], state.results[index])
            if progress:
                progress(1)
            continue
        work.append((index, (replace(discovered, data=data), options), len(data)))
    for index, result in _map(_pass_one, work, jobs, progress).items():
        state.results[index] = result
        if cache is not None and index in state.keys:
            cache.store(state.keys[index], result)
    return state


def _code_candidate(
    discovered: DiscoveredFile, data: bytes, options: TransformOptions, cache: ResultCache | None
) -> bool:
    """`code_candidate`, its answer kept in the result cache under the file's bytes and place and
    what it reads of the options: a warm run tokenizes nothing."""
    path = str(discovered.path)
    if cache is None or options.derived_release is not None:
        return code_candidate(data, path, options)
    location = ModuleLocation(Path(path).as_posix(), options.extra_modules)
    read = (
        options.target_version,
        sorted(options.disabled),
        options.clear_emptied_batches,
        options.request_mirror,
        bool(options.project_workers.of_module(location.path)),
    )
    key = cache.key("prefilter", location.sglang_context, discovered.display_path, data, read)
    found = cache.load_object(key, bool)
    if found is None:
        found = code_candidate(data, path, options)
        cache.store_object(key, found)
    return found


def _second_pass(
    first: _FirstPass,
    results: list[FileResult],
    signatures: ProjectSignatures,
    options_of: Callable[[FileResult], TransformOptions],
    jobs: int,
    cache: ResultCache | None,
) -> None:
    """Pass 2 over the files that still pass a renamed parameter by keyword; `results` updated in place."""
    work: list[tuple[int, _PassTwo, int]] = []
    keys: dict[int, str] = {}
    for index, result in enumerate(results):
        read = result.status in (FileStatus.CHANGED, FileStatus.UNCHANGED) or index in first.prose_only
        if not read:
            continue
        data = first.data.get(index)
        if data is None:
            continue  # pass 2 reads only the bytes pass 1 read: the path again might be a FIFO by now
        text = _text_after_pass_one(result, data)
        if not any(f"{old}=" in text.replace(" ", "") for old in signatures.old_names()):
            continue
        options = options_of(result)
        if cache is not None and index in first.keys:
            # The absolute path: pass 2 matches imports against the tree's files by their paths'
            # endings, which can reach above the tree's root (and its options carry those paths).
            keys[index] = key = cache.key("pass-2", first.keys[index], result.path, options, codes_of("second"))
            cached = cache.load(key, result.path, result.display_path)
            if cached is not None:
                results[index] = cached
                continue
        work.append((index, (result, options, data), len(text)))
    for index, second in _map(_pass_two, work, jobs, None).items():
        results[index] = second
        if cache is not None and index in keys:
            cache.store(keys[index], second)


def _final_bytes(result: FileResult, data: bytes | None) -> bytes | None:
    if result.rewritten is not None:
        text = result.rewritten
        if result.has_bom:
            text = "\ufeff" + text
        try:
            return text.encode(result.encoding, "surrogateescape")
        except (LookupError, UnicodeEncodeError):
            return None
    return data


def _contract_pass(
    first: _FirstPass,
    results: list[FileResult],
    check: ContractCheck,
    options_of: Callable[[FileResult], TransformOptions],
    jobs: int,
) -> ContractScope:
    """Mark the statements where the target's contract still finds a break that this run owes
    (engine/contract_scope.py; codemods/contract_breaks.py); `results` updated in place. Returns
    how many it owes, and the others by cause.

    Checked: every file of the run outside SGLang's own modules (a rebase onto the target replaces
    those; their text still serves to resolve what the fork imports), the parsed ones as the run
    leaves them, the others as they are: what `verify --against` sees in the tree, nothing less."""
    texts: dict[Path, bytes] = {}
    indexes: dict[Path, int] = {}
    checked: set[Path] = set()
    for index, result in enumerate(results):
        if result.status is FileStatus.FAILED:
            continue
        path = Path(result.path).resolve()
        indexes[path] = index
        if result.parsed:
            final = _final_bytes(result, first.data.get(index))
            if final is not None:
                texts[path] = final
        if not in_sglang_package(Path(result.path)):
            checked.add(path)
    scope = ContractScope()
    work: list[tuple[int, _PassTwo, int]] = []
    for path, found in check(texts, frozenset(checked)).items():
        place = indexes.get(path)
        if place is None:
            owed_breaks(None, None, found, scope)
            continue
        result = results[place]
        changed = result.status is FileStatus.CHANGED
        owed = owed_breaks(result.original if changed else None, result.rewritten if changed else None, found, scope)
        if not owed:
            continue
        lines = tuple(sorted({(b.line, b.message) for b in owed}))
        options = replace(options_of(result), contract_breaks=lines, elide=False)
        work.append((place, (result, options, first.data.get(place)), len(texts.get(path, b""))))
    for place, marked in _map(_contract_one, work, jobs, None).items():
        results[place] = marked
    return scope


def _contract_one(item: _PassTwo) -> FileResult:
    from mwbmigrate.codemods import CONTRACT_PASS_CODEMODS
    from mwbmigrate.engine.transform import transform_file

    before, options, data = item
    try:
        text = _text_after_pass_one(before, data)  # a file the passes left unparsed is read now
    except UnreadableFile:
        return before
    marked = transform_file(
        Path(before.path), before.display_path, options, CONTRACT_PASS_CODEMODS, source_text=text, data=data
    )
    if marked.status is FileStatus.FAILED or (before.rewritten is None and marked.status is FileStatus.UNCHANGED):
        return before
    return _after(before, marked, marked.review_items)


def _with_final_locations(result: FileResult, data: bytes | None) -> FileResult:
    """`result` with its items at their statements' first lines, and the markers standing in its
    final text that no rule reported this run as open items (engine/review_locations.py)."""
    if result.status is FileStatus.FAILED:
        return result
    text = result.rewritten
    if text is None:
        if data is None or (not result.review_items and MARKER_BYTES not in data):
            return result
        try:
            text = decode_source(data).text
        except UnreadableSource:
            return result
    items = final_review_items(text, result.display_path, result.review_items)
    return result if items == result.review_items else replace(result, review_items=items)


def run_rewrite(
    paths: list[Path],
    options: TransformOptions,
    *,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    jobs: int | None = None,
    progress_factory: Callable[[int], Progress] | None = None,
    vendor_runtime: bool = False,
    discovery: Discovery | None = None,
    cache: ResultCache | None = None,
    formatter: Formatter | None = None,
    contract: ContractCheck | None = None,
) -> RunSummary:
    """`vendor_runtime`: rewritten files import a private copy of the runtime in their package
    (engine/vendoring.py), and the summary lists that copy. `discovery`: files found already (stdin).
    `cache`: results kept from earlier runs (engine/cache.py); None processes every file.
    `formatter`: formats what each changed file's rewrite changed (engine/formatting.py), after both
    passes and outside the cache, so every output (diff, check, write, stdin) has the same text.
    `contract`: the target release's contract check, run after both passes on every file outside
    SGLang's own modules (and outside the cache, as the release it reads is not part of the cache
    key); each break it finds on a statement no rule marked gets MWB185 (codemods/contract_breaks.py)."""
    discovery = discovery if discovery is not None else discover(paths, include, exclude)
    # A vendored runtime is mwbmigrate's own code, copied verbatim: never rewrite it.
    discovery.files = [f for f in discovery.files if not is_vendored(f.path)]
    discovery.problems = [problem for problem in discovery.problems if not is_vendored(problem[0])]
    jobs = jobs or default_jobs()
    # The pre-pass reads the whole tree, whatever --include and --exclude leave to migrate: a caller,
    # a patch or a class in a file left out still runs, and the proofs rest on all of them.
    # (Not for a module read from stdin, which is its own tree: its path is `-`.)
    from_disk = all(f.data is None for f in discovery.files) and all(os.path.lexists(p) for p in paths)
    if (include or exclude) and from_disk:
        whole_tree = _read_once([f for f in discover(paths).files if not is_vendored(f.path)])
        by_path = {f.path: f for f in whole_tree}
        discovery.files = [by_path.get(f.path) or _read_once([f])[0] for f in discovery.files]
    else:
        whole_tree = discovery.files = _read_once(discovery.files)
    prefilter_options = _prefilter_facts(whole_tree, options)

    @functools.cache
    def run_options() -> TransformOptions:
        """The options with every fact of the pre-pass, read the first time a file needs them: a tree
        the prefilter leaves whole (a `--check` of a migrated tree) never reads the rest."""
        facts = _cached_project_facts(whole_tree, prefilter_options, cache)
        # Each fact is the TransformOptions field of the same name.
        return replace(options, **{f.name: getattr(facts, f.name) for f in fields(facts)})

    def file_options(base: TransformOptions, path: Path, display_path: str) -> TransformOptions:
        return options_for_file(base, path, display_path) if vendor_runtime else base

    summary = RunSummary(
        discovered=len(discovery.files) + len(discovery.problems) + len(discovery.links),
        stale_temporaries=discovery.stale_temporaries,
    )
    for path, display_path, reason in discovery.problems:
        summary.results.append(FileResult(str(path), display_path, FileStatus.FAILED, error=reason))
    for path, display_path, reason in discovery.links:
        summary.results.append(FileResult(str(path), display_path, FileStatus.SKIPPED, note=reason))

    progress = progress_factory(len(discovery.files)) if progress_factory else None
    first = _first_pass(
        discovery.files,
        prefilter_options,
        lambda f: file_options(run_options(), f.path, f.display_path),
        jobs,
        progress,
        cache,
    )
    results = [first.results[index] for index in range(len(discovery.files))]

    signatures = merge_signatures(results)
    if signatures:
        # Asked only of a file that still passes a renamed parameter by keyword.
        second_options = functools.cache(lambda: replace(run_options(), project_signatures=signatures))
        _second_pass(
            first,
            results,
            signatures,
            lambda r: file_options(second_options(), Path(r.path), r.display_path),
            jobs,
            cache,
        )
    if contract is not None:
        scope = _contract_pass(
            first, results, contract, lambda r: file_options(run_options(), Path(r.path), r.display_path), jobs
        )
        summary.contract_breaks = scope.owed
        summary.contract_elsewhere = dict(sorted(scope.elsewhere.items()))
    if formatter is not None:
        results = [format_result(result, formatter) for result in results]
    results = [
        _with_final_locations(result, first.data.get(index) or first.marked.get(index))
        for index, result in enumerate(results)
    ]
    summary.results.extend(results)
    summary.results.sort(key=lambda r: r.display_path)
    if vendor_runtime:
        summary.runtime = "vendor"
        summary.vendored, summary.runtime_notes = plan_vendoring(summary.results)
    return summary
