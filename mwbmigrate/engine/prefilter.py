"""Which files are parsed: the byte prefilter, then a look at the tokens of the files it lets through.

The byte prefilter (`codemods.PREFILTER_BYTES`, the union of the codemods' TRIGGERS) sends every file that mentions the old API
anywhere, comments and prose included, to LibCST. A file whose old-API words are only in prose
(comments, docstrings, log messages, this tool's own `# mwbmigrate:` markers) has the same code as
a file without them, which the byte prefilter skips: parsing it can change nothing and report
nothing. Stdlib `tokenize` tells prose from code in a fraction
of a parse.

What counts as code here, because some codemod reads or rewrites it:
- every token that is not a comment or a string;
- a type comment (`# type: ModelWorkerBatch`): class-references respells it, coverage-holes reports it;
- a string that is itself Python (`"ModelWorkerBatch"`, `"Optional[ModelWorkerBatch]"`,
  `"sglang.srt.managers.schedule_batch.ModelWorkerBatch"`, `"get_model_worker_batch"`): string
  annotations, patch targets and `hasattr` probes are read by class-references, wild-shapes and the
  version gates;
- a string carrying the data-flow line (docstrings rewrites it), and any f-string (its fields are code).

A codemod can act on a module only when one of its TRIGGERS is there (the registry's contract, which
the byte prefilter rests on too); TRIGGERS are code. The file is parsed when, for some codemod that
runs, a trigger is in the code so kept and its own textual test (`applies_to`) accepts the module;
otherwise it is skipped, exactly like the same file without its prose. The schedule batch module
itself is always parsed. Anything `tokenize` cannot read is parsed, so that its
failure is reported as before.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from pathlib import Path

from mwbmigrate.analysis.old_api import TYPE_COMMENT
from mwbmigrate.codemods import CODEMODS, PREFILTER_BYTES
from mwbmigrate.codemods.base import MigrationCodemod
from mwbmigrate.codemods.docstrings import OLD_FLOW
from mwbmigrate.engine.source import UnreadableSource, decode_source, source_lines
from mwbmigrate.engine.transform import TransformOptions, migration_state
from mwbmigrate.result import FileResult, FileStatus

_OLD_WORDS = re.compile(r"ModelWorkerBatch|model_worker_batch")
_CR_ONLY = re.compile(r"\r(?!\n)")
_PROSE = (tokenize.COMMENT, tokenize.STRING)


def byte_candidate(data: bytes) -> bool:
    """The byte prefilter: False proves the file cannot need a change (it is never read further)."""
    return PREFILTER_BYTES.search(data) is not None


def _is_python(value: str) -> bool:
    """Whether a string's content is itself a Python expression or statement (not prose)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes and the like in the content: no matter
        try:
            compile(value.strip(), "<string>", "exec", dont_inherit=True)
        except SyntaxError:
            return False
        except Exception:  # noqa: BLE001 - too deep, too large, null bytes: not provably prose
            return True
    return True


def _string_is_code(token: str) -> bool:
    if OLD_FLOW in token:
        return True
    prefix = token[: len(token) - len(token.lstrip("rRbBuUfF"))]
    if "f" in prefix.lower():
        return True  # an f-string's fields are code (3.11 tokenizes it as one string)
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return True
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return _is_python(value) if isinstance(value, str) else True


def _comment_is_code(token: str) -> bool:
    return TYPE_COMMENT.search(token) is not None


def code_view(text: str) -> str | None:
    """`text` with its prose blanked (comments and strings that no codemod reads as code), every
    other character where it was; None when the old API is in code already, or `tokenize` fails."""
    lines = source_lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    view = list(text)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.ERRORTOKEN:
                return None
            if token.type not in _PROSE:
                if _OLD_WORDS.search(token.string):
                    return None  # the common case: stop at the first old name in code
                continue
            keep = _comment_is_code(token.string) if token.type == tokenize.COMMENT else _string_is_code(token.string)
            if keep:
                if _OLD_WORDS.search(token.string):
                    return None
                continue
            begin = starts[token.start[0] - 1] + token.start[1]
            end = starts[token.end[0] - 1] + token.end[1]
            for index in range(begin, end):
                if view[index] not in "\r\n":
                    view[index] = " "
    except (tokenize.TokenError, SyntaxError, IndexError):
        return None
    return "".join(view)


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
    if _CR_ONLY.search(text):
        return True  # refused by the transform, with its reason
    state = migration_state(path, options)
    if state.location.is_schedule_batch_module:
        return True
    view = code_view(text)
    if view is None:
        return True
    return any(
        options.runs(codemod) and _triggered(codemod, view) and codemod.applies_to(text, state) for codemod in codemods
    )


def _triggered(codemod: type[MigrationCodemod], view: str) -> bool:
    """Whether one of the codemod's TRIGGERS is in code (a codemod without any is always triggered)."""
    triggers = getattr(codemod, "TRIGGERS", ())
    return not triggers or any(trigger in view for trigger in triggers)


def prose_only_result(path: Path, display_path: str) -> FileResult:
    """A file `needs_parsing` let go: skipped, as the byte prefilter skips one. No codemod runs on it,
    so none reports anything (markers already in it are not findings of this run)."""
    return FileResult(str(path), display_path, FileStatus.SKIPPED)
