"""Before/after fixture pairs: tests/fixtures/<codemod>/<case>/{before.py, after.py[, path]}.

`path` (optional) is where the module pretends to live, which matters for relative imports and for
SGLang's own `schedule_batch.py`. `after-<version>.py` (optional) is the expected output for
`--target-version <version>`, `after-collapse.py` for `--collapse-compat`, `after-markers-all.py` for
`--markers all` (notes written into the code too), `after-live-batch.py` for `--live-batch` (the live batch
read at every snapshot site, one marker where the window allowlist does not prove it); a file `live-batch`
in the case folder runs every expectation of the case with `--live-batch`; `after-clear-emptied.py` is for
`--clear-emptied-batches`. A file `contract` holding a release runs the case as `rewrite
--target-version RELEASE` does, its contract check included, against the contract shipped for that release
(after-RELEASE.py). The whole pipeline runs, as a user would see it, including the
second pass (keyword callers) fed with the signatures the first pass renamed in the same file.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from mwbmigrate.analysis.target_versions import TARGET_VERSIONS
from mwbmigrate.codemods import CODEMODS, SECOND_PASS_CODEMODS
from mwbmigrate.engine.runner import merge_signatures
from mwbmigrate.engine.transform import TransformOptions, transform_source
from mwbmigrate.result import FileResult, FileStatus

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
DEFAULT_PATH = "plugin/module.py"


def cases(codemod: str) -> list[Path]:
    return sorted(p for p in (FIXTURES / codemod).iterdir() if (p / "before.py").exists())


def migrate(text: str, path: str = DEFAULT_PATH, options: TransformOptions | None = None) -> str:
    options = options or TransformOptions()
    first = transform_source(text, path, options, CODEMODS)
    signatures = merge_signatures(
        [FileResult(path, path, FileStatus.CHANGED, renamed_signatures=first.renamed_signatures)]
    )
    second = transform_source(first.text, path, replace(options, project_signatures=signatures), SECOND_PASS_CODEMODS)
    return second.text


def migrate_with_contract(text: str, path: str, target: str) -> str:
    """`rewrite --target-version TARGET` on the module alone in a folder, its contract check
    (against the contract shipped for the release, as `rewrite` checks it) included."""
    import tempfile

    from mwbmigrate.engine.runner import run_rewrite
    from mwbmigrate.verify.against import breaks_by_file, check_rewritten
    from mwbmigrate.verify.release import locate_release

    # The contract shipped with mwbmigrate, as `rewrite` reads it (tests/corpus/test_corpus_shipped_contract.py
    # holds it to the wheels).
    release = locate_release(target, shipped=True)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
        summary = run_rewrite(
            [root],
            TransformOptions(target_version=target),
            jobs=1,
            contract=lambda texts, checked: breaks_by_file(check_rewritten(root, release, texts, checked)),
        )
        (result,) = summary.results
        assert result.error is None, result.error
        return result.rewritten if result.rewritten is not None else text


def check_case(case: Path) -> None:
    before = (case / "before.py").read_text()
    path = (case / "path").read_text().strip() if (case / "path").exists() else DEFAULT_PATH
    contract = (case / "contract").read_text().strip() if (case / "contract").exists() else None
    if contract is not None:
        actual = migrate_with_contract(before, path, contract)
        assert actual == (case / f"after-{contract}.py").read_text()
        assert migrate_with_contract(actual, path, contract) == actual, "a second run must change nothing"
    expectations = [("after.py", TransformOptions())]
    expectations += [(f"after-{target}.py", TransformOptions(target_version=target)) for target in TARGET_VERSIONS]
    expectations.append(("after-collapse.py", TransformOptions(collapse_compat=True)))  # --collapse-compat
    expectations.append(("after-markers-all.py", TransformOptions(note_markers=True)))  # --markers all
    expectations.append(("after-live-batch.py", TransformOptions(live_batch=True)))  # --live-batch
    expectations.append(("after-clear-emptied.py", TransformOptions(clear_emptied_batches=True)))
    if (case / "live-batch").exists():
        expectations = [(name, replace(options, live_batch=True)) for name, options in expectations]
    checked = 0
    for name, options in expectations:
        if not (case / name).exists() or name == f"after-{contract}.py":
            continue
        actual = migrate(before, path, options)
        assert actual == (case / name).read_text(), name
        ast.parse(actual)
        assert migrate(actual, path, options) == actual, f"{name}: a second run must change nothing"
        checked += 1
    assert checked, f"{case} has no after.py"
