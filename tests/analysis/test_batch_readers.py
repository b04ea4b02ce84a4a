"""The reader one call away (analysis/one_call_away.py): a forward-batch taker's name whose every
definition in the tree only reads copied fields of its second parameter, read in the pre-pass."""

from __future__ import annotations

from mwbmigrate.analysis.isolation import NamedElsewhere, scan_callers

WORKER = b"""\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch


class Worker:
    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        return self.sample("logits", model_worker_batch)

    def sample(self, logits, model_worker_batch: ModelWorkerBatch):
        return logits, model_worker_batch.seq_lens, [n for n in model_worker_batch.seq_lens]
"""


def _readers(*sources: bytes, own: tuple[str, ...] = ()) -> set[str]:
    return set(scan_callers(sources, own).one_call_away.batch_readers)


def test_a_method_that_reads_copied_fields_is_a_reader() -> None:
    assert _readers(WORKER) == {"sample"}


def test_each_definition_must_read_copied_fields_only() -> None:
    for body in (
        b"model_worker_batch.extend_seq_lens",  # gated by the old method, not copied
        b"model_worker_batch.capture_hidden_mode",  # derived
        b"model_worker_batch.dimensions",  # copied, but 0.5.13's batch has no such field
        b"model_worker_batch.reqs",  # the target reads each request's values at the forward
        b"(n for n in model_worker_batch.seq_lens)",  # read later
        b"model_worker_batch.fork_tag",  # no old field
        b"model_worker_batch",  # handed back whole
        b"(lambda: model_worker_batch.seq_lens)",  # read later
    ):
        other = (
            WORKER
            + b"\n\nclass Other(Worker):\n    def sample(self, logits, model_worker_batch):\n        return "
            + body
            + b"\n"
        )
        assert _readers(other) == set(), body


def test_a_write_through_the_parameter_is_no_read() -> None:
    written = WORKER.replace(
        b"        return logits,", b"        model_worker_batch.seq_lens = None\n        return logits,"
    )
    assert _readers(written) == set()


def test_a_fork_s_own_copied_field_counts() -> None:
    own = WORKER.replace(b"model_worker_batch.seq_lens,", b"model_worker_batch.fork_tag,")
    assert _readers(own) == set()
    assert _readers(own, own=("fork_tag",)) == {"sample"}


def test_bound_spelled_or_decorated_is_no_reader() -> None:
    assert _readers(WORKER + b"\nWorker.sample = print\n") == set()
    assert _readers(WORKER + b'\nSOURCE = "def sample(self, a, b): pass"\n') == set()
    assert _readers(WORKER + b"\nclass Other(Worker, sample=print):\n    pass\n") == set()
    assert _readers(WORKER + b"\nclass Other(Worker):\n    from os import getcwd as sample\n") == set()
    decorated = WORKER.replace(b"    def sample", b"    @staticmethod\n    def sample")
    assert _readers(decorated) == set()


def test_a_module_not_parsed_may_call_it_as_a_method_but_not_define_it() -> None:
    assert _readers(WORKER, b"def run(w, b):\n    return w.sample (None, b)\n") == {"sample"}
    assert _readers(WORKER, b"class Mixin:\n    def sample(self, a, b):\n        return b.extend_seq_lens\n") == set()
    assert _readers(WORKER, b"# def sample(self, a, b): a comment line\nx = 1\n") == {"sample"}


def test_named_elsewhere_bound() -> None:
    names = NamedElsewhere([b"w.sample(1)\n", b"w.sample\n"])
    assert names.bound("sample")
    assert not NamedElsewhere([b"w.sample(1)\nw.sample (2)\n"]).bound("sample")
    assert NamedElsewhere([b'getattr(w, "sample")(1)\n']).bound("sample")
