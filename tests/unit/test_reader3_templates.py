"""Issue 25, third reader: template branches no demo triggers, rendered with a test context
(the suite's conftest lints every render: typography, one colon a sentence, internal names,
dated deadlines) and read. Each test quotes what it fixed."""

from __future__ import annotations

from typing import Any

from forumbot.publish.render import render
from forumbot.publish.typography import plain

A, B, C = "Aurora Vexley", "Blaise Corvin", "Cassius Thorne"
LINK = "http://board.invalid/viewtopic.php?p={id}#p{id}"


def _text(template: str, **context: Any) -> str:
    return plain(render(template, context))


def test_stakes_never_due_are_said_so_in_a_sentence_not_a_label() -> None:
    """« Enjeux : non dus (un hibou) » was a label; « Les enjeux convenus » claimed stakes
    proposed and never accepted had been agreed."""
    duellists = [{"name": A, "points": 30}, {"name": C, "points": 12}]
    texts = [
        _text("concession.bbcode.j2", title="Duel", conceded_by=C, winners=[], stakes="un hibou",
              teammate=None,
              unit="PV", duellists=duellists, dice_secret=None, referee_name="L'arbitre"),
        _text("fatigue_closure.bbcode.j2", outcome={"state": {"duellists": duellists}},
              stakes="un hibou", unit="PV", dice_secret=None, referee_name="L'arbitre"),
        _text("duel_cancelled.bbcode.j2", title="Duel", reason="doublon", stakes="un hibou",
              dice_secret=None, referee_name="L'arbitre"),
    ]  # fmt: skip
    for text in texts:
        assert "Les enjeux (« un hibou ») ne sont pas dus." in text, text
        assert "non dus" not in text and "convenus" not in text


def test_a_duo_opening_says_stakes_not_written_by_all_four_are_not_due() -> None:
    """The 2v2 opening printed « Enjeux : une mandragore » even when only one duo's sign-up
    wrote them (the 1v1 openings said they would not be due). forumbot.duels.stakes [D]."""
    from tests.unit.test_duo_registrations import make as make_duo
    from tests.unit.test_duo_registrations import matches
    from tests.unit.test_duo_registrations import signup as duo_signup

    forum, desk = make_duo("serre")
    duo_signup(forum, A, B, "\nEnjeux : une mandragore")
    duo_signup(forum, C, "Dorian Pike")
    desk.cycle()
    (m,) = matches(desk)
    (opening,) = desk.storage.declarations(("draft", "approved"), int(str(m["duel_id"])))
    text = plain(str(opening["text"]))
    assert (
        f"Enjeux proposés par {A} : une mandragore. {B}, {C} et Dorian Pike ne les ont pas "
        "repris dans leur inscription : ils ne seront donc pas dus."
    ) in text, text
    assert "Enjeux : une mandragore" not in text


def test_a_withdrawal_answers_each_player_in_a_paragraph_and_in_1v1_words() -> None:
    """1v1 has no « partenaire » (« Adversaire » in one against one); the 2v2 teammate's line
    was glued to the withdrawal's."""
    pairing = _text("signup_withdrawal.bbcode.j2", case="pairing", author=A, post_id=12,
                    post_link=LINK, partner=C, reopened=False)  # fmt: skip
    assert "avec ou sans adversaire choisi" in pairing and "partenaire" not in pairing
    reopened = _text("signup_withdrawal.bbcode.j2", case="pairing", author=A, post_id=12,
                     post_link=LINK, partner=C, reopened=True)  # fmt: skip
    assert (
        f"[b]{C}[/b], ta demande est de nouveau ouverte dans ce sujet : ton adversaire sera le "
        "premier qui y répond ou qui s'inscrit seul."
    ) in reopened
    duo = _text("signup_withdrawal.bbcode.j2", case="duo", author=A, post_id=12,
                post_link=LINK, mate=B)  # fmt: skip
    assert "est retirée de ce sujet.\n\n[b]Blaise Corvin[/b], ton duo" in duo


def test_a_cancelled_pairing_says_what_the_player_does_now() -> None:
    """« Ta demande n'est plus en attente » (issue 25, sign-up replies)."""
    text = _text("signup_cancelled.bbcode.j2", in_topic=False, kind_label="un contre un",
                 author=A, post_id=12, post_link=LINK,
                 reason="le personnage Aurora n'a pas de fiche au club.")  # fmt: skip
    assert "n'est plus en attente" not in text
    assert "Ton inscription ne compte donc plus : pour jouer, réinscris-toi ici" in text


def test_a_relaunch_gives_the_date_before_the_turn_it_opens() -> None:
    """« prend l'initiative du tour 4, à poster avant le … » read as if the turn were to be
    posted by then; the date is the spell's."""
    text = _text("fatigue_relaunch.bbcode.j2", last=False, hours=36, duellists=[A, C], turn=4,
                 points={A: 30, C: 12}, unit="PV", referee_name="L'arbitre",
                 planned_at="2026-12-02T12:00:00+00:00", timezone="Europe/Paris")  # fmt: skip
    assert (
        f"{A} et {C}, le premier de vous deux qui poste un sort avant le vendredi 4 décembre à "
        "1 h prend l'initiative du tour 4."
    ) in text


def test_the_sign_up_refusals_render_and_read_as_sentences() -> None:
    """Every sign-up refusal and reply branch no demo plays, rendered once (linted)."""
    base = {"author": A, "post_id": 12, "post_link": LINK}
    renders = [
        ("signup_withdrawn.bbcode.j2", {"kind_label": "deux contre deux", "is_author": False,
                                        "player": B, "duo": True}),
        ("signup_withdrawn.bbcode.j2", {"kind_label": "un contre un", "is_author": True,
                                        "player": A, "duo": False}),
        ("signup_busy_other_kind.bbcode.j2", {"is_author": False, "player": B,
                                              "kind_label": "deux contre deux",
                                              "running": False}),
        ("signup_partner_busy.bbcode.j2", {"code": "teammate_signed_up", "other": B,
                                           "kind_label": "deux contre deux", "stage": "queued"}),
        ("signup_partner_busy.bbcode.j2", {"code": "partner_in_duel", "other": C,
                                           "kind_label": "un contre un", "stage": "running"}),
        ("signup_unknown_partner.bbcode.j2", {"partner": "Blase", "kind": "2v2"}),
        ("signup_referee.bbcode.j2", {"reasons": ["deux noms de personnage"], "kind": "2v2",
                                      "own": {"name": A}}),
        ("signup_withdrawal.bbcode.j2", {"case": "running", "partner": C}),
        ("signup_withdrawal.bbcode.j2", {"case": "match"}),
        ("signup_withdrawal.bbcode.j2", {"case": "nothing"}),
    ]  # fmt: skip
    for template, context in renders:
        text = _text(template, **base, **context)
        assert text.startswith(f"[b]{A}[/b], "), (template, text)
        assert "_" not in text.replace(LINK.split("?")[0], ""), (template, text)
