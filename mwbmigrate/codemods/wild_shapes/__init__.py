"""Report the shapes old-API code takes outside upstream: shims, fakes, monkeypatches, stubs, copies.

Rewrites nothing. Forks, plugins, RL frameworks and tests use the old API in ways a rewrite cannot
prove safe; each such site keeps its code and gets a marker naming what to check:

    if hasattr(batch, "get_model_worker_batch"):   # mwbmigrate: MWB120 feature check ... kept
        model_worker_batch = batch.get_model_worker_batch()   # mwbmigrate: MWB120 old API kept ...

One module per documented shape (README, "What mwbmigrate does with ... code in the wild"), each
holding its reporter, its review codes and a before/after example, and naming its fixtures
(tests/fixtures/wild-shapes/shapeNN_*):

    gates.py               1  version-gated compatibility code      MWB120-122, MWB154-156
    collapse.py            1  (--collapse-compat) each gate becomes its side on 0.5.13
    own_method.py          2  other classes that define the method  MWB123, MWB124, MWB129
    monkeypatches.py       3  monkeypatches, string keys, stubs     MWB125-128
    construction.py        4  direct construction                   MWB130
    copies.py              5  copies and serialisation              MWB131, MWB132
    call_shapes.py         8  call shapes (and 6, names that lie)   MWB134, MWB135
    runtime_class_uses.py  7  run-time uses of the class name       MWB133
    missing_attributes.py  9  attributes the new object lacks       MWB136, MWB137
    record_buffer.py      13  the scheduler's batch record buffer   MWB186, MWB187
    foreign.py            11  another project's class of that name  (the engine skips the module)

Shapes 6, 10 and 12 need no reporter of their own: names that lie are left alone by the renaming
codemods, a file that does not parse is refused by the engine, and a plugin's layout is every
shape above (fixtures shape12_plugin_worker, shape12_vendored_rl_patch). `codemod.ReportWildShapes` (MWB011) walks the module once and hands each node to the
reporters registered for its type (`reporter.ShapeReporter`).

Version gates (MWB120-122) are `analysis.version_gates`' facts: each gate keeps its function (or
module-level statement) untouched, every codemod skips it (`MigrationCodemod.on_visit`), and this
one marks it. With --collapse-compat the engine first calls `collapse_version_gates`, which turns
each gate into the side that runs on 0.5.13.

Runs right after semantic-review, before any rename, so the old names are still there to see. A
module whose `ModelWorkerBatch` comes from another project (a JAX port) is left alone entirely.
The rewriting codemods can share its facts: `imports_foreign_old_class`, `method_classes` and
`local_instances` say what they must leave alone.
"""

from __future__ import annotations

from mwbmigrate.codemods.wild_shapes.codemod import REPORTERS, ReportWildShapes
from mwbmigrate.codemods.wild_shapes.collapse import collapse_version_gates
from mwbmigrate.codemods.wild_shapes.facts import local_instances, method_classes, region_tokens
from mwbmigrate.codemods.wild_shapes.foreign import imports_foreign_old_class
from mwbmigrate.codemods.wild_shapes.reporter import ShapeReporter

__all__ = [
    "REPORTERS",
    "ReportWildShapes",
    "ShapeReporter",
    "collapse_version_gates",
    "imports_foreign_old_class",
    "local_instances",
    "method_classes",
    "region_tokens",
]
