"""Run the codemods over a tree: discover, prefilter, transform in parallel (two passes), collect.

Pass 1 transforms every candidate file and records the signatures whose parameters were renamed.
The signatures are merged, then pass 2 rewrites keyword callers in the files that still pass
`model_worker_batch=`. Both passes run across processes; results come back in path order.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable

from mwbmigrate.analysis.old_api import ModuleLocation
from mwbmigrate.analysis.signatures import ProjectSignatures, RenamedSignature, module_parts
from mwbmigrate.codemods import CODEMODS, SECOND_PASS_CODEMODS
from mwbmigrate.engine.discovery import Discovery, DiscoveredFile, discover
from mwbmigrate.engine.pause import pause_point
from mwbmigrate.engine.transform import TransformOptions, transform_file
from mwbmigrate.engine.vendoring import is_vendored, options_for_file, plan_vendoring
from mwbmigrate.result import FileResult, FileStatus, RunSummary

_KEYWORD_USE = re.compile(r"\b(\w+)\s*=")
# Below this many candidate files a process pool costs more than it saves.
PARALLEL_THRESHOLD = 8

Progress = Callable[[int], None]


def _pass_one(item: tuple[DiscoveredFile, TransformOptions]) -> FileResult:
    discovered, options = item
    pause_point("transform")
    return transform_file(discovered.path, discovered.display_path, options, CODEMODS, data=discovered.data)


def _pass_two(item: tuple[FileResult, TransformOptions, bytes | None]) -> FileResult:
    first, options, data = item
    text = first.rewritten if first.rewritten is not None else None
    second = transform_file(Path(first.path), first.display_path, options, SECOND_PASS_CODEMODS, source_text=text, data=data)
    if second.status is FileStatus.FAILED:
        return second
    if text is None and second.status is FileStatus.UNCHANGED:
        return first
    suggestions = {(i.code, i.message): i.suggestion for i in first.review_items}
    items = tuple(replace(i, suggestion=i.suggestion or suggestions.get((i.code, i.message), "")) for i in second.review_items)
    if not options.markers:  # pass 1's markers were stripped from the text pass 2 read: keep its items
        items = tuple(sorted(first.review_items + items, key=lambda i: (i.line, i.column)))
    return replace(
        second,
        review_items=items,
        applied=tuple(dict.fromkeys(first.applied + second.applied)),
        renamed_signatures=first.renamed_signatures,
    )


def _text_after_pass_one(result: FileResult, data: bytes | None) -> str:
    """The module's text now: pass 1's output, else the original (from stdin's bytes, or the file)."""
    if result.rewritten is not None:
        return result.rewritten
    if data is not None:
        return data.decode(result.encoding, "replace")
    return Path(result.path).read_text(encoding=result.encoding, errors="replace")


def _tree_has_request_mirror(files: Iterable[DiscoveredFile], options: TransformOptions) -> bool | None:
    """Whether the tree's own ScheduleBatch keeps `req_pool_indices_cpu` (0.5.13 on), None when the
    tree holds no SGLang `schedule_batch.py` (a plugin: its builders serve a newer SGLang)."""
    found = None
    for discovered in files:
        if ModuleLocation(Path(discovered.path).as_posix(), options.extra_modules).is_schedule_batch_module:
            try:
                data = discovered.data if discovered.data is not None else Path(discovered.path).read_bytes()
                found = bool(found) or b"req_pool_indices_cpu" in data
            except OSError:
                continue
    return found


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


def _map(function, items: list, jobs: int, progress: Progress | None) -> list:
    results = []
    if jobs <= 1 or len(items) < PARALLEL_THRESHOLD:
        for item in items:
            results.append(function(item))
            if progress:
                progress(1)
        return results
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for result in pool.map(function, items, chunksize=max(1, len(items) // (jobs * 4))):
            results.append(result)
            if progress:
                progress(1)
    return results


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


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
) -> RunSummary:
    """`vendor_runtime`: rewritten files import a private copy of the runtime in their package
    (engine/vendoring.py), and the summary lists that copy. `discovery`: files found already (stdin)."""
    discovery = discovery if discovery is not None else discover(paths, include, exclude)
    # A vendored runtime is mwbmigrate's own code, copied verbatim: never rewrite it.
    discovery.files = [f for f in discovery.files if not is_vendored(f.path)]
    discovery.problems = [problem for problem in discovery.problems if not is_vendored(problem[0])]
    jobs = jobs or default_jobs()
    options = replace(options, request_mirror=_tree_has_request_mirror(discovery.files, options))

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
    in_memory = {f.path: f.data for f in discovery.files if f.data is not None}

    progress = progress_factory(len(discovery.files)) if progress_factory else None
    first = _map(_pass_one, [(f, file_options(options, f.path, f.display_path)) for f in discovery.files], jobs, progress)

    signatures = merge_signatures(first)
    second_options = replace(options, project_signatures=signatures)
    results: list[FileResult] = []
    needs_second: list[int] = []
    for index, result in enumerate(first):
        results.append(result)
        if result.status in (FileStatus.CHANGED, FileStatus.UNCHANGED):
            text = _text_after_pass_one(result, in_memory.get(Path(result.path)))
            if any(f"{old}=" in text.replace(" ", "") for old in signatures.old_names()):
                needs_second.append(index)
    if needs_second and signatures:
        items = [(results[i], file_options(second_options, Path(results[i].path), results[i].display_path),
                  in_memory.get(Path(results[i].path))) for i in needs_second]
        seconds = _map(_pass_two, items, jobs, None)
        for index, second in zip(needs_second, seconds):
            results[index] = second
    summary.results.extend(results)
    summary.results.sort(key=lambda r: r.display_path)
    if vendor_runtime:
        summary.runtime = "vendor"
        summary.vendored, summary.runtime_notes = plan_vendoring(summary.results)
    return summary
