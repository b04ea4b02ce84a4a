"""Issue 13: one behaviour on every path in. `rewrite -` (stdin) against `rewrite FILE` on the same
bytes, under every flag and under a `[tool.mwbmigrate]` configuration: the same exit code, the same
stderr, the same stdout, and stdin's module on stdout is byte for byte what the file run writes.

Each case is a module at `tree/pkg/mod.py` (outside git: in-place writes are allowed), with the
configuration in `tree/pyproject.toml`; stdin runs pass `--stdin-filename` with the same path, so
both find the same configuration and report the same display path.
"""

from __future__ import annotations

import codecs
import json
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mwbmigrate.cli import app

OLD_API = textwrap.dedent(
    '''\
    """Data flow: ScheduleBatch -> ModelWorkerBatch -> ForwardBatch."""
    from sglang.srt.managers.schedule_batch import ModelWorkerBatch


    def forward(model_worker_batch: ModelWorkerBatch):
        return model_worker_batch.seq_lens


    def step(batch):
        model_worker_batch = batch.get_model_worker_batch()
        model_worker_batch.seq_lens = None
        return forward(model_worker_batch=model_worker_batch)


    if hasattr(ModelWorkerBatch, "seq_lens"):
        OLD = True
    '''
).encode()
INPUTS = {
    "old-api": OLD_API,
    "bom": codecs.BOM_UTF8 + OLD_API,
    "latin-1-cookie": b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + OLD_API,
    "crlf": OLD_API.replace(b"\n", b"\r\n"),
    "bad-syntax": OLD_API + b"def broken(:\n    pass\n",
    "no-old-api": b"def untouched(batch):\n    return batch.seq_lens\n",
}
FLAGS = {
    "write": [],
    "dry-run": ["--dry-run"],
    "check": ["--check"],
    "json": ["--format", "json"],
    "json-dry-run": ["--format", "json", "--dry-run"],
    "markdown-check": ["--format", "markdown", "--check"],
    "no-markers": ["--no-markers", "--dry-run"],
    "select-docstrings": ["--select", "docstrings", "--dry-run"],
    "select-review": ["--select", "MWB106", "--dry-run"],
    "ignore-review": ["--ignore", "MWB113"],
    "collapse-compat": ["--collapse-compat"],
    "target-0.5.16": ["--target-version", "0.5.16", "--dry-run"],
    "exclude": ["--exclude", "mod.py"],  # outside git, relative to the file's folder
}
CONFIGS = {
    "no-config": None,
    "markers-off": "markers = false\n",
    "markers-off-flag-on": "markers = false\n",  # with --markers on the command line
    "ignore-docstrings": 'ignore = ["docstrings"]\nselect = ["MWB113", "MWB106"]\n',
    "target-0.5.16": 'target-version = "0.5.16"\n',
    "excluded": 'exclude = ["mod.py"]\n',
    "jobs": "jobs = 3\n",  # a tree's setting that means nothing for one module: not refused
}


def _tree(tmp_path: Path, name: str, source: bytes, config: str | None) -> Path:
    root = tmp_path / name
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_bytes(source)
    if config is not None:
        (root / "pyproject.toml").write_text("[tool.mwbmigrate]\n" + config)
    return root


def _invoke(args: list[str], stdin: bytes | None = None):
    return CliRunner().invoke(app, ["rewrite", *args, "--no-progress"], input=stdin, catch_exceptions=False)


def _both(tmp_path: Path, source: bytes, flags: list[str], config: str | None = None):
    """(file run, stdin run, the file's bytes after the file run, the stdin tree's file after its run)."""
    on_disk = _tree(tmp_path, "file", source, config)
    piped = _tree(tmp_path, "stdin", source, config)
    by_file = _invoke([str(on_disk / "pkg" / "mod.py"), *flags])
    by_stdin = _invoke(["-", "--stdin-filename", str(piped / "pkg" / "mod.py"), *flags], stdin=source)
    return by_file, by_stdin, (on_disk / "pkg" / "mod.py").read_bytes(), (piped / "pkg" / "mod.py").read_bytes()


def _assert_same(by_file, by_stdin, written: bytes, source: bytes, stdin_file: bytes, flags: list[str]) -> None:
    assert by_stdin.exit_code == by_file.exit_code, (by_file.stderr, by_stdin.stderr)
    assert by_stdin.stderr == by_file.stderr
    assert stdin_file == source, "stdin never writes the file it names"
    writes = not {"--dry-run", "--check"} & set(flags)
    text_report = "--format" not in flags
    if writes and text_report:
        assert by_file.stdout_bytes == b""
        expected = b"" if by_file.exit_code == 2 else written
        assert by_stdin.stdout_bytes == expected, "stdin prints what the file run writes"
    else:
        assert by_stdin.stdout_bytes == by_file.stdout_bytes


@pytest.mark.parametrize("flags", FLAGS.values(), ids=FLAGS.keys())
@pytest.mark.parametrize("source", INPUTS.values(), ids=INPUTS.keys())
def test_stdin_and_file_agree_under_every_flag(tmp_path, source, flags):
    by_file, by_stdin, written, stdin_file = _both(tmp_path, source, flags)
    _assert_same(by_file, by_stdin, written, source, stdin_file, flags)


@pytest.mark.parametrize("config_name", CONFIGS, ids=CONFIGS.keys())
@pytest.mark.parametrize("source", [INPUTS["old-api"], INPUTS["latin-1-cookie"]], ids=["old-api", "latin-1-cookie"])
def test_stdin_and_file_agree_under_a_configuration(tmp_path, source, config_name):
    flags = ["--markers"] if config_name == "markers-off-flag-on" else []
    by_file, by_stdin, written, stdin_file = _both(tmp_path, source, flags, CONFIGS[config_name])
    _assert_same(by_file, by_stdin, written, source, stdin_file, flags)


# --- what each mode means on stdin, pinned ----------------------------------------------------------


def test_stdin_bom_and_latin1_are_migrated_in_their_own_encoding(tmp_path):
    for source in (INPUTS["bom"], INPUTS["latin-1-cookie"]):
        result = _invoke(["-", "--stdin-filename", str(tmp_path / "mod.py")], stdin=source)
        assert result.exit_code == 0, result.stderr
        assert result.stdout_bytes[:3] == source[:3]  # the BOM, or the cookie line
        assert b"def forward(batch: ScheduleBatch)" in result.stdout_bytes
        if source is INPUTS["latin-1-cookie"]:
            assert b"# caf\xe9\n" in result.stdout_bytes


def test_stdin_bad_syntax_is_one_line_exit_2_and_nothing_on_stdout(tmp_path):
    result = _invoke(["-", "--stdin-filename", str(tmp_path / "mod.py")], stdin=INPUTS["bad-syntax"])
    assert result.exit_code == 2
    assert result.stdout_bytes == b""
    assert "error mod.py: does not parse" in result.stderr
    assert "Traceback" not in result.stderr


def test_stdin_not_valid_text_is_one_line_exit_2(tmp_path):
    result = _invoke(["-", "--stdin-filename", str(tmp_path / "mod.py")], stdin=OLD_API + b"s = '\xff'\n")
    assert result.exit_code == 2 and result.stdout_bytes == b""
    assert "error mod.py: not valid utf-8 text" in result.stderr


def test_stdin_check_prints_nothing_and_exits_1_when_it_would_change(tmp_path):
    result = _invoke(["-", "--stdin-filename", str(tmp_path / "mod.py"), "--check"], stdin=OLD_API)
    assert (result.exit_code, result.stdout_bytes) == (1, b"")
    clean = _invoke(["-", "--stdin-filename", str(tmp_path / "mod.py"), "--check"], stdin=INPUTS["no-old-api"])
    assert (clean.exit_code, clean.stdout_bytes) == (0, b"")


def test_stdin_dry_run_prints_the_patch(tmp_path):
    result = _invoke(["-", "--stdin-filename", str(tmp_path / "pkg" / "mod.py"), "--dry-run"], stdin=OLD_API)
    assert result.exit_code == 0
    assert result.stdout.startswith("diff --git a/mod.py b/mod.py\n")


def test_stdin_json_reports_instead_of_printing_the_module(tmp_path):
    result = _invoke(["-", "--stdin-filename", str(tmp_path / "mod.py"), "--format", "json"], stdin=OLD_API)
    document = json.loads(result.stdout)
    assert document["mode"] == "write"
    assert [f["status"] for f in document["files"]] == ["changed"]


def test_stdin_excluded_module_comes_back_unchanged(tmp_path):
    result = _invoke(["-", "--stdin-filename", str(tmp_path / "pkg" / "mod.py"), "--exclude", "mod.py"], stdin=OLD_API)
    assert (result.exit_code, result.stdout_bytes) == (0, OLD_API)


def test_stdin_reads_the_configuration_nearest_its_filename(tmp_path):
    outer = _tree(tmp_path, "outer", b"", "markers = true\n")
    (outer / "pkg" / "pyproject.toml").write_text("[tool.mwbmigrate]\nmarkers = false\n")
    result = _invoke(["-", "--stdin-filename", str(outer / "pkg" / "mod.py")], stdin=OLD_API)
    assert result.exit_code == 0 and b"# mwbmigrate:" not in result.stdout_bytes
    assert "MWB113" in result.stderr  # still reported


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--jobs", "2"], "--jobs"),
        (["--allow-dirty"], "--allow-dirty"),
        (["--runtime", "vendor"], "--runtime vendor"),
    ],
    ids=["jobs", "allow-dirty", "runtime-vendor"],
)
def test_flags_that_cannot_apply_to_stdin_are_refused(tmp_path, flags, message):
    result = _invoke(["-", "--stdin-filename", str(tmp_path / "mod.py"), *flags], stdin=OLD_API)
    assert result.exit_code == 2 and result.stdout_bytes == b""
    assert message in result.stderr and "cannot be used with `-` (stdin)" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


SCHEDULE_BATCH = textwrap.dedent(
    """\
    import dataclasses


    @dataclasses.dataclass
    class ScheduleBatch:
        req_pool_indices: object = None
        req_pool_indices_cpu: object = None
        seq_lens_cpu_cache: object = None
        capture_hidden_mode: object = None
        return_hidden_states_before_norm: bool = False

        def prepare_for_decode(self):
            self.forward_mode = "decode"
    """
).encode()


def test_configured_vendor_runtime_is_refused_on_stdin_until_the_copy_is_in_place(tmp_path):
    root = tmp_path / "tree"
    module = root / "python" / "sglang" / "srt" / "managers" / "schedule_batch.py"
    module.parent.mkdir(parents=True)
    module.write_bytes(SCHEDULE_BATCH)
    (root / "python" / "sglang" / "__init__.py").write_bytes(b"")
    (root / "pyproject.toml").write_text('[tool.mwbmigrate]\nruntime = "vendor"\n')
    refused = _invoke(["-", "--stdin-filename", str(module)], stdin=SCHEDULE_BATCH)
    assert refused.exit_code == 2 and refused.stdout_bytes == b""
    assert "the vendored runtime sglang/_mwbmigrate_runtime/ is missing or out of date" in refused.stderr
    # The tree's own run puts the copy in place; stdin then prints what that run wrote.
    assert _invoke([str(root / "python")]).exit_code == 0
    written = module.read_bytes()
    assert b"from sglang._mwbmigrate_runtime import ensure_req_pool_indices_cpu" in written
    accepted = _invoke(["-", "--stdin-filename", str(module)], stdin=SCHEDULE_BATCH)
    assert (accepted.exit_code, accepted.stdout_bytes) == (0, written), accepted.stderr
