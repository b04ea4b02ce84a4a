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
    os.environ["MWBMIGRATE_CACHE_DIR"] = str(tmp_path_factory.mktemp("mwbmigrate-cache"))
    yield
    if previous is None:
        os.environ.pop("MWBMIGRATE_CACHE_DIR", None)
    else:
        os.environ["MWBMIGRATE_CACHE_DIR"] = previous
