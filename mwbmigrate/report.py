"""Text, JSON and markdown renderings of one `RunSummary`. Patches go to stdout raw; tables to stderr."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mwbmigrate.engine.diff import unified_diff
from mwbmigrate.result import FileResult, FileStatus, RunSummary

_GREEN, _RED, _CYAN, _RESET = "\x1b[32m", "\x1b[31m", "\x1b[36m", "\x1b[0m"


def file_diff(result: FileResult) -> str:
    if result.status is not FileStatus.CHANGED or result.original is None or result.rewritten is None:
        return ""
    # The BOM is part of the file's first line as git sees it; keep it so the patch applies.
    bom = "\ufeff" if result.has_bom else ""
    return unified_diff(result.display_path, bom + result.original, bom + result.rewritten)


def colourise(diff: str) -> str:
    lines = []
    for line in diff.splitlines(keepends=True):
        body, ending = line.rstrip("\r\n"), line[len(line.rstrip("\r\n")):]
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


def render_summary(summary: RunSummary, console: Console, *, wrote: bool) -> None:
    for result in summary.failed:
        console.print(f"[red]error[/red] {escape(result.display_path)}: {escape(result.error or '')}", markup=True, highlight=False)
    for item in summary.review_items:
        console.print(f"[yellow]{item.code}[/yellow] {escape(item.location())} {escape(item.message)}", markup=True, highlight=False)
    table = Table(title="mwbmigrate rewrite", show_header=True)
    for column in ("scanned", "parsed", "changed" if wrote else "would change", "failed", "review items"):
        table.add_column(column, justify="right")
    counts = summary_counts(summary)
    table.add_row(*(str(counts[key]) for key in ("scanned", "parsed", "changed", "failed", "review_items")))
    console.print(table)


def render_json(summary: RunSummary, *, mode: str) -> str:
    document = {
        "mode": mode,
        "summary": summary_counts(summary),
        "files": [
            {
                "path": r.display_path,
                "status": r.status.value,
                "error": r.error,
                "diff": file_diff(r) or None,
                "codemods": list(r.applied),
                "review_items": [
                    {"code": i.code, "line": i.line, "column": i.column, "message": i.message, "suggestion": i.suggestion}
                    for i in r.review_items
                ],
            }
            for r in summary.results
        ],
    }
    return json.dumps(document, indent=2) + "\n"


def _escape_cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(summary: RunSummary) -> str:
    counts = summary_counts(summary)
    out = [
        "## mwbmigrate: ModelWorkerBatch → ScheduleBatch",
        "",
        "| scanned | parsed | changed | failed | review items |",
        "|---:|---:|---:|---:|---:|",
        f"| {counts['scanned']} | {counts['parsed']} | {counts['changed']} | {counts['failed']} | {counts['review_items']} |",
        "",
    ]
    if summary.review_items:
        out += ["### Review items", "", "| code | location | reason |", "|---|---|---|"]
        out += [f"| {i.code} | `{i.location()}` | {_escape_cell(i.message)} |" for i in summary.review_items]
        out.append("")
    if summary.failed:
        out += ["### Files not processed", ""]
        out += [f"- `{r.display_path}`: {r.error}" for r in summary.failed]
        out.append("")
    for result in summary.changed:
        diff = file_diff(result)
        fence = "````" if "```" in diff else "```"
        out += [f"<details><summary><code>{result.display_path}</code></summary>", "", f"{fence}diff", diff.rstrip("\n"), fence, "", "</details>", ""]
    return "\n".join(out) + "\n"
