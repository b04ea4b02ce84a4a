"""`--target-version` and `target-version =`: every release from 0.5.13 to 0.5.23, `latest`, and a
one-line refusal of anything else."""

from __future__ import annotations

import json

import pytest
import typer

from mwbmigrate.cli import app

RELEASES = "0.5.13 0.5.13.post1 0.5.14 0.5.15 0.5.15.post1 0.5.16 0.5.17 0.5.18 0.5.19 0.5.20 0.5.21 0.5.22 0.5.23"
REFUSAL = (
    "unknown target version {!r}: use 'latest' or a release from 0.5.13 to 0.5.23 (" + RELEASES.replace(" ", ", ") + ")"
)


def test_an_unknown_flag_value_exits_2_with_one_line(kit):
    repo = kit.repo()
    result = kit.invoke("rewrite", repo, "--dry-run", "--target-version", "0.5.12")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "error: --target-version: " + REFUSAL.format("0.5.12") + "\n"


def test_an_unknown_configured_value_exits_2_with_one_line(kit):
    repo = kit.repo(files={"pyproject.toml": b'[tool.mwbmigrate]\ntarget-version = "0.5.24"\n'})
    result = kit.invoke("rewrite", repo, "--dry-run")
    assert result.exit_code == 2
    assert result.stderr == f"error: {repo / 'pyproject.toml'}: [tool.mwbmigrate] target-version: " + (
        REFUSAL.format("0.5.24") + "\n"
    )


def test_a_configured_number_is_refused(kit):
    repo = kit.repo(files={"pyproject.toml": b"[tool.mwbmigrate]\ntarget-version = 0.5\n"})
    result = kit.invoke("rewrite", repo, "--dry-run")
    assert result.exit_code == 2
    assert result.stderr == (
        f'error: {repo / "pyproject.toml"}: [tool.mwbmigrate] target-version must be a string, such as "0.5.16"\n'
    )


def test_latest_is_the_newest_release_by_flag_and_by_configuration(kit):
    by_number = kit.invoke(
        "rewrite", kit.repo("number"), "--dry-run", "--no-progress", "--no-contract-check", "--target-version", "0.5.23"
    )
    by_flag = kit.invoke(
        "rewrite", kit.repo("flag"), "--dry-run", "--no-progress", "--no-contract-check", "--target-version", "latest"
    )
    configured = kit.repo("configured", files={"pyproject.toml": b'[tool.mwbmigrate]\ntarget-version = "latest"\n'})
    by_config = kit.invoke("rewrite", configured, "--dry-run", "--no-progress", "--no-contract-check")
    assert by_number.exit_code == by_flag.exit_code == by_config.exit_code == 0
    assert by_number.stdout != ""
    assert by_flag.stdout == by_number.stdout
    assert by_config.stdout == by_number.stdout


def test_the_flag_wins_over_the_configuration(kit):
    configured = kit.repo("configured", files={"pyproject.toml": b'[tool.mwbmigrate]\ntarget-version = "0.5.16"\n'})
    plain = kit.invoke("rewrite", kit.repo("plain"), "--dry-run", "--no-progress")
    as_configured = kit.invoke("rewrite", configured, "--dry-run", "--no-progress", "--no-contract-check")
    overridden = kit.invoke(
        "rewrite", configured, "--dry-run", "--no-progress", "--no-contract-check", "--target-version", "0.5.13"
    )
    assert overridden.exit_code == plain.exit_code == as_configured.exit_code == 0
    assert as_configured.stdout != plain.stdout
    assert overridden.stdout == plain.stdout


OLD_IMPORT = b"from sglang.srt.managers.schedule_batch import ModelWorkerBatch\n"


@pytest.mark.parametrize("release", RELEASES.split())
def test_every_release_is_accepted(kit, release):
    repo = kit.repo(examples=False, files={"mod.py": OLD_IMPORT})
    result = kit.invoke(
        "rewrite", repo, "--check", "--format", "json", "--no-contract-check", "--target-version", release
    )
    assert result.exit_code == 1, result.stderr
    assert [(f["path"], f["status"], f["codemods"]) for f in json.loads(result.stdout)["files"]] == [
        ("mod.py", "changed", ["MWB001"])
    ]


def test_the_help_names_the_range_and_latest():
    rewrite = typer.main.get_command(app).commands["rewrite"]  # type: ignore[attr-defined]
    option = next(p for p in rewrite.params if p.name == "target_version")
    assert (option.metavar, option.help) == (
        "RELEASE",
        "SGLang release whose API to produce: 0.5.13 (the default) to 0.5.23, latest (0.5.23), or a release's"
        " wheel or unpacked folder (read at run time: any release, also one this tool does not know).",
    )
