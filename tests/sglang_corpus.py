"""Fetch the real SGLang wheels from PyPI into the git-ignored `.cache/` for corpus tests and benchmarks.

SGLang's own code is never committed: it is downloaded at test time with `pip download --no-deps`,
pinned to one platform tag so the result does not depend on the local interpreter.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import zipfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CACHE_DIR = Path(os.environ.get("MWBMIGRATE_CORPUS_CACHE", REPO_ROOT / ".cache" / "sglang"))

OLD_VERSION = "0.5.12.post1"
NEW_VERSION = "0.5.13"


class CorpusUnavailable(RuntimeError):
    """The wheel could not be downloaded (no network or PyPI refused)."""


def _download_wheel(version: str, wheel_dir: Path) -> Path:
    existing = sorted(wheel_dir.glob(f"sglang-{version}-*.whl"))
    if existing:
        return existing[0]
    wheel_dir.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--quiet",
        "--only-binary=:all:",
        "--python-version",
        "3.11",
        "--platform",
        "manylinux_2_34_x86_64",
        "-d",
        str(wheel_dir),
        f"sglang=={version}",
    ]
    completed = subprocess.run(command, capture_output=True, text=True)
    found = sorted(wheel_dir.glob(f"sglang-{version}-*.whl"))
    if completed.returncode != 0 or not found:
        raise CorpusUnavailable(f"pip download sglang=={version} failed: {completed.stderr.strip()[-500:]}")
    return found[0]


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
