"""Write `mwbmigrate/verify/contracts.json.gz`: each target release's contract, pruned, shipped so
that `rewrite --target-version VERSION` checks its result offline.

    .venv/bin/python scripts/release_contracts.py [--check] [--only VERSION ...] [--cache DIR] [--jobs N]

Each release's wheel is downloaded once into the git-ignored `.cache/sglang/wheels/` (as
`scripts/release_table.py` does, for the same releases), its `sglang/` modules unpacked into a
temporary folder and read with `ast` as `verify --against` reads a release (`verify/codebase.py`),
then pruned (`mwbmigrate.verify.shipped_contract.prune`). Nothing of SGLang is imported.

`--check` writes nothing and exits 1 when the checked-in file is not what the wheels give; with
`--only`, only those releases are compared (tests/corpus/test_corpus_shipped_contract.py checks
two of them in CI, all of them with `MWBMIGRATE_VERIFY_ALL_RELEASES=1`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Optional

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "scripts"))

from release_table import DEFAULT_CACHE, RELEASES, wheel  # noqa: E402

from mwbmigrate.verify.against import ReleaseModel  # noqa: E402
from mwbmigrate.verify.codebase import Codebase  # noqa: E402
from mwbmigrate.verify.facts import ModuleFacts  # noqa: E402
from mwbmigrate.verify.shipped_contract import (  # noqa: E402
    CONTRACT_DIR,
    prune,
    shipped_release,
    write_contracts,
)


def pruned_release(wheel_path: Path) -> dict[str, ModuleFacts]:
    """Every module of the wheel's `sglang/` package, its facts pruned for the contract step."""
    with tempfile.TemporaryDirectory(prefix="mwbmigrate-contract-") as folder:
        with zipfile.ZipFile(wheel_path) as archive:
            for name in archive.namelist():
                if name.startswith("sglang/") and name.endswith(".py"):
                    archive.extract(name, folder)
        return pruned_modules(Codebase(Path(folder)))


def pruned_modules(codebase: Codebase) -> dict[str, ModuleFacts]:
    """Every module of a release's codebase, its facts pruned for the contract step."""
    facts = {name: codebase.module(name) for name in sorted(codebase.files)}
    workers: dict[str, set[str]] = {}
    for cls in ReleaseModel(codebase).worker_ancestors:
        workers.setdefault(cls.module.name, set()).add(cls.facts.name)
    return {name: prune(module, workers.get(name, ())) for name, module in facts.items() if module is not None}


def _one(version: str, cache: Path) -> tuple[str, dict[str, ModuleFacts]]:
    return version, pruned_release(wheel(version, cache))


def generate(versions: tuple[str, ...], cache: Path, jobs: int) -> dict[str, dict[str, ModuleFacts]]:
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        done = dict(pool.map(_one, versions, [cache] * len(versions)))
    return {version: done[version] for version in versions}


def differences(version: str, regenerated: dict[str, ModuleFacts]) -> list[str]:
    """How the shipped contract of `version` differs from what its wheel gives (empty: it does not)."""
    shipped = shipped_release(version)
    if shipped is None:
        return [f"{version}: not in {CONTRACT_DIR.name}/"]
    found: list[str] = []
    for name in sorted(shipped.names.keys() | regenerated.keys()):
        if name not in shipped.names:
            found.append(f"{version}: {name} is missing")
        elif name not in regenerated:
            found.append(f"{version}: {name} is not in the wheel")
        elif shipped.facts(name) != regenerated[name]:
            found.append(f"{version}: {name} differs")
    return found


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the checked-in file; write nothing")
    parser.add_argument("--only", nargs="+", default=None, help="with --check: only these releases")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the wheels are kept (in wheels/)")
    parser.add_argument("--jobs", type=int, default=2, help="releases read at once")
    args = parser.parse_args(argv)
    versions = tuple(args.only) if args.only else RELEASES
    releases = generate(versions, args.cache, args.jobs)
    if args.check:
        found = [line for version, modules in releases.items() for line in differences(version, modules)]
        if args.only is None:
            files = write_contracts(releases)
            if {p.name: p.read_bytes() for p in CONTRACT_DIR.glob("contracts-*.xz")} != files:
                found.append(f"{CONTRACT_DIR.name}/ is not what the wheels give, byte for byte")
        for line in found[:40]:
            print(line)
        if found:
            print(f"{len(found)} differences: run scripts/release_contracts.py to write it again", file=sys.stderr)
            return 1
        print(f"{CONTRACT_DIR.name}/ is what the wheels of {', '.join(versions)} give")
        return 0
    if args.only is not None:
        parser.error("--only is for --check: the file holds every release")
    files = write_contracts(releases)
    CONTRACT_DIR.mkdir(exist_ok=True)
    for stale in CONTRACT_DIR.glob("contracts-*.xz"):
        if stale.name not in files:
            stale.unlink()
    for name, data in files.items():
        (CONTRACT_DIR / name).write_bytes(data)
    sizes = ", ".join(f"{name} {len(data):,} bytes" for name, data in files.items())
    print(f"wrote {CONTRACT_DIR.relative_to(REPO_ROOT)}/: {sizes}; {len(versions)} releases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
