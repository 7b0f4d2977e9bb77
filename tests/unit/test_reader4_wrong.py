"""Issue 25, fourth reader's « wrong or misleading » items (W1–W4, W6): each test renders the
branch the reader quoted, from a real engine outcome where one exists, and checks the French
the players or the referee read (the suite's conftest lints every render)."""

from __future__ import annotations

import random
from typing import Any

from forumbot.duels.classic import defensive_spells
from forumbot.duels.deadlines import sweep
from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.publish.render import render
from forumbot.publish.typography import plain
from forumbot.storage import Storage, open_storage
from parsers.model import DiceRoll
from tests.fakes.clock import Clock
from tests.fakes.forum import FakeForum
from tests.unit.test_fatigue_flow import BODY
from tests.unit.test_rules_classic import ANTISORT, BOUCLIER, DESARMEMENT, GLACE, RS, duel, play

A, C = "Aurora Vexley", "Cassius Thorne"


def _fatigue_duel(
    platform: str, types_a: list[str], types_c: list[str]
) -> tuple[FakeForum, Referee, Storage, Clock]:
    """A fatigue 1v1 adopted in topic 7 (Aurora 5th year, Cassius 7th), its opening published;
    review delay 0."""
    forum = FakeForum()
    forum.add_topic(7, "Duel : Aurora contre Cassius", "Arbitre", "Le duel va commencer.")
    clock = Clock()
    storage = open_storage(":memory:")
    ref = Referee(storage, forum, board_url="http://b.invalid", platform=platform,
                  review_delay_s=0, now=clock, rng=random.Random(1))  # fmt: skip
    ref.adopt(3, 7, "Duel : Aurora contre Cassius", [(A, "5", types_a), (C, "7", types_c)],
              ruleset="fatigue", dice_secret=bytes(range(32)))  # fmt: skip
    ref.poll_forum(3)
    assert publish_due(storage, forum, clock)
    return forum, ref, storage, clock


def _cycle(forum: FakeForum, ref: Referee, storage: Storage, clock: Clock) -> str:
    """One poll and publication; the text of the bot's newest post in topic 7."""
    ref.poll_forum(3)
    assert publish_due(storage, forum, clock)
    return plain([p.text for p in forum.posts[7] if p.author == "Hibou"][-1])


def _cast(spell: str) -> str:
    return f"{BODY}\n[b]{spell}[/b]\nAction : lancer un sort\nPari : [1,2,3,4]"


def _classic(outcome: Any, turn: int) -> str:
    data = outcome.to_dict()
    return plain(render("turn.bbcode.j2", {
        "turn": turn, "unit": "PD", "posts": [], "dice": {}, "stakes": None, "extra_posts": [],
        "referee_name": "L'arbitre", "tie_rule": "lands", "outcome": data,
        "defensive": defensive_spells(RS),
    }))  # fmt: skip


def test_w3_a_repeated_bouclier_is_said_void_and_its_caster_not_to_attack() -> None:
    """W3: « Cassius Thorne (Charme du Bouclier) attaque avec le même sort qu'au tour précédent »
    said the opposite of RULES.md classic, Fine points: « A void Charme du Bouclier or Antisort
    Général gives no bonus and cancels nothing, and its caster still does not attack that
    turn »."""
    first = play(duel(), DESARMEMENT, (1, 6), BOUCLIER, (1, 6))
    second = play(first.state, GLACE, (5, 6), BOUCLIER, (6, 3))
    text = _classic(second, 2)
    assert (
        f"- {C} relance le Charme du Bouclier, comme au tour précédent. Ce second Charme du "
        f"Bouclier est sans effet (pas de +3 en défense), et {C} n'attaque pas ce tour-ci."
    ) in text, text
    assert "attaque avec le même sort" not in text
    # an Antisort cast again, and a Bouclier cancelled by the opponent's Antisort
    first = play(duel(), ANTISORT, (1, 6), DESARMEMENT, (1, 6))
    again = _classic(play(first.state, ANTISORT, (1, 6), GLACE, (1, 6)), 2)
    assert (
        f"- {A} relance l'Antisort Général, comme au tour précédent. Ce second Antisort Général "
        f"n'annule rien, et {A} n'attaque pas ce tour-ci."
    ) in again, again
    cancelled = _classic(play(duel(), ANTISORT, (1, 6), BOUCLIER, (1, 6)), 1)
    assert (
        f"- {C} lance le Charme du Bouclier, mais l'Antisort Général adverse l'annule. Ce Charme "
        f"du Bouclier est sans effet (pas de +3 en défense), et {C} n'attaque pas ce tour-ci."
    ) in cancelled, cancelled


def test_w6_the_forumactif_missing_dice_post_gives_the_deadline_and_says_it_stopped() -> None:
    """W6: the fatigue « dés manquants » post gave no deadline. The post that lacks its dice
    answers the declaration's deadline (the sweep supersedes it: forumbot.duels.deadlines), so
    the post gives the date the delay ran to and says it no longer runs; a 2v2 turn still
    waiting for another post says the clock still runs, until when."""
    forum, ref, storage, clock = _fatigue_duel("forumactif", ["brutale"], ["sournoise"])
    forum.add_post(7, A, _cast("Flipendo"), dice=(DiceRoll("Pari", (2,)),))
    ref.poll_forum(3)
    assert len(publish_due(storage, forum, clock)) == 1  # the first declaration starts 36 h
    (deadline,) = storage.duel_tasks.pending_of(storage.duels()[0]["id"])
    late = forum.add_post(7, C, _cast("Flipendo"))
    for _ in range(2):  # the draft, then the same draft once the sweep stopped the clock
        ref.poll_forum(3)
        sweep(ref, 3)
        (held,) = storage.declarations(("held",))
        text = plain(str(held["text"]))
        assert f"- {C}, [url=" in text and f"message n° {late}[/url]" in text, text
        assert (
            "Ce message est arrivé avant la fin du délai de 36 h (le mercredi 2 décembre à 1 h). "
            "Ce délai ne court donc plus et le duel ne sera pas relancé : l'arbitre attend "
            "le nouveau message, sans date limite."
        ) in text, text
    assert storage.duel_tasks.deadline(deadline["id"])["status"] == "superseded"
    running = plain(render("missing_dice.bbcode.j2", {
        "turn": 3, "missing": [{"duellist": A, "post_id": 40}], "dice_name": "Pari",
        "dice_per_post": 1, "referee_name": "L'arbitre",
        "clock": {"hours": 48, "due": "jeudi 3 décembre à 20 h 54", "running": True},
    }))  # fmt: skip
    assert (
        "Le délai de 48 h court toujours : ce nouveau message est à poster avant le jeudi 3 "
        "décembre à 20 h 54."
    ) in running


def test_w2_a_magic_types_extra_turn_is_written_where_the_duration_is() -> None:
    """W2: « pendant 2 tours » for one Impervius, « Au tour 8 » for another: the magic type's
    ``duration_bonus`` was applied (rules.fatigue.applying) and never written. It is now
    written with the duration, in the first declaration and in « Effets en cours »."""
    forum, ref, storage, clock = _fatigue_duel("phpbb3", ["protectrice"], ["sournoise"])
    forum.add_post(7, A, _cast("Protego"))
    first = _cycle(forum, ref, storage, clock)
    assert (
        f"- {A} lance Protego, un sort qui agit sur son lanceur. À partir du tour 2, et pendant "
        f"3 tours (2 tours, plus 1 pour la magie protectrice), chaque sort qui touche {A} lui "
        "fera 6 PV de moins."
    ) in first, first
    forum.add_post(7, C, _cast("Levicorpus"))
    second = _cycle(forum, ref, storage, clock)
    assert (
        "ne peut pas esquiver (Levicorpus de Cassius Thorne, magie sournoise +1 tour), encore "
        "3 tours"
    ) in second, second
    assert "6 PV de moins par sort reçu (Protego d'Aurora Vexley, magie protectrice +1 tour)" in (
        second
    )
    # the engine gave those turns: the same numbers in the duel's state
    state = storage.duels()[0]["state_json"]
    assert '"source": "Levicorpus"' in state


def test_w1_a_void_initiative_offers_no_defense_and_a_dodge_against_nothing_is_said_so() -> None:
    """W1: after a void initiative (« sort déjà lancé sur cet adversaire, donc sans effet ») the
    post offered « se défendre : lancer un sort, esquiver, ou esquiver et riposter », then said
    « L'esquive de Cassius Thorne échoue » for no reason. RULES.md fatigue: a dodge succeeds
    « only against a spell that can be dodged » and is « Not allowed two turns in a row »; the
    engine counts a dodge against nothing as a dodge (``_counted_action``: the action was
    used, seed 001 « il est interdit d'utiliser cette action deux tours de suite »), and the
    post says so."""
    forum, ref, storage, clock = _fatigue_duel("phpbb3", ["brutale"], ["sournoise"])
    forum.add_post(7, A, _cast("Flipendo"))
    _cycle(forum, ref, storage, clock)
    forum.add_post(7, C, _cast("Flipendo"))
    _cycle(forum, ref, storage, clock)  # turn 1 closed: each hit the other with Flipendo
    forum.add_post(7, A, _cast("Flipendo"))  # again at Cassius: reused_spell, void
    first = _cycle(forum, ref, storage, clock)
    assert "sort déjà lancé sur cet adversaire, donc sans effet" in first
    assert (
        f"Aucun sort ne vise {C}, qui n'a donc rien à esquiver. {C} peut lancer un sort avant le "
    ) in first, first
    assert (
        f"Une esquive ne changerait rien et compterait quand même : {C} ne pourrait pas "
        "esquiver au tour 3."
    ) in first
    assert "se défendre" not in first and "esquiver et riposter" not in first
    forum.add_post(7, C, f"{BODY}\nAction : esquiver\nPari : [1,2,3,4]")
    second = _cycle(forum, ref, storage, clock)
    assert (
        f"- {C} esquive, mais aucun sort ne visait {C} : son esquive ne change rien. Elle compte "
        f"pourtant comme une esquive, et {C} ne pourra pas esquiver au tour 3."
    ) in second, second
    assert "échoue" not in second
    state = storage.duels()[0]["state_json"]
    assert '"last_action": "dodge"' in state  # what the engine counts, as the post says


def test_c1_a_trail_value_of_none_is_a_word_on_the_review_page() -> None:
    """C1: the trail showed « Cassius Thorne : action | None | défense » (the engine's
    ``<name>.action`` is None when no action was named or none was possible)."""
    from forumbot.web.page_words import PageWords

    words = PageWords("fr", "Europe/Paris", lambda text, *a: text % a if a else text)
    shown = words.entry({"quantity": f"{C}.action", "value": None, "rule": "fatigue.defense",
                         "detail": "post 117"}, (A, C))  # fmt: skip
    assert shown["value"] == "aucune action", shown
    other = words.entry({"quantity": f"{C}.spell", "value": None, "rule": "fatigue.cast",
                         "detail": ""}, (A, C))  # fmt: skip
    assert other["value"] == "aucune valeur" and "None" not in str(other)
