"""Text, JSON and markdown renderings of one `RunSummary`. Patches go to stdout raw; tables to stderr."""

from __future__ import annotations

import json
from typing import Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mwbmigrate.engine.diff import new_file_diff, unified_diff
from mwbmigrate.engine.discovery import SkippedFolder
from mwbmigrate.engine.source import source_lines
from mwbmigrate.result import FileResult, FileStatus, ReviewItem, RunSummary, VendoredFile
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
    for folder in skipped_folders:
        console.print(
            f"[cyan]skipped[/cyan] {escape(folder.display_path)}: {escape(folder.reason)}",
            markup=True,
            highlight=False,
        )
    for item in summary.review_items:
        colour = "yellow" if item.kind == HAZARD else "cyan"
        label = "" if item.kind == HAZARD else " (note)"
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
        "contract": {"breaks": summary.contract_breaks, "note": summary.contract_note},
    }
    return json.dumps(document, indent=2) + "\n"


def _escape_cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(summary: RunSummary, *, skipped_folders: Sequence[SkippedFolder] = ()) -> str:
    counts = summary_counts(summary)
    out = [
        "## mwbmigrate: ModelWorkerBatch → ScheduleBatch",
        "",
        "| scanned | parsed | changed | failed | review items |",
        "|---:|---:|---:|---:|---:|",
        f"| {counts['scanned']} | {counts['parsed']} | {counts['changed']} | {counts['failed']} | {counts['review_items']} |",
        "",
    ]
    if summary.contract_note:
        out += [f"Contract check: {summary.contract_note}", ""]
    out += _markdown_review_items(summary.review_items)
    if summary.failed:
        out += ["### Files not processed", ""]
        out += [f"- `{r.display_path}`: {r.error}" for r in summary.failed]
        out.append("")
    noted = [r for r in summary.results if r.note]
    if noted:
        out += ["### Files skipped", ""]
        out += [f"- `{r.display_path}`: {r.note}" for r in noted]
        out.append("")
    if skipped_folders:
        out += ["### Folders skipped", ""]
        out += [f"- `{f.display_path}`: {f.reason}" for f in skipped_folders]
        out.append("")
    for result in summary.changed:
        diff = file_diff(result)
        fence = "````" if "```" in diff else "```"
        out += [
            f"<details><summary><code>{result.display_path}</code></summary>",
            "",
            f"{fence}diff",
            diff.rstrip("\n"),
            fence,
            "",
            "</details>",
            "",
        ]
    out += _markdown_runtime(summary)
    return "\n".join(out) + "\n"


def _markdown_review_items(items: Sequence[ReviewItem]) -> list[str]:
    """Hazards first, grouped by code with their count and the code's one-line title; notes, which
    change nothing on their line, folded below them."""
    out: list[str] = []
    hazards = [item for item in items if item.kind == HAZARD]
    notes = [item for item in items if item.kind != HAZARD]
    if hazards:
        out += ["### Review items: hazards", ""]
        out += _markdown_groups(hazards)
    if notes:
        out += [
            f"<details><summary>Notes ({len(notes)}): nothing on these lines behaves differently</summary>",
            "",
        ]
        out += _markdown_groups(notes)
        out += ["</details>", ""]
    return out


def _markdown_groups(items: Sequence[ReviewItem]) -> list[str]:
    out: list[str] = []
    for code in sorted({item.code for item in items}):
        group = [item for item in items if item.code == code]
        entry = REVIEW_CODES.get(code)
        title = f": {_escape_cell(entry.title)}" if entry is not None else ""
        out += [f"#### {code} ({len(group)}){title}", "", "| location | reason |", "|---|---|"]
        out += [f"| `{i.location()}` | {_escape_cell(i.message)} |" for i in group]
        out += ["", f"`mwbmigrate explain {code}` says what to do.", ""]
    return out


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
