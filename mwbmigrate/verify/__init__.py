"""``mwbmigrate verify``: prove a migrated tree is done and behaves.

* :mod:`.static` -- stdlib-only checks on a tree (old-API tokens, compile, undefined
  ``ScheduleBatch``, renamed keywords, leftover review markers);
* :mod:`.sglang_import` -- import an SGLang tree on a CPU-only machine with stubs;
* :mod:`.suite` -- the regression suite, shipped as pytest modules;
* :mod:`.runner` -- :func:`run_verify`, what the CLI calls.

Importing this package imports neither torch nor pytest.
"""

from mwbmigrate.verify.runner import run_verify
from mwbmigrate.verify.static import Finding, StaticReport, check_tree

__all__ = ["Finding", "StaticReport", "check_tree", "run_verify"]
