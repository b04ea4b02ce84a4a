"""A Hypothesis strategy for small programs that use the old API in the ways real code does.

A program is a `main()` that takes a snapshot (`get_model_worker_batch()`, with or without the
override) and then runs a random sequence of pieces: uses of the snapshot (forwards, field reads,
keyword calls, isinstance tests), mutations of the batch of every kind (attribute writes, method
calls, calls that take the batch, writes through an alias, tuple targets, `setattr`, in-place element
writes), writes to the snapshot, escapes into containers, aliases, and nested scopes that bind
`batch`, inside loops and branches.
"""

from __future__ import annotations

from hypothesis import strategies as st

PRELUDE = """\
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker
from sglang.srt.model_executor.forward_batch_info import CaptureHiddenMode, ForwardBatch, ForwardMode
from sglang.standin import make_batch, record


def _grow(b):
    b.seq_lens = [n + 10 for n in b.seq_lens]


def _peek(b):
    record("peek", b.seq_lens)


class _Other:
    def run(self, model_worker_batch: int = 0):
        record("other.run", model_worker_batch)


def _forward_it(worker, model_worker_batch):
    record("helper sees", model_worker_batch.extend_seq_lens)
    return worker.forward_batch_generation(model_worker_batch=model_worker_batch)


def _pair_up(model_worker_batch, others):
    return [(model_worker_batch.seq_lens, batch.seq_lens) for batch in others]


def _late_reader(model_worker_batch, batch):
    batch.seq_lens = [0, 0]
    return model_worker_batch.seq_lens


"""

SNAPSHOT_NAMES = ("model_worker_batch", "mwb", "worker_batch")

USES = (
    "worker.forward_batch_generation({s})",
    "worker.forward_batch_generation(model_worker_batch={s})",
    "ForwardBatch.init_new({s}, None)",
    'record("seq_lens", {s}.seq_lens)',
    'record("extend", {s}.extend_seq_lens)',
    'record("prefix", {s}.extend_prefix_lens)',
    'record("lora", {s}.lora_ids)',
    'record("offsets", ({s}.dllm_block_offsets, 1))',
    'record("mode", {s}.forward_mode)',
    'record("cpu", {s}.seq_lens_cpu)',
    'record("is_old", isinstance({s}, ModelWorkerBatch))',
    'record("pair", [({s}.seq_lens, batch) for batch in others])',
    'record("lam", (lambda batch: {s}.input_ids)(others[0]))',
    "_peek({s})",
    "_forward_it(worker, {s})",
    'record("pairs", _pair_up({s}, others))',
    'record("late", _late_reader({s}, batch))',
)

MUTATIONS = (
    "batch.seq_lens = [7, 7]",
    "batch.forward_mode = ForwardMode.DECODE",
    "batch.prepare_for_decode()",
    "batch.filter_batch([0])",
    "_grow(batch)",
    "alias = batch\n{i}alias.seq_lens = [8, 8]",
    'setattr(batch, "input_ids", [5])',
    "batch.seq_lens, unused = [6, 6], 0",
    "batch.seq_lens[0] = 42",
    "batch.extend_lens = [1, 1]",
    "batch = others[1]",
)

SNAPSHOT_WRITES = (
    "{s}.capture_hidden_mode = CaptureHiddenMode.FULL",
    "{s}.seq_lens = [1, 1]",
    "{s}.lora_ids.append('z')",
    "{s}.return_hidden_states_before_norm = True",
)

ESCAPES = (
    "kept.append({s})",
    "holder['x'] = {s}",
    "second = {s}",
)

OTHERS = (
    "_Other().run(model_worker_batch=3)",
    'record("other batch", others[0].seq_lens)',
)


@st.composite
def statement(draw: st.DrawFn, snapshot: str, depth: int, indent: str) -> str:
    kinds = ["use", "use", "mutation", "write", "escape", "other"]
    if depth < 2:
        kinds += ["loop", "branch"]
    kind = draw(st.sampled_from(kinds))
    if kind in ("loop", "branch"):
        inner = indent + "    "
        body = draw(st.lists(statement(snapshot, depth + 1, inner), min_size=1, max_size=3))
        block = "\n".join(inner + line for line in body)
        if kind == "loop":
            return f"for _step in range(2):\n{block}"
        other = draw(st.lists(statement(snapshot, depth + 1, inner), min_size=1, max_size=2))
        flag = draw(st.sampled_from(["flag", "not flag"]))
        return f"if {flag}:\n{block}\n{indent}else:\n" + "\n".join(inner + line for line in other)
    table = {"use": USES, "mutation": MUTATIONS, "write": SNAPSHOT_WRITES, "escape": ESCAPES, "other": OTHERS}[kind]
    return draw(st.sampled_from(table)).format(s=snapshot, i=indent)


@st.composite
def programs(draw: st.DrawFn) -> str:
    snapshot = draw(st.sampled_from(SNAPSHOT_NAMES))
    override = draw(st.sampled_from(["", "seq_lens_cpu_cache=[30, 40]"]))
    decode = draw(st.booleans())
    indent = "    "
    lines = [
        "def main():",
        f"    flag = {draw(st.booleans())}",
        f"    batch = make_batch({'forward_mode=ForwardMode.DECODE' if decode else ''})",
        "    others = [make_batch(seq_lens=[5, 6]), make_batch(seq_lens=[7, 8])]",
        "    worker = TpModelWorker()",
        "    kept, holder = [], {}",
        f"    {snapshot} = batch.get_model_worker_batch({override})",
    ]
    body = draw(st.lists(statement(snapshot, 0, indent), min_size=1, max_size=5))
    lines += [indent + line for line in body]
    lines.append('    record("kept", (kept, holder))')
    ending = draw(
        st.sampled_from(["", f"    return {snapshot}", f"    return worker.forward_batch_generation({snapshot})"])
    )
    if ending:
        lines.append(ending)
    return PRELUDE + "\n".join(lines) + "\n"
