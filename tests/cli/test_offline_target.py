"""`rewrite --target-version 0.5.23` with the network off and an empty cache: the contract step reads
the contract shipped with mwbmigrate, and the example fork's report is byte for byte the one
recorded in tests/golden/outputs.json (whose runs read the same contract)."""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
from pathlib import Path
from typing import Any, NoReturn

import pytest

from mwbmigrate.verify import release as release_module

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "golden_outputs.py"


def _golden() -> Any:
    spec = importlib.util.spec_from_file_location("golden_outputs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_latest_target_needs_no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    attempts: list[str] = []

    def offline(*args: object, **kwargs: object) -> NoReturn:
        attempts.append(repr(args)[:80])
        raise OSError("the network is off")

    monkeypatch.setenv("MWBMIGRATE_CACHE_DIR", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(socket, "socket", offline)
    monkeypatch.setattr(socket, "create_connection", offline)
    monkeypatch.setattr(release_module, "download_wheel", offline)
    real_run = subprocess.run

    def no_pip(command: Any, *args: Any, **kwargs: Any) -> Any:
        if "pip" in " ".join(map(str, command)):
            offline(command)
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(subprocess, "run", no_pip)
    golden = _golden()
    measured = golden.fork_outputs(("0.5.23",))
    assert attempts == []
    assert not (tmp_path / "empty-cache" / "sglang-releases").exists()
    recorded = json.loads(golden.GOLDEN.read_text())
    assert golden.differences(recorded, measured) == []
    assert measured["examples/fork"]["0.5.23"]["files"], "the run migrated the fork"
