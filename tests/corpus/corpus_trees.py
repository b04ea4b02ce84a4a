"""Shared by the corpus tests: the real trees, and 0.5.12.post1 migrated once per session."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

OLD_TOKENS = {"ModelWorkerBatch", "get_model_worker_batch", "model_worker_batch"}


def old_api_code_tokens(source: str) -> list[tuple[int, str]]:
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.NAME and token.string in OLD_TOKENS:
            found.append((token.start[0], token.string))
    return found


def python_files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*.py"))}
