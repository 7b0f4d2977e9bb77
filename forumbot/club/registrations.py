"""The registration desk: sign-up threads -> matchmaking -> duel topics -> owls -> purse.

Seed 001 (RULES.md, "Registration and scheduling"): "One registration thread per duel type. A
sign-up post gives name, year, magic type(s) (two at most) and, if chosen, the partner's name,
year and magic type [...] Open request: a sign-up with no partner is matched with the first
person who answers it or who also signs up alone. [...] At most 3 one-against-one duels at
once, then a queue; a player (the person, across all their characters) is in one duel at a
time."

One :meth:`RegistrationDesk.cycle` (run after every poll, see :func:`after_poll`):

1. **Read the registration threads** like duel forums: one listing request per forum holding
   threads, and a thread is read only when its last post id changed (or, without a listing
   forum, one read of the thread's new posts). Each new post (not the thread's first post, not
   the bot's) is parsed by :func:`parsers.registration.parse_signup`; an invalid sign-up gets
   a clear French reply (a club post published exactly once, :mod:`forumbot.club.posts`).
2. **Match** with :mod:`rules.matchmaking` (pure); the lobby (open requests, queue, running
   pairings) lives in the ``requests`` and ``queue`` tables. The forum account that posted is
   the player; the sign-up's name is the character.
3. **Settle finished duels**: rewards once (:mod:`forumbot.club.leaderboard`), result owls, the slot
   freed. The referee's ``on_finished`` hook does it at once; the cycle catches any it missed.
4. **Start duels** while slots are free: the duel topic is opened in the configured forum
   exactly once (claimed, then ``create_topic``; after a crash the forum is searched for the
   topic by its marker first), the duel is registered with
   :meth:`forumbot.duels.referee.Referee.adopt` (ruleset per duel, the dice secret fixed beforehand
   so the topic's first post can publish its commitment), and each duellist gets an owl with
   their magic-type modifiers (:mod:`forumbot.publish.owls`, exactly once).
5. **Publish**: due club posts, owls, and the leaderboard post (edited when it changes).

Decisions **[D]**: a returning duellist's recorded profile (year, magic types) wins over what a
new sign-up says, with a reply saying so (RULES.md: magic types are "fixed between duels unless
[...] an admin records the change"); a sign-up that only answers an open request (quoting it)
without year or types is accepted from the poster's single recorded profile; stakes come from an
``Enjeux :`` line of either sign-up (the opening one first). Threads of ``kind = "2v2"`` go to
:mod:`forumbot.club.duo_registrations` (duos, one 2v2 at a time, registration closed while it runs).

One duel per player **across 1v1 and 2v2** (RULES.md: "a player (the person, across all their
characters) is in one duel at a time"), read from storage by :func:`board_engagements` and
decided by :class:`rules.matchmaking.Engagements`, **[D]** each:

- a sign-up (of either kind) from a player, or naming a partner, who is in a duel of the other
  kind that is not finished (formed and queued, being opened, or running) is refused with the
  code ``busy_other_kind`` and the French reply ``signup_busy_other_kind.bbcode.j2``;
- a player may keep an open sign-up in both threads; when a duel of one kind is formed for
  them (a 1v1 pairing, a 2v2 match), their open sign-ups of the other kind are withdrawn in the
  same transaction (status ``withdrawn``), each with a French reply under it
  (``signup_withdrawn.bbcode.j2``). A 2v2 duo waiting for opponents is withdrawn whole, the
  teammate included (the reply tells them they may sign up again);
- the start re-checks: a 1v1 pairing or a 2v2 match holding a player in a started duel of the
  other kind keeps its place until that duel is over.

Within 1v1, a player in a running duel may still queue the next one (it starts after).

One player, one place **[D]**: players are compared with :func:`rules.matchmaking.player_key`
and characters with :func:`rules.matchmaking.character_key` (case, accents and spacing
ignored, the profiles' folding), so no pairing holds one player or one character twice. A
formed duel is re-checked before its topic is created (:func:`unplayable_reason`); a bad one
stored earlier is cancelled once (:meth:`RegistrationDesk.cancel_duel`: status ``cancelled``,
a French reply under each sign-up, ``signup_cancelled.bbcode.j2``) and the cycle goes on.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.club.leaderboard import record_rewards, update_leaderboard_post
from forumbot.club.posts import draft_club_post, publish_due_club_posts
from forumbot.config import Registration
from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import EditingForumClient, ForumClient
from forumbot.publish.labels import describe_modifier, slug, types_label, year_label
from forumbot.publish.owls import draft_owl, send_due_owls
from forumbot.publish.render import marker_line, marker_text, render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, content_hash, iso
from forumbot.storage.profiles import player_of
from parsers.duel_setup import find_stakes
from parsers.model import Post
from parsers.registration import (
    Partner,
    Signup,
    SignupError,
    fold,
    parse_magic_types,
    parse_signup,
    parse_year,
)
from rules.dice import commitment
from rules.errors import RuleError
from rules.fatigue import FatigueRuleset
from rules.matchmaking import (
    DuelKind,
    Engagement,
    Engagements,
    Entrant,
    Lobby,
    Pairing,
    Repeat,
    Request,
    add_request,
    other_kind,
    player_key,
    repeated,
    schedule,
    set_aside,
)

log = logging.getLogger("forumbot.club.registrations")

REJECTIONS = {
    "already_signed_up": (
        "Tu as déjà une inscription en cours (demande ouverte ou duel en file d'attente) : un "
        "joueur ne participe qu'à un duel à la fois."
    ),
    "self_partner": "Tu ne peux pas affronter l'un de tes propres personnages.",
    "unknown_request": "La demande ouverte à laquelle tu réponds n'est plus disponible.",
}


KIND_LABELS: dict[str, str] = {"1v1": "un contre un", "2v2": "deux contre deux"}


def board_engagements(storage: Storage, board_id: int) -> Engagements:
    """Every player's engagements on the board, both kinds (for
    :class:`rules.matchmaking.Engagements`):

    - 1v1 ``requests`` still open -> ``open`` (ref: the sign-up's post id);
    - 1v1 ``queue`` rows ``queued`` -> ``queued``, ``opening``/``running`` -> ``running`` (ref:
      the queue row id);
    - 2v2 ``duo_entries`` ``lone`` or ``duo`` -> ``open`` for each member (ref: the entry's
      post id);
    - 2v2 ``duo_matches`` ``queued`` -> ``queued``, ``opening``/``running`` -> ``running``
      (ref: the match row id).

    A queue row or match whose duel is already ``finished`` (not settled yet) counts as over.
    """
    db = storage.db
    items: list[Engagement] = []
    for r in db.execute(
        "select post_id, player from requests where board_id = ? and status = 'open'",
        [board_id],
    ).fetchall():
        items.append(Engagement(r[1], "1v1", "open", int(r[0])))
    for r in db.execute(
        "select q.id, q.status, q.first_player, q.second_player from queue q "
        "left join duels d on d.id = q.duel_id where q.board_id = ? "
        "and q.status in ('queued', 'opening', 'running') "
        "and (d.status is null or d.status != 'finished')",
        [board_id],
    ).fetchall():
        stage = "queued" if r[1] == "queued" else "running"
        items += [Engagement(p, "1v1", stage, int(r[0])) for p in (r[2], r[3])]
    for r in db.execute(
        "select post_id, player, mate_player from duo_entries where board_id = ? "
        "and status in ('lone', 'duo')",
        [board_id],
    ).fetchall():
        items += [Engagement(p, "2v2", "open", int(r[0])) for p in (r[1], r[2]) if p]
    for r in db.execute(
        "select m.id, m.status, m.duos_json from duo_matches m "
        "left join duels d on d.id = m.duel_id where m.board_id = ? "
        "and m.status in ('queued', 'opening', 'running') "
        "and (d.status is null or d.status != 'finished')",
        [board_id],
    ).fetchall():
        stage = "queued" if r[1] == "queued" else "running"
        players = [e["player"] for duo in json.loads(r[2]) for e in duo]
        items += [Engagement(p, "2v2", stage, int(r[0])) for p in players]
    return Engagements(tuple(items))


def repeat_reason(rep: Repeat) -> str:
    """The French reason a duel holding ``rep`` cannot be played (for
    ``signup_cancelled.bbcode.j2``)."""
    if rep.what == "player":
        return (
            f"{rep.name} y occuperait deux places, or un joueur ne participe qu'à un duel à la "
            "fois, sous un seul de ses personnages."
        )
    return f"le personnage {rep.name} y figurerait deux fois."


def unplayable_reason(storage: Storage, board_id: int, entrants: Sequence[Entrant]) -> str | None:
    """Why a formed duel (its duellists ``entrants``, any kind) cannot be opened, in French, or
    None when it can: one player or one character twice (:func:`rules.matchmaking.repeated`:
    players by :func:`rules.matchmaking.player_key`, characters as the profiles fold them), or a
    duellist without a recorded profile. Checked again just before a duel topic is created, so
    a bad duel stored earlier is cancelled instead of wedging the cycle."""
    rep = repeated(entrants)
    if rep is not None:
        return repeat_reason(rep)
    for e in entrants:
        if get_profile(storage, board_id, e.character) is None:
            return f"le personnage {e.character} n'a pas de fiche au club."
    return None


class ProfileError(ValueError):
    """A duellist profile change refused (message in English for the admin's CLI)."""


@dataclass(frozen=True)
class Profile:
    """A duellist's recorded profile (changed only by an admin: :func:`set_profile`).

    Attributes:
        character: the duellist's name; player: the forum account behind it.
        year: ``"1"``..``"7"`` or ``"adult"``; magic_types: one or two type keys.
    """

    character: str
    player: str
    year: str
    magic_types: tuple[str, ...]


# -- profiles ------------------------------------------------------------------------------------


def get_profile(storage: Storage, board_id: int, character: str) -> Profile | None:
    """The recorded profile of ``character`` (case and accents ignored), or None."""
    rows = list(
        storage.db["duellist_profiles"].rows_where(
            "board_id = ? and character_key = ?", [board_id, fold(character)]
        )
    )
    if not rows:
        return None
    r = rows[0]
    return Profile(r["character"], r["player"], r["year"], tuple(json.loads(r["magic_types_json"])))


def profiles_of(storage: Storage, board_id: int, player: str) -> list[Profile]:
    """The profiles of every character of ``player``."""
    rows = storage.db["duellist_profiles"].rows_where("board_id = ?", [board_id])
    return [
        Profile(r["character"], r["player"], r["year"], tuple(json.loads(r["magic_types_json"])))
        for r in rows
        if player_key(r["player"]) == player_key(player)
    ]


def _insert_profile(storage: Storage, board_id: int, profile: Profile, now: datetime) -> None:
    storage.db["duellist_profiles"].insert(
        {
            "board_id": board_id,
            "character_key": fold(profile.character),
            "character": profile.character,
            "player": profile.player,
            "year": profile.year,
            "magic_types_json": json.dumps(list(profile.magic_types)),
            "created_at": iso(now),
            "updated_at": iso(now),
            "updated_by": "forumbot",
        },
        ignore=True,
    )


def set_profile(
    storage: Storage,
    board_id: int,
    character: str,
    year: str,
    magic_types: Sequence[str],
    by: str,
    now: datetime,
    *,
    player: str | None = None,
    ruleset: str = "fatigue",
) -> Profile:
    """An admin records a duellist's year and magic types (seed 001: the type changes only with
    "un changement de caractère marqué en RP" or "une nouvelle baguette"). Audited.

    Args:
        year: ``"1"``..``"7"``, ``"adult"`` (or ``"5e année"``, ``"adulte"``).
        magic_types: one or two types (keys or labels, e.g. ``["brutale", "Discrète"]``).
        player: the forum account; default the existing profile's, else the character's name.

    Raises:
        ProfileError: bad year, unknown magic type, not one or two types.
    """
    parsed = parse_year(year, labelled=True)
    if parsed is None or (parsed != "adult" and not 1 <= int(parsed) <= 7):
        raise ProfileError(f"year must be 1..7 or adult, got {year!r}")
    rs = load_ruleset(ruleset)
    if not isinstance(rs, FatigueRuleset):
        raise ProfileError(f"ruleset {ruleset!r} has no magic types")
    known = {k: t.label for k, t in rs.magic_types.items()}
    keys, unknown = parse_magic_types(", ".join(magic_types), known)
    if unknown:
        raise ProfileError(f"unknown magic type(s) {list(unknown)}; known: {sorted(known)}")
    if not 1 <= len(keys) <= 2:
        raise ProfileError(f"one or two magic types, got {list(magic_types)}")
    before = get_profile(storage, board_id, character)
    owner = player or (before.player if before else character)
    after = Profile(before.character if before else character, owner, parsed, keys)
    with storage.db.atomic():
        storage.db["duellist_profiles"].upsert(
            {
                "board_id": board_id,
                "character_key": fold(character),
                "character": after.character,
                "player": owner,
                "year": parsed,
                "magic_types_json": json.dumps(list(keys)),
                "created_at": iso(now),
                "updated_at": iso(now),
                "updated_by": by,
            },
            pk=("board_id", "character_key"),
        )
        storage.audit(
            by,
            "profile.set",
            f"profile:{fold(character)}",
            before.__dict__ if before else None,
            after.__dict__,
            now,
        )
    return after


# -- the desk --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeskReport:
    """What one cycle did (for logs and tests)."""

    signups: int
    replies: int
    started: int
    settled: int
    posts_published: int
    owls_sent: int
    leaderboard: str


class RegistrationDesk:
    """Runs the club's registrations for one board (see module docstring).

    Args:
        storage, client: the bot's database and forum client.
        referee: the board's :class:`forumbot.duels.referee.Referee` (its ``board_id``, ``rng`` for
            dice secrets, ``adopt`` to register a duel).
        registrations: the ``[[registration]]`` settings.
        now: the clock (aware UTC); bot_username: the bot's account (its posts are skipped).
        leaderboard_topic_id: topic of the leaderboard post, 0 = none.
        language, referee_name: templates' language and signature.
    """

    def __init__(
        self,
        storage: Storage,
        client: ForumClient,
        referee: Any,
        registrations: Sequence[Registration],
        *,
        now: Callable[[], datetime],
        bot_username: str,
        leaderboard_topic_id: int = 0,
        language: str = "fr",
        referee_name: str = "L'arbitre",
    ) -> None:
        self.storage = storage
        self.client = client
        self.referee = referee
        self.registrations = tuple(registrations)
        self.now = now
        self.bot_username = bot_username
        self.leaderboard_topic_id = leaderboard_topic_id
        self.language = language
        self.referee_name = referee_name
        self.board_id: int = referee.board_id

    # -- cycle ------------------------------------------------------------------------------
    def cycle(self) -> DeskReport:
        """One pass: read threads, settle finished duels, start duels, publish. A forum error
        in one step is logged and retried next cycle; LoginFailed propagates."""
        signups = replies = started = settled = 0
        try:
            signups, replies = self.poll_registrations()
        except LoginFailed:
            raise
        except ForumError as exc:
            log.warning("registrations: poll failed: %s", exc)
        settled = self.settle_finished()
        started = self.start_duels()
        published = publish_due_club_posts(self.storage, self.client, self.now, self.board_id)
        owls = send_due_owls(self.storage, self.client, self.now, self.board_id)
        board = self.refresh_leaderboard()
        return DeskReport(signups, replies, started, settled, len(published), len(owls), board)

    def attach(self) -> None:
        """Register :meth:`on_finished` on the referee's ``on_finished`` hook (once)."""
        hooks = getattr(self.referee, "on_finished", None)
        if hooks is None:
            return
        if not any(getattr(h, "_forumbot_registrations", False) for h in hooks):
            desk = self

            def hook(duel_id: int, outcome: dict[str, Any]) -> None:
                desk.on_finished(duel_id, outcome)

            hook._forumbot_registrations = True  # type: ignore[attr-defined]
            hooks.append(hook)

    # -- 1. reading the threads -------------------------------------------------------------
    def poll_registrations(self) -> tuple[int, int]:
        """Read the registration threads that changed and handle their new posts. Returns
        ``(sign-up posts handled, replies drafted)``."""
        listings: dict[int, dict[int, int | None]] = {}
        handled = replies = 0
        for reg in self.registrations:
            if reg.kind not in ("1v1", "2v2"):
                log.warning("registration thread %s: %s not handled yet", reg.topic_id, reg.kind)
                continue
            row = self._thread(reg.topic_id)
            last = row["last_post_id"] if row else None
            listed: int | None = None
            if reg.thread_forum_id:
                if reg.thread_forum_id not in listings:
                    listings[reg.thread_forum_id] = {
                        t.topic_id: t.last_post_id
                        for t in self.client.list_topics(reg.thread_forum_id)
                    }
                listed = listings[reg.thread_forum_id].get(reg.topic_id)
                if row is not None and listed is not None and listed == last:
                    continue
            posts = self.client.read_topic(reg.topic_id, last)
            opener = posts[0].post_id if row is None and posts else None
            for post in sorted(posts, key=lambda p: p.post_id):
                if post.post_id == opener:
                    continue  # the thread's own first post explains how to sign up
                if last is not None and post.post_id <= last:
                    continue
                h, r = self.handle_post(reg, post)
                handled += h
                replies += r
            seen = [p.post_id for p in posts] + ([listed] if listed is not None else [])
            newest = max([s for s in seen if s is not None] + ([last] if last else []), default=0)
            self.storage.db["registration_threads"].upsert(
                {
                    "board_id": self.board_id,
                    "topic_id": reg.topic_id,
                    "last_post_id": newest or None,
                    "updated_at": iso(self.now()),
                },
                pk=("board_id", "topic_id"),
            )
        return handled, replies

    def _thread(self, topic_id: int) -> dict[str, Any] | None:
        rows = list(
            self.storage.db["registration_threads"].rows_where(
                "board_id = ? and topic_id = ?", [self.board_id, topic_id]
            )
        )
        return rows[0] if rows else None

    # -- 2. one sign-up ---------------------------------------------------------------------
    def handle_post(self, reg: Registration, post: Post) -> tuple[int, int]:
        """Handle one post of a registration thread (once per post). Returns ``(1 if it was
        a sign-up attempt, replies drafted)``."""
        if fold(post.author) == fold(self.bot_username):
            return 0, 0
        if self._post_row(post.post_id) is not None:
            return 0, 0
        rs = load_ruleset(reg.ruleset)
        known = (
            {k: t.label for k, t in rs.magic_types.items()}
            if isinstance(rs, FatigueRuleset)
            else None
        )
        parsed = parse_signup(post, magic_types=known) if known else parse_signup(post)
        lobby, _ = self._lobby(reg)
        answers = next(
            (
                q.post_id
                for q in post.quotes
                if q.post_id is not None
                and any(e.post_id == q.post_id for e in lobby.open_requests)
            ),
            None,
        )
        if isinstance(parsed, SignupError):
            mine = profiles_of(self.storage, self.board_id, post.author)
            if parsed.code in ("missing_year", "missing_magic_type") and len(mine) == 1:
                p = mine[0]
                parsed = Signup(post.post_id, post.author, p.character, p.year, p.magic_types)
            else:
                self._record_post(post, "invalid", parsed.code, parsed.message, None)
                self._reply(reg, post, "signup_invalid.bbcode.j2", parsed.code, parsed.message)
                log.info("sign-up %s by %s: invalid (%s)", post.post_id, post.author, parsed.code)
                return 1, 1
        if reg.kind == "2v2":
            from forumbot.club.duo_registrations import handle_duo_signup

            return 1, handle_duo_signup(self, reg, post, parsed)
        return 1, self._accept(reg, post, parsed, answers)

    def _accept(self, reg: Registration, post: Post, s: Signup, answers: int | None) -> int:
        """Match a readable sign-up; returns the replies drafted."""
        now = self.now()
        replies = 0
        mine = get_profile(self.storage, self.board_id, s.name)
        if mine is not None and player_key(mine.player) != player_key(post.author):
            message = (
                f"Le personnage {mine.character} est déjà inscrit au club par un autre compte "
                f"({mine.player})."
            )
            return self._refuse(reg, post, "character_taken", message)
        profile = mine or Profile(s.name, post.author, s.year, s.magic_types)
        partner_name: str | None = None
        partner_player: str | None = None
        partner_profile: Profile | None = None
        if s.partner is not None:
            partner_name, partner_player, partner_profile, error = self._partner(s.partner)
            if error is not None:
                return self._refuse(reg, post, "partner_incomplete", error)
        engagements = board_engagements(self.storage, self.board_id)
        clash = engagements.clash(
            "1v1", [post.author] + ([partner_player] if partner_player else [])
        )
        if clash is not None:
            return self._refuse_busy(reg, post, clash)
        entrant = Entrant(player=post.author, character=profile.character, post_id=post.post_id)
        request = Request(
            entrant,
            partner=partner_name,
            partner_player=partner_player,
            answers=None if partner_name else answers,
        )
        lobby, rows = self._lobby(reg)
        lobby, event = add_request(lobby, request)
        if event.outcome == "rejected":
            return self._refuse(reg, post, event.reason, REJECTIONS[event.reason])
        stakes = find_stakes(post.text)
        with self.storage.db.atomic():
            if mine is None:
                _insert_profile(self.storage, self.board_id, profile, now)
            if partner_profile is not None:
                _insert_profile(self.storage, self.board_id, partner_profile, now)
            self.storage.db["requests"].insert(
                {
                    "board_id": self.board_id,
                    "thread_topic_id": reg.topic_id,
                    "post_id": post.post_id,
                    "player": post.author,
                    "character": profile.character,
                    "stakes": stakes,
                    "status": "open" if event.outcome == "opened" else "paired",
                    "created_at": iso(now),
                    "updated_at": iso(now),
                }
            )
            if event.pairing is not None:
                first = event.pairing.first
                first_stakes = None
                if first.post_id != post.post_id:
                    self.storage.db.execute(
                        "update requests set status = 'paired', updated_at = ? "
                        "where board_id = ? and post_id = ? and status = 'open'",
                        [iso(now), self.board_id, first.post_id],
                    )
                    found = list(
                        self.storage.db["requests"].rows_where(
                            "board_id = ? and post_id = ?", [self.board_id, first.post_id]
                        )
                    )
                    first_stakes = found[0]["stakes"] if found else None
                self.withdraw_other_kind("1v1", event.pairing.players, engagements)
                self.storage.db["queue"].insert(
                    {
                        "board_id": self.board_id,
                        "thread_topic_id": reg.topic_id,
                        "kind": reg.kind,
                        "ruleset": reg.ruleset,
                        "first_player": first.player,
                        "first_character": first.character,
                        "first_post_id": first.post_id,
                        "second_player": event.pairing.second.player,
                        "second_character": event.pairing.second.character,
                        "second_post_id": event.pairing.second.post_id,
                        "reason": event.reason,
                        "stakes": first_stakes or stakes,
                        "status": "queued",
                        "forum_id": reg.forum_id,
                        "attempts": 0,
                        "created_at": iso(now),
                    }
                )
            self._record_post(post, "accepted", event.reason, None, s)
        log.info(
            "sign-up %s: %s (%s) %s (%s)",
            post.post_id,
            profile.character,
            post.author,
            event.outcome,
            event.reason,
        )
        if mine is not None and (
            mine.year != s.year or set(mine.magic_types) != set(s.magic_types)
        ):
            rs = load_ruleset(reg.ruleset)
            assert isinstance(rs, FatigueRuleset)
            context = {
                "author": post.author,
                "post_id": post.post_id,
                "character": mine.character,
                "year_label": year_label(mine.year),
                "types_label": types_label(rs, mine.magic_types),
            }
            key = f"b{self.board_id}-reg{reg.topic_id}-p{post.post_id}-profile"
            text = render("signup_profile.bbcode.j2", context, self.language)
            draft_club_post(
                self.storage,
                self.board_id,
                key,
                "signup_reply",
                reg.topic_id,
                text,
                now,
                after_post_id=post.post_id,
            )
            replies += 1
        return replies

    def _partner(self, partner: Partner) -> tuple[str, str, Profile | None, str | None]:
        """(name, player, new profile to record or None, French error or None)."""
        known = get_profile(self.storage, self.board_id, partner.name)
        if known is not None:
            return known.character, known.player, None, None
        if partner.year is None or not partner.magic_types:
            return (
                partner.name,
                partner.name,
                None,
                f"Indique l'année d'étude et le type de magie de {partner.name} : ce personnage "
                "n'a pas encore de fiche au club.",
            )
        new = Profile(partner.name, partner.name, partner.year, partner.magic_types)
        return partner.name, partner.name, new, None

    def _refuse(self, reg: Registration, post: Post, code: str, message: str) -> int:
        self._record_post(post, "rejected", code, message, None)
        self._reply(reg, post, "signup_rejected.bbcode.j2", code, message)
        log.info("sign-up %s by %s: refused (%s)", post.post_id, post.author, code)
        return 1

    def _refuse_busy(self, reg: Registration, post: Post, clash: Engagement) -> int:
        """Refuse a sign-up whose poster or partner is in a duel of the other kind that is not
        finished (code ``busy_other_kind``); one French reply. Returns 1."""
        context = {
            "author": post.author,
            "post_id": post.post_id,
            "is_author": player_key(clash.player) == player_key(post.author),
            "player": clash.player,
            "kind_label": KIND_LABELS[clash.kind],
            "running": clash.stage == "running",
        }
        text = render("signup_busy_other_kind.bbcode.j2", context, self.language)
        self._record_post(post, "rejected", "busy_other_kind", text, None)
        self._draft_reply(reg, post, "busy_other_kind", text)
        log.info(
            "sign-up %s by %s: refused (busy_other_kind: %s in a %s %s)",
            post.post_id,
            post.author,
            clash.player,
            clash.kind,
            clash.stage,
        )
        return 1

    def withdraw_other_kind(
        self, kind: DuelKind, players: Sequence[str], engagements: Engagements
    ) -> int:
        """A duel of ``kind`` was just formed for ``players``: withdraw their open sign-ups of
        the other kind (1v1 ``requests`` / 2v2 ``duo_entries`` -> ``withdrawn``), each with one
        French reply under it. Call it inside the transaction that forms the duel; the
        ``engagements`` are the board's before it. Returns the sign-ups withdrawn."""
        now = self.now()
        done = 0
        db = self.storage.db
        for eng in engagements.withdrawals(kind, players):
            table = "requests" if eng.kind == "1v1" else "duo_entries"
            rows = list(
                db[table].rows_where(
                    "board_id = ? and post_id = ? and status in ('open', 'lone', 'duo')",
                    [self.board_id, eng.ref],
                )
            )
            if not rows:
                continue
            row = rows[0]
            db.execute(
                f"update {table} set status = 'withdrawn', updated_at = ? where id = ?",
                [iso(now), row["id"]],
            )
            context = {
                "author": row["player"],
                "post_id": eng.ref,
                "is_author": player_key(eng.player) == player_key(row["player"]),
                "player": eng.player,
                "kind_label": KIND_LABELS[kind],
                "duo": eng.kind == "2v2" and bool(row.get("mate_player")),
            }
            text = render("signup_withdrawn.bbcode.j2", context, self.language)
            draft_club_post(
                self.storage,
                self.board_id,
                f"b{self.board_id}-reg{row['thread_topic_id']}-p{eng.ref}-withdrawn",
                "signup_reply",
                int(row["thread_topic_id"]),
                text,
                now,
                after_post_id=eng.ref,
            )
            log.info(
                "%s sign-up %s withdrawn: %s is now in a %s duel",
                eng.kind,
                eng.ref,
                eng.player,
                kind,
            )
            done += 1
        return done

    def _reply(self, reg: Registration, post: Post, template: str, code: str, message: str) -> None:
        text = render(
            template,
            {"author": post.author, "post_id": post.post_id, "message": message},
            self.language,
        )
        self._draft_reply(reg, post, code, text)

    def _draft_reply(self, reg: Registration, post: Post, code: str, text: str) -> None:
        """Draft ``text`` as the bot's reply under ``post`` (once: keyed by post and code)."""
        key = f"b{self.board_id}-reg{reg.topic_id}-p{post.post_id}-{code}"
        draft_club_post(
            self.storage,
            self.board_id,
            key,
            "signup_reply",
            reg.topic_id,
            text,
            self.now(),
            after_post_id=post.post_id,
        )

    def _post_row(self, post_id: int) -> dict[str, Any] | None:
        rows = list(
            self.storage.db["registration_posts"].rows_where(
                "board_id = ? and post_id = ?", [self.board_id, post_id]
            )
        )
        return rows[0] if rows else None

    def _record_post(
        self, post: Post, status: str, code: str, message: str | None, signup: Signup | None
    ) -> None:
        now = iso(self.now())
        self.storage.db["registration_posts"].upsert(
            {
                "board_id": self.board_id,
                "post_id": post.post_id,
                "topic_id": None,
                "author": post.author,
                "content_hash": content_hash(post.text),
                "status": status,
                "code": code,
                "message": message,
                "signup_json": json.dumps(
                    {
                        "name": signup.name,
                        "year": signup.year,
                        "magic_types": list(signup.magic_types),
                        "partner": signup.partner.name if signup.partner else None,
                    },
                    ensure_ascii=False,
                )
                if signup
                else None,
                "created_at": now,
                "updated_at": now,
            },
            pk=("board_id", "post_id"),
        )

    # -- lobby ------------------------------------------------------------------------------
    def _lobby(self, reg: Registration) -> tuple[Lobby, dict[Pairing, int]]:
        """The thread's lobby rebuilt from storage (running: every 1v1 duel of the board, so
        the limit and "one duel per player" hold across threads), with pairing -> queue id.
        Open requests of players in a formed 2v2 are set aside (never matched)."""
        opens = tuple(
            Entrant(r["player"], r["character"], r["post_id"])
            for r in self.storage.db["requests"].rows_where(
                "board_id = ? and thread_topic_id = ? and status = 'open'",
                [self.board_id, reg.topic_id],
                order_by="post_id",
            )
        )
        rows: dict[Pairing, int] = {}
        queued: list[Pairing] = []
        running: list[Pairing] = []
        for r in self.storage.db["queue"].rows_where(
            "board_id = ? and kind = ? and status in ('queued', 'opening', 'running')",
            [self.board_id, reg.kind],
            order_by="id",
        ):
            pairing = Pairing(
                Entrant(r["first_player"], r["first_character"], r["first_post_id"]),
                Entrant(r["second_player"], r["second_character"], r["second_post_id"]),
            )
            rows[pairing] = r["id"]
            if r["status"] == "queued" and r["thread_topic_id"] == reg.topic_id:
                queued.append(pairing)
            elif r["status"] != "queued":
                running.append(pairing)
        lobby = Lobby(opens, tuple(queued), tuple(running))
        formed_2v2 = board_engagements(self.storage, self.board_id).formed_in(other_kind("1v1"))
        return set_aside(lobby, formed_2v2), rows

    # -- 3. finished duels --------------------------------------------------------------------
    def on_finished(self, duel_id: int, outcome: dict[str, Any]) -> None:
        """The referee's ``on_finished`` hook: settle the duel now (rewards once, result
        owls, the slot freed). ``outcome`` is only logged: the duel row is the authority."""
        log.info("duel %s finished (%s)", duel_id, outcome.get("reason"))
        self.settle(self.storage.duel(duel_id))

    def settle_finished(self) -> int:
        """Settle every finished duel the registration flow opened and has not settled yet
        (a missed hook, a crash). Returns how many were settled now."""
        count = 0
        for row in list(
            self.storage.db["queue"].rows_where(
                "board_id = ? and status = 'running' and duel_id is not null", [self.board_id]
            )
        ):
            duel = self.storage.duel(row["duel_id"])
            if duel["status"] == "finished":
                self.settle(duel)
                count += 1
        return count

    def settle(self, duel: dict[str, Any]) -> None:
        """Rewards of a finished fatigue 1v1 duel (once), the result owls (once each), and its
        pairing marked finished (its slot is free)."""
        state = json.loads(duel["state_json"] or "{}")
        names = [d["name"] for d in state.get("duellists", [])]
        rs = load_ruleset(duel["ruleset"] or "classic")
        if not isinstance(rs, FatigueRuleset) or len(names) != 2:
            return
        now = self.now()
        record_rewards(self.storage, self.board_id, duel, now)
        winner = state.get("winner")
        for name in names:
            opponent = next(n for n in names if n != name)
            result = (
                ("won" if name == winner else "lost")
                if winner
                else ("draw" if state.get("draw") else "none")
            )
            text = render(
                "owl_result.bbcode.j2",
                {
                    "character": name,
                    "opponent": opponent,
                    "topic_url": self._topic_url(duel["topic_id"]),
                    "outcome": result,
                    "stakes": duel.get("stakes"),
                    "referee_name": self.referee_name,
                },
                self.language,
            )
            draft_owl(
                self.storage,
                self.board_id,
                f"b{self.board_id}-duel{duel['id']}-result-{slug(name)}",
                "result",
                player_of(self.storage, self.board_id, name),
                f"Fin du duel contre {opponent}",
                text,
                now,
                duel_id=duel["id"],
            )
        self.storage.db.execute(
            "update queue set status = 'finished', finished_at = ? "
            "where board_id = ? and duel_id = ? and status = 'running'",
            [iso(now), self.board_id, duel["id"]],
        )
        self.storage.db.conn.commit()

    # -- 4. starting duels --------------------------------------------------------------------
    def start_duels(self) -> int:
        """Start the queued pairings that may start (FIFO, at most ``max_concurrent``, one
        duel per player: a pairing holding a player in a started 1v1 or 2v2 keeps its place),
        then open every duel being opened. A pairing not opened yet that cannot be played
        (:func:`unplayable_reason`, or a rules error while opening it) is cancelled once
        (:meth:`cancel_duel`) instead of being retried. Returns the duels opened now."""
        opened = 0
        for reg in self.registrations:
            if reg.kind == "2v2":
                from forumbot.club.duo_registrations import start_duo_matches

                opened += start_duo_matches(self, reg)
                continue
            if reg.kind != "1v1":
                continue
            for row in list(
                self.storage.db["queue"].rows_where(
                    "board_id = ? and thread_topic_id = ? and kind = ? and status = 'queued'",
                    [self.board_id, reg.topic_id, reg.kind],
                    order_by="id",
                )
            ):
                self._cancel_if_unplayable(row)
            lobby, rows = self._lobby(reg)
            in_2v2 = board_engagements(self.storage, self.board_id).started_in("2v2")
            _, started = schedule(lobby, reg.max_concurrent, busy_elsewhere=in_2v2)
            for pairing in started:
                row_id = rows[pairing]
                key = f"b{self.board_id}-pair{row_id}-topic"
                self.storage.db.execute(
                    "update queue set status = 'opening', started_at = ?, subject = ?, "
                    "idempotency_key = ?, dice_secret = ? where id = ? and status = 'queued'",
                    [
                        iso(self.now()),
                        f"Duel : {pairing.first.character} contre {pairing.second.character}",
                        key,
                        self.referee.rng.randbytes(32).hex(),
                        row_id,
                    ],
                )
                self.storage.db.conn.commit()
                log.info("pairing %s: a slot is free, opening its duel", row_id)
        for row in list(
            self.storage.db["queue"].rows_where(
                "board_id = ? and status = 'opening'", [self.board_id], order_by="id"
            )
        ):
            if self._cancel_if_unplayable(row):
                continue
            try:
                self.open_duel(row)
                opened += 1
            except LoginFailed:
                raise
            except RuleError as exc:
                reason = "la fiche de l'un des duellistes ne permet pas de l'ouvrir."
                self.cancel_duel("queue", row["id"], reason, f"{type(exc).__name__}: {exc}")
            except ForumError as exc:
                self.storage.db["queue"].update(
                    row["id"], {"last_error": f"{type(exc).__name__}: {exc}"}
                )
                log.warning("pairing %s: duel topic not opened yet (%s)", row["id"], exc)
        return opened

    def _cancel_if_unplayable(self, row: dict[str, Any]) -> bool:
        """Cancel a 1v1 ``queue`` row not opened yet whose pairing cannot be played
        (:func:`unplayable_reason`); True when it was cancelled."""
        if row["duel_id"] is not None:
            return False
        entrants = [
            Entrant(row["first_player"], row["first_character"], row["first_post_id"]),
            Entrant(row["second_player"], row["second_character"], row["second_post_id"]),
        ]
        reason = unplayable_reason(self.storage, self.board_id, entrants)
        if reason is None:
            return False
        self.cancel_duel("queue", row["id"], reason, "unplayable")
        return True

    def cancel_duel(self, table: str, row_id: int, reason: str, detail: str) -> bool:
        """Cancel a formed duel not opened yet: a 1v1 pairing (``table = "queue"``) or a 2v2
        match (``"duo_matches"``), ``queued`` or ``opening`` and without a duel, becomes
        ``cancelled`` (never retried), its sign-ups too (``requests``/``duo_entries`` ->
        ``cancelled``), with one French reply under each of its sign-up posts and, when the duel
        topic was already posted, one notice in it (``signup_cancelled.bbcode.j2``; ``reason``
        is its French sentence). ``detail``: for the log and ``last_error``. Returns False
        when the row was no longer cancellable."""
        db = self.storage.db
        now = self.now()
        cur = db.execute(
            f"update {table} set status = 'cancelled', finished_at = ?, last_error = ? "
            "where id = ? and status in ('queued', 'opening') and duel_id is null",
            [iso(now), f"cancelled: {detail}", row_id],
        )
        if cur.rowcount == 0:
            db.conn.commit()
            return False
        row = db[table].get(row_id)
        kind: DuelKind = "1v1" if table == "queue" else "2v2"
        if table == "queue":
            entrants = [
                Entrant(row["first_player"], row["first_character"], row["first_post_id"]),
                Entrant(row["second_player"], row["second_character"], row["second_post_id"]),
            ]
            signups_table, live = "requests", ("paired",)
        else:
            entrants = [
                Entrant(e["player"], e["character"], e["post_id"])
                for d in json.loads(row["duos_json"])
                for e in d
            ]
            signups_table, live = "duo_entries", ("matched", "merged")
        post_ids = sorted({e.post_id for e in entrants})
        thread = int(row["thread_topic_id"])
        for post_id in post_ids:
            db.execute(
                f"update {signups_table} set status = 'cancelled', updated_at = ? "
                f"where board_id = ? and post_id = ? and status in ({', '.join('?' * len(live))})",
                [iso(now), self.board_id, post_id, *live],
            )
            posted = self._post_row(post_id)
            author = (
                posted["author"]
                if posted is not None
                else next(e.player for e in entrants if e.post_id == post_id)
            )
            context = {
                "author": author,
                "post_id": post_id,
                "kind_label": KIND_LABELS[kind],
                "reason": reason,
                "in_topic": False,
            }
            text = render("signup_cancelled.bbcode.j2", context, self.language)
            draft_club_post(
                self.storage,
                self.board_id,
                f"b{self.board_id}-reg{thread}-p{post_id}-{table}{row_id}-cancelled",
                "signup_reply",
                thread,
                text,
                now,
                after_post_id=post_id,
            )
        if row["topic_id"] is not None:
            context = {"kind_label": KIND_LABELS[kind], "reason": reason, "in_topic": True}
            text = render("signup_cancelled.bbcode.j2", context, self.language)
            draft_club_post(
                self.storage,
                self.board_id,
                f"b{self.board_id}-{table}{row_id}-cancelled",
                "signup_reply",
                int(row["topic_id"]),
                text,
                now,
            )
        db.conn.commit()
        log.warning(
            "%s %s %s (%s) cancelled before its duel opened: %s [%s]",
            kind,
            table,
            row_id,
            ", ".join(e.character for e in entrants),
            reason,
            detail,
        )
        return True

    def open_duel(self, row: dict[str, Any]) -> int:
        """Open the duel of a pairing being opened (each step once, safe to repeat after a
        crash): the topic, the duel, the owls. Returns the duel id.

        Raises:
            ForumError: the topic could not be opened now (retried next cycle).
        """
        rs = load_ruleset(row["ruleset"])
        if not isinstance(rs, FatigueRuleset):
            raise ValueError(f"ruleset {row['ruleset']!r} has no magic types")
        first = self._profile_for(row["first_character"], row["first_player"])
        second = self._profile_for(row["second_character"], row["second_player"])
        secret = bytes.fromhex(row["dice_secret"])
        topic_id = row["topic_id"]
        if topic_id is None:
            topic_id = self._create_topic(row, rs, first, second, secret)
        duel_id = row["duel_id"]
        if duel_id is None:
            duel = self.storage.duel_by_topic(self.board_id, topic_id)
            if duel is not None and duel["status"] == "ignored":
                self.storage.db["duels"].delete(duel["id"])
                duel = None
            if duel is None:
                duel_id = self.referee.adopt(
                    row["forum_id"],
                    topic_id,
                    row["subject"],
                    [(p.character, p.year, list(p.magic_types)) for p in (first, second)],
                    stakes=row["stakes"],
                    ruleset=row["ruleset"],
                    dice_secret=secret,
                    actor="forumbot",
                )
            else:
                duel_id = duel["id"]
        for me, other in ((first, second), (second, first)):
            self._owl_magic_types(duel_id, topic_id, rs, me, other)
        self.storage.db["queue"].update(
            row["id"], {"duel_id": duel_id, "status": "running", "last_error": None}
        )
        log.info("pairing %s: duel %s opened in topic %s", row["id"], duel_id, topic_id)
        return int(duel_id)

    def _profile_for(self, character: str, player: str) -> Profile:
        found = get_profile(self.storage, self.board_id, character)
        if found is None:
            raise ValueError(f"no profile for {character!r} ({player})")
        return found

    def _create_topic(
        self,
        row: dict[str, Any],
        rs: FatigueRuleset,
        first: Profile,
        second: Profile,
        secret: bytes,
    ) -> int:
        """Open the duel topic once: claimed (attempts + 1, committed) before the POST; a
        later attempt looks for the topic by its marker first."""
        key = row["idempotency_key"]
        marker = marker_text(key)

        def view(p: Profile) -> dict[str, Any]:
            return {
                "name": p.character,
                "year_label": year_label(p.year),
                "points": rs.starting_points_for(p.year),
                "types_label": types_label(rs, p.magic_types),
            }

        text = render(
            "signup_duel_topic.bbcode.j2",
            {
                "first": view(first),
                "second": view(second),
                "unit": rs.unit,
                "stakes": row["stakes"],
                "commitment": commitment(secret),
            },
            self.language,
        )
        found = None
        if row["attempts"]:
            found = self._find_topic(row["forum_id"], row["subject"], marker)
        self.storage.db.execute(
            "update queue set attempts = coalesce(attempts, 0) + 1 where id = ?", [row["id"]]
        )
        self.storage.db.conn.commit()
        topic_id = found
        if topic_id is None:
            message = text.rstrip() + "\n" + marker_line(key)
            topic_id = self.client.create_topic(row["forum_id"], row["subject"], message, marker)
        self.storage.db["queue"].update(row["id"], {"topic_id": topic_id})
        self.storage.db.conn.commit()
        return int(topic_id)

    def _find_topic(self, forum_id: int, subject: str, marker: str) -> int | None:
        """A topic of ``forum_id`` titled ``subject``, opened by the bot, whose first post holds
        ``marker`` (a topic opened before a crash), or None."""
        me = fold(self.bot_username)
        for summary in self.client.list_topics(forum_id):
            if summary.title != subject or fold(summary.author or "") != me:
                continue
            posts = self.client.read_topic(summary.topic_id, None)
            if posts and (marker in posts[0].text or marker in posts[0].html):
                return summary.topic_id
        return None

    def _owl_magic_types(
        self, duel_id: int, topic_id: int, rs: FatigueRuleset, me: Profile, other: Profile
    ) -> None:
        types = []
        for key in me.magic_types:
            mtype = rs.magic_type(key)
            types.append(
                {
                    "label": mtype.label,
                    "traits": mtype.traits,
                    "owl": mtype.owl,
                    "modifiers": [describe_modifier(m) for m in mtype.modifiers],
                }
            )
        text = render(
            "owl_magic_types.bbcode.j2",
            {
                "character": me.character,
                "opponent": other.character,
                "topic_url": self._topic_url(topic_id),
                "types": types,
                "referee_name": self.referee_name,
            },
            self.language,
        )
        draft_owl(
            self.storage,
            self.board_id,
            f"b{self.board_id}-duel{duel_id}-owl-{slug(me.character)}",
            "magic_types",
            me.player,
            f"Duel contre {other.character} : ton type de magie",
            text,
            self.now(),
            duel_id=duel_id,
        )

    def _topic_url(self, topic_id: int) -> str:
        board = self.storage.db["boards"].get(self.board_id)
        base = str(board["url"]).rstrip("/")
        if board["platform"] == "forumactif":
            return f"{base}/t{topic_id}-"
        return f"{base}/viewtopic.php?t={topic_id}"

    # -- 5. leaderboard ---------------------------------------------------------------------
    def refresh_leaderboard(self) -> str:
        """Keep the leaderboard post up to date (``"off"`` without a leaderboard topic)."""
        if not self.leaderboard_topic_id:
            return "off"
        client = self.client
        if not isinstance(client, EditingForumClient):
            log.warning("leaderboard: this forum client cannot edit posts")
            return "unsupported"
        try:
            state = update_leaderboard_post(
                self.storage,
                client,
                self.board_id,
                self.leaderboard_topic_id,
                self.now(),
                language=self.language,
            )
            if state == "drafted":
                publish_due_club_posts(self.storage, self.client, self.now, self.board_id)
            return state
        except LoginFailed:
            raise
        except ForumError as exc:
            log.warning("leaderboard: post not updated (%s); will retry", exc)
            return "failed"


def desk_for(bot: Any) -> RegistrationDesk:
    """The registration desk of a wired :class:`forumbot.app.Bot` (its hook attached)."""
    desk = RegistrationDesk(
        bot.storage,
        bot.client,
        bot.referee,
        bot.config.registrations,
        now=bot.now,
        bot_username=bot.config.username,
        leaderboard_topic_id=bot.config.leaderboard_topic_id,
        language=bot.config.language,
        referee_name=bot.config.referee_name,
    )
    desk.attach()
    return desk


def after_poll(bot: Any) -> DeskReport | None:
    """Run the registration desk once after ``bot.poll()`` (None when the configuration has
    no registration thread and no leaderboard topic)."""
    if not bot.config.registrations and not bot.config.leaderboard_topic_id:
        return None
    report = desk_for(bot).cycle()
    log.info(
        "registrations: %d sign-ups, %d replies, %d duels opened, %d settled, %d posts, "
        "%d owls, leaderboard %s",
        report.signups,
        report.replies,
        report.started,
        report.settled,
        report.posts_published,
        report.owls_sent,
        report.leaderboard,
    )
    return report


__all__ = [
    "KIND_LABELS",
    "DeskReport",
    "Profile",
    "ProfileError",
    "RegistrationDesk",
    "after_poll",
    "board_engagements",
    "desk_for",
    "get_profile",
    "profiles_of",
    "set_profile",
]
