"""The migrated 0.5.12.post1 core on CPU: its own ForwardBatch.init_new and scheduler isolation
hold the one-shot and isolation contracts of the verify suite."""

from __future__ import annotations

import pytest

from corpus_trees import assert_core_holds_contracts

pytestmark = pytest.mark.corpus


def test_migrated_core_holds_the_one_shot_and_isolation_contracts(trees):
    assert trees["result"].exit_code == 0, trees["result"].output
    assert_core_holds_contracts(trees["root"])
