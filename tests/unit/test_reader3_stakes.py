"""Issue 25, third reader: players are told how to propose and how to accept stakes, where
they read it (the players' guide, the sign-up replies), and what they are told is what the desk
does. forumbot.duels.stakes [D]: « Stakes are due only when they were accepted: [...] every
duellist wrote the same stakes in their own sign-up »."""

from __future__ import annotations

import pytest

from forumbot.publish.guide import render_guide
from forumbot.publish.typography import plain
from tests.unit.test_issue25_results import _finish, _sign
from tests.unit.test_registrations import THREAD, make, queue

A, C = "Aurora Vexley", "Cassius Thorne"


@pytest.mark.parametrize("kind", ["classic", "fatigue", "duo"])
def test_the_guide_gives_the_line_that_proposes_and_the_one_that_accepts_stakes(
    kind: str,
) -> None:
    text = plain(render_guide(kind))
    section = text[text.index("[b]Enjeux[/b]"):].split("[/list]")[0]
    assert "ajoute à son inscription une ligne comme « Enjeux : 10 gallions »." in section
    if kind == "duo":
        assert "chacun des quatre duellistes écrit la même ligne dans sa propre inscription" \
            in section  # fmt: skip
        assert "sont dus au duo vainqueur par le duo adverse" in section
    else:
        assert "Son adversaire les accepte en écrivant la même ligne dans sa propre " \
            "inscription (les majuscules et les accents ne comptent pas)." in section  # fmt: skip
        assert "sont dus au vainqueur par son adversaire. Sans vainqueur, personne" in section
    assert "Des enjeux qui n'ont pas été acceptés ne sont pas dus." in section


def _reply_to(forum: object, post_id: int) -> str:
    (reply,) = [
        p.text for p in forum.posts[THREAD]  # type: ignore[attr-defined]
        if p.author == "Hibou" and f"p={post_id}" in p.text
    ]
    return plain(reply)


def test_a_signup_reply_quotes_the_open_request_stakes_and_accepting_them_works() -> None:
    """The reply tells its reader the exact line that accepts the open request's stakes; a
    sign-up with that line (other case) makes the stakes accepted by both, and the result owl
    says who owes whom."""
    forum, desk = make()
    _sign(forum, A, "un hibou blanc")
    desk.cycle()
    bad = forum.add_post(THREAD, C, f"Nom : {C}\nType de magie : sournoise")
    desk.cycle()
    text = _reply_to(forum, bad)
    assert (
        f"La demande d'{A} propose des enjeux. Pour les accepter, écris dans ton inscription "
        "la même ligne qu'elle, « Enjeux : un hibou blanc ». Sans cette ligne, ces enjeux ne "
        "seront pas dus."
    ) in text
    _sign(forum, C, "Un hibou blanc")
    desk.cycle()
    (row,) = queue(desk)
    first = plain(forum.posts[int(str(row["topic_id"]))][0].text)  # type: ignore[attr-defined]
    assert "Enjeux acceptés par les deux duellistes : un hibou blanc" in first


def test_a_signup_reply_keeps_the_player_stakes_line_and_says_what_makes_them_due() -> None:
    forum, desk = make()
    bad = forum.add_post(THREAD, C, f"Nom : {C}\nType de magie : sournoise\nEnjeux : une plume")
    desk.cycle()
    text = _reply_to(forum, bad)
    assert "Enjeux : une plume[/code]" in text
    assert (
        "Ta ligne « Enjeux » propose des enjeux. Ils ne seront dus que si ton adversaire écrit "
        "la même ligne dans sa propre inscription."
    ) in text


def test_a_signup_reply_without_stakes_says_how_to_propose_them() -> None:
    forum, desk = make()
    bad = forum.add_post(THREAD, C, f"Nom : {C}\nType de magie : sournoise")
    desk.cycle()
    assert (
        "Pour proposer des enjeux, ajoute une ligne comme « Enjeux : 10 gallions ». Ils ne "
        "seront dus que si ton adversaire écrit la même ligne dans sa propre inscription."
    ) in _reply_to(forum, bad)


def test_the_result_owl_names_who_owes_whom_only_for_accepted_stakes() -> None:
    """Stakes written differently by the two duellists were never accepted: no « Enjeux à
    honorer » and nobody owes them; the same stakes (case and accents aside) are owed."""
    differing = _finish("un hibou", "deux hiboux")
    for text in differing.values():
        assert "les enjeux du duel :" not in text and "personne ne les doit" in text
    # sixth reader, W1: each one's own words, never the first one's as both's
    assert (
        f"Vos enjeux ne concordaient pas (« deux hiboux » pour toi et « un hibou » pour {A}) : "
        "personne ne les doit." in differing[C]
    ), differing[C]
    assert f"(« un hibou » pour toi et « deux hiboux » pour {C})" in differing[A]
    same = _finish("une plume d'hippogriffe", "Une plume d'HIPPOGRIFFE")
    assert f"{C} te doit les enjeux du duel : une plume d'hippogriffe." in same[A]
    assert f"Tu dois à {A} les enjeux du duel : une plume d'hippogriffe." in same[C]


def test_differing_stakes_are_each_written_in_the_opening_and_the_final_post() -> None:
    """Sixth reader after issue 25, W1: « Enjeux proposés par A et C : un hibou » printed the
    first one's stakes as both's; each writer's own words are given."""
    from forumbot.publish.render import render

    differing = [{"name": A, "stakes": "un hibou"}, {"name": C, "stakes": "deux hiboux"}]
    opening = plain(str(render("_stakes_opening.bbcode.j2", {
        "stakes": "un hibou", "stakes_agreed": False, "stakes_by": [A, C], "stakes_not_by": [],
        "stakes_differing": differing}, "fr")))  # fmt: skip
    assert opening.strip() == (
        f"Les enjeux proposés ne concordent pas (« un hibou » pour {A} et « deux hiboux » pour "
        f"{C}) : aucun enjeu ne sera dû."
    )
    final = plain(str(render("_stakes_public.bbcode.j2", {"owed": {
        "case": "not_accepted", "stakes": "un hibou", "names": [A, C], "refused": [],
        "differing": differing, "winners": [A], "losers": [C]}}, "fr")))  # fmt: skip
    assert final.strip() == (
        f"Les enjeux proposés ne concordaient pas (« un hibou » pour {A} et « deux hiboux » "
        f"pour {C}) : personne ne les doit."
    )
