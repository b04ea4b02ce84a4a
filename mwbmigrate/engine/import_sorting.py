"""The tree's import sorter (isort, or ruff's `I` rules) as far as placing an added import needs it:
its sections and how it orders them (engine/import_insertion.py places the imports; config reads the
sorter's settings). No LibCST here: the configuration is read on every run, the insertion only where
a file is transformed."""

from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass

FUTURE, STANDARD_LIBRARY, THIRD_PARTY, FIRST_PARTY, LOCAL_FOLDER = range(5)
_STANDARD_LIBRARY = frozenset(sys.stdlib_module_names)
_DIGITS = re.compile(r"(\d+)")


@dataclass(frozen=True)
class ImportSorting:
    """The tree's import sorter (isort, or ruff's `I` rules) as far as placing an added import needs
    it: its sections, as its configuration names them, and how it orders a section."""

    # Configured modules (`known_first_party`, `known-first-party`, ...; `*` and `?` allowed).
    first_party: tuple[str, ...] = ()
    third_party: tuple[str, ...] = ()
    local_folder: tuple[str, ...] = ()
    standard_library: tuple[str, ...] = ()  # extra standard library modules
    # The packages and modules at the tree's source roots: first party unless configured otherwise.
    source_packages: tuple[str, ...] = ()
    force_sort_within_sections: bool = False
    order_by_type: bool = True  # CONSTANTS, then Classes, then the rest, within a `from` import
    line_length: int = 88

    def section(self, module: str) -> int:
        """As isort and ruff decide it: relative and `__future__` imports, then the configured
        modules (the longest configured prefix of the module wins), the standard library, the
        tree's own packages, and everything else is third party."""
        if module.startswith("."):
            return LOCAL_FOLDER
        if module == "__future__":
            return FUTURE
        parts = module.split(".")
        configured = (
            (self.local_folder, LOCAL_FOLDER),
            (self.first_party, FIRST_PARTY),
            (self.third_party, THIRD_PARTY),
            (self.standard_library, STANDARD_LIBRARY),
        )
        for length in range(len(parts), 0, -1):
            prefix = ".".join(parts[:length])
            for patterns, section in configured:
                if any(fnmatch.fnmatchcase(prefix, pattern) for pattern in patterns):
                    return section
        if parts[0] in _STANDARD_LIBRARY:
            return STANDARD_LIBRARY
        if parts[0] in self.source_packages:
            return FIRST_PARTY
        return THIRD_PARTY

    def statement_key(self, entry: ImportEntry) -> tuple[object, ...]:
        """Within a section: `import x` lines before `from x import y` lines (unless sorted
        together), each by module name, case-insensitively and with numbers in numeric order."""
        dots = len(entry.module) - len(entry.module.lstrip("."))
        # isort's key for a relative module: `..` sorts before `.`, `from . import` before `from .a`.
        name = entry.module[:dots] + "_" + entry.module[dots:] if dots else entry.module
        kind = 0 if entry.straight else 1
        ordered = natural(name.lower())
        return (ordered, kind) if self.force_sort_within_sections else (kind, ordered)

    def name_key(self, name: str) -> tuple[object, ...]:
        """Within a `from` import: by kind (unless `order_by_type` is off), then by name."""
        kind = 0 if len(name) > 1 and name.isupper() else 1 if name[:1].isupper() else 2
        return ((kind,) if self.order_by_type else ()) + (natural(name.lower()), name)


@dataclass(frozen=True)
class ImportEntry:
    """A one-import line of the leading block: `import <module>` or `from <module> import <names>`."""

    module: str  # relative modules keep their leading dots
    straight: bool


def natural(text: str) -> tuple[object, ...]:
    # Alternating text and numbers: positions hold the same type, so any two keys compare.
    return tuple(int(part) if index % 2 else part for index, part in enumerate(_DIGITS.split(text)))
