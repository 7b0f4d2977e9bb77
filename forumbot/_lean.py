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

:func:`import_lean` makes each of them import with those optional modules hidden
(``sys.modules[name] = None`` makes their import raise ImportError, which the libraries
expect), then un-hides them, so any later ``import numpy`` elsewhere in the process still
works. It imports none of them itself: a finder placed first on ``sys.meta_path``
(:class:`LeanFinder`) wraps the library's own loader the first time the library is imported,
so a command that never touches the database or the board (``forumbot simulate``, issue 26:
start-up under 0.5 s) does not pay for them. Importing :mod:`forumbot` runs it once
(nothing else happens at import: no I/O).

:func:`limit_malloc_arenas` caps glibc's malloc arenas (one per thread by default, each
keeping its freed pages: the poll and publish workers parse pages with lxml, which allocates
with malloc) at 2, as ``MALLOC_ARENA_MAX=2`` would; ``forumbot run`` calls it at start-up.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

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


class _LeanLoader:
    """The library's own loader, executing the module with :data:`HIDDEN`'s optional modules
    hidden, then running its :data:`AFTER_IMPORT`; every other attribute is the real
    loader's (``get_source``, ``get_resource_reader``, ...)."""

    def __init__(self, loader: Any, library: str) -> None:
        self._loader = loader
        self._library = library

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        """The real loader's module (None: the default one)."""
        made: ModuleType | None = self._loader.create_module(spec)
        return made

    def exec_module(self, module: ModuleType) -> None:
        """Run the library's code with its optional modules hidden, then its after-import."""
        with _hidden(HIDDEN[self._library]):
            self._loader.exec_module(module)
        if self._library in AFTER_IMPORT:
            AFTER_IMPORT[self._library]()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class LeanFinder(MetaPathFinder):
    """First on ``sys.meta_path``: finds a :data:`HIDDEN` library with the finders after it
    and gives its spec a :class:`_LeanLoader`; any other name is left to them (None)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec of ``fullname`` with a lean loader, or None when it is not a library of
        :data:`HIDDEN` or no other finder finds it."""
        if fullname not in HIDDEN:
            return None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: ModuleSpec | None = find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _LeanLoader(spec.loader, fullname)  # type: ignore[assignment]
                return spec
        return None


def import_lean() -> None:
    """Make the libraries of :data:`HIDDEN` import without their optional heavy modules,
    whenever they are first imported (module docstring); those imported already are left as
    they are. Idempotent."""
    if not any(isinstance(finder, LeanFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, LeanFinder())


M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter number for the arena cap (malloc.h)."""


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Cap glibc's malloc arenas at ``arenas`` (before the worker threads start); False on a
    C library without ``mallopt`` (musl, macOS) or when it refuses."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        return bool(libc.mallopt(M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False
