"""The soak's 2v2 invariants (issue 23), beside :mod:`soak.checks` (whose :func:`one_place`,
:func:`owls_per_duel`, :func:`no_post_lost` and :func:`duels_end` cover both kinds):

- :func:`duos_asked_for`: every member of a 2v2 match signed up in the 2v2 thread since their
  previous pairing of either kind (alone or naming anyone), or their teammate's sign-up in
  that time named them; no match holds a player twice.
- :func:`duo_leaderboard`: the ``2v2`` leaderboard table equals a recomputation from the
  finished 2v2 duels the desk opened (:func:`rules.duo.duo_rewards` as
  :mod:`forumbot.club.duo_settling` applies it: winners ``win_points`` and a win each, losers
  a loss, a draw a draw each, a duel closed with no winner nothing).
- :func:`duo_refusals_real`: a 2v2 sign-up refused as ``registration_closed`` was read while a
  2v2 match was formed and not over; one refused for a missing field was one of those the
  script wrote without a year (the script writes none in the 2v2 thread: so none is).
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from forumbot.duels.duo import current_state, duo_settings
from parsers.registration import fold
from soak.checks import Ask, _iso
from soak.world import World


def _pairings(db: Any) -> list[tuple[str, list[tuple[str, str]], str]]:
    """``(created_at, duos or pairs folded, what)`` of every pairing of either kind that
    consumed its sign-ups (a 1v1 pairing withdrawn before it opened gives them back)."""
    out: list[tuple[str, list[tuple[str, str]], str]] = []
    for r in db["queue"].rows_where("status != 'withdrawn'"):
        out.append((str(r["created_at"]), [(fold(str(r["first_player"])),
                                            fold(str(r["second_player"])))], f"queue {r['id']}"))
    for r in db["duo_matches"].rows_where():
        duos = [(fold(str(d[0]["player"])), fold(str(d[1]["player"])))
                for d in json.loads(r["duos_json"])]  # fmt: skip
        out.append((str(r["created_at"]), duos, f"match {r['id']}"))
    return sorted(out, key=lambda p: (p[0], p[2]))


def duos_asked_for(world: World, asks: list[Ask]) -> list[str]:
    """2v2 matches holding a player who did not ask for it (see the module doc)."""
    assert world.bot is not None
    db = world.bot.storage.db
    last: dict[str, str] = {}
    out = []
    for created, groups, what in _pairings(db):
        if what.startswith("match"):
            members = [p for duo in groups for p in duo]
            if len(set(members)) < len(members):
                out.append(f"{what} holds a player twice: {members}")
            for a, b in groups:
                for me, mate in ((a, b), (b, a)):
                    mine = [k for k in asks if fold(k.player) == me
                            and last.get(me, "") <= _iso(k.at) <= created]  # fmt: skip
                    named = [k for k in asks if fold(k.player) == mate and k.partner
                             and fold(k.partner) == me
                             and last.get(mate, "") <= _iso(k.at) <= created]  # fmt: skip
                    if not mine and not named:
                        out.append(f"2v2 {what} at {created}: {me} never asked for it "
                                   f"(teammate {mate})")  # fmt: skip
        for duo in groups:
            for p in duo:
                last[p] = created
    return out


def duo_leaderboard(world: World) -> list[str]:
    """The ``2v2`` leaderboard table against the finished 2v2 duels of the desk."""
    assert world.bot is not None
    storage = world.bot.storage
    settings = duo_settings()
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # points, W, L, D
    for m in storage.db["duo_matches"].rows_where("duel_id is not null"):
        duel = storage.duel(int(m["duel_id"]))
        if duel["status"] != "finished":
            continue
        state = current_state(storage, duel)
        if state.winners:
            for n in state.winners:
                expected[n][0] += settings.win_points
                expected[n][1] += 1
            for n in state.losers:
                expected[n][2] += 1
        elif state.duel.draw:
            for n in state.names():
                expected[n][3] += 1
    have = {
        str(r["character"]): (int(r["points"]), int(r["wins"]), int(r["losses"]), int(r["draws"]))
        for r in storage.db["leaderboard"].rows_where("kind = '2v2'")
    }
    want = {k: tuple(v) for k, v in expected.items() if any(v)}
    have = {k: v for k, v in have.items() if any(v)}
    return [f"2v2 leaderboard {name}: table {have.get(name)} != recomputed {want.get(name)}"
            for name in sorted(set(want) | set(have)) if want.get(name) != have.get(name)]


def duo_refusals_real(world: World, named: dict[int, str | None]) -> list[str]:
    """2v2 sign-ups refused for a reason that was not true when the desk read them."""
    assert world.bot is not None
    db = world.bot.storage.db
    out = []
    ids = ",".join(map(str, named)) or "0"
    for row in db["registration_posts"].rows_where(f"post_id in ({ids})", order_by="post_id"):
        post_id, code, at = int(row["post_id"]), str(row["code"]), str(row["created_at"])
        if code.startswith("missing"):
            out.append(f"2v2 sign-up {post_id} refused as {code} but it has every field")
        if str(row["status"]) not in ("accepted", "rejected", "review"):
            out.append(f"2v2 sign-up {post_id} read as {row['status']}:{code}")
        if code == "registration_closed":
            formed = db.execute(
                "select count(*) from duo_matches m left join duels d on d.id = m.duel_id "
                "where m.created_at <= ? and (m.finished_at is null or m.finished_at >= ?) "
                "and m.status != 'cancelled' and (d.finished_at is null or d.finished_at >= ?)",
                [at, at, at],
            ).fetchone()[0]
            if not formed:
                out.append(f"2v2 sign-up {post_id} refused as registration_closed but no 2v2 "
                           "match was formed then")  # fmt: skip
    return out
