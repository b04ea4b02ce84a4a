#!/usr/bin/env bash
# Installs everything the test suite needs into .venv and runs the whole suite (CPU; the corpus
# tests download sglang 0.5.12.post1 and 0.5.13 from PyPI into the git-ignored .cache/).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
# The CPU wheel of torch 2.13.0; an unpinned torch would pull a multi-GB CUDA build.
.venv/bin/python -m pip install --quiet torch==2.13.0
# mwbmigrate requires mwbmigrate-runtime, which is not on PyPI: install it from this checkout first, so
# pip finds it satisfied. Its wheel makes site-packages/mwbmigrate/ a namespace portion, which would
# hide setuptools' default editable finder (consulted after it): `compat` puts this checkout on
# sys.path instead, where the regular package mwbmigrate/ wins, with mwbmigrate/runtime/ from source.
.venv/bin/python -m pip install --quiet ./packaging/runtime
.venv/bin/python -m pip install --quiet -e '.[verify,dev]' --config-settings editable_mode=compat
# The package ships py.typed: it type-checks strictly, and lint and format are gates too.
.venv/bin/python -m mypy --strict mwbmigrate
.venv/bin/python -m ruff check mwbmigrate tests benchmarks scripts
.venv/bin/python -m ruff format --check mwbmigrate tests benchmarks scripts
# Two workers (CI has two cores); a test module stays on one worker, so each module-scoped corpus tree is
# built once; the session's migrated tree is shared between workers (tests/corpus/conftest.py).
exec .venv/bin/python -m pytest -q -p no:cacheprovider -n 2 --dist loadfile --durations=10 "$@"
