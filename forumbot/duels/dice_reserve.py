"""The dice seed a duel will get, fixed once for ``check`` and ``run`` alike (issue 13).

Each duel's dice derive from a secret 32-byte seed drawn when the bot adopts its topic; the
opening publishes its SHA-256 (``Empreinte des dés``). ``forumbot check`` adopts topics in an
in-memory copy of the database, so the seed it drew used to vanish with it, and ``run`` then
drew another: the declaration ``check`` printed was not the one ``run`` published (another
fingerprint, other dice).

:class:`DiceReserve` is the source of those seeds. It draws them from the system's random
source (``random.SystemRandom``), as before, and keeps the ones ``check`` showed in a reserve
file beside the database (``<database>.dice-reserve.json``, mode 0600, as secret as the
database itself): ``{"<board id>:<topic id>": "<seed hex>"}``.

- ``check`` (``keep=True``) takes a topic's reserved seed, or draws one and reserves it;
- ``run`` (``keep=False``) takes a topic's reserved seed and removes it from the reserve (a
  topic adopted again later, e.g. after a cancellation, gets a fresh seed), or draws one.

A seed in the reserve has never been published (only its fingerprint was printed, on the
operator's terminal), so taking it later is as safe as drawing a new one.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from forumbot.storage.engine import side_file

log = logging.getLogger("forumbot.duels.dice_reserve")

SEED_BYTES = 32


def reserve_path(database: str) -> Path | None:
    """The reserve file of the database at ``database`` (``bot.db.dice-reserve.json``; a
    PostgreSQL club's in its state folder: :func:`forumbot.storage.engine.side_file`); None
    for an in-memory database."""
    if not database:
        return None
    return side_file(database, ".dice-reserve.json", whole_name=True)


class DiceReserve(random.SystemRandom):
    """The system's random source, whose duel seeds go through the reserve file at ``path``
    (see the module doc). ``path`` None: every seed is drawn fresh (nothing is kept)."""

    def __init__(self, path: Path | None, *, keep: bool = False) -> None:
        super().__init__()
        self.path = path
        self.keep = keep
        self.kept: set[str] = set()
        """``keep``: the ``"<board id>:<topic id>"`` whose seed is in the reserve file now
        (reserved or found there by this source), for ``check`` to say what it kept."""

    def seed_for(self, board_id: int, topic_id: int) -> bytes:
        """The dice seed of the duel adopted now in ``topic_id`` of board ``board_id``: the
        reserved one if any (removed from the reserve unless ``keep``), else a new one
        (reserved when ``keep``).

        A reserve that cannot be read or written (a missing folder, a damaged file) is logged
        and the seed drawn fresh: the duel is refereed all the same."""
        key = f"{board_id}:{topic_id}"
        if self.path is None:
            return self.randbytes(SEED_BYTES)
        try:
            with self._locked() as (seeds, save):
                found = seeds.get(key)
                seed = bytes.fromhex(found) if found else self.randbytes(SEED_BYTES)
                if len(seed) != SEED_BYTES:
                    seed = self.randbytes(SEED_BYTES)
                if self.keep and seeds.get(key) != seed.hex():
                    seeds[key] = seed.hex()
                    save()
                if self.keep:
                    self.kept.add(key)
                elif not self.keep and key in seeds:
                    del seeds[key]
                    save()
                return seed
        except (OSError, ValueError) as exc:
            log.warning("dice reserve %s not used (%s); a fresh seed is drawn", self.path, exc)
            return self.randbytes(SEED_BYTES)

    @contextmanager
    def _locked(self) -> Iterator[tuple[dict[str, str], Callable[[], None]]]:
        """The reserve's seeds under an exclusive lock, and a function that writes them back
        (atomically: a temporary file renamed over the reserve, mode 0600).

        The lock is the ``flock`` of the reserve's folder (a lock file beside it stayed
        behind after every ``check``: newcomer6 W3); the reserve itself is the only file."""
        assert self.path is not None
        if not self.keep and not self.path.exists():
            yield {}, lambda: None  # nothing reserved: no file to create
            return
        fd = os.open(self.path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            seeds: dict[str, str] = {}
            if self.path.exists():
                loaded = json.loads(self.path.read_text(encoding="utf-8") or "{}")
                if not isinstance(loaded, dict):
                    raise ValueError("the reserve is not a JSON object")
                seeds = {str(k): str(v) for k, v in loaded.items()}

            def save() -> None:
                assert self.path is not None
                tmp = self.path.with_name(self.path.name + ".tmp")
                out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(out, "w", encoding="utf-8") as f:
                    json.dump(seeds, f, sort_keys=True)
                os.replace(tmp, self.path)

            yield seeds, save
        finally:
            os.close(fd)  # releases the lock


def seed_for(rng: random.Random, board_id: int, topic_id: int) -> bytes:
    """The dice seed of a duel adopted now in ``topic_id``: from the reserve when ``rng`` is
    a :class:`DiceReserve`, else ``rng.randbytes(32)`` (tests, replays: seeded sources)."""
    if isinstance(rng, DiceReserve):
        return rng.seed_for(board_id, topic_id)
    return rng.randbytes(SEED_BYTES)


__all__ = ["SEED_BYTES", "DiceReserve", "reserve_path", "seed_for"]
