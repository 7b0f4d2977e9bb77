"""Checks of a referee's hand adoption (``forumbot duels adopt``, issue 22).

- :func:`unknown_names`: each duellist named must be a member of the board (the client's
  member look-up, :mod:`forumbot.forums.members`); an unknown name is refused with a
  did-you-mean among the names the board already showed (the topic's authors, the names its
  title and first post give, the duellists of the bot's other duels; ``rapidfuzz``). A name
  the board did not answer for (the page said neither, or the board failed) is refused too:
  the bot does not adopt on a guess (``--force`` adopts anyway).
- :func:`reopen_cancelled`: a topic whose duel was cancelled before the players saw any
  declaration (an adoption by mistake, its opening dropped) can be adopted again: the
  cancelled duel's row is written again by the new adoption (same id), its never-posted
  declarations set aside under keys of their own so the topic's idempotency keys are free,
  and the audit log (``duel.readopt``) keeps what it was. A cancelled duel that published anything
  is refused: its posts carry the topic's markers (``forumbot·b1t3-turn1``), and a new
  duel's declarations with the same keys would be taken for published.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rapidfuzz import fuzz, process

from forumbot.publish.render import marker_text
from forumbot.storage import Storage
from parsers.duel_setup import find_duellists
from parsers.model import Post
from parsers.registration import fold

SCORE_CUTOFF = 80.0
"""Lowest ``rapidfuzz.fuzz.WRatio`` score (0-100) for a did-you-mean."""


@dataclass(frozen=True)
class UnknownName:
    """A duellist name the board does not confirm: ``answer`` False (no such member) or None
    (the board did not say); ``suggestion``: the closest known name, or None."""

    name: str
    answer: bool | None
    suggestion: str | None

    def describe(self) -> str:
        """One English line for the referee."""
        what = (
            f"no member named {self.name!r} on the board"
            if self.answer is False
            else f"the board did not say whether {self.name!r} is a member"
        )
        return what + (f" (did you mean {self.suggestion!r}?)" if self.suggestion else "")


def known_names(storage: Storage, title: str, posts: Sequence[Post]) -> list[str]:
    """Names the board already showed: the topic's authors, the duellists its title and
    first post name, the duellists of the bot's duels (first seen first, once each)."""
    names: list[str] = [p.author for p in posts if p.author]
    found = find_duellists(title + "\n" + (posts[0].text if posts else ""))
    names += [str(pair[0]) for pair in found or []]
    names += storage.duel_rows.duellist_names()
    return list(dict.fromkeys(n for n in names if n.strip()))


def suggest(name: str, candidates: Iterable[str]) -> str | None:
    """The candidate closest to ``name`` (case and accents ignored), or None below
    :data:`SCORE_CUTOFF` or when it is ``name`` itself."""
    pool = [c for c in candidates if fold(c) != fold(name)]
    if not pool:
        return None
    best = process.extractOne(
        name, pool, scorer=fuzz.WRatio, processor=fold, score_cutoff=SCORE_CUTOFF
    )
    return None if best is None else str(best[0])


def unknown_names(
    client: Any, names: Sequence[str], candidates: Sequence[str]
) -> list[UnknownName]:
    """The ``names`` the board does not confirm as members (module doc); empty when the
    client has no member look-up (nothing to check against)."""
    lookup = getattr(client, "member_exists", None)
    if lookup is None:
        return []
    out = []
    for name in names:
        answer = lookup(name)
        if answer is True:
            continue
        out.append(UnknownName(name, answer, suggest(name, candidates)))
    return out


def reopen_cancelled(storage: Storage, duel: dict[str, Any], actor: str, now: datetime) -> int:
    """Make the cancelled, never-published duel ``duel`` (a row) ready to be adopted again in
    its topic; returns its id, for the new adoption to write its row again (module doc).

    Its declarations stay (cancelled, never posted) under keys of their own (``<key>~<id>``:
    the topic's keys are free for the new duel; a marker never posted is renamed with its
    key), its duellists go (the new adoption names its own). The audit entry
    ``duel.readopt`` keeps the duel row and the duellists as they were.

    Raises:
        ValueError: the duel is not cancelled, or one of its declarations was published.
    """
    duel_id = int(duel["id"])
    if duel["status"] != "cancelled":
        raise ValueError(f"topic {duel['topic_id']} already holds a duel")
    published = storage.duel_rows.published_count(duel_id)
    if published:
        raise ValueError(
            f"topic {duel['topic_id']} held duel {duel_id}, cancelled after {published} "
            "declaration(s) were posted: its posts carry this topic's markers, so a new duel "
            "needs a new topic"
        )
    kept = {
        "duel": dict(duel),
        "duellists": storage.duel_rows.duellists_unordered(duel_id),
    }
    with storage.atomic():
        for decl in storage.duel_rows.declarations_unordered(duel_id):
            if "~" in decl["idempotency_key"]:
                continue  # set aside by an earlier re-adoption
            key = f"{decl['idempotency_key']}~{decl['id']}"
            storage.duel_rows.update_declaration(
                decl["id"], {"idempotency_key": key, "marker": marker_text(key)}
            )
        storage.duel_rows.delete_duellists(duel_id)
        storage.duel_tasks.cancel_pending_silently(duel_id)
        storage.audit(
            actor, "duel.readopt", f"duel:{duel_id}", kept, {"status": "open"}, now
        )  # fmt: skip
    return duel_id


def readopt(
    storage: Storage, known: dict[str, Any] | None, actor: str, now: datetime
) -> tuple[dict[str, Any] | None, int | None]:
    """For :meth:`forumbot.duels.referee.Referee.adopt`: ``(known, None)`` for the topic's
    duel row ``known`` unless it is cancelled; then ``(None, its id)`` once
    :func:`reopen_cancelled` made it ready (a cancelled adoption adopted again, issue 22).

    Raises:
        ValueError: a cancelled duel whose declarations were posted.
    """
    if known is None or known["status"] != "cancelled":
        return known, None
    return None, reopen_cancelled(storage, known, actor, now)


__all__ = [
    "SCORE_CUTOFF",
    "UnknownName",
    "known_names",
    "readopt",
    "reopen_cancelled",
    "suggest",
    "unknown_names",
]
