"""Keep the bot's resident memory down (issue 12: VmHWM <= 80 MiB with 30 live duels).

Two libraries the shell needs pull in large optional packages it never uses, at import time:

* ``sqlite_utils`` imports ``numpy`` when it is installed (about 12 MiB resident) only to
  convert numpy values on insert; forumbot never stores any;
* ``httpx`` imports its command-line ``httpx._main`` (``rich`` and ``pygments``, about 6 MiB)
  to offer ``httpx.main``, the ``httpx`` console command; forumbot never calls it;
* ``httpcore`` (imported by httpx's transport) imports ``trio`` when it is installed (about
  3.4 MiB) for async code under trio; forumbot's clients are synchronous;
* ``bs4`` imports an encoding detector at import time (``charset_normalizer``, which imports
  every codec of the standard library: about 4 MiB) for bytes without a declared encoding;
  it is imported hidden, and :class:`LazyDetector` takes its place: the same detector,
  imported at the first such document (most pages say their charset or are text already).

:func:`import_lean` imports both with those optional modules hidden (``sys.modules[name] =
None`` makes their import raise ImportError, which both libraries expect), then un-hides
them, so any later ``import numpy`` elsewhere in the process still works. Importing
:mod:`forumbot` runs it once (nothing else happens at import: no I/O).

:func:`limit_malloc_arenas` caps glibc's malloc arenas (one per thread by default, each
keeping its freed pages: the poll and publish workers parse pages with lxml, which allocates
with malloc) at 2, as ``MALLOC_ARENA_MAX=2`` would; ``forumbot run`` calls it at start-up.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Iterator
from contextlib import contextmanager

HIDDEN = {
    "sqlite_utils": ("numpy",),
    "httpx": ("httpx._main",),
    "httpcore": ("trio",),
    "bs4": ("cchardet", "chardet", "charset_normalizer"),
}
"""The library imported lean -> the optional modules hidden while it is imported."""


@contextmanager
def _hidden(names: tuple[str, ...]) -> Iterator[None]:
    """``names`` cannot be imported inside the block (those already imported are kept)."""
    hid = [name for name in names if name not in sys.modules]
    for name in hid:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        for name in hid:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]


class LazyDetector:
    """Stands for the encoding-detection module ``bs4.dammit`` calls as
    ``chardet_module.detect(data)["encoding"]``; imports ``charset_normalizer`` on first use."""

    def detect(self, data: bytes) -> dict[str, object]:
        """``charset_normalizer.detect(data)``: ``{"encoding": name or None, ...}``."""
        import charset_normalizer

        return dict(charset_normalizer.detect(data))


def _lazy_bs4_detector() -> None:
    """Give ``bs4.dammit`` the :class:`LazyDetector` when it found no detector (hidden)."""
    import bs4.dammit

    if bs4.dammit.chardet_module is None:
        bs4.dammit.chardet_module = LazyDetector()  # type: ignore[assignment]


AFTER_IMPORT = {"bs4": _lazy_bs4_detector}
"""The library imported lean -> what puts back, lazily, what its hidden module offered."""


def import_lean() -> None:
    """Import the libraries of :data:`HIDDEN` without their optional heavy modules (no-op for
    one already imported)."""
    for library, optional in HIDDEN.items():
        if library in sys.modules:
            continue
        with _hidden(optional):
            __import__(library)
        if library in AFTER_IMPORT:
            AFTER_IMPORT[library]()


M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter number for the arena cap (malloc.h)."""


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Cap glibc's malloc arenas at ``arenas`` (before the worker threads start); False on a
    C library without ``mallopt`` (musl, macOS) or when it refuses."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False
