"""What of a module is code to the codemods: its text with the prose blanked.

A codemod can act on a module only where one of its TRIGGERS is in code (the registry's contract):
prose (comments, docstrings, log messages, this tool's own `# mwbmigrate:` markers) never changes
what it does. The prefilter (engine/prefilter.py) uses this to leave files unparsed, and the transform
(engine/transform.py) to leave out the codemods a module's prose alone mentions.

What counts as code here, because some codemod reads or rewrites it:
- every token that is not a comment or a string;
- a type comment (`# type: ModelWorkerBatch`): class-references respells it, coverage-holes reports it;
- a string that is itself Python (`"ModelWorkerBatch"`, `"Optional[ModelWorkerBatch]"`,
  `"sglang.srt.managers.schedule_batch.ModelWorkerBatch"`, `"get_model_worker_batch"`): string
  annotations, patch targets and `hasattr` probes are read by class-references, wild-shapes and the
  version gates;
- a string carrying the data-flow line (docstrings rewrites it), and any f-string (its fields are code).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from mwbmigrate.analysis.names import OLD_FLOW, TYPE_COMMENT, ModuleLocation
from mwbmigrate.analysis.settled import SETTLED, ModuleAtTarget
from mwbmigrate.engine.options import TransformOptions
from mwbmigrate.engine.source import UnreadableSource, decode_source, source_lines
from mwbmigrate.rules import RULES, holds_words_of

if TYPE_CHECKING:  # no LibCST here: the engine's prefilter reads a module's code before it imports any
    from mwbmigrate.codemods.base import MigrationCodemod, MigrationState

_OLD_WORDS = re.compile(r"ModelWorkerBatch|model_worker_batch")
_PROSE = (tokenize.COMMENT, tokenize.STRING)


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


def triggered(codemod: type[MigrationCodemod], view: str, state: MigrationState | None = None) -> bool:
    """Whether one of the codemod's TRIGGERS is in code (a codemod without any is always triggered),
    or the project's facts about the module make it act (`triggered_by_project`)."""
    triggers = getattr(codemod, "TRIGGERS", ())
    if not triggers or any(trigger in view for trigger in triggers):
        return True
    return state is not None and codemod.triggered_by_project(state)


# A lone carriage return: the transform refuses such a file, with its reason.
CR_ONLY = re.compile(r"\r(?!\n)")


# class-removal completes SGLang's `schedule_batch.py` whatever words it holds (its `applies_to`).
SCHEDULE_BATCH_MODULE_RULE = "MWB009"


def code_candidate(data: bytes, path: str, options: TransformOptions) -> bool:
    """The prefilter as far as it goes without LibCST: False proves that no codemod that runs for
    `options` can change the module or report on it.

    A codemod acts only where one of its TRIGGERS is in code and one of its REQUIRED_WORDS, where it
    has any, is in the text (`triggered` and `MigrationCodemod.applies_to`), or where the project's
    facts say it does; class-removal acts on SGLang's `schedule_batch.py`. Of those, a codemod that
    can tell the module has nothing left for it (analysis/settled.py) does not count. What cannot
    be read, or read as tokens, is a candidate: the transform says why."""
    if not options.candidate(data, path):
        return False
    location = ModuleLocation(Path(path).as_posix(), options.extra_modules)
    if options.project_workers.of_module(location.path):
        return True
    try:
        text = decode_source(data).text
    except UnreadableSource:
        return True
    if CR_ONLY.search(text):
        return True
    view = code_view(text)
    if view is None:
        return True  # the old API in code (or no tokens): every rule on it has work there
    code = view.encode("utf-8", "surrogateescape")
    module = ModuleAtTarget(
        text,
        location,
        options.target_version,
        options.clear_emptied_batches,
        options.request_mirror,
        old_api_in_code=False,
        code=view,
    )
    for rule in RULES:
        if rule.stage == "contract" or not options.runs_rule(rule):
            continue
        located = location.is_schedule_batch_module and rule.code == SCHEDULE_BATCH_MODULE_RULE
        # A trigger in code, as `triggered` reads it; a required word anywhere, as `applies_to` does.
        worded = holds_words_of(rule, code, data)
        settled = SETTLED.get(rule.code)
        if (located or worded) and (settled is None or not settled(module)):
            return True
    return False
