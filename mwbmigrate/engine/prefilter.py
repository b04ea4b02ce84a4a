"""Which files are parsed: the byte prefilter, then a look at the tokens of the files it lets through.

The byte prefilter (`rules.byte_candidate`: the union of the codemods' TRIGGERS) sends every file that mentions the old API
anywhere, comments and prose included, to LibCST. A file whose old-API words are only in prose
(comments, docstrings, log messages, this tool's own `# mwbmigrate:` markers) has the same code as
a file without them, which the byte prefilter skips: parsing it can change nothing and report
nothing. Stdlib `tokenize` tells prose from code in a fraction
of a parse.

What counts as code is engine/code_view.py's to say.

A codemod can act on a module only when one of its TRIGGERS is there (the registry's contract, which
the byte prefilter rests on too); TRIGGERS are code. The file is parsed when, for some codemod that
runs, a trigger is in the code so kept and its own textual test (`applies_to`) accepts the module;
otherwise it is skipped, exactly like the same file without its prose. The schedule batch module
itself is always parsed. Anything `tokenize` cannot read is parsed, so that its
failure is reported as before.
"""

from __future__ import annotations

from pathlib import Path

from mwbmigrate.codemods import CODEMODS
from mwbmigrate.codemods.base import MigrationCodemod
from mwbmigrate.engine.code_view import CR_ONLY, code_view, triggered
from mwbmigrate.engine.source import UnreadableSource, decode_source
from mwbmigrate.engine.transform import TransformOptions, migration_state
from mwbmigrate.result import FileResult, FileStatus
from mwbmigrate.rules import byte_candidate

__all__ = ["byte_candidate", "needs_parsing", "prose_only_result"]


def needs_parsing(
    data: bytes,
    path: str,
    options: TransformOptions,
    codemods: tuple[type[MigrationCodemod], ...] = CODEMODS,
) -> bool:
    """Whether a file the byte prefilter let through must be parsed (False: prose-only mentions)."""
    try:
        text = decode_source(data).text
    except UnreadableSource:
        return True  # the transform reports why
    if CR_ONLY.search(text):
        return True  # refused by the transform, with its reason
    state = migration_state(path, options)
    if state.location.is_schedule_batch_module:
        return True
    view = code_view(text)
    if view is None:
        return True
    return any(
        options.runs(codemod) and triggered(codemod, view, state) and codemod.applies_to(text, state)
        for codemod in codemods
    )


def prose_only_result(path: Path, display_path: str) -> FileResult:
    """A file `needs_parsing` let go: skipped, as the byte prefilter skips one. No codemod runs on it,
    so none reports anything (markers already in it are not findings of this run)."""
    return FileResult(str(path), display_path, FileStatus.SKIPPED)
