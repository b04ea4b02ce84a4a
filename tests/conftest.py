import sys
from pathlib import Path

# Lets test modules import the corpus helper (`sglang_corpus`) without making tests a package.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "codemods"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))


def pytest_collection_modifyitems(config, items):
    """Under `pytest -n`, keep each expensive session or module fixture on one worker.

    Tests that share the migrated corpus tree (`trees`) form one group; every other corpus or
    verify-corpus module is a group of its own, so its module-scoped tree is built once. Everything
    else is spread freely.
    """
    import pytest

    for item in items:
        path = Path(str(item.fspath))
        if "trees" in getattr(item, "fixturenames", ()):
            group = "corpus-trees"
        elif path.parent.name == "corpus" or path.name == "test_verify_corpus.py":
            group = path.stem
        else:
            continue
        item.add_marker(pytest.mark.xdist_group(group))
