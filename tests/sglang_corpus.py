"""Fetch the real SGLang wheels from PyPI into the git-ignored `.cache/` for corpus tests and benchmarks.

SGLang's own code is never committed: it is downloaded at test time with `pip download --no-deps`,
pinned to one platform tag so the result does not depend on the local interpreter.
"""

from __future__ import annotations

import fcntl
import os
import zipfile
from pathlib import Path

from mwbmigrate.verify.release import ReleaseUnavailable, download_wheel

REPO_ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = Path(os.environ.get("MWBMIGRATE_CORPUS_CACHE", REPO_ROOT / ".cache" / "sglang"))

OLD_VERSION = "0.5.12.post1"
NEW_VERSION = "0.5.13"


class CorpusUnavailable(RuntimeError):
    """The wheel could not be downloaded (no network or PyPI refused)."""


def _download_wheel(version: str, wheel_dir: Path) -> Path:
    try:
        return download_wheel(version, wheel_dir)  # the one `pip download` that `verify --against` uses too
    except ReleaseUnavailable as error:
        raise CorpusUnavailable(str(error)) from error


def sglang_tree(version: str) -> Path:
    """Return the folder holding the extracted `sglang/` package of `version`, downloading it once.

    Test workers (`pytest -n`) may ask at the same time: one downloads and extracts while the
    others wait on the lock, then find the marker.
    """
    target = CACHE_DIR / version
    marker = target / ".extracted"
    if marker.exists():
        return target
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with open(CACHE_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not marker.exists():
            wheel = _download_wheel(version, CACHE_DIR / "wheels")
            with zipfile.ZipFile(wheel) as archive:
                members = [name for name in archive.namelist() if name.startswith("sglang/")]
                archive.extractall(target, members)
            marker.touch()
    return target
