import sys
from pathlib import Path


# Lets test modules import the corpus helper (`sglang_corpus`) without making tests a package.
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "codemods"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "corpus"))

