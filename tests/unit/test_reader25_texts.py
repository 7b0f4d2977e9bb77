"""Issue 25, second French reader pass: the season, classic and sign-up texts (W1, W4, C8–C10,
C13, C14, C48, T4). Each test quotes the rule it checks.
"""

from __future__ import annotations

from pathlib import Path

from forumbot.duels.stakes import StakesTerms, public_stakes
from forumbot.publish.render import render
from forumbot.publish.typography import NBSP, plain
from tests.unit.test_issue25_results import _sign
from tests.unit.test_registrations import THREAD, finish_by_concession, make, queue, signup

A, C = "Aurora Vexley", "Cassius Thorne"
TEMPLATES = Path(__file__).resolve().parents[2] / "forumbot" / "publish" / "templates" / "fr"


def test_stakes_never_accepted_are_said_not_due_in_the_public_posts() -> None:
    """W1: the final declaration said « Enjeux à honorer » for stakes the owls called not due.
    forumbot.duels.stakes [D]: « Stakes are due only when they were accepted: [...] every
    duellist wrote the same stakes in their own sign-up »."""
    forum, desk = make()
    _sign(forum, A, "un hibou")
    _sign(forum, C, None)
    desk.cycle()
    (row,) = queue(desk)
    topic = [plain(p.text) for p in forum.posts[int(str(row["topic_id"]))]]
    # the opening says the stakes will not be due, and why; the topic's first post only
    # records who proposed them (reader2 C7: the stakes sentence and the dice fingerprint in
    # one post, the opening; C8: a colon, not a comma splice)
    assert f"Enjeux proposés par {A} : un hibou" in topic[0]
    assert "ne seront donc pas dus" not in topic[0] and "Empreinte des dés" in topic[0]
    assert "se saluent" not in topic[0]
    (opening,) = [
        plain(str(d["text"]))
        for d in desk.storage.db["declarations"].rows_where("idempotency_key like ?", ["%-opening"])
    ]
    assert (
        f"Enjeux proposés par {A} : un hibou. {C} ne les a pas repris dans son inscription : "
        "ils ne seront donc pas dus."
    ) in opening
    assert "Enjeux annoncés" not in opening
    finish_by_concession(desk, int(str(row["duel_id"])), C)
    terms = public_stakes(StakesTerms("un hibou", False, (A,), (C,)), [A], [C])
    final = plain(render("_stakes_public.bbcode.j2", {"owed": terms}))
    assert final.strip() == (
        f"Les enjeux proposés par {A} (« un hibou ») n'ont pas été acceptés par {C} : "
        "personne ne les doit."
    )


def test_a_signup_reply_names_the_open_request_it_would_meet_and_invents_no_opponent() -> None:
    """W4: RULES.md « a sign-up with no partner is matched with the first person who answers it
    or who also signs up alone »: without « Adversaire », the reply's reader meets the open
    request now. W5: the example never names an opponent the player did not write. C13: the
    reply links the sign-up post. T4: the parser's message is typeset, one colon."""
    forum, desk = make()
    signup(forum, A, "6", "brutale")
    desk.cycle()
    bad = forum.add_post(THREAD, C, f"Nom : {C}\nType de magie : sournoise")
    desk.cycle()
    (reply,) = [p.text for p in forum.posts[THREAD] if p.author == "Hibou" and f"p={bad}" in p.text]
    text = plain(reply)
    assert f"[url=http://board.invalid/viewtopic.php?p={bad}#p{bad}]message n° {bad}[/url]" in text
    assert (
        "ton adversaire sera l'auteur de la première demande ouverte, en ce moment celle "
        f"d'{A}." in text
    )
    assert "Adversaire :" not in text.split("[/code]")[0]  # no sample opponent in the example
    assert "Blaise Corvin" not in text
    assert f"Inscription incomplète{NBSP}: il manque ton année d'études" in reply


def test_bets_and_openings_say_who_answers_and_what_a_bet_decides() -> None:
    """C9: « Il » after « L'adversaire visé » read as the initiator; C10: the initiative's bet
    sentence (seed 001 / RULES.md: a dodge « Succeeds when its own bet is won and the cast's bet
    is lost [D] »); C8: the 2v2 opening said twice where the bet goes."""
    bets = (TEMPLATES / "_bets.bbcode.j2").read_text(encoding="utf-8")
    assert "Le duelliste visé répond : il peut lancer un sort" in bets
    assert "L'adversaire visé répond par sa défense. Il" not in bets
    duo = (TEMPLATES / "duo_opening.bbcode.j2").read_text(encoding="utf-8")
    assert "tout en bas" not in duo  # the order, said once (second reader after issue 25, W3)
    # reader2 C12: the order of the guide's example post (story, spell, Action, Pari)
    assert "lignes de récit ; viennent ensuite le sort en gras, puis les lignes « Action » et " \
        "« Pari »." in bets  # fmt: skip
    assert "Sous la ligne du pari, indiquez votre cible" in duo
    turn = (TEMPLATES / "fatigue_turn.bbcode.j2").read_text(encoding="utf-8")
    assert (
        "Ce pari ne comptera que si l'adversaire esquive : c'est lui, avec celui de l'esquive, "
        "qui décidera si elle réussit."
    ) in turn
    assert "il décide alors si l'esquive réussit" not in turn


def test_the_classic_declaration_names_the_effect_that_bars_an_attack() -> None:
    """C14: RULES.md classic « Sortilège de Confusion, Sortilège de chant: target cannot attack
    next turn »; the barred attacker's declaration names the spell, its caster and its turn."""
    duellists = [{"name": n, "points": 20, "disqualified": False} for n in (A, C)]
    text = plain(render("turn.bbcode.j2", {
        "turn": 14, "unit": "PD", "posts": [], "dice": {}, "stakes": None, "extra_posts": [],
        "referee_name": "L'arbitre", "tie_rule": "lands",
        "outcome": {"attacks": [{"attacker": A, "defender": C, "void_reason": "barred",
                                 "spell": "Sortilège de Désarmement"}],
                    "effects_next": {}, "violations": [], "finished": False,
                    "state": {"duellists": duellists}},
        "barred_by": {A: {"type": "no_attack", "source": "Sortilège de chant", "caster": C}},
    }))  # fmt: skip
    assert (
        f"- {A} ne peut pas attaquer ce tour-ci (Sortilège de chant de {C}, lancé au tour 13), "
        "et son Sortilège de Désarmement est donc sans effet."
    ) in text


def test_the_erratum_links_the_post_and_missing_dice_say_what_to_do() -> None:
    """C48: the erratum's « (message #123) » is a link; the missing-dice post tells the duellist
    to post a new message from the full editor (fixtures/forumactif/REPORT.md §5: the forum rolls
    no dice on an edited message), not to edit the old one."""
    link = "http://b.example/viewtopic.php?p={id}#p{id}"
    erratum = render("erratum.bbcode.j2", {
        "turn": 2, "post_id": 123, "changes": [], "points": [], "unit": "PV", "note": "Coquille.",
        "referee_name": "L'arbitre", "post_link": link,
    })  # fmt: skip
    assert "#123)" not in erratum
    assert "([url=http://b.example/viewtopic.php?p=123#p123]message n°" in erratum
    missing = plain(render("missing_dice.bbcode.j2", {
        "turn": 3, "missing": [{"duellist": A, "post_id": 40}], "dice_name": "Duel",
        "dice_per_post": 2, "referee_name": "L'arbitre",
    }))  # fmt: skip
    assert (
        f"Pour compléter ce tour, {A} doit poster un nouveau message depuis l'éditeur complet "
        "(pas la réponse rapide), avec le bouton « Lancer des dés »"
    ) in missing
    assert "Il ne sert à rien de modifier l'ancien message" in missing
    assert "indiquera dans sa prochaine intervention" not in missing


def test_the_lint_finds_bare_post_numbers_and_ne_peut_plus() -> None:
    """The patterns of C48 (« message #123 ») and C18 (« ne peut plus attaquer ») are checked
    on every render of the suite (tests/conftest.py runs lint_problems)."""
    from forumbot.publish.checks import lint_problems, wording_problems

    assert wording_problems("L'arbitre corrige la déclaration (message #123).")
    assert wording_problems("Effets : la cible ne peut plus attaquer au tour suivant.")
    assert wording_problems("la cible ne peut pas attaquer au tour suivant (message n° 3).") == []
    assert any("bare number" in p for p in lint_problems("(message #12)"))
