"""The 2v2 trail of a spell resolved with no defense (issue 25, second reader W5).

The 2v2 engine resolves each cast through the 1v1 engine (rules.duo.step ``exchange``). A cast at
a duellist who already played this turn goes through the 1v1 no-defense branch, whose trail
said « relance — pas de défense de X à temps » although no deadline passed. RULES.md, 2v2: "A
turn ends when all four have posted", so that duellist has no post left: the spell resolves
undefended, and the trail now says so (``turn.defense = "none"``, rule ``duo.undefended``);
« relance » stays for a real deadline lapse (seed 001: « Si 36h ou 48h [...] le second
duelliste n'a pas posté sa défense, l'arbitre relancera automatiquement le jeu »). A later
post's cast names the turn's real initiative (RULES.md: "the first post is an initiative").
Only trail entries change, never the numbers.
"""

from __future__ import annotations

from typing import Any

from forumbot.web.page_words import PageWords
from rules.duo import new_duo_duel, resolve_duo_silence, resolve_duo_step, start_duo
from tests.unit.test_reader25_duo import A1, A2, B1, B2, CFG, ENV, RS, _draw, post

NAMES = ("Aurora", "Blaise", "Cassius", "Dorian")
SEED_RELAUNCH = "le second duelliste n'a pas posté sa défense, l'arbitre relancera"


def duel() -> Any:
    """Aurora alone in zone 1 with Cassius and Dorian; Blaise apart."""
    duos = [[(A1, "adult", ["brutale"]), (A2, "adult", ["protectrice"])],
            [(B1, "adult", ["discrete"]), (B2, "adult", ["protectrice"])]]  # fmt: skip
    zones = {A1: 0, B1: 0, B2: 0, A2: 1}
    return start_duo(new_duo_duel(RS, duos, ENV, _draw(zones)))  # type: ignore[arg-type]


def played() -> tuple[Any, Any]:
    """Aurora casts at Cassius (the turn's initiative), Cassius dodges, then Dorian casts at
    Aurora, who already played this turn."""
    one = step(duel(), post(A1, 3, "Flipendo", target=B1))
    two = step(one.state, post(B1, 5, None, kind="dodge"))
    return two, step(two.state, post(B2, 7, "Flipendo", target=A1))


def step(state: Any, *posts: Any, trail: bool = True) -> Any:
    dice = {p.post.post_id: (4,) for p in posts}
    return resolve_duo_step(state, list(posts), dice, ruleset=RS, env=ENV, settings=CFG,
                            draw=_draw({}), trail=trail)  # fmt: skip


def french(out: Any) -> list[str]:
    words = PageWords("fr", "Europe/Paris", lambda s, **k: s)
    rows = []
    for t in out.trail:
        e = words.entry(t.to_dict() if hasattr(t, "to_dict") else vars(t), NAMES)
        rows.append(" — ".join((e["quantity"], e["value"], e["rule"], e["detail"])))
    return rows


def test_a_cast_at_who_already_played_is_no_relaunch() -> None:
    one, two = played()
    assert two.state.duel.duellist(A1).points < one.state.duel.duellist(A1).points
    quantities = [t.quantity for t in two.trail]
    assert "turn.relaunch" not in quantities
    none = [t for t in two.trail if t.quantity == "turn.defense" and t.value == "none"]
    assert [t.rule for t in none] == ["duo.undefended"]
    assert "Aurora already played this turn" in none[0].detail
    rows = french(two)
    assert (
        "tour : défense — aucun — sans défense — Aurora a déjà joué ce tour-ci : le sort est "
        "résolu sans défense" in [r.replace("\u00a0", " ") for r in rows]
    )
    assert not any("relance" in r or "à temps" in r for r in rows)


def test_a_later_post_names_the_turns_real_initiative() -> None:
    first = step(duel(), post(A1, 3, "Flipendo", target=B1))
    assert [t.rule for t in first.trail if t.quantity == f"{A1}.action"] == ["fatigue.initiative"]
    _, two = played()
    later = [t for t in two.trail if t.quantity in (f"{B2}.action", "turn.initiative")]
    assert later and {t.rule for t in later} == {"duo.turn_post"}
    assert {t.value for t in later if t.quantity == "turn.initiative"} == {A1}
    rows = [r.replace("\u00a0", " ") for r in french(two)]
    assert (
        f"{B2} : action — lancer un sort — message du tour — message 7, {A1} a "
        "l'initiative (message n° 3)" in rows
    )


def test_a_real_deadline_lapse_keeps_the_relaunch_and_the_numbers_are_unchanged() -> None:
    s = duel()
    one = step(s, post(A1, 3, "Flipendo", target=B1))  # waits on Cassius, who stays silent
    late = resolve_duo_silence(one.state, ruleset=RS, env=ENV, settings=CFG, draw=_draw({}))
    relaunch = [t for t in late.trail if t.quantity == "turn.relaunch"]
    assert relaunch and relaunch[0].rule == "fatigue.relaunch"
    assert SEED_RELAUNCH in relaunch[0].source
    # the trail is a collector: with or without it, the same numbers
    before, two = played()
    quiet = step(before.state, post(B2, 7, "Flipendo", target=A1), trail=False)
    assert quiet.state == two.state and quiet.attacks == two.attacks
