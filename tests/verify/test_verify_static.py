"""Static checks of `mwbmigrate verify` on small trees: each finding kind, positive and negative."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from mwbmigrate.verify.static import (
    OLD_TOKEN,
    RENAMED_KEYWORD_CALL,
    REVIEW_MARKER,
    SYNTAX,
    UNDEFINED_SCHEDULE_BATCH,
    check_source,
    check_tree,
    count_old_api_tokens,
)


def codes(source: str) -> list[tuple[str, int]]:
    return [(f.code, f.line) for f in check_source(textwrap.dedent(source), "m.py")]


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


# ----------------------------------------------------------------------------- VFY001


def test_old_api_code_tokens_are_found():
    found = codes("""\
        from sglang.srt.managers.schedule_batch import ModelWorkerBatch
        def run(model_worker_batch):
            return batch.get_model_worker_batch()
    """)
    assert found == [(OLD_TOKEN, 1), (OLD_TOKEN, 2), (OLD_TOKEN, 3)]


def test_old_api_in_comments_strings_and_longer_names_is_allowed():
    assert (
        codes("""\
        # ModelWorkerBatch was removed in 0.5.13
        DOC = "get_model_worker_batch() is gone; model_worker_batch too"
        my_model_worker_batch = ModelWorkerBatches = 1
        def f():
            '''ModelWorkerBatch in a docstring.'''
    """)
        == []
    )


def test_count_old_api_tokens():
    assert count_old_api_tokens("ModelWorkerBatch(model_worker_batch)  # ModelWorkerBatch\n") == 2
    assert count_old_api_tokens("'ModelWorkerBatch'\n") == 0


# ----------------------------------------------------------------------------- VFY002


def test_file_that_does_not_parse():
    assert codes("def f(:\n    pass\n") == [(SYNTAX, 1)]


def test_file_that_parses_but_does_not_compile():
    # ast.parse accepts this; only the compiler rejects it.
    assert codes("x = 1\nreturn x\n") == [(SYNTAX, 2)]


def test_valid_file_compiles(tmp_path):
    root = write(tmp_path, {"ok.py": "x = 1\n"})
    (root / "bom.py").write_bytes(b"\xef\xbb\xbfx = 2\n")  # a BOM is fine (SGLang ships one)
    report = check_tree(root)
    assert report.files_checked == 2 and report.passed and not report.findings


# ----------------------------------------------------------------------------- VFY003


def test_schedule_batch_used_without_import():
    assert codes("def f(batch: ScheduleBatch):\n    return batch\n") == [(UNDEFINED_SCHEDULE_BATCH, 1)]


def test_schedule_batch_in_string_annotation_without_import():
    assert codes("def f(batch: 'Optional[ScheduleBatch]'):\n    return batch\n") == [(UNDEFINED_SCHEDULE_BATCH, 1)]


def test_schedule_batch_imported_only_in_another_function():
    found = codes("""\
        def a():
            from sglang.srt.managers.schedule_batch import ScheduleBatch
            return ScheduleBatch
        def b():
            return ScheduleBatch
    """)
    assert found == [(UNDEFINED_SCHEDULE_BATCH, 5)]


def test_class_body_name_is_not_visible_in_methods():
    found = codes("""\
        class A:
            ScheduleBatch = int
            x = ScheduleBatch
            def f(self):
                return ScheduleBatch
    """)
    assert found == [(UNDEFINED_SCHEDULE_BATCH, 5)]


@pytest.mark.parametrize(
    "source",
    [
        "from sglang.srt.managers.schedule_batch import ScheduleBatch\ndef f(b: ScheduleBatch): ...\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from x import ScheduleBatch\n"
        "def f(b: 'ScheduleBatch'): ...\n",
        "import x.y as ScheduleBatch\nScheduleBatch\n",
        "class ScheduleBatch: ...\ndef f(): return ScheduleBatch()\n",
        "def f():\n    from x import ScheduleBatch\n    def g():\n        return ScheduleBatch\n",
        "from x import *\nScheduleBatch\n",
        "def f(ScheduleBatch):\n    return ScheduleBatch\n",
        "try:\n    from x import ScheduleBatch\nexcept ImportError:\n    ScheduleBatch = None\nScheduleBatch\n",
        "import schedule_batch\nschedule_batch.ScheduleBatch\n",
    ],
)
def test_schedule_batch_defined(source):
    assert codes(source) == []


# ----------------------------------------------------------------------------- VFY004


def test_renamed_keyword_in_call():
    found = codes("run(model_worker_batch=b)\n")
    assert (RENAMED_KEYWORD_CALL, 1) in found and (OLD_TOKEN, 1) in found


@pytest.mark.parametrize("source", ["run(batch=b)\n", "run(**{'model_worker_batch': b})\n", "run(b)\n"])
def test_renamed_keyword_absent(source):
    assert all(code != RENAMED_KEYWORD_CALL for code, _ in codes(source))


# ----------------------------------------------------------------------------- VFY005


def test_review_markers_listed_and_fail_unless_allowed(tmp_path):
    root = write(tmp_path, {"pkg/w.py": "x = batch.seq_lens  # mwbmigrate: MWB104 check the copy\n"})
    report = check_tree(root)
    assert [(f.code, f.file, f.line) for f in report.findings] == [(REVIEW_MARKER, "pkg/w.py", 1)]
    assert "MWB104" in report.findings[0].message and "check the copy" in report.findings[0].message
    assert not report.passed
    allowed = check_tree(root, allow_review_markers=True)
    assert allowed.passed and len(allowed.findings) == 1  # still listed


def test_plain_comment_is_not_a_marker():
    assert codes("x = 1  # mwbmigrate was here\n") == []


# ----------------------------------------------------------------------------- tree walking


def test_skips_vcs_virtualenv_and_build_dirs(tmp_path):
    bad = "ModelWorkerBatch\n"
    root = write(
        tmp_path,
        {
            "src/ok.py": "x = 1\n",
            ".git/hooks/h.py": bad,
            "build/lib/b.py": bad,
            "env/lib/e.py": bad,
            "__pycache__/c.py": bad,
            "pkg.egg-info/p.py": bad,
        },
    )
    (root / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    report = check_tree(root)
    assert report.files_checked == 1 and report.passed


def test_finding_fields_and_failure(tmp_path):
    root = write(tmp_path, {"a/m.py": "def f(b: ScheduleBatch):\n    return ModelWorkerBatch\n"})
    report = check_tree(root)
    assert not report.passed
    assert [f.to_dict() for f in report.findings] == [
        {"code": UNDEFINED_SCHEDULE_BATCH, "file": "a/m.py", "line": 1, "message": report.findings[0].message},
        {"code": OLD_TOKEN, "file": "a/m.py", "line": 2, "message": report.findings[1].message},
    ]
    assert report.counts()[OLD_TOKEN] == 1 and report.to_dict()["passed"] is False


def test_worker_processes_give_the_same_report(tmp_path):
    files = {f"m{i:03}.py": ("ModelWorkerBatch\n" if i % 7 == 0 else "x = 1\n") for i in range(210)}
    root = write(tmp_path, files)
    serial, parallel = check_tree(root, jobs=1), check_tree(root, jobs=2)
    assert serial.findings == parallel.findings and serial.files_checked == parallel.files_checked == 210
    assert len(serial.findings) == 30
