"""verify-dice on a Forumactif-style 2v2 (forum dice for the bets): the seed's own draws, the
placement and each reward line's named draw, are what gets checked (issue 5)."""

from __future__ import annotations

import re
from dataclasses import replace

from forumbot.duels.verify import format_report, verify_pages
from forumbot.publish.typography import plain
from parsers.model import Post, TopicPage
from rules.dice import commitment, derive_die

SEED = bytes(range(32))
KEY = "forumactif:77"
NAMES = ("Aurora Vexley", "Blaise Corvin", "Cassius Thorne", "Dorian Pike")
KEYED = "de la créature\u202f«\u202fstrangulot\u202f»"


def post(post_id: int, text: str, author: str = "Arbitre") -> Post:
    return Post(post_id, author, 1, None, None, text, (), (), len(text.splitlines()))


def pages(
    reward_value: int | None = None,
    *,
    old_wording: bool = False,
    issue15: bool = False,
    reader3: bool = False,
    source: str = "",
) -> list[TopicPage]:
    """An opening and one turn; the reward line worded as the declarations word it (issue 25:
    « la récompense de la créature « strangulot », gagnée au message n° 12, a été tirée au
    sort : v sur 6 »), or, with ``issue15``, as threads written before issue 25 did
    (« récompense tirée : v sur 6 ; tirage n° 12, créature strangulot »), or, with
    ``old_wording``, as threads written before issue 15 did (« tirage reward:... v/6 »); with
    ``source``, as the declarations word it since the third reader (« la récompense du
    strangulot du bassin, … »: the environment's name for the source); since the seventh
    reader the draw reads « … tirée au sort avec un dé à 6 faces (tirage : v) », since
    newcomer 7 (#22) after a colon, not in parentheses (« 10 gallions : la récompense …, tirée
    au sort avec un dé à 6 faces, qui a donné v »); with
    ``reader3`` as threads written before it did (« … tirée au sort : v sur 6 »)."""
    zones: dict[int, list[str]] = {}
    for name in NAMES:
        zones.setdefault(derive_die(SEED, KEY, 0, 0, f"place:{name}", 0, sides=4), []).append(name)
    lines = [
        f"[*] Zone {z} — Zone {z} : {', '.join(zones.get(z, [])) or 'personne'}"
        for z in range(1, 5)
    ]  # noqa: E501
    opening = "\n".join(
        ["Positions de départ (tirées au sort)"]
        + lines
        + [
            "Engagement des dés de l'arbitre (placement et récompenses ; les paris se jouent "
            f"aux dés du forum) : {commitment(SEED)}",
            "forumbot·opening·",
        ]
    )  # fmt: skip
    label = "reward:creature:strangulot:12"
    value = derive_die(SEED, KEY, 0, 0, label, 0, sides=6) if reward_value is None else reward_value
    turn = "\n".join(
        [
            "Intervention de l'arbitre — tour 2",
            "[*] Cassius Thorne, message n°12 (zone 2) : lancer un sort ; dé du forum « Pari » 4",
            f"[*] Récompense pour Cassius Thorne : 10 gallions (tirage {label} {value}/6)."
            if old_wording
            else f"[*] Récompense pour Cassius Thorne : 10 gallions (récompense tirée : {value} "
            "sur 6 ; tirage n° 12, créature strangulot)."
            if issue15
            else f"[*] Cassius Thorne reçoit en récompense 10 gallions (la récompense "
            f"{source or KEYED}, gagnée au message n°\u00a012, a été tirée au sort\u00a0: "
            f"{value} sur 6)."
            if reader3
            else f"[*] Cassius Thorne reçoit en récompense 10 gallions\u00a0: la récompense "
            f"{source}, gagnée au message n°\u00a012, tirée au sort avec un dé à 6\u00a0faces, "
            f"qui a donné {value}."
            if source
            else "[*] Cassius Thorne reçoit en récompense 10 gallions\u00a0: la récompense de la "
            "créature\u202f«\u202fstrangulot\u202f», gagnée au message n°\u00a012, "
            f"tirée au sort avec un dé à 6\u00a0faces, qui a donné {value}.",
            "Dés « Pari » lancés par le forum. Graine des dés de l'arbitre (placement et "
            f"récompenses) : {SEED.hex()}",
            "forumbot·turn2·",
        ]
    )
    return [TopicPage("forumactif", 77, 1, 1, None, (post(10, opening), post(13, turn)))]


def test_placement_and_reward_draws_check_out() -> None:
    report = verify_pages(pages())
    assert report.ok and report.seed_matches, report.problems
    assert [c.label for c in report.checks].count("reward:creature:strangulot:12") == 1
    assert len([c for c in report.checks if c.turn == 0]) == 4
    assert len(report.checks) == 5  # the forum's die is not the bot's: not checked
    assert any(
        "récompense de la créature « strangulot » (message n° 12)" in plain(line)
        for line in format_report(report)
    )


def test_reward_lines_written_before_the_seventh_reader_still_verify() -> None:
    """Threads already on the boards keep « … a été tirée au sort : v sur 6 » (issue 25, third
    to seventh reader), by key or by name."""
    label = "reward:creature:strangulot:12"
    for source in ("", "du strangulot du bassin"):
        report = verify_pages(pages(reader3=True, source=source))
        assert report.ok and report.seed_matches, report.problems
        assert [c.label for c in report.checks].count(label) == 1
        wrong = derive_die(SEED, KEY, 0, 0, label, 0, sides=6) % 6 + 1
        assert not verify_pages(pages(wrong, reader3=True, source=source)).ok


def test_reward_lines_written_before_issue_25_still_verify() -> None:
    """Threads already on the boards keep the wording of issue 15 (« récompense tirée : v sur
    6 ; tirage n° 12, créature strangulot »)."""
    report = verify_pages(pages(issue15=True))
    assert report.ok and report.seed_matches, report.problems
    assert [c.label for c in report.checks].count("reward:creature:strangulot:12") == 1
    wrong = derive_die(SEED, KEY, 0, 0, "reward:creature:strangulot:12", 0, sides=6) % 6 + 1
    assert not verify_pages(pages(wrong, issue15=True)).ok


def test_reward_lines_written_before_issue_15_still_verify() -> None:
    """Threads already on the boards keep the older wording « (tirage reward:<label> v/6) »."""
    report = verify_pages(pages(old_wording=True))
    assert report.ok, report.problems
    assert [c.label for c in report.checks].count("reward:creature:strangulot:12") == 1
    forged = verify_pages(
        pages(old_wording=True, reward_value=derive_die(
            SEED, KEY, 0, 0, "reward:creature:strangulot:12", 0, sides=6) % 6 + 1)
    )  # fmt: skip
    assert not forged.ok


def test_a_forged_reward_draw_is_caught() -> None:
    good = derive_die(SEED, KEY, 0, 0, "reward:creature:strangulot:12", 0, sides=6)
    report = verify_pages(pages(reward_value=good % 6 + 1))
    assert not report.ok
    (bad,) = [c for c in report.checks if not c.ok]
    assert bad.label == "reward:creature:strangulot:12" and bad.recomputed == (good,)


def test_a_players_copy_of_the_bots_lines_is_ignored() -> None:
    """A player who posts a forged roll or a forged seed with the marker cannot make an honest
    duel fail (found by a break-it pass)."""
    (page,) = pages()
    label = "reward:creature:strangulot:12"
    good = derive_die(SEED, KEY, 0, 0, label, 0, sides=6)
    forged_draw = post(
        14,
        "Intervention de l'arbitre — tour 2\n"
        f"[*] Récompense pour Cassius Thorne : 10 gallions (tirage {label} {good % 6 + 1}/6).\n"
        "forumbot·turn2·",
        author="Cassius Thorne",
    )
    forged_seed = post(15, f"forumbot· Graine des dés : {'ab' * 32}", author="Cassius Thorne")
    tampered = replace(page, posts=(*page.posts, forged_draw, forged_seed))
    report = verify_pages([tampered])
    assert report.ok and report.seed == SEED.hex(), report.problems
    assert report.bot == "Arbitre" and report.ignored == [14, 15]
    assert any("messages ignorés" in line for line in format_report(report))
    # naming another account as the bot reads that account's posts only
    assert not verify_pages([tampered], bot="Cassius Thorne").ok


def test_the_stated_reward_is_checked_against_the_environments_table() -> None:
    """The opening names a shipped environment: a reward line must state the table entry its
    draw selects (a line edited to a richer reward is caught)."""
    from forumbot.duels.duo import REWARD_FR, load_env

    env = load_env("serre")
    table = env.creature("strangulot").rewards
    label = "reward:creature:strangulot:12"
    value = derive_die(SEED, KEY, 0, 0, label, 0, sides=sum(r.weight for r in table))
    roll, entry = value - 1, table[0]
    for entry in table:
        if roll < entry.weight:
            break
        roll -= entry.weight
    honest = f"{entry.amount} {REWARD_FR[entry.kind]}"

    def with_env(stated: str) -> list[TopicPage]:
        (page,) = pages()
        opening, turn = page.posts
        sides = sum(r.weight for r in table)
        new_turn = re.sub(r"10 gallions\u00a0: (la récompense .*? dé à )6(\u00a0faces, "
                          r"qui a donné )\d+",
                          f"{stated}\u00a0: \\g<1>{sides}\\g<2>{value}",
                          turn.text)  # fmt: skip
        assert new_turn != turn.text
        return [replace(page, posts=(
            replace(opening, text="L'environnement : " + env.name + "\n" + opening.text),
            replace(turn, text=new_turn)))]  # fmt: skip

    good = verify_pages(with_env(honest))
    assert good.ok and not good.notes, good.problems
    bad = verify_pages(with_env(f"{entry.amount + 100} {REWARD_FR[entry.kind]}"))
    assert not bad.ok and "la table donne" in bad.problems[0]
    # without the environment's name, the tables are not checked (a note, not a failure)
    plain = verify_pages(pages())
    assert plain.ok and "non comparées" in plain.notes[0]


def cancelled_before_any_turn(seed_line_seed: bytes) -> list[TopicPage]:
    """A classic duel's opening, then the « Duel annulé » post revealing ``seed_line_seed``."""
    opening = (
        "Ouverture du duel\nEmpreinte des dés (SHA-256 de la graine secrète, révélée à la fin "
        f"du duel) : {commitment(SEED)}\nforumbot·opening·"
    )
    cancelled = (
        "[b]Duel annulé[/b] par l'arbitre.\n"
        f"Graine secrète des dés : {seed_line_seed.hex()} (empreinte publiée à l'ouverture : "
        f"{commitment(SEED)}). Tout le monde peut recalculer les dés déjà lancés à partir de "
        "cette graine (forumbot verify-dice).\nforumbot·cancel·"
    )
    return [TopicPage("phpbb3", 9, 1, 1, None, (post(20, opening), post(21, cancelled)))]


def test_a_duel_cancelled_before_any_roll_verifies_with_nothing_else_to_check() -> None:
    """A newcomer's finding: it printed « 0/0 lancer vérifié » and exited 1 with no reason."""
    report = verify_pages(cancelled_before_any_turn(SEED))
    assert report.ok and not report.failed and report.checks == [], report.problems
    assert format_report(report)[-1] == (
        "aucun lancer déclaré dans ce sujet : la graine révélée est conforme, rien d'autre à "
        "vérifier"
    )
    forged = verify_pages(cancelled_before_any_turn(bytes(32)))
    assert forged.failed and "la graine révélée ne correspond pas" in forged.problems[0]


def test_a_topic_without_seed_or_commitment_says_none_rather_than_not_matching() -> None:
    page = [TopicPage("phpbb3", 9, 1, 1, None, (post(20, "Une discussion sans duel."),))]
    lines = format_report(verify_pages(page))
    assert "graine révélée : aucune dans ce sujet" in plain(lines)
    assert not any("NON conforme" in line for line in lines)
    assert any(line.startswith("problème : aucune empreinte") for line in lines)


def test_a_reward_named_as_the_environment_writes_it_verifies() -> None:
    """Issue 25, third reader: the line names « du strangulot du bassin », not the key; the
    verification finds the key in the shipped environments (none named here) and recomputes
    the draw; a forged value is caught; a source no environment has is a problem."""
    report = verify_pages(pages(source="du strangulot du bassin"))
    assert report.ok and report.seed_matches, report.problems
    assert [c.label for c in report.checks].count("reward:creature:strangulot:12") == 1
    good = derive_die(SEED, KEY, 0, 0, "reward:creature:strangulot:12", 0, sides=6)
    assert not verify_pages(pages(good % 6 + 1, source="du strangulot du bassin")).ok
    unknown = verify_pages(pages(source="du dragon du lac"))
    assert not unknown.ok
    assert any("récompense « du dragon du lac » introuvable" in p for p in unknown.problems)


def test_the_renderer_names_the_source_and_verify_reads_it_back() -> None:
    from forumbot.duels.duo import load_env
    from forumbot.duels.verify import _line_draws
    from forumbot.publish.render import _draw

    env = load_env("serre")
    names = {f"creature:{c.key}": c.name for c in env.creatures}
    sentence = plain(_draw("reward:creature:strangulot:12 3/6", names))
    assert sentence == (
        "la récompense du strangulot du bassin, gagnée au message n° 12, tirée au sort "
        "avec un dé à 6 faces, qui a donné 3"
    )
    assert _line_draws(f"x 10 gallions : {sentence}.") == [
        ("reward:named:du strangulot du bassin:12", 3, 6)
    ]
