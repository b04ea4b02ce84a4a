import sys
from pathlib import Path

# Lets test modules import the corpus helper (`sglang_corpus`) without making tests a package.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "codemods"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))


import pytest  # noqa: E402

# Programs the suite runs as data, never as tests: a case named like `14_class_name_test.py` would
# otherwise be imported by pytest, and it imports an SGLang that only the stand-ins provide.
collect_ignore_glob = ["soundness/cases/*", "fixtures/*"]


@pytest.fixture(scope="session", autouse=True)
def _private_result_cache(tmp_path_factory: pytest.TempPathFactory):
    """The CLI's result cache (mwbmigrate.engine.cache) in a folder of this session, never the user's:
    no test reads a result another run left, and no test leaves one behind."""
    import os

    previous = os.environ.get("MWBMIGRATE_CACHE_DIR")
    cache = tmp_path_factory.mktemp("mwbmigrate-cache")
    os.environ["MWBMIGRATE_CACHE_DIR"] = str(cache)
    # A run's progress lines in a log come every few seconds: how many a slow machine prints is
    # timing, so no test's output may include them (tests/cli/test_cli_progress.py checks them
    # with a clock of its own).
    os.environ["MWBMIGRATE_NO_PROGRESS"] = "1"
    # The releases `rewrite --target-version` checks against come from the wheels the corpus tests
    # keep (downloaded once, .cache/sglang/wheels), not from a second download; and a release's
    # facts, extracted once (seconds per release), serve every xdist worker of this run: the cache
    # writes them whole or not at all (verify/codebase.py), under a lock where it unpacks.
    wheels = Path(__file__).resolve().parent.parent / ".cache" / "sglang" / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    base = tmp_path_factory.getbasetemp()
    releases = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "sglang-releases"
    releases.mkdir(exist_ok=True)
    try:
        (releases / "wheels").symlink_to(wheels, target_is_directory=True)
    except FileExistsError:
        pass  # another worker made it
    (cache / "sglang-releases").symlink_to(releases, target_is_directory=True)
    yield
    os.environ.pop("MWBMIGRATE_NO_PROGRESS", None)
    if previous is None:
        os.environ.pop("MWBMIGRATE_CACHE_DIR", None)
    else:
        os.environ["MWBMIGRATE_CACHE_DIR"] = previous
