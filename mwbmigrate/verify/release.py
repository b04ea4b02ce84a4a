"""Where `verify --against` finds the SGLang release it checks a tree against.

`--against` takes one of:

* a version (`0.5.23`): the wheel is fetched once with `pip download --no-deps sglang==VERSION`
  (pinned to one platform tag, as `tests/sglang_corpus.py` does, so the result does not depend on
  the local interpreter) and unpacked into the cache, `$MWBMIGRATE_CACHE_DIR`, else
  `$XDG_CACHE_HOME/mwbmigrate`, else `~/.cache/mwbmigrate` (the folder `engine/cache.py` uses),
  under `sglang-releases/`;
* a path to a wheel: unpacked into the same cache, keyed by the wheel's hash;
* a folder: an unpacked wheel or a source checkout (the folder holding `sglang/`, the `sglang/`
  package itself, or a repository with `python/sglang/`).

Nothing here imports SGLang: the release is only ever read as text, with `ast`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from mwbmigrate.verify.shipped_contract import CONTRACT_DIR, shipped_versions

__all__ = ["ReleaseUnavailable", "Release", "cache_directory", "locate_release"]

CACHE_DIR_ENV = "MWBMIGRATE_CACHE_DIR"
SUBDIR = "sglang-releases"
# The same pins as tests/sglang_corpus.py: SGLang publishes one binary wheel per release.
PYTHON_VERSION = "3.11"
PLATFORM = "manylinux_2_34_x86_64"
_VERSION = re.compile(r"^\d+(\.\d+)*([a-z]+\d*)?(\.post\d+)?(\.dev\d+)?$")
_MARKER = ".extracted"
_DECLARED = re.compile(r"""^__version__\s*=\s*(?:version\s*=\s*)?["']([^"']+)["']""", re.M)


class ReleaseUnavailable(RuntimeError):
    """The release could not be found, downloaded or unpacked; the message says why."""


@dataclass(frozen=True)
class Release:
    """An unpacked release: `root` holds the `sglang/` package."""

    root: Path
    label: str  # what to call it in reports: the version (read from the release when given a path)
    # Read from the contract shipped with mwbmigrate (`shipped_contract.py`), not from a wheel:
    # `root` then names it, and holds no file.
    shipped: bool = False


def cache_directory() -> Path:
    """`$MWBMIGRATE_CACHE_DIR`, else `$XDG_CACHE_HOME/mwbmigrate`, else `~/.cache/mwbmigrate`."""
    configured = os.environ.get(CACHE_DIR_ENV)
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "mwbmigrate"


def package_root(folder: Path) -> Optional[Path]:
    """The folder that holds the `sglang/` package, for a folder given on the command line."""
    if (folder / "sglang" / "srt").is_dir():
        return folder
    if folder.name == "sglang" and (folder / "srt").is_dir():
        return folder.parent
    if (folder / "python" / "sglang" / "srt").is_dir():
        return folder / "python"
    return None


def locate_release(against: str, cache_dir: Optional[Path] = None, shipped: bool = False) -> Release:
    """Resolve `--against` to an unpacked release, downloading or unpacking it when needed.
    `shipped`: a version whose contract ships with mwbmigrate is read from it (no network, no wheel)."""
    cache = (cache_dir or cache_directory()) / SUBDIR
    path = Path(against).expanduser()
    if shipped and not path.exists() and against in shipped_versions():
        return Release(CONTRACT_DIR / against, against, shipped=True)
    if path.is_dir():
        root = package_root(path)
        if root is None:
            raise ReleaseUnavailable(f"{against}: no sglang/srt package in this folder")
        return Release(root, release_version(root) or against)
    if path.is_file():
        if path.suffix != ".whl":
            raise ReleaseUnavailable(f"{against}: not a wheel (.whl) nor a folder")
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        root = _unpacked(path, cache / f"wheel-{digest}")
        return Release(root, release_version(root) or against)
    if not _VERSION.match(against):
        raise ReleaseUnavailable(f"{against}: no such file or folder, and not a version number")
    target = cache / against
    if (target / _MARKER).exists():
        return Release(target, against)
    with _locked(cache):
        if not (target / _MARKER).exists():
            wheel = download_wheel(against, cache / "wheels")
            _unpack(wheel, target)
    return Release(target, against)


def release_version(root: Path) -> Optional[str]:
    """The version the release declares (`sglang/_version.py` or `sglang/version.py`), read as text."""
    for name in ("_version.py", "version.py"):
        try:
            text = (root / "sglang" / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found = _DECLARED.search(text)
        if found:
            return found.group(1)
    return None


def download_wheel(version: str, wheel_dir: Path) -> Path:
    """`pip download --no-deps sglang==VERSION` into `wheel_dir` (once: an existing wheel is reused).

    pip writes into a private folder first and the wheel is renamed into place, so another process
    looking for it (a second download of the same release) never sees half a file."""
    existing = sorted(wheel_dir.glob(f"sglang-{version}-*.whl"))
    if existing:
        return existing[0]
    wheel_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".sglang-{version}-", dir=wheel_dir))
    try:
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--quiet",
            "--only-binary=:all:",
            "--python-version",
            PYTHON_VERSION,
            "--platform",
            PLATFORM,
            "-d",
            str(staging),
            f"sglang=={version}",
        ]
        try:
            completed = subprocess.run(command, capture_output=True, text=True)
        except OSError as error:
            raise ReleaseUnavailable(f"pip download sglang=={version} could not run: {error}") from error
        found = sorted(staging.glob(f"sglang-{version}-*.whl"))
        if completed.returncode != 0 or not found:
            reason = (completed.stderr or completed.stdout).strip().splitlines()
            tail = reason[-1] if reason else f"exit status {completed.returncode}"
            raise ReleaseUnavailable(f"pip download sglang=={version} failed: {tail}")
        target = wheel_dir / found[0].name
        os.replace(found[0], target)
        return target
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _unpacked(wheel: Path, target: Path) -> Path:
    if not (target / _MARKER).exists():
        with _locked(target.parent):
            if not (target / _MARKER).exists():
                _unpack(wheel, target)
    return target


def _unpack(wheel: Path, target: Path) -> None:
    """Extract the wheel's `sglang/` files into `target`, whole or not at all (a temporary folder
    renamed into place, then the marker)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        try:
            with zipfile.ZipFile(wheel) as archive:
                members = [name for name in archive.namelist() if name.startswith("sglang/")]
                if not members:
                    raise ReleaseUnavailable(f"{wheel}: the wheel holds no sglang/ package")
                archive.extractall(staging, members)
        except (OSError, zipfile.BadZipFile) as error:
            raise ReleaseUnavailable(f"{wheel}: cannot unpack: {error}") from error
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
        (target / _MARKER).touch()
    finally:
        shutil.rmtree(staging, ignore_errors=True)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One process downloads and unpacks; the others wait, then find the marker."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock, the rename still keeps it whole
            yield
            return
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
