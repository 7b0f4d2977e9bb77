"""``forumbot simulate --jobs N``: a balance table's duels split over processes (issue 26:
"10,000 fatigue duels in 3 s" on a 2-core machine).

Each duel draws from its own ``random.Random`` seeded from (seed, the duel's index in table
order, :func:`duel_rng`), so a table is the same whatever the number of processes, ``--jobs
1`` (every duel in this process) included. The duels go to the workers in contiguous chunks
(a few per worker, so a slow chunk does not keep the others waiting); a worker is a fork of
this process where the platform has ``fork`` (the ruleset already read, nothing imported
again), else a fresh one that receives the duel function pickled.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from forumbot.rulesets import duel_rng  # the review page draws its tables' duels alike
from rules.balance.simulate import Duel, Outcome, Run

CHUNKS_PER_JOB = 16
"""Chunks of duels per worker process: small enough that the last chunk of one worker does
not keep the other idle long (a table's cells are in order and the adult cells' duels are
the longest); each chunk costs one round trip of its (row, column) bounds and outcomes."""

_WORK: tuple[Duel, int, Sequence[tuple[str, str]]] | None = None
"""In a worker: (the duel function, the seed, every duel's (row, column))."""


def default_jobs() -> int:
    """The processes ``--jobs`` defaults to: the cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _start(duel: Duel, seed: int, cells: Sequence[tuple[str, str]]) -> None:
    global _WORK
    _WORK = (duel, seed, cells)


def _chunk(bounds: tuple[int, int]) -> list[Outcome]:
    """The outcomes of duels ``bounds[0]`` to ``bounds[1] - 1`` (in a worker)."""
    assert _WORK is not None
    duel, seed, cells = _WORK
    return [duel(*cells[i], duel_rng(seed, i)) for i in range(*bounds)]


def chunks(duels: int, jobs: int) -> list[tuple[int, int]]:
    """Contiguous (start, stop) ranges covering ``range(duels)``, about
    :data:`CHUNKS_PER_JOB` per job, in order."""
    count = max(1, min(duels, jobs * CHUNKS_PER_JOB))
    edges = [duels * k // count for k in range(count + 1)]
    return [(a, b) for a, b in zip(edges, edges[1:], strict=False) if b > a]


def runner(seed: int, jobs: int) -> Run:
    """A :data:`rules.balance.simulate.Run` playing a table's duels over ``jobs`` processes
    (1: in this process), duel ``i`` drawn from :func:`duel_rng` (``seed``, ``i``): its
    outcomes do not depend on ``jobs``."""

    def run(duel: Duel, cells: Sequence[tuple[str, str]]) -> list[Outcome]:
        if jobs <= 1 or len(cells) < 2 * jobs:
            return [duel(row, col, duel_rng(seed, i)) for i, (row, col) in enumerate(cells)]
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        out: list[Outcome] = []
        with ProcessPoolExecutor(
            max_workers=jobs, mp_context=context, initializer=_start, initargs=(duel, seed, cells)
        ) as pool:
            for part in pool.map(_chunk, chunks(len(cells), jobs)):
                out.extend(part)
        return out

    return run


__all__ = ["CHUNKS_PER_JOB", "chunks", "default_jobs", "duel_rng", "runner"]
