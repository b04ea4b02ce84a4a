"""The regression suite shipped with ``mwbmigrate verify`` (pytest modules plus their conftest).

Every contract test takes the ``impl`` fixture and runs once per implementation: ``runtime``
(``mwbmigrate.runtime`` on a small reference ``ScheduleBatch``) always, and ``tree`` (the target
SGLang tree's own classes, imported on CPU with stubs) when a tree is given with
``--mwb-tree PATH`` or ``MWBMIGRATE_VERIFY_TREE``. Groups are the module names:

=============  ==========================================================================
group          what it holds
=============  ==========================================================================
import         the tree imports on this machine (only with a tree)
oneshot        one-shot forward overrides: ``init_new`` consumes and resets them
isolation      the forward isolation: restore, sampling_info swap/restore, pinning
ring           the two-iteration keep-alive ring
streams        ``record_stream`` helpers (CPU, with a fake CUDA tensor)
req_pool       the request-pool CPU mirror scenarios (decode, filter-to-empty, merge)
cuda           CUDA-only: allocator reuse with and without the helpers, ring, spec-v2 verify
=============  ==========================================================================

Run it through ``mwbmigrate verify [PATH]``, or directly: ``MWBMIGRATE_VERIFY_TREE=PATH python -m
pytest --pyargs mwbmigrate.verify.suite`` (``--mwb-tree PATH`` works when the suite's folder itself is
the path argument, since pytest reads a conftest's options only from the folders it is given).
"""

from pathlib import Path

SUITE_DIR = Path(__file__).resolve().parent

#: group -> one-line description, in report order.
GROUPS = {
    "import": "the tree imports on CPU with stubs",
    "oneshot": "one-shot overrides consumed and reset by init_new",
    "isolation": "forward isolation: restore, sampling_info swap, pinning",
    "ring": "keep-alive ring: rotation and two-iteration lifetime",
    "streams": "record_stream helpers",
    "req_pool": "request-pool CPU mirror scenarios",
    "cuda": "CUDA: allocator reuse, ring keep-alive, spec-v2 verify",
}

#: Environment variables the conftest reads (the runner sets them for its pytest process).
TREE_ENV = "MWBMIGRATE_VERIFY_TREE"
RESULTS_ENV = "MWBMIGRATE_VERIFY_RESULTS"
CUDA_MODE_ENV = "MWBMIGRATE_VERIFY_CUDA_MODE"
#: Skip reason of CUDA tests on a host without CUDA; the runner reports these as "not run".
NO_CUDA_REASON = "not run: no CUDA"
