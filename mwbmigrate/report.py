"""Text, JSON and markdown renderings of one `RunSummary`. Patches go to stdout raw; tables to stderr."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mwbmigrate.engine.dependency import RUNTIME_DISTRIBUTION
from mwbmigrate.engine.diff import new_file_diff, unified_diff
from mwbmigrate.engine.discovery import SkippedFolder
from mwbmigrate.engine.source import source_lines
from mwbmigrate.result import FileResult, FileStatus, ReviewItem, RunSummary, RuntimeDependency, VendoredFile
from mwbmigrate.review import HAZARD, REVIEW_CODES

_GREEN, _RED, _CYAN, _RESET = "\x1b[32m", "\x1b[31m", "\x1b[36m", "\x1b[0m"


def file_diff(result: FileResult) -> str:
    if result.status is not FileStatus.CHANGED or result.original is None or result.rewritten is None:
        return ""
    # The BOM is part of the file's first line as git sees it; keep it so the patch applies.
    bom = "\ufeff" if result.has_bom else ""
    return unified_diff(result.display_path, bom + result.original, bom + result.rewritten)


def vendored_diff(file: VendoredFile) -> str:
    """The patch that creates or refreshes one file of a vendored runtime ("" when up to date)."""
    content = file.content.decode("utf-8", "surrogateescape")
    if file.status == "created":
        return new_file_diff(file.display_path, content)
    if file.status == "refreshed" and file.previous is not None:
        return unified_diff(file.display_path, file.previous.decode("utf-8", "surrogateescape"), content)
    return ""


def vendored_packages(summary: RunSummary) -> dict[str, list[VendoredFile]]:
    """Folder of each vendored copy (display form, trailing slash) -> its files."""
    packages: dict[str, list[VendoredFile]] = {}
    for file in summary.vendored:
        packages.setdefault(file.display_path.rsplit("/", 1)[0] + "/", []).append(file)
    return packages


def runtime_lines(summary: RunSummary, *, wrote: bool) -> list[str]:
    """One line per vendored copy: created, refreshed (which files) or up to date."""
    lines = []
    for folder, files in vendored_packages(summary).items():
        created = [f for f in files if f.status == "created"]
        refreshed = [f.display_path.rsplit("/", 1)[-1] for f in files if f.status == "refreshed"]
        if len(created) == len(files):
            verb = "created" if wrote else "would be created"
            lines.append(f"runtime vendored: {folder} {verb} ({len(files)} files)")
        elif created or refreshed:
            verb = "refreshed" if wrote else "would be refreshed"
            names = ", ".join(sorted(refreshed + [f.display_path.rsplit("/", 1)[-1] for f in created]))
            lines.append(f"runtime vendored: {folder} {verb} ({names})")
        elif not any(f.error for f in files):
            lines.append(f"runtime vendored: {folder} up to date")
    return lines


def dependency_diff(dependency: RuntimeDependency | None) -> str:
    """The patch that declares the runtime in the tree's packaging ("" when there is no edit)."""
    if dependency is None or not dependency.changed or dependency.display_path is None:
        return ""
    return unified_diff(dependency.display_path, dependency.original or "", dependency.updated or "")


def dependency_lines(summary: RunSummary, *, wrote: bool) -> list[str]:
    """One line when rewritten files now import `mwbmigrate.runtime`: which distribution provides it,
    and where the tree declares it (added, already there, or what to edit by hand)."""
    dependency = summary.runtime_dependency
    if dependency is None:
        return []
    count = len(dependency.importers)
    lead = (
        f"runtime dependency: {count} file{'' if count == 1 else 's'} now import{'s' if count == 1 else ''} "
        f"mwbmigrate.runtime, provided by `pip install {RUNTIME_DISTRIBUTION}`"
    )
    where = dependency.display_path or ""
    if dependency.error is not None:
        return [f"{lead}; {dependency.requirement} not added to {where}: {dependency.error}"]
    if dependency.status == "added" and not wrote:
        return [f"{lead}; {dependency.requirement} would be added to {where}"]
    if dependency.status == "added" and dependency.written:
        return [f"{lead}; {dependency.requirement} added to {where}"]
    if dependency.status == "added":  # a run that writes only the module (stdin)
        return [
            f"{lead}; not declared: add {dependency.requirement} to {where}, or run `mwbmigrate rewrite` on the tree"
        ]
    if dependency.status == "declared":
        return [f"{lead}; already declared in {where}"]
    return [f"{lead}; not declared: {where + ': ' if where else ''}{dependency.advice}"]


def _dependency_colour(dependency: RuntimeDependency | None, *, wrote: bool) -> str | None:
    """Red for an edit that failed, yellow for a declaration left to the user, else plain."""
    if dependency is None:
        return None
    if dependency.error is not None:
        return "red"
    settled = dependency.status == "declared" or (dependency.status == "added" and (dependency.written or not wrote))
    return None if settled else "yellow"


def colourise(diff: str) -> str:
    lines = []
    for line in source_lines(diff):
        body, ending = line.rstrip("\r\n"), line[len(line.rstrip("\r\n")) :]
        if line.startswith("+") and not line.startswith("+++"):
            body = f"{_GREEN}{body}{_RESET}"
        elif line.startswith("-") and not line.startswith("---"):
            body = f"{_RED}{body}{_RESET}"
        elif line.startswith("@@"):
            body = f"{_CYAN}{body}{_RESET}"
        lines.append(body + ending)
    return "".join(lines)


def summary_counts(summary: RunSummary) -> dict[str, int]:
    return {
        "scanned": summary.discovered,
        "parsed": summary.parsed,
        "changed": len(summary.changed),
        "failed": len(summary.failed),
        "review_items": len(summary.review_items),
    }


def render_summary(
    summary: RunSummary, console: Console, *, wrote: bool, skipped_folders: Sequence[SkippedFolder] = ()
) -> None:
    """`skipped_folders`: what discovery did not walk because of its name (build output), with why."""
    for result in summary.failed:
        console.print(
            f"[red]error[/red] {escape(result.display_path)}: {escape(result.error or '')}",
            markup=True,
            highlight=False,
        )
    for result in summary.results:
        if result.note:
            console.print(
                f"[cyan]skipped[/cyan] {escape(result.display_path)}: {escape(result.note)}",
                markup=True,
                highlight=False,
            )
        if result.unformatted:
            console.print(
                f"[cyan]not formatted[/cyan] {escape(result.display_path)}: {escape(result.unformatted)}; "
                "the rewrite stands as written",
                markup=True,
                highlight=False,
            )
    for folder in skipped_folders:
        console.print(
            f"[cyan]skipped[/cyan] {escape(folder.display_path)}: {escape(folder.reason)}",
            markup=True,
            highlight=False,
        )
    for item in summary.review_items:
        colour = "yellow" if item.kind == HAZARD else "cyan"
        label = ("" if item.kind == HAZARD else " (note)") + (" (left in the code)" if item.standing else "")
        console.print(
            f"[{colour}]{item.code}[/{colour}] {escape(item.location())} {escape(item.message)}{label}",
            markup=True,
            highlight=False,
        )
    for file in summary.vendored:
        if file.error:
            console.print(
                f"[red]error[/red] {escape(file.display_path)}: {escape(file.error)}", markup=True, highlight=False
            )
    for line in runtime_lines(summary, wrote=wrote):
        console.print(escape(line), markup=True, highlight=False)
    for note in summary.runtime_notes:
        console.print(f"[yellow]note[/yellow] {escape(note)}", markup=True, highlight=False)
    tint = _dependency_colour(summary.runtime_dependency, wrote=wrote)
    for line in dependency_lines(summary, wrote=wrote):
        console.print(f"[{tint}]{escape(line)}[/{tint}]" if tint else escape(line), markup=True, highlight=False)
    if summary.contract_note:
        console.print(f"[cyan]contract[/cyan] {escape(summary.contract_note)}", markup=True, highlight=False)
    table = Table(title="mwbmigrate rewrite", show_header=True)
    for column in ("scanned", "parsed", "changed" if wrote else "would change", "failed", "review items"):
        table.add_column(column, justify="right")
    counts = summary_counts(summary)
    table.add_row(*(str(counts[key]) for key in ("scanned", "parsed", "changed", "failed", "review_items")))
    console.print(table)


def render_json(summary: RunSummary, *, mode: str, skipped_folders: Sequence[SkippedFolder] = ()) -> str:
    document = {
        "mode": mode,
        "summary": summary_counts(summary),
        "files": [
            {
                "path": r.display_path,
                "status": r.status.value,
                "error": r.error,
                "note": r.note,
                "unformatted": r.unformatted,
                "diff": file_diff(r) or None,
                "codemods": list(r.applied),
                "review_items": [
                    {
                        "code": i.code,
                        "line": i.line,
                        "column": i.column,
                        "message": i.message,
                        "suggestion": i.suggestion,
                        "kind": i.kind,
                        "standing": i.standing,  # a marker left in the code that no rule reported again
                    }
                    for i in r.review_items
                ],
            }
            for r in summary.results
        ],
        # What callers outside the tree must follow: a public one breaks their keyword calls.
        "renamed_signatures": [
            {
                "path": r.display_path,
                "function": function,
                "old": old,
                "new": new,
                "public": not function.rsplit(".", 1)[-1].startswith("_"),
            }
            for r in summary.results
            for function, old, new in r.renamed_signatures
        ],
        # Folders, not files: a consumer that counts files does not meet them in "files".
        "skipped_folders": [{"path": f.display_path, "reason": f.reason} for f in skipped_folders],
        "runtime": {
            "mode": summary.runtime,
            "vendored": [
                {"path": v.display_path, "status": v.status, "error": v.error, "diff": vendored_diff(v) or None}
                for v in summary.vendored
            ],
            "notes": list(summary.runtime_notes),
        },
        # --target-version's last step: the breaks the target's contract still found (None: not run).
        "contract": {
            "breaks": summary.contract_breaks,
            "not_owed": summary.contract_elsewhere,
            "note": summary.contract_note,
        },
        # None unless rewritten files now import mwbmigrate.runtime: where the tree declares it.
        "runtime_dependency": _dependency_json(summary.runtime_dependency, wrote=mode == "write"),
    }
    return json.dumps(document, indent=2) + "\n"


def _dependency_json(dependency: RuntimeDependency | None, *, wrote: bool) -> dict[str, object] | None:
    if dependency is None:
        return None
    return {
        "requirement": dependency.requirement,
        "importers": list(dependency.importers),
        "status": dependency.status,
        "path": dependency.display_path,
        "advice": dependency.advice or None,
        "error": dependency.error,
        "written": dependency.written,
        "diff": dependency_diff(dependency) or None,
        "line": dependency_lines(RunSummary(runtime_dependency=dependency), wrote=wrote)[0],
    }


def _escape_cell(text: str) -> str:
    return text.replace("|", "\\|")


# GitHub refuses a comment (on an issue or a pull request) longer than this many characters.
GITHUB_COMMENT_LIMIT = 65_536
# What the markdown report fills at most by default: the margin under GitHub's limit leaves room for
# the line or two that a bot or a person posting the report puts around it.
MARKDOWN_BUDGET = 65_000
_NOT_SHOWN = "not shown: the limit of a GitHub comment"


def _cost(lines: Sequence[str]) -> int:
    """Characters `lines` add to the report, which joins its lines with newlines and ends with one."""
    return sum(len(line) + 1 for line in lines)


def _plural(count: int, noun: str) -> str:
    return noun if count == 1 else f"{noun}s"


@dataclass(frozen=True)
class _Listing:
    """A heading, rows that may be cut after any row, and the lines that close it. A cut listing says
    in its own form (a table row or a bullet) how many of its rows it leaves out."""

    head: tuple[str, ...]
    rows: tuple[str, ...]
    tail: tuple[str, ...]
    table: bool  # the rows are table rows, else bullets

    def lines(self, shown: int) -> list[str]:
        hidden = len(self.rows) - shown
        more = f"| … | {hidden} more, {_NOT_SHOWN} |" if self.table else f"- … {hidden} more, {_NOT_SHOWN}"
        return [*self.head, *self.rows[:shown], *([more] if hidden else []), *self.tail]


@dataclass(frozen=True)
class _MarkdownParts:
    """The report cut where the limit may cut it: whole rows, whole diffs, the runtime list as one."""

    head: list[str]  # title, count table, contract line: always shown
    hazards: list[_Listing]  # one per code
    notes: list[_Listing]  # one per code, folded together
    lists: list[_Listing]  # files not processed, files skipped, files not formatted, folders skipped
    diffs: list[list[str]]  # one folded block per changed file
    runtime: list[str]


@dataclass(frozen=True)
class _Shown:
    """How much of each part a report shows."""

    hazard_rows: list[int]  # per code
    note_rows: list[int] | None  # per code; None: the folded notes left out
    list_rows: list[int]  # per list; 0: the list left out
    diffs: list[bool]
    runtime: bool


_HAZARDS_HEAD = ("### Review items: hazards", "")
_NOTES_TAIL = ("</details>", "")
# Nouns of `_MarkdownParts.lists`, in their order, for the line that says what was left out.
_LIST_NOUNS = ("failed file", "skipped file", "unformatted file", "skipped folder")


def _notes_head(count: int) -> tuple[str, ...]:
    return (f"<details><summary>Notes ({count}): nothing on these lines behaves differently</summary>", "")


def render_markdown(
    summary: RunSummary,
    *,
    skipped_folders: Sequence[SkippedFolder] = (),
    limit: int = MARKDOWN_BUDGET,
    wrote: bool = False,
) -> str:
    """A pull-request comment of at most `limit` characters. When the whole report is longer, what fits
    is kept in order of importance (hazards, then files not processed or skipped, notes, diffs, the
    vendored runtime list) and a line under the count table says what was left out and where the rest is.
    Only the count table, that line and one heading per hazard code are kept even past the limit."""
    parts = _markdown_parts(summary, skipped_folders, wrote=wrote)
    report = _assemble_markdown(parts, _show_everything(parts), notice=[])
    if len(report) <= limit:
        return report
    shown = _fit_markdown(parts, limit)
    return _assemble_markdown(parts, shown, notice=_markdown_notice(_left_out(parts, shown), limit))


def _markdown_parts(summary: RunSummary, skipped_folders: Sequence[SkippedFolder], *, wrote: bool) -> _MarkdownParts:
    counts = summary_counts(summary)
    head = [
        "## mwbmigrate: ModelWorkerBatch → ScheduleBatch",
        "",
        "| scanned | parsed | changed | failed | review items |",
        "|---:|---:|---:|---:|---:|",
        f"| {counts['scanned']} | {counts['parsed']} | {counts['changed']} | {counts['failed']} | {counts['review_items']} |",
        "",
    ]
    if summary.contract_note:
        head += [f"Contract check: {summary.contract_note}", ""]
    # The migrated tree's new dependency: part of what the pull request changes, never cut.
    head += [line[0].upper() + line[1:] for line in dependency_lines(summary, wrote=wrote)]
    head += [""] if summary.runtime_dependency is not None else []
    items = summary.review_items
    lists = [
        ("### Files not processed", [f"- `{r.display_path}`: {r.error}" for r in summary.failed]),
        ("### Files skipped", [f"- `{r.display_path}`: {r.note}" for r in summary.results if r.note]),
        (
            "### Files not formatted (the rewrite stands as written)",
            [f"- `{r.display_path}`: {r.unformatted}" for r in summary.results if r.unformatted],
        ),
        ("### Folders skipped", [f"- `{f.display_path}`: {f.reason}" for f in skipped_folders]),
    ]
    return _MarkdownParts(
        head=head,
        hazards=_markdown_groups([item for item in items if item.kind == HAZARD]),
        notes=_markdown_groups([item for item in items if item.kind != HAZARD]),
        lists=[_Listing((title, ""), tuple(rows), ("",), table=False) for title, rows in lists],
        diffs=[_markdown_diff(result) for result in summary.changed],
        runtime=_markdown_runtime(summary),
    )


def _markdown_groups(items: Sequence[ReviewItem]) -> list[_Listing]:
    """One table per code, with its count and the code's one-line title."""
    listings = []
    for code in sorted({item.code for item in items}):
        group = [item for item in items if item.code == code]
        entry = REVIEW_CODES.get(code)
        title = f": {_escape_cell(entry.title)}" if entry is not None else ""
        listings.append(
            _Listing(
                head=(f"#### {code} ({len(group)}){title}", "", "| location | reason |", "|---|---|"),
                rows=tuple(
                    f"| `{i.location()}` | {_escape_cell(i.message)}{' (left in the code)' if i.standing else ''} |"
                    for i in group
                ),
                tail=("", f"`mwbmigrate explain {code}` says what to do.", ""),
                table=True,
            )
        )
    return listings


def _markdown_diff(result: FileResult) -> list[str]:
    diff = file_diff(result)
    fence = "````" if "```" in diff else "```"
    return [
        f"<details><summary><code>{result.display_path}</code></summary>",
        "",
        f"{fence}diff",
        diff.rstrip("\n"),
        fence,
        "",
        "</details>",
        "",
    ]


def _markdown_runtime(summary: RunSummary) -> list[str]:
    """The vendored copy as a file list: a created file is mwbmigrate's runtime verbatim, so its
    content would only bury the review in the comment."""
    if not summary.vendored and not summary.runtime_notes:
        return []
    out = ["### Vendored runtime", ""]
    if summary.vendored:
        out += ["| file | status |", "|---|---|"]
        out += [
            f"| `{v.display_path}` | {v.status}{': ' + _escape_cell(v.error) if v.error else ''} |"
            for v in summary.vendored
        ]
        out.append("")
    out += [f"- {_escape_cell(note)}" for note in summary.runtime_notes]
    return out + ([""] if summary.runtime_notes else [])


def _show_everything(parts: _MarkdownParts) -> _Shown:
    return _Shown(
        hazard_rows=[len(listing.rows) for listing in parts.hazards],
        note_rows=[len(listing.rows) for listing in parts.notes],
        list_rows=[len(listing.rows) for listing in parts.lists],
        diffs=[True] * len(parts.diffs),
        runtime=True,
    )


def _show_nothing(parts: _MarkdownParts) -> _Shown:
    return _Shown(
        hazard_rows=[0] * len(parts.hazards),
        note_rows=None,
        list_rows=[0] * len(parts.lists),
        diffs=[False] * len(parts.diffs),
        runtime=False,
    )


def _review_lines(
    head: Sequence[str], listings: Sequence[_Listing], rows: Sequence[int], tail: Sequence[str]
) -> list[str]:
    if not listings:
        return []
    out = list(head)
    for listing, shown in zip(listings, rows, strict=True):
        out += listing.lines(shown)
    return out + list(tail)


def _assemble_markdown(parts: _MarkdownParts, shown: _Shown, *, notice: Sequence[str]) -> str:
    """The report in reading order: hazards first, the notes folded below them, then the files not
    processed or skipped, one folded diff per changed file and the vendored runtime."""
    out = [*parts.head, *notice]
    out += _review_lines(_HAZARDS_HEAD, parts.hazards, shown.hazard_rows, ())
    if shown.note_rows is not None:
        out += _review_lines(_notes_head(_row_count(parts.notes)), parts.notes, shown.note_rows, _NOTES_TAIL)
    for listing, rows in zip(parts.lists, shown.list_rows, strict=True):
        if rows:
            out += listing.lines(rows)
    for block, keep in zip(parts.diffs, shown.diffs, strict=True):
        if keep:
            out += block
    if shown.runtime:
        out += parts.runtime
    return "\n".join(out) + "\n"


def _row_count(listings: Sequence[_Listing]) -> int:
    return sum(len(listing.rows) for listing in listings)


def _fit_markdown(parts: _MarkdownParts, limit: int) -> _Shown:
    """What fits in `limit` characters, taken in order of importance: hazard rows, the files not
    processed or skipped, notes, diffs, then the vendored runtime list."""
    # The line saying what was left out is reserved at its longest: every part left out entirely.
    room = limit - _cost(parts.head) - _cost(_markdown_notice(_left_out(parts, _show_nothing(parts)), limit))
    # Every hazard code keeps its heading even past the limit, so that no hazard goes unmentioned; all
    # the registry's codes take a fraction of the default limit.
    hazard_rows = _share_rows(parts.hazards, room - _cost(_HAZARDS_HEAD)) or [0] * len(parts.hazards)
    room -= _cost(_review_lines(_HAZARDS_HEAD, parts.hazards, hazard_rows, ()))
    list_rows = []
    for listing in parts.lists:
        rows = (_share_rows([listing], room) or [0])[0]
        room -= _cost(listing.lines(rows)) if rows else 0
        list_rows.append(rows)
    notes_head = _notes_head(_row_count(parts.notes))
    note_rows = _share_rows(parts.notes, room - _cost(notes_head) - _cost(_NOTES_TAIL)) if parts.notes else None
    if note_rows is not None:
        room -= _cost(_review_lines(notes_head, parts.notes, note_rows, _NOTES_TAIL))
    # A diff that does not fit is passed over for the smaller ones after it: each is whole on its own.
    diffs = []
    for block in parts.diffs:
        keep = _cost(block) <= room
        room -= _cost(block) if keep else 0
        diffs.append(keep)
    runtime = bool(parts.runtime) and _cost(parts.runtime) <= room
    return _Shown(hazard_rows, note_rows, list_rows, diffs, runtime)


def _share_rows(listings: Sequence[_Listing], room: int) -> list[int] | None:
    """How many rows each listing shows within `room` characters: all when they fit, else one row of
    each in turn, so that every code keeps its first rows as examples. None when not even the
    listings' headings fit."""
    if sum(_cost(listing.lines(len(listing.rows))) for listing in listings) <= room:
        return [len(listing.rows) for listing in listings]
    # Each listing's heading and closing lines, and its line saying how many rows it leaves out,
    # counted at its longest (all of them left out).
    room -= sum(_cost(listing.lines(0)) for listing in listings)
    if room < 0:
        return None
    shown = [0] * len(listings)
    growing = True
    while growing:
        growing = False
        for index, listing in enumerate(listings):
            if shown[index] < len(listing.rows) and len(listing.rows[shown[index]]) + 1 <= room:
                room -= len(listing.rows[shown[index]]) + 1
                shown[index] += 1
                growing = True
    return shown


def _left_out(parts: _MarkdownParts, shown: _Shown) -> list[str]:
    """What `shown` leaves out, in order of importance: "12 of 40 diffs"."""
    counts = [("hazard row", _row_count(parts.hazards), sum(shown.hazard_rows))]
    counts += [
        (noun, len(listing.rows), rows)
        for noun, listing, rows in zip(_LIST_NOUNS, parts.lists, shown.list_rows, strict=True)
    ]
    counts.append(("note", _row_count(parts.notes), sum(shown.note_rows or [])))
    counts.append(("diff", len(parts.diffs), sum(shown.diffs)))
    phrases = [f"{total - rows} of {total} {_plural(total, noun)}" for noun, total, rows in counts if rows < total]
    if parts.runtime and not shown.runtime:
        phrases.append("the vendored runtime list")
    return phrases


def _markdown_notice(left_out: Sequence[str], limit: int) -> list[str]:
    if not left_out:
        return []
    listed = left_out[0] if len(left_out) == 1 else f"{', '.join(left_out[:-1])} and {left_out[-1]}"
    return [
        f"**Not shown in this comment**: {listed} (a GitHub comment holds at most {GITHUB_COMMENT_LIMIT:,} "
        f"characters; this one keeps to {limit:,}). The full report: `mwbmigrate rewrite ... --format json` "
        "with this run's paths and flags; the full patch: `mwbmigrate rewrite ... --dry-run` (no `--format`).",
        "",
    ]
