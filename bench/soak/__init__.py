"""The season soak (issue 23): a whole club season on the sandbox board, on a fake clock.

Modules: :mod:`soak.world` (the board, the shared :class:`forumbot.demo.season.DemoClock`, the
real bot built by :func:`forumbot.app.bootstrap`, restarts, crashes, backups, outages),
:mod:`soak.players` (sign-up phrasings and duel posts), :mod:`soak.duos` (the 2v2 thread's
sign-ups and the 2v2 duels' posts), :mod:`soak.staff` (referees and moderators: the
functions the CLI and the review page call), :mod:`soak.checks` and :mod:`soak.checks_duo`
(the invariants), :mod:`soak.summary` (the one-line summary) and :mod:`soak.season` (the
seeded script and its loop). ``bench/season_soak.py`` is the command line.
"""
