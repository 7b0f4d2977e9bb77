"""The soak's invariants (issue 23). Each check returns violations as one-line strings.

- :func:`one_place`: nobody is in two duels at once (queued, opening or running pairings,
  1v1 queue rows and 2v2 matches together; the 2v2 invariants are in :mod:`soak.checks_duo`);
  two live pairings of the same two players are named « second pairing » (a sign-up naming
  one's partner must confirm the pairing, never create another one). Checked after every
  cycle, since a later end hides an overlap.
- :func:`asked_for`: every pairing was asked for (each player signed up since their previous
  pairing, openly or naming the other; or the other named them). A pairing withdrawn before
  its duel opened consumes no sign-up, and leaves the partner's request open (even one that
  named the one who withdrew: :mod:`forumbot.club.withdrawals`, a [D] decision).
- :func:`exactly_once`: every ``forumbot·<key>·`` marker of the bot's posts and owls is on the
  board at most once, and every declaration / owl the database says is out is on the board.
- :func:`owls_per_duel`: no player gets more magic-type or result owls than they had duels
  (an owl doubled under another key, e.g. a duel opened twice).
- :func:`no_post_lost`: every duellist post of a duel topic and every post of the
  registration thread is recorded by the bot.
- :func:`duels_end`: every duel the bot knows ended, or has an open referee task or a held
  draft (waiting for a referee); a duel still in play when the season stops must at least
  wait for something (a pending draft or deadline), else it is frozen.
- :func:`notices_once`: every notice sent is sent once (one ``notice.sent`` audit row), none
  is left half-sent (``sending`` / ``batched``); :func:`notices_delivered_once`: no notice
  reached its recipient twice, counted outside the database (a restore cannot hide it).
- :func:`refusals_real`: every refusal of a sign-up names its real reason (a missing field,
  the partner in a duel, the partner without a profile), checked against the database.
- :func:`leaderboard`: the leaderboard table and the bot's leaderboard post equal a
  recomputation from the finished duels' final states.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.publish.typography import plain
from parsers.registration import fold
from soak.world import BOT, DUEL_FORUM, World

# A marker is ``forumbot·<key>·`` (publish.render.marker_text); a key may hold a space (the
# reminder owls' ``b1t4-owl17-Rosalind Vexley``), so it is read up to its closing ``·``.
MARKER_RE = re.compile(r"forumbot·([^·\[\]\n]+)·")
LIVE = ("queued", "opening", "running")


@dataclass(frozen=True)
class Ask:
    """A sign-up the script posted: who, when (epoch s), the partner named (or None)."""

    at: float
    player: str
    partner: str | None


def _pair(row: dict[str, Any]) -> tuple[str, str]:
    a, b = fold(str(row["first_player"])), fold(str(row["second_player"]))
    return (a, b) if a <= b else (b, a)


def live_rows(world: World) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """``(players folded, row)`` of every live pairing: 1v1 queue rows and 2v2 matches
    queued, opening or running whose duel is not finished (a finished duel's row is marked
    over at the next cycle)."""
    assert world.bot is not None
    db = world.bot.storage.db
    out: list[tuple[tuple[str, ...], dict[str, Any]]] = []
    for table in ("queue", "duo_matches"):
        for row in db.query(
            f"select t.* from {table} t left join duels d on d.id = t.duel_id where t.status "
            "in ('queued', 'opening', 'running') and (d.status is null or d.status != "
            "'finished') order by t.id"
        ):
            row = {**row, "table": table, "reason": row.get("reason", "2v2")}
            if table == "queue":
                out.append((_pair(row), row))
            else:
                players = [fold(str(e["player"])) for d in json.loads(row["duos_json"]) for e in d]
                out.append((tuple(sorted(players)), row))
    return out


def one_place(world: World) -> list[str]:
    """Players in two live pairings at once, 1v1 and 2v2 together (a player twice in one
    2v2 match counts too)."""
    by_player: dict[str, list[dict[str, Any]]] = defaultdict(list)
    pairs_of: dict[int, tuple[str, ...]] = {}
    for players, row in live_rows(world):
        pairs_of[id(row)] = players
        for who in players:
            by_player[who].append(row)
    out = []
    for who, live in sorted(by_player.items()):
        if len(live) < 2:
            continue
        pairs = {pairs_of[id(r)] for r in live}
        what = "second pairing of the same players" if len(pairs) < len(live) else "two duels"
        out.append(
            f"{what}: {who} in "
            + ", ".join(f"{r['table']} {r['id']}({r['status']}, {r['reason']})" for r in live)
        )
    return out


def asked_for(world: World, asks: list[Ask]) -> list[str]:
    """Pairings nobody asked for."""
    assert world.bot is not None
    rows = list(world.bot.storage.db["queue"].rows_where(order_by="id"))
    # a withdrawn pairing leaves the partner's request open (forumbot.club.withdrawals, [D]),
    # even one that named the one who withdrew: an open ask from then on
    asks = asks + [Ask(datetime.fromisoformat(str(r["created_at"])).timestamp(), str(p), None)
                   for r in rows if r["status"] == "withdrawn"
                   for p in (r["first_player"], r["second_player"])]  # fmt: skip
    last_pairing: dict[str, str] = {}
    out = []
    for row in rows:
        created = str(row["created_at"])
        a, b = fold(str(row["first_player"])), fold(str(row["second_player"]))

        def asked(me: str, other: str, created: str = created) -> tuple[bool, bool]:
            since = last_pairing.get(me, "")
            mine = [k for k in asks if fold(k.player) == me
                    and since <= _iso(k.at) <= created]  # fmt: skip
            open_or_other = any(k.partner is None or fold(k.partner) == other for k in mine)
            named_other = any(k.partner is not None and fold(k.partner) == other for k in mine)
            return open_or_other, named_other

        a_ok, a_named = asked(a, b)
        b_ok, b_named = asked(b, a)
        if not (a_named or b_named or (a_ok and b_ok)):
            out.append(
                f"pairing nobody asked for: queue row {row['id']} {row['first_player']} / "
                f"{row['second_player']} ({row['reason']}, {row['status']}) at {created}"
            )
        if row["status"] != "withdrawn":  # a pairing withdrawn gives the other's request back
            last_pairing[a] = last_pairing[b] = created
    return out


def _iso(epoch: float) -> str:
    from datetime import UTC, datetime

    from forumbot.storage import iso

    return iso(datetime.fromtimestamp(epoch, UTC))


def _bot_texts(world: World) -> tuple[list[str], list[str]]:
    board = world.board
    bot_id = board.user_id(BOT)
    posts = [p.text for t in board.topics() for p in board.posts(t.topic_id)
             if p.poster_id == bot_id]  # fmt: skip
    pms = [m.text for m in board.pms() if m.author_id == bot_id]
    return posts, pms


def marker_counts(world: World) -> tuple[Counter[str], Counter[str]]:
    """``(markers in the bot's posts, markers in the bot's PMs)`` with their counts."""
    posts, pms = _bot_texts(world)
    return (
        Counter(k for t in posts for k in MARKER_RE.findall(t)),
        Counter(k for t in pms for k in MARKER_RE.findall(t)),
    )


def _copies(world: World, key: str, pm: bool) -> str:
    """Where and when the copies of a doubled marker are, whether their texts are the same,
    and what the world did just before the second copy."""
    board, bot_id = world.board, world.board.user_id(BOT)
    if pm:
        found = [(m.msg_id, m.time, m.text) for m in board.pms()
                 if m.author_id == bot_id and key in MARKER_RE.findall(m.text)]  # fmt: skip
    else:
        found = [(p.post_id, p.time, p.text) for t in board.topics() for p in board.posts(
            t.topic_id) if p.poster_id == bot_id and key in MARKER_RE.findall(p.text)]  # fmt: skip
    found.sort()
    same = "same text" if len({t for _, _, t in found}) == 1 else "DIFFERENT texts"
    second = found[1][1] if len(found) > 1 else 0.0
    before = [what for at, what in world.events if found and found[0][1] <= at <= second]
    return (f"ids {[i for i, _, _ in found]}, {same}, between them: "
            f"{', '.join(before[-3:]) or 'nothing'}")


def exactly_once(world: World) -> list[str]:
    """Doubled or missing declarations, club posts and owls."""
    assert world.bot is not None
    storage = world.bot.storage
    posts, pms = marker_counts(world)
    out = [f"posted {n} times: {k} ({_copies(world, k, False)})"
           for k, n in sorted(posts.items()) if n > 1]  # fmt: skip
    out += [f"owl sent {n} times: {k} ({_copies(world, k, True)})"
            for k, n in sorted(pms.items()) if n > 1]  # fmt: skip
    for decl in storage.declarations(("published",), None):
        if posts[str(decl["idempotency_key"])] == 0:
            out.append(f"declaration {decl['id']} published but not on the board: "
                       f"{decl['idempotency_key']}")  # fmt: skip
    for owl in storage.db["owls"].rows_where("status = 'sent'"):
        if pms[str(owl["idempotency_key"])] == 0:
            out.append(f"owl {owl['id']} sent but not on the board: {owl['idempotency_key']}")
    return out


def owls_per_duel(world: World) -> list[str]:
    """Owls doubled under different keys: a player gets one magic-type owl per duel opened
    for them and one result owl per duel of theirs that finished."""
    assert world.bot is not None
    storage, board = world.bot.storage, world.board
    bot_id = board.user_id(BOT)
    names = {board.user_id(n): n for n in world.players}
    got: Counter[tuple[str, str]] = Counter()
    for pm in board.pms():
        subject = pm.subject.lower()
        what = ("magic" if "type de magie" in subject else
                "result" if "fin du duel" in subject else None)  # fmt: skip
        if pm.author_id == bot_id and what is not None:
            for uid in pm.to_ids:
                got[(names.get(uid, str(uid)), what)] += 1
    opened: Counter[tuple[str, str]] = Counter()
    for row in storage.db["queue"].rows_where("duel_id is not null"):
        finished = storage.duel(int(row["duel_id"]))["status"] == "finished"
        for who in (str(row["first_player"]), str(row["second_player"])):
            opened[(who, "magic")] += 1
            opened[(who, "result")] += 1 if finished else 0
    for row in storage.db["duo_matches"].rows_where("duel_id is not null"):
        finished = storage.duel(int(row["duel_id"]))["status"] == "finished"
        for who in (str(e["player"]) for d in json.loads(row["duos_json"]) for e in d):
            opened[(who, "magic")] += 1
            opened[(who, "result")] += 1 if finished else 0
    return [f"{who} got {n} {what} owls for {opened[(who, what)]} duel(s)"
            for (who, what), n in sorted(got.items()) if n > opened[(who, what)]]  # fmt: skip


def no_post_lost(world: World) -> list[str]:
    """Duellist posts and sign-ups the bot never recorded."""
    assert world.bot is not None
    storage, board = world.bot.storage, world.board
    board_id = world.bot.referee.board_id
    bot_id = board.user_id(BOT)
    out = []
    for duel in storage.duels():
        seen = {int(p["post_id"]) for p in storage.topic_posts(board_id, int(duel["topic_id"]))}
        for post in board.posts(int(duel["topic_id"])):
            if post.poster_id != bot_id and post.approved and post.post_id not in seen:
                out.append(f"post {post.post_id} of duel {duel['id']} (topic "
                           f"{duel['topic_id']}) never seen by the bot")  # fmt: skip
    read = {int(r["post_id"]) for r in storage.db["registration_posts"].rows_where()}
    for thread in (world.thread, world.duo_thread):
        for post in board.posts(thread)[1:]:
            if post.poster_id != bot_id and post.post_id not in read:
                out.append(f"sign-up post {post.post_id} never read by the desk")
    for topic in board.topics(DUEL_FORUM):
        if storage.duel_by_topic(board_id, topic.topic_id) is None:
            out.append(f"duel topic {topic.topic_id} ({topic.title}) unknown to the bot")
    return out


def duels_end(world: World) -> list[str]:
    """Duels neither ended nor waiting for a referee."""
    assert world.bot is not None
    storage = world.bot.storage
    out = []
    for duel in storage.duels():
        if duel["status"] in ("finished", "cancelled", "ignored"):
            continue
        duel_id = int(duel["id"])
        tasks = storage.db["referee_tasks"].count_where(
            "duel_id = ? and status = 'open'", [duel_id])  # fmt: skip
        waiting = storage.declarations(("held", "draft", "approved", "publishing"), duel_id)
        deadlines = storage.db["deadlines"].count_where(
            "duel_id = ? and status = 'pending'", [duel_id])  # fmt: skip
        if not tasks and not waiting and not deadlines:
            state = json.loads(duel["state_json"] or "{}")
            out.append(f"duel {duel_id} (topic {duel['topic_id']}) still {duel['status']} at "
                       f"turn {state.get('turn')}: no referee task, draft or deadline "
                       "(frozen)")  # fmt: skip
    for table in ("queue", "duo_matches"):
        for row in world.bot.storage.db[table].rows_where("status = 'opening'"):
            out.append(f"{table} row {row['id']} left 'opening' ({row['last_error']})")
    return out


def notices_once(world: World) -> list[str]:
    """Notices sent twice or left half-sent."""
    assert world.bot is not None
    storage = world.bot.storage
    sent = Counter(
        str(a["target"]) for a in storage.db["audit_log"].rows_where("action = 'notice.sent'")
    )
    out = [f"{target} sent {n} times" for target, n in sorted(sent.items()) if n > 1]
    for row in storage.db["notices"].rows_where("status in ('sending', 'batched')"):
        out.append(f"notice {row['id']} left {row['status']} ({row['kind']}, {row['channel']})")
    return out


def notices_delivered_once(world: World) -> list[str]:
    """Notices that reached their recipient twice, counted where they arrive (the Apprise
    messages the world received, the PMs on the board: :meth:`soak.world.World._delivered`),
    so a notice the database forgot in a restore and sent again is seen."""
    return [f"notice {key} delivered {n} times"
            for key, n in sorted(world.deliveries.items()) if n > 1]  # fmt: skip


def notice_counts(world: World) -> Counter[str]:
    """Notices by status."""
    assert world.bot is not None
    return Counter(str(r["status"]) for r in world.bot.storage.db["notices"].rows_where())


def refusals_real(
    world: World, invalid: dict[int, tuple[float, str]], named: dict[int, str | None]
) -> list[str]:
    """Sign-ups refused for a reason that was not true when the desk read them (its
    ``registration_posts`` row: status, code, created_at), from what the script posted
    (``invalid``: posts without a year; ``named``: post -> the partner it names):

    - a post without a year is refused for a missing field, and only such a post is; or, a
      returning duellist's, read with their one recorded profile (the account had exactly
      one profile, recorded before the post was read; then accepted, or refused as any
      sign-up, e.g. ``already_signed_up`` while their open request waits;
      :func:`forumbot.club.signup_checks.from_profile`);
    - ``partner_in_duel``: the partner was in a pairing (queued to finished) at that time;
    - ``partner_incomplete``: the partner had no profile yet at that time;
    - no valid sign-up is left unread or read as something else than a sign-up.
    """
    assert world.bot is not None
    db = world.bot.storage.db
    out = []
    for row in db["registration_posts"].rows_where(order_by="post_id"):
        post_id, code, at = int(row["post_id"]), str(row["code"]), str(row["created_at"])
        status = str(row["status"])
        if post_id in invalid:
            if code.startswith("missing"):
                continue
            profiles = db.execute(
                "select count(*) from duellist_profiles where player = ? and created_at < ?",
                [invalid[post_id][1], at]).fetchone()[0]  # fmt: skip
            if profiles != 1:  # else read with the profile: accepted, or refused as any
                out.append(f"sign-up {post_id} has no year but was read {status}:{code} "
                           f"({profiles} profiles of its author then)")  # fmt: skip
            continue
        if code.startswith("missing"):
            out.append(f"sign-up {post_id} refused as {code} but it has every field")
        if post_id not in named:
            continue  # a withdrawal or another post
        partner = named[post_id]
        if status not in ("accepted", "rejected", "review"):
            out.append(f"sign-up {post_id} read as {status}:{code}")
        if code == "partner_in_duel" and partner is not None:
            busy = db.execute(
                "select count(*) from queue where (first_player = ? or second_player = ?) "
                "and created_at <= ? and (finished_at is null or finished_at >= ?)",
                [partner, partner, at, at],
            ).fetchone()[0]
            if not busy:
                out.append(f"sign-up {post_id} refused as partner_in_duel but {partner} was "
                           "in no pairing then")  # fmt: skip
        if code == "partner_incomplete" and partner is not None:
            known = db.execute(
                "select count(*) from duellist_profiles where character_key = ? "
                "and created_at < ?", [fold(partner), at]).fetchone()[0]  # fmt: skip
            if known:
                out.append(f"sign-up {post_id} refused as partner_incomplete but {partner} "
                           "had a profile then")  # fmt: skip
    return out


LINE_RE = re.compile(
    r"\[b\](?P<name>[^\[]+)\[/b\] : (?P<points>\d+) points? \((?P<wins>\d+) victoires?, "
    r"(?P<losses>\d+) défaites?(?:, (?P<draws>\d+) match)?"
)


def leaderboard(world: World) -> list[str]:
    """The leaderboard table and post against the finished duels."""
    assert world.bot is not None
    storage = world.bot.storage
    expected: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # points, W, L, D
    queued = {int(r["duel_id"]) for r in storage.db["queue"].rows_where("duel_id is not null")}
    for duel in storage.duels("finished"):
        if int(duel["id"]) not in queued:
            continue
        state = json.loads(duel["state_json"])
        names = [str(d["name"]) for d in state["duellists"]]
        winner = state.get("winner")
        if winner:
            expected[winner][0] += 1
            expected[winner][1] += 1
            for n in names:
                if n != winner:
                    expected[n][2] += 1
        elif state.get("draw"):
            for n in names:
                expected[n][3] += 1
    table = {
        str(r["character"]): [int(r["points"]), int(r["wins"]), int(r["losses"]), int(r["draws"])]
        for r in storage.db["leaderboard"].rows_where("kind = '1v1'")
    }
    want = {k: tuple(v) for k, v in expected.items() if any(v)}
    have = {k: tuple(v) for k, v in table.items() if any(v)}
    out = []
    for name in sorted(set(want) | set(have)):
        if want.get(name) != have.get(name):
            out.append(f"leaderboard {name}: table {have.get(name)} != recomputed {want.get(name)}"
                       " (points, wins, losses, draws)")  # fmt: skip
    bot_id = world.board.user_id(BOT)
    posts = [p for p in world.board.posts(world.ranking) if p.poster_id == bot_id]
    if len(posts) != 1:
        out.append(f"{len(posts)} leaderboard posts by the bot (1 expected)")
    elif world.bot is not None:
        shown = {
            m["name"]: (int(m["points"]), int(m["wins"]), int(m["losses"]), int(m["draws"] or 0))
            for m in LINE_RE.finditer(plain(posts[0].text))  # typeset since issue 25
        }
        shown = {k: v for k, v in shown.items() if any(v)}
        if shown != want:
            diff = sorted(set(shown.items()) ^ set(want.items()), key=str)[:3]
            out.append(f"leaderboard post differs from the recomputation: {diff}")
    return out
