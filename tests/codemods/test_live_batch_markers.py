"""`--live-batch`: one marker per site the window allowlist does not prove, never lost with the
binding the rewrite deletes, and quoting the statement as the rewrite leaves it."""

from __future__ import annotations

from mwbmigrate.engine.transform import TransformOptions, transform_source

LIVE = TransformOptions(live_batch=True)


def _live(source: str) -> str:
    return transform_source(source, "plugin/module.py", LIVE).text


def test_a_site_that_fails_at_its_binding_is_marked_on_the_statement_that_runs_next() -> None:
    source = (
        "def run(self, batch, split):\n"
        "    if split:\n"
        "        mwb = batch.get_model_worker_batch()\n"
        "        out = ForwardBatch.init_new(mwb, self.model_runner)\n"
        "    else:\n"
        "        mwb = batch.get_model_worker_batch()\n"
        "    return self.worker.forward_batch_generation(mwb)\n"
    )
    assert _live(source) == (
        "def run(self, batch, split):\n"
        "    if split:\n"
        "        # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same:\n"
        "        #   `mwb` is bound more than once\n"
        "        out = ForwardBatch.init_new(batch, self.model_runner)\n"
        "    else:\n"
        "        pass\n"
        "    return self.worker.forward_batch_generation(batch)\n"
    )


def test_a_deleted_binding_last_in_its_block_hands_the_marker_to_the_statement_after_the_block() -> None:
    source = (
        "def run(self, batch):\n"
        "    if batch.ready:\n"
        "        mwb = batch.get_model_worker_batch()\n"
        "        alias = mwb\n"
        "    self.log(alias)\n"
    )
    assert _live(source) == (
        "def run(self, batch):\n"
        "    # mwbmigrate: MWB141 `alias`, `mwb` now read the live `batch`, not proven the same:\n"
        "    #   `alias`, `mwb` name one snapshot\n"
        "    self.log(batch)\n"
    )


def test_at_the_end_of_the_function_the_marker_goes_on_the_function() -> None:
    source = (
        "def run(self, batch, ready):\n"
        "    if ready:\n"
        "        mwb = batch.get_model_worker_batch()\n"
        "    else:\n"
        "        mwb = batch.get_model_worker_batch()\n"
    )
    assert _live(source) == (
        "# mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: `mwb` is\n"
        "#   bound more than once\n"
        "def run(self, batch, ready):\n"
        "    pass\n"
    )


def test_a_write_of_the_batch_in_the_window_is_named_a_certain_change() -> None:
    source = (
        "def run(self, batch, other):\n"
        "    mwb = batch.get_model_worker_batch()\n"
        "    batch.seq_lens = other.seq_lens\n"
        "    return self.worker.forward_batch_generation(mwb)\n"
    )
    assert _live(source) == (
        "def run(self, batch, other):\n"
        "    # mwbmigrate: MWB141 `batch.seq_lens = other.seq_lens` changes `batch` before `mwb`\n"
        "    #   is used: `mwb` was a snapshot, now it is the live batch\n"
        "    batch.seq_lens = other.seq_lens\n"
        "    return self.worker.forward_batch_generation(batch)\n"
    )


def test_the_quoted_statement_reads_as_the_rewrite_leaves_it() -> None:
    source = (
        "def run(self, batch):\n"
        "    # the worker takes it\n"
        "    mwb = batch.get_model_worker_batch()\n"
        "    # forward it\n"
        "    return self.worker.forward_batch_generation(mwb)\n"
    )
    assert _live(source) == (
        "def run(self, batch):\n"
        "    # the worker takes it\n"
        "    # forward it\n"
        "    # mwbmigrate: MWB141 `mwb` now reads the live `batch`, not proven the same: `return\n"
        "    #   self.worker.forward_batch_generation(batch)` is not `ForwardBatch.init_new(...)`\n"
        "    #   alone\n"
        "    return self.worker.forward_batch_generation(batch)\n"
    )
