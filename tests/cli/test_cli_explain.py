"""`mwbmigrate explain`: every codemod and review code explained, with an example and what to do."""

from __future__ import annotations

import inspect
import textwrap

import pytest

from mwbmigrate.codemods import ALL_CODEMODS
from mwbmigrate.review import REVIEW_CODES


def _indented(text: str) -> str:
    return textwrap.indent(text.rstrip("\n"), "    ")


@pytest.mark.parametrize("code", sorted(REVIEW_CODES))
def test_explain_review_code(kit, code):
    entry = REVIEW_CODES[code]
    result = kit.invoke("explain", code)
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.startswith(f"{code}  {entry.title}\n")
    # The examples come through verbatim: plain text, no rich markup eating `[...]`.
    before, after = out.index("Example, before:\n"), out.index("after `mwbmigrate rewrite`")
    assert out[before:after].rstrip("\n").endswith(_indented(entry.example_before))
    assert _indented(entry.example_after) in out[after:]
    assert out.index("What to do:\n") > after
    assert " ".join(entry.what_to_do.split()) in " ".join(out.split())
    for name in entry.reported_by:
        assert name in out.splitlines()[1]


@pytest.mark.parametrize("codemod", ALL_CODEMODS, ids=lambda c: c.NAME)
def test_explain_codemod_by_code_and_by_name(kit, codemod):
    by_code = kit.invoke("explain", codemod.CODE)
    assert by_code.exit_code == 0, by_code.stderr
    out = by_code.stdout
    assert out.startswith(f"{codemod.CODE}  {codemod.NAME}\ncodemod\n")
    assert " ".join(codemod.SUMMARY.split()) in " ".join(out.split())
    # The before -> after example is the codemod module's own description, verbatim.
    assert "Before -> after" in out
    assert _indented(inspect.getdoc(inspect.getmodule(codemod))) in out
    assert "What to do:" in out
    reported = [code for code, entry in REVIEW_CODES.items() if codemod.NAME in entry.reported_by]
    assert all(code in out.split("What to do:")[1] for code in reported)
    by_name = kit.invoke("explain", codemod.NAME)
    assert by_name.exit_code == 0 and by_name.stdout == out


def test_explain_accepts_lower_case_codes(kit):
    assert kit.invoke("explain", "mwb101").stdout == kit.invoke("explain", "MWB101").stdout
    assert kit.invoke("explain", "mwb005").stdout == kit.invoke("explain", "worker-batch-calls").stdout


def test_explain_target_version_codes_say_so(kit):
    out = kit.invoke("explain", "MWB139").stdout
    assert "only with --target-version 0.5.16" in out.splitlines()[1]
    assert "--target-version" not in kit.invoke("explain", "MWB101").stdout.splitlines()[1]


@pytest.mark.parametrize("key", ["MWB199", "MWB100", "worker-batch", "ModelWorkerBatch", "MWB0051"])
def test_explain_unknown_code_is_one_line_error(kit, key):
    result = kit.invoke("explain", key)
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: unknown code") and repr(key) in lines[0]
    assert "mwbmigrate list-codemods" in lines[0] and "mwbmigrate explain --all" in lines[0]


def test_explain_needs_exactly_one_of_code_and_all(kit):
    for args in ([], ["MWB101", "--all"]):
        result = kit.invoke("explain", *args)
        assert result.exit_code == 2 and result.stdout == ""
        assert "give one CODE, or --all" in result.stderr


def test_explain_all_covers_every_code_in_order(kit):
    result = kit.invoke("explain", "--all")
    assert result.exit_code == 0, result.stderr
    headers = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("MWB") and "  " in line]
    assert headers == [c.CODE for c in ALL_CODEMODS] + list(REVIEW_CODES)
    assert result.stdout == "\n\n".join(kit.invoke("explain", key).stdout for key in headers)


def test_explain_in_a_subprocess_writes_plain_text(kit):
    result = kit.run("explain", "MWB114")
    assert result.returncode == 0, result.stderr.decode()
    assert b"Union[ScheduleBatch, ModelWorkerBatch]" in result.stdout
    assert b"\x1b[" not in result.stdout
