"""What the pages show, gathered from storage into plain dicts for the templates.

Nothing here writes. Shapes:

- :func:`draft_view`: one pending declaration with its duel, the posts it answers, the dice,
  the rule trail, one override field per computed number, its violations and its countdown.
- :func:`duel_view`: a duel's turns, points series, dice audit and audit log.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.i18n import N_, translate
from forumbot.publish.render import of_name
from forumbot.storage import Storage
from forumbot.web.draft_state import shown_version
from forumbot.web.history import declared_series, declared_turns, turn_read, with_blockers
from forumbot.web.users import duel_referees
from rules.dice import derive_roll, verify_seed

PENDING = ("draft", "approved", "held", "publishing", "queued", "redraft")
# Statuses by their names on the page: English messages of the catalogue (forumbot.i18n),
# shown through the page's ``_``; the ``*_FR`` tables are their French (audit lines, notices).
DRAFT_STATUS = {
    "draft": N_("draft"),
    "approved": N_("approved"),
    "held": N_("held"),
    "publishing": N_("publishing"),
    "published": N_("published"),
    "queued": N_("awaiting a moderator"),
    "cancelled": N_("dropped"),
    "redraft": N_("to be drafted again"),
}
VIOLATION_STATUS = {
    "proposed": N_("proposed"),
    "applied": N_("applied"),
    "waived": N_("waived"),
    "confirmed": N_("confirmed"),
    "dismissed": N_("dismissed"),
}
DUEL_STATUS = {
    "open": N_("open"),
    "running": N_("running"),
    "finished": N_("finished"),
    "ignored": N_("ignored"),
}
DRAFT_STATUS_FR = {k: translate("fr", v) for k, v in DRAFT_STATUS.items()}
VIOLATION_STATUS_FR = {k: translate("fr", v) for k, v in VIOLATION_STATUS.items()}
DUEL_STATUS_FR = {k: translate("fr", v) for k, v in DUEL_STATUS.items()}


@dataclass(frozen=True)
class NumberField:
    """One computed number a referee may override (an engine override key).

    Attributes:
        key: override key, e.g. ``"Cassius Thorne.points"`` or ``"Aurora Vexley.landed"``.
        label: French label template and its argument (translated by the page).
        name: the duellist the number belongs to.
        value: the current value (int or bool).
        kind: ``"int"`` or ``"bool"``.
        overridden: True when the referee already set this key.
        trail: the trail entries that decided it.
    """

    key: str
    label: str
    name: str
    value: int | bool
    kind: str
    overridden: bool
    trail: tuple[dict[str, Any], ...]


def _loads(raw: str | None, default: Any) -> Any:
    if not raw:
        return default
    try:
        return json.loads(raw)
    except ValueError:
        return default


# Override field -> the trail quantities (after "<name>.") that decide it (rules/classic.py).
FIELD_TRAIL: dict[str, tuple[str, ...]] = {
    "attack_die": ("attack.die", "attack_die"),
    "defense_die": ("defense.die", "defense_die"),
    "landed": ("attack.landed", "landed"),
    "damage": ("attack.damage", "attack.extra_damage", "damage"),
    "points": ("points",),
    "disqualified": ("disqualified",),
}
FIELD_LABEL = {
    "points": N_("%s's points"),
    "disqualified": N_("%s disqualified"),
    "attack_die": N_("%s's attack die"),
    "defense_die": N_("%s's defense die"),
    "landed": N_("%s's attack lands"),
    "damage": N_("%s's damage"),
}


# The fatigue engines' override fields (1v1 rules/fatigue/engine.py, 2v2 rules/duo/engine.py)
# -> the trail quantities (after "<name>.") that decide them.
FATIGUE_FIELD_TRAIL: dict[str, tuple[str, ...]] = {
    "die": ("die",),
    "bet_won": ("bet_won",),
    "dodged": ("dodged",),
    "landed": ("landed", "riposte.landed"),
    "damage": ("damage",),
    "points": ("points",),
}
FIELD_LABEL.update(
    {
        "die": N_("%s's die"),
        "bet_won": N_("%s's bet won"),
        "dodged": N_("%s dodges"),
        "creature_points": N_("%s's PV"),
    }
)


def _trail_for(
    trail: list[dict[str, Any]],
    name: str,
    field: str,
    table: dict[str, tuple[str, ...]] | None = None,
) -> tuple[dict[str, Any], ...]:
    """Trail entries that decided ``name``'s override ``field`` (see :data:`FIELD_TRAIL`, or
    ``table``)."""
    wanted = {f"{name}.{q}" for q in (table or FIELD_TRAIL)[field]}
    return tuple(t for t in trail if t.get("quantity") in wanted)


def number_fields(outcome: dict[str, Any], overrides: dict[str, Any]) -> list[NumberField]:
    """The override fields of a turn outcome, keyed as ``rules.resolve_turn(overrides=...)``
    takes them (``"<duellist>.<field>"``, rules/classic.py): per attack its dice, landed flag
    and damage; per duellist the points after the turn and the disqualification."""
    trail = list(outcome.get("trail") or [])
    fields: list[NumberField] = []

    def add(name: str, field: str, value: int | bool) -> None:
        key = f"{name}.{field}"
        kind = "bool" if isinstance(value, bool) else "int"
        fields.append(
            NumberField(
                key,
                FIELD_LABEL[field],
                name,
                value,
                kind,
                key in overrides,
                _trail_for(trail, name, field),
            )
        )

    attacks = list(outcome.get("attacks") or [])
    defense = {a["defender"]: int(a["defense_die"]) for a in attacks}
    for a in attacks:
        name = a["attacker"]
        add(name, "attack_die", int(a["attack_die"]))
        if name in defense:
            add(name, "defense_die", defense[name])
        add(name, "landed", bool(a["landed"]))
        add(name, "damage", int(a["damage"]))
    for d in (outcome.get("state") or {}).get("duellists", []):
        add(d["name"], "points", int(d["points"]))
        add(d["name"], "disqualified", bool(d.get("disqualified", False)))
    return fields


def fatigue_number_fields(stored: dict[str, Any], overrides: dict[str, Any]) -> list[NumberField]:
    """The override fields of a fatigue step draft (1v1 or 2v2), keyed as
    ``rules.fatigue.resolve_fatigue_step`` / ``rules.duo.resolve_duo_step`` take them
    (``"<duellist>.<field>"``): the die of each post answered, each bet won, dodge, landed
    flag and damage the step computed (read from its trail), each duellist's PV after the
    step, and on a 2v2 draft each creature's PV left (``"<creature name>.points"``).
    A closure (no winner) draft has none."""
    inputs = stored.get("inputs") or {}
    if inputs.get("step") == "closure":
        return []
    outcome = stored.get("outcome") or {}
    trail = list(outcome.get("trail") or [])
    duellists = [d["name"] for d in (outcome.get("state") or {}).get("duellists", [])]
    values: dict[tuple[str, str], int | bool] = {}
    used_dice = {**(inputs.get("dice") or {}), **(outcome.get("dice") or {})}
    for p in inputs.get("posts", []):
        rolled = used_dice.get(str(p["post_id"])) or []
        if p.get("duellist") in duellists and rolled:
            values[(p["duellist"], "die")] = int(rolled[0])
    by_quantity = {
        f"{name}.{q}": (name, field)
        for name in duellists
        for field, quantities in FATIGUE_FIELD_TRAIL.items()
        if field != "points"
        for q in quantities
    }
    for t in trail:
        found = by_quantity.get(str(t.get("quantity")))
        if found is not None and isinstance(t.get("value"), (bool, int)):
            values[found] = t["value"]
    for d in (outcome.get("state") or {}).get("duellists", []):
        values[(d["name"], "points")] = int(d["points"])
    duo = inputs.get("step") == "duo"
    fields: list[NumberField] = []
    for (name, field), value in values.items():
        key = f"{name}.{field}"
        why = _trail_for(trail, name, field, FATIGUE_FIELD_TRAIL)
        if duo and field == "points":
            why = duo_points_trail(why, outcome.get("attacks") or [], name)
        fields.append(
            NumberField(
                key,
                FIELD_LABEL[field],
                name,
                value,
                "bool" if isinstance(value, bool) else "int",
                key in overrides,
                why,
            )
        )
    if inputs.get("step") == "duo":
        for c in (stored.get("context") or {}).get("creatures", []):
            key = f"{c['name']}.points"
            fields.append(
                NumberField(
                    key,
                    FIELD_LABEL["creature_points"],
                    of_name(c["name"]),
                    int(c["pv"]),
                    "int",
                    key in overrides,
                    tuple(t for t in trail if t.get("quantity") == key),
                )
            )
    return fields


def duo_points_trail(
    entries: tuple[dict[str, Any], ...], attacks: list[dict[str, Any]], name: str
) -> tuple[dict[str, Any], ...]:
    """The one line that computes a 2v2 duellist's PV (C23): the engine's last ``points``
    entry (a 2v2 has no first declaration: the fatigue engine's ``first_declaration`` entry
    is dropped), with ``spells_by``, the ``(spell, caster)`` pairs of the attacks that hit
    ``name`` for damage, so the page writes « 87 − 9 (Densaugeo de Blaise Corvin) = 78 PV ».
    ``entries`` is the field's trail in the engine's order; returns at most one entry."""
    if not entries:
        return entries
    last = dict(entries[-1])
    hits = [
        (str(a.get("spell") or ""), str(a.get("attacker") or ""))
        for a in attacks
        if a.get("defender") == name and a.get("landed") and int(a.get("damage") or 0)
    ]
    if hits:
        last["spells_by"] = hits
    return (last,)


def draft_number_fields(
    decl: dict[str, Any], stored: dict[str, Any], overrides: dict[str, Any]
) -> list[NumberField]:
    """The override fields a draft page shows and ``POST /drafts/{id}/numbers`` accepts: none
    for an opening; :func:`fatigue_number_fields` for a fatigue step (1v1 or 2v2);
    :func:`number_fields` for a classic turn."""
    if decl["kind"] != "turn":
        return []
    if (stored.get("inputs") or {}).get("engine") == "fatigue":
        return fatigue_number_fields(stored, overrides)
    return number_fields(stored.get("outcome") or {}, overrides)


def countdown(decl: dict[str, Any], now: datetime) -> tuple[str, int | None]:
    """(state, seconds left): state is ``held``, ``approved``, ``publishing``, ``published``,
    ``claimed`` (a referee took it), ``manual``, ``due`` or ``waiting`` (then seconds left
    before auto-publish)."""
    status = decl["status"]
    if status in ("held", "approved", "publishing", "published", "queued"):
        return status, None
    if decl.get("claimed_by") and (decl.get("claim_until") or "") > now.isoformat():
        return "claimed", None  # taken by a referee (issue 18): no auto-publish meanwhile
    if not decl["publish_after"]:
        return "manual", None
    left = int((datetime.fromisoformat(decl["publish_after"]) - now).total_seconds())
    return ("due", 0) if left <= 0 else ("waiting", left)


def duration_text(seconds: int) -> str:
    """``"1 h 02 min"``, ``"7 min 05 s"`` or ``"42 s"``."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


_COUNTED = re.compile(r"^(\d+) displayed lines \(at \d+ characters\), (\d+) needed$")


def counted_lines(trail: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Duellist -> (lines the length rule counted, lines it needs), from the trail's
    ``<duellist>.lines`` entries (« 11 displayed lines (at 100 characters), 10 needed »), so
    the post's header gives one count with its part that counts: « 13 lignes, dont 11
    comptées (10 requises) » (C21). Duellists with no such entry are left out."""
    out: dict[str, tuple[int, int]] = {}
    for t in trail:
        quantity = str(t.get("quantity") or "")
        m = _COUNTED.match(str(t.get("detail") or ""))
        if quantity.endswith(".lines") and m:
            out[quantity[: -len(".lines")]] = (int(m[1]), int(m[2]))
    return out


def post_view(storage: Storage, board_id: int, post_id: int) -> dict[str, Any]:
    """A stored post (author, date, text, line count), or a stub saying it is not stored."""
    row = storage.seen_post(board_id, post_id)
    if row is None:
        return {"post_id": post_id, "stored": False}
    text = row["text"] or ""
    return {
        "post_id": post_id,
        "stored": True,
        "author": row["author"],
        "posted_at": row["posted_at"],
        "text": text,
        "lines": len([line for line in text.splitlines() if line.strip()]),
        "edited_count": row["edited_count"],
        "bold": _loads(row["bold_json"], []),
    }


def draft_view(storage: Storage, decl: dict[str, Any], now: datetime) -> dict[str, Any]:
    """Everything the queue and the draft page show about one declaration."""
    duel = storage.duel(decl["duel_id"])
    stored = _loads(decl["context_json"], {})
    inputs = stored.get("inputs") or {}
    outcome = stored.get("outcome") or {}
    overrides = _loads(decl["overrides_json"], {})
    counted = counted_lines(outcome.get("trail") or [])
    posts = [
        {**post_view(storage, duel["board_id"], int(p["post_id"])), "turn_post": p,
         "counted": counted.get(str(p.get("duellist") or ""))}
        for p in inputs.get("posts", [])
    ]  # fmt: skip
    dice = storage.web_rows.dice_rolls(decl["duel_id"], decl["turn"])
    for roll in dice:
        roll["values"] = _loads(roll["values_json"], [])
    state, left = countdown(decl, now)
    return {
        "row": decl,
        "duel": duel,
        "version": shown_version(storage, int(decl["id"])),  # as the CLI says it (C3)
        "editable": decl["status"] in ("draft", "approved", "held"),
        # an approved draft goes out at the next pass: nothing to take (newcomer5 C3)
        "takeable": decl["status"] in ("draft", "held"),
        "countdown": state,
        "seconds_left": left,
        "left_text": duration_text(left) if left else "",
        "posts": posts,
        "extra_posts": inputs.get("extra_posts", []),
        "dice": dice,
        "trail": outcome.get("trail") or [],
        "attacks": with_blockers(outcome.get("attacks") or [], outcome.get("trail") or []),
        "fields": draft_number_fields(decl, stored, overrides),
        "overrides": overrides,
        "violations": outcome.get("violations") or [],
        "names": tuple(d["name"] for d in (outcome.get("state") or {}).get("duellists", [])),
        "unit": (stored.get("context") or {}).get("unit", ""),
        "engine": inputs.get("engine") or "classic",
        "winner": outcome.get("winner"),
        "draw": outcome.get("draw", False),
        "claim": claim_view(decl, now),
    }


def claim_view(decl: dict[str, Any], now: datetime) -> dict[str, Any] | None:
    """Who took the draft (issue 18): ``{"by", "at", "until"}`` (ISO strings), or None when
    nobody holds it now."""
    by = decl.get("claimed_by")
    until = decl.get("claim_until") or ""
    if not by or until <= now.isoformat():
        return None
    return {"by": by, "at": decl.get("claimed_at") or "", "until": until}


def verify_roll(duel: dict[str, Any], roll: dict[str, Any]) -> bool | None:
    """Recompute a bot roll from the revealed secret: True/False, or None when it cannot be
    checked yet (secret not revealed: duel not finished, or a roll read from the forum)."""
    if duel["status"] != "finished" or not duel["dice_secret"] or roll["source"] != "bot":
        return None
    prefix = "hmac-sha256 v1 "
    derivation = roll["derivation"] or ""
    if not derivation.startswith(prefix):
        return None
    parts = derivation[len(prefix) :].split("|")
    if len(parts) != 4:
        return None
    duel_key, turn, post_id, name = parts
    secret = bytes.fromhex(duel["dice_secret"])
    if duel["dice_commitment"] and not verify_seed(secret, duel["dice_commitment"]):
        return False
    values = tuple(_loads(roll["values_json"], []))
    return derive_roll(secret, duel_key, int(turn), int(post_id), name, len(values)) == values


def points_series(storage: Storage, duel: dict[str, Any]) -> dict[str, list[int]]:
    """Duellist -> points at the start and after each recorded turn."""
    turns = storage.web_rows.turns(duel["id"])
    series: dict[str, list[int]] = {}
    if turns:
        start = _loads(turns[0]["state_before_json"], {})
        states = [start] + [(_loads(t["outcome_json"], {}).get("state") or {}) for t in turns]
    else:
        states = [_loads(duel["state_json"], {})]
    for state in states:
        for d in state.get("duellists", []):
            series.setdefault(d["name"], []).append(int(d["points"]))
    return series


def duel_view(storage: Storage, duel_id: int) -> dict[str, Any]:
    """A duel's page: duellists, referees, turns, points series, dice audit, audit log."""
    duel = storage.duel(duel_id)
    state = _loads(duel["state_json"], {})
    turns = []
    for t in storage.web_rows.turns(duel_id):
        outcome = _loads(t["outcome_json"], {})
        turns.append(
            {
                "number": t["number"],
                "posts": _loads(t["posts_json"], []),
                "dice": _loads(t["dice_json"], {}),
                "attacks": outcome.get("attacks") or [],
                "points": [
                    (d["name"], d["points"])
                    for d in (outcome.get("state") or {}).get("duellists", [])
                ],
                "violations": outcome.get("violations") or [],
                "created_at": t["created_at"],
            }
        )
    rolls = []
    for roll in storage.web_rows.dice_rolls(duel_id):
        rolls.append(
            {**roll, "values": _loads(roll["values_json"], []), "verified": verify_roll(duel, roll)}
        )
    decls = storage.declarations(None, duel_id)
    targets = {f"duel:{duel_id}"} | {f"declaration:{d['id']}" for d in decls}
    violation_ids = storage.web_rows.violation_ids(duel_id)
    targets |= {f"violation:{v}" for v in violation_ids}
    audit = [e for e in storage.audit_entries() if e["target"] in targets]
    # a fatigue-engine duel (1v1, 2v2) is read from its published declarations (W17)
    declared = declared_turns(storage, duel_id)
    return {
        "duel": duel,
        "status_name": DUEL_STATUS.get(duel["status"], duel["status"]),
        "state": state,
        "duellists": storage.duellists(duel_id),
        "referees": duel_referees(storage, duel_id),
        "turns": turns if declared is None else declared,
        "series": declared_series(storage, duel_id) or points_series(storage, duel),
        "turn_read": turn_read(storage, duel),
        "rolls": rolls,
        "audit": audit,
        "pending": [d for d in decls if d["status"] in PENDING],
    }
