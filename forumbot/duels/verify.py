"""``forumbot verify-dice``: recompute every bot roll of a duel from the thread alone.

The opening declaration publishes ``Empreinte des dés ... : <sha256 of the seed>``; each turn
declaration lists, per post, ``message n°<post id> : ... ; attaque <a>, défense <d>``; the final
declaration reveals ``Graine secrète des dés : <seed>``. With the topic id and the platform
(the derivation's public inputs, see :mod:`rules.dice`), anyone can check that the seed
matches the commitment and that every listed roll is the one the seed gives.

Fatigue declarations (seed 001) list one die per post:
``message n°<post id> (...) : ... ; dé « <dice name> » <value> : pari gagné|perdu``; the
dice name printed there is the derivation's name and the count is 1. A post appears in the
first and the second declaration of its turn with the same die: both are checked. Dice the
forum rolled (``dé du forum « ... »``, Forumactif) are not the bot's and are not checked.

Two-against-two declarations (issue 5) use the same per-post line under ``Intervention de
l'arbitre — tour <n>``; their opening publishes ``Engagement des dés : <sha256>`` and their
final declaration ``Graine des dés : <seed>``. The seed also drew the starting positions
(:func:`forumbot.duels.duo.make_draw`: label ``place:<name>``, turn 0, post 0), which the
opening lists (``[*] Zone <n> — <name> : <duellists>``): each placement is checked too (as
turn 0 of the opening post); and each reward, whose line names its draw in French
(``... : la récompense du strangulot du bassin, gagnée au message n° <id>, tirée au sort avec
un dé à <sides> faces, qui a donné <value>.``, before newcomer 7 ``(… a été tirée au sort avec un
dé à <sides> faces (tirage : <value>))``: the source as the environment names it,
whose key is found in the environment the opening names, else in every shipped one; from it the
label ``reward:creature|mechanism:<key>:<id>`` is rebuilt; threads written before the third reader
of issue 25 say ``(la récompense de la créature|du mécanisme « <key> », …)``, before its seventh
reader ``(… a été tirée au sort : <value> sur <sides>)``, before issue 25
``(récompense tirée : <value> sur <sides> ; tirage n° <id>, créature|mécanisme <key>)``, and
before issue 15 ``(tirage reward:<source>:<id> <value>/<sides>)``, all also read), the same
derivation with the label as name; the reward stated is checked against its table in the
environment the opening names, when it is a shipped one). On Forumactif the forum rolls the
« Pari » dice: the seed (``Engagement des dés de l'arbitre ...``, ``Graine des dés de
l'arbitre ...``) covers the placement and the rewards only, and those are what is checked there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from forumbot.duels.duo_board import REWARD_FR, environments, load_env
from forumbot.publish.typography import plain
from parsers.model import TopicPage
from rules.dice import derive_die, derive_roll, verify_seed
from rules.duo.environment import pick_reward
from rules.errors import RuleError

_COMMITMENT = re.compile(r"(?:Empreinte|Engagement) des dés[^:]*:\s*([0-9a-f]{64})")
_SEED = re.compile(r"Graine (?:secrète )?des dés[^:\n]*:\s*([0-9a-f]{64})")
_TURN = re.compile(r"(?:Déclaration|Intervention) de l'arbitre\s*[:—-]\s*tour (\d+)")
_ROLL = re.compile(r"message n°\s*(\d+) : .* ; attaque (\d), défense (\d)")
_ZONE = re.compile(r"^\[\*\] Zone (\d+) — [^:]+ : (.+)$")
_DRAW_OLD = re.compile(r"\(tirage (reward:\S+) (\d+)/(\d+)\)")
_DRAW_ISSUE15 = re.compile(
    r"\(récompense tirée : (\d+) sur (\d+) ; tirage n° (\d+), (créature|mécanisme) ([^\s)]+)\)"
)
_DRAW = re.compile(
    r"\(la récompense (de la créature|du mécanisme) « ([^»]+?) », gagnée au message n° (\d+), "
    r"a été tirée au sort : (\d+) sur (\d+)\)"
)
_DRAW_NAMED = re.compile(
    r"\(la récompense (?!de la créature «|du mécanisme «)(.+?), gagnée au message n° (\d+), "
    r"a été tirée au sort : (\d+) sur (\d+)\)"
)
"""The wording from the third to the seventh reader of issue 25: the source by its display name,
contracted (« du strangulot du bassin »), its key found again in the environment
(:func:`_resolve`)."""
_DRAW_DIE = re.compile(
    r"\(la récompense (.+?), gagnée au message n° (\d+), "
    r"a été tirée au sort avec un dé à (\d+) faces \(tirage : (\d+)\)\)"
)
"""The wording since the seventh reader of issue 25 (C2): the die's faces, then the value
drawn; the source by its display name, or by its key (« de la créature « strangulot » »)
when the environment did not name it."""
_DRAW_COLON = re.compile(
    r": la récompense (.+?), gagnée au message n° (\d+), "
    r"tirée au sort avec un dé à (\d+) faces, qui a donné (\d+)"
)
"""The wording since newcomer 7 (#22), without nested parentheses: « reçoit en récompense
20 PV : la récompense du strangulot du bassin, gagnée au message n° 3, tirée au sort avec
un dé à 4 faces, qui a donné 3. »; groups as :data:`_DRAW_DIE`."""
_KEYED = re.compile(r"(de la créature|du mécanisme) « ([^»]+?) »$")
_NAMED = "named"
"""The kind of a draw label whose source is still a display name: ``reward:named:<words>:<id>``."""
_DRAW_KINDS = {
    "créature": "creature", "mécanisme": "mechanism",
    "de la créature": "creature", "du mécanisme": "mechanism",
}  # fmt: skip
_REWARD = re.compile(
    r"(?:Récompense pour .+? : |reçoit en récompense )(\d+) (.+?) "
    r"(?:\((?:tirage reward:|récompense tirée|la récompense )|: la récompense )"
)
_ENV = re.compile(r"^(?:\[b\])?L'environnement : (.+?)(?:\[/b\])?$")
_FATIGUE_ROLL = re.compile(r"message n°\s*(\d+)\b.* ; dé « ([^»]+?) » (\d)(?: :|,|\.|$)")


@dataclass
class DiceCheck:
    """One roll as declared and as recomputed."""

    turn: int
    post_id: int
    declared: tuple[int, ...]
    recomputed: tuple[int, ...]
    label: str = ""  # a named draw (e.g. a 2v2 reward), "" for a post's dice

    @property
    def ok(self) -> bool:
        return self.declared == self.recomputed


@dataclass
class VerifyReport:
    """The outcome of a verification (``ok`` when everything matched)."""

    topic_id: int | None
    commitment: str | None = None
    seed: str | None = None
    seed_matches: bool = False
    checks: list[DiceCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be checked (not a failure)
    bot: str | None = None  # whose posts were read (the bot's account)
    ignored: list[int] = field(default_factory=list)  # marked posts by anyone else
    pending: int = 0  # rolls declared but not checkable yet (no seed revealed: duel running)

    @property
    def ok(self) -> bool:
        """Everything was checked and matched (never true while the duel is running). A
        duel ended before any roll (cancelled after its opening) is ok when its revealed
        seed matches the commitment: there is nothing else to check."""
        return self.seed_matches and all(c.ok for c in self.checks) and not self.problems

    @property
    def running(self) -> bool:
        """The duel is still running: its commitment is published, its seed not yet (the
        final declaration reveals it), so no roll can be recomputed now."""
        return self.commitment is not None and self.seed is None

    @property
    def failed(self) -> bool:
        """Something is wrong (a roll, the seed, a page): ``verify-dice`` exits 1. A running
        duel with nothing wrong is not a failure (exit 0)."""
        return not self.ok and not (self.running and not self.problems)


def verify_pages(
    pages: Iterable[TopicPage],
    *,
    dice_name: str = "Duel",
    dice_per_post: int = 2,
    bot: str | None = None,
) -> VerifyReport:
    """Verify the bot's rolls in the given pages of one duel topic (any order).

    ``dice_name`` and ``dice_per_post`` describe classic's lines (``attaque a, défense d``);
    fatigue lines carry their own dice name and one die each (see the module doc).

    Only the bot's posts count: ``bot`` (its account name, case-insensitive), else the
    author of the first post carrying a marker (``forumbot·``) and a commitment (the
    opening). A player who copies the bot's lines (a forged roll, a forged seed) into their
    own post is ignored; ``report.problems`` says how many such posts were set aside."""
    page_list = list(pages)
    topic_ids = {p.topic_id for p in page_list if p.topic_id is not None}
    report = VerifyReport(topic_id=next(iter(topic_ids)) if len(topic_ids) == 1 else None)
    if len(topic_ids) != 1:
        ids = ", ".join(str(i) for i in sorted(topic_ids)) or "aucun"
        report.problems.append(f"les pages doivent venir d'un seul sujet (sujets lus : {ids})")
        return report
    platform = page_list[0].platform
    total = max(p.pages for p in page_list)
    missing_pages = sorted(set(range(1, total + 1)) - {p.page for p in page_list})
    if missing_pages:
        report.problems.append(
            "pages manquantes : "
            + ", ".join(str(n) for n in missing_pages)
            + f" sur {total} (il faut toutes les pages du sujet pour vérifier chaque lancer)"
        )
    posts = sorted(
        {p.post_id: p for page in page_list for p in page.posts}.values(), key=lambda p: p.post_id
    )
    # French typography (no-break spaces, « − ») read as plain spaces and hyphens.
    posts = [replace(p, text=plain(p.text)) for p in posts]
    marked = [p for p in posts if "forumbot·" in p.text]
    if bot is None:
        opening = next((p for p in marked if _COMMITMENT.search(p.text)), None)
        bot = opening.author if opening is not None else None
    if bot is not None:
        report.bot = bot
        report.ignored = [p.post_id for p in marked if p.author.casefold() != bot.casefold()]
        posts = [p for p in marked if p.author.casefold() == bot.casefold()]
    declared: list[tuple[int, int, tuple[int, ...], str]] = []
    placements: list[tuple[int, str, int, int]] = []  # (post id, name, zone number, zones)
    draws: list[tuple[int, int, str, int, int]] = []  # (turn, post id, label, value, sides)
    rewards: dict[str, str] = {}  # draw label -> the reward the line states ("10 gallions")
    env_name: str | None = None
    placed = False
    for post in posts:
        if "forumbot·" not in post.text:
            continue
        if m := _COMMITMENT.search(post.text):
            if report.commitment is None:
                report.commitment = m.group(1)
            elif m.group(1) != report.commitment:
                report.problems.append(
                    f"deux empreintes des dés différentes (message n°{post.post_id})"
                )
        # The placement and the environment are in the opening declaration: the topic's first
        # post when the bot opened the duel in one post, the post after it when the sign-up
        # desk opened the topic (its first post already carries the commitment; issue 23).
        zones = [z for line in post.text.splitlines() if (z := _ZONE.match(line.strip()))]
        if zones and not placed and _TURN.search(post.text) is None:
            placed = True
            env_name = next(
                (e.group(1).strip() for ln in post.text.splitlines() if (e := _ENV.match(ln))),
                None,
            )
            for z in zones:
                for name in z.group(2).split(", "):
                    if name.strip() and name.strip() != "personne":
                        placements.append((post.post_id, name.strip(), int(z.group(1)), len(zones)))
        if m := _SEED.search(post.text):
            report.seed = m.group(1)
        turn = _TURN.search(post.text)
        if turn is None:
            continue
        for line in post.text.splitlines():
            line_draws = _line_draws(line)
            for label, value, sides in line_draws:
                draws.append((int(turn.group(1)), post.post_id, label, value, sides))
            if line_draws and (r := _REWARD.search(line)):
                rewards[line_draws[0][0]] = f"{r.group(1)} {r.group(2)}"
            if roll := _ROLL.search(line):
                values = (int(roll.group(2)), int(roll.group(3)))
                declared.append((int(turn.group(1)), int(roll.group(1)), values, dice_name))
            elif fatigue := _FATIGUE_ROLL.search(line):
                declared.append(
                    (
                        int(turn.group(1)),
                        int(fatigue.group(1)),
                        (int(fatigue.group(3)),),
                        fatigue.group(2).strip(),
                    )
                )
    if any(label.startswith(f"reward:{_NAMED}:") for _t, _p, label, _v, _s in draws):
        draws, rewards, unknown = _resolve(env_name, draws, rewards)
        report.problems.extend(unknown)
    if report.commitment is None:
        report.problems.append(
            "aucune empreinte des dés trouvée (la déclaration d'ouverture manque ?)"
        )
    if report.seed is None:
        # A duel still running: its seed is revealed in the final declaration only.
        report.pending = len(declared) + len(placements) + len(draws)
    if report.commitment and report.seed:
        report.seed_matches = verify_seed(bytes.fromhex(report.seed), report.commitment)
        if not report.seed_matches:
            report.problems.append("la graine révélée ne correspond pas à l'empreinte publiée")
    if report.seed:
        seed = bytes.fromhex(report.seed)
        key = f"{platform}:{report.topic_id}"
        for turn_no, post_id, values, name in declared:
            again = derive_roll(seed, key, turn_no, post_id, name, len(values))
            report.checks.append(DiceCheck(turn_no, post_id, values, again))
        for post_id, name, number, count in placements:
            drawn = derive_die(seed, key, 0, 0, f"place:{name}", 0, sides=count)
            report.checks.append(DiceCheck(0, post_id, (number,), (drawn,)))
        for turn_no, post_id, label, value, sides in draws:
            drawn = derive_die(seed, key, 0, 0, label, 0, sides=sides)
            report.checks.append(DiceCheck(turn_no, post_id, (value,), (drawn,), label))
        if draws:
            problems, notes = _reward_problems(env_name, draws, rewards)
            report.problems.extend(problems)
            report.notes.extend(notes)
    return report


def _line_draws(line: str) -> list[tuple[str, int, int]]:
    """The named draws of one declaration line, as ``(label, value, sides)``: the French
    sentence (``la récompense de la créature « strangulot », gagnée au message n° 42, a été
    tirée au sort : 3 sur 4`` -> ``("reward:creature:strangulot:42", 3, 4)``), the wording of
    issue 15 (``récompense tirée : 3 sur 4 ; tirage n° 42, créature strangulot``) and the
    older ``(tirage <label> 3/4)``. Since the seventh reader: ``… a été tirée au sort avec un
    dé à 4 faces (tirage : 3)`` -> the same label, 3, 4; since newcomer 7 (#22)
    ``… 20 PV : la récompense …, tirée au sort avec un dé à 4 faces, qui a donné 3``."""
    found = []
    for d in [*_DRAW_COLON.finditer(line), *_DRAW_DIE.finditer(line)]:
        keyed = _KEYED.match(d.group(1))
        source = (
            f"{_DRAW_KINDS[keyed.group(1)]}:{keyed.group(2)}" if keyed
            else f"{_NAMED}:{d.group(1)}"
        )  # fmt: skip
        found.append((f"reward:{source}:{d.group(2)}", int(d.group(4)), int(d.group(3))))
    found += [
        (f"reward:{_NAMED}:{d.group(1)}:{d.group(2)}", int(d.group(3)), int(d.group(4)))
        for d in _DRAW_NAMED.finditer(line)
    ]
    found += [
        (f"reward:{_DRAW_KINDS[d.group(1)]}:{d.group(2)}:{d.group(3)}", int(d.group(4)),
         int(d.group(5)))
        for d in _DRAW.finditer(line)
    ]  # fmt: skip
    found += [
        (f"reward:{_DRAW_KINDS[d.group(4)]}:{d.group(5)}:{d.group(3)}", int(d.group(1)),
         int(d.group(2)))
        for d in _DRAW_ISSUE15.finditer(line)
    ]  # fmt: skip
    found += [(d.group(1), int(d.group(2)), int(d.group(3))) for d in _DRAW_OLD.finditer(line)]
    return found


def _sources(env_name: str | None) -> dict[str, set[str]]:
    """Each reward source's name as the declarations write it (« du strangulot du bassin »,
    plain text) -> the draw-label sources it may be (``creature:strangulot``): those of the
    environment the opening names, else of every shipped one."""
    from forumbot.publish.render import of_name

    envs = [load_env(k) for k in environments()]
    named = [e for e in envs if env_name is not None and e.name == env_name]
    out: dict[str, set[str]] = {}
    for env in named or envs:
        for kind, items in (("creature", env.creatures), ("mechanism", env.mechanisms)):
            for item in items:
                out.setdefault(plain(of_name(item.name)), set()).add(f"{kind}:{item.key}")
    return out


def _resolve(
    env_name: str | None,
    draws: list[tuple[int, int, str, int, int]],
    stated: dict[str, str],
) -> tuple[list[tuple[int, int, str, int, int]], dict[str, str], list[str]]:
    """The draws whose source is a display name (``reward:named:du strangulot du bassin:42``)
    with their label rebuilt from the environment (``reward:creature:strangulot:42``), the
    stated rewards keyed by the rebuilt labels, and a problem for each source no environment
    names once (that draw cannot be recomputed and is left out)."""
    sources = _sources(env_name)
    out: list[tuple[int, int, str, int, int]] = []
    rekeyed = dict(stated)
    problems = []
    for turn_no, post_id, label, value, sides in draws:
        prefix = f"reward:{_NAMED}:"
        if not label.startswith(prefix):
            out.append((turn_no, post_id, label, value, sides))
            continue
        words, source_post = label.removeprefix(prefix).rsplit(":", 1)
        found = sources.get(words, set())
        if len(found) != 1:
            problems.append(
                f"message n°{post_id} : récompense « {words} » introuvable dans "
                f"{'« ' + env_name + ' »' if env_name else 'les environnements connus'}"
                if not found else
                f"message n°{post_id} : récompense « {words} » ambiguë (environnement non nommé)"
            )  # fmt: skip
            continue
        real = f"reward:{next(iter(found))}:{source_post}"
        if label in rekeyed:
            rekeyed[real] = rekeyed.pop(label)
        out.append((turn_no, post_id, real, value, sides))
    return out, rekeyed, problems


def _label_fr(label: str) -> str:
    """A draw's label as the declarations word it: ``reward:creature:strangulot:12`` ->
    ``récompense de la créature « strangulot » (message n° 12)``; another label -> ``tirage
    <label>``."""
    parts = label.split(":")
    kinds = {"creature": "de la créature", "mechanism": "du mécanisme"}
    if len(parts) == 4 and parts[0] == "reward" and parts[1] in kinds:
        return f"récompense {kinds[parts[1]]} « {parts[2]} » (message n° {parts[3]})"
    return f"tirage {label}"


def _reward_problems(
    env_name: str | None,
    draws: list[tuple[int, int, str, int, int]],
    stated: dict[str, str],
) -> tuple[list[str], list[str]]:
    """Each reward line against its table: the environment named in the opening (a shipped
    one, :func:`forumbot.duels.duo.environments`), the source in the draw's label
    (``reward:creature:<key>:<id>`` / ``reward:mechanism:<key>:<id>``), the drawn value
    walked through the table's weights, the stated amount and kind compared. An environment
    that is not shipped (a club's own file) is named as not checked. Returns (problems,
    notes)."""
    envs = [load_env(k) for k in environments()]
    env = next((e for e in envs if env_name is not None and e.name == env_name), None)
    if env is None:
        where = f"« {env_name} »" if env_name else "non nommé"
        return [], [f"récompenses non comparées à leurs tables : environnement {where} inconnu"]
    problems = []
    for _turn, post_id, label, value, sides in draws:
        named = f"message n°{post_id} : {_label_fr(label)}"
        parts = label.split(":")
        if len(parts) != 4 or parts[1] not in ("creature", "mechanism"):
            continue
        try:
            source = env.creature(parts[2]) if parts[1] == "creature" else env.mechanism(parts[2])
        except RuleError:
            what = "créature" if parts[1] == "creature" else "mécanisme"
            problems.append(
                f"{named} : pas de {what} « {parts[2]} » dans {env.name}"
            )
            continue
        total = sum(r.weight for r in source.rewards)
        if total != sides:
            problems.append(
                f"{named} : tiré sur {sides}, la table en compte {total}"
            )
            continue
        entry = pick_reward(source.rewards, value - 1)
        expected = f"{entry.amount} {REWARD_FR[entry.kind]}"
        if stated.get(label) != expected:
            problems.append(
                f"{named} : la ligne annonce « {stated.get(label)} », "
                f"la table donne « {expected} » pour {value}/{sides}"
            )
    return problems, []


def _pending_line(n: int) -> str:
    """The running duel's last line: how many declared rolls the final declaration will make
    checkable (French plural; "aucun" for none)."""
    if n == 0:
        later = "aucun lancer déclaré jusqu'ici"
    elif n == 1:
        later = "le lancer déclaré jusqu'ici le sera"
    else:
        later = f"les {n} lancers déclarés jusqu'ici le seront"
    when = " quand la déclaration finale révélera la graine" if n else ""
    return f"duel en cours : rien n'est encore vérifiable ; {later}{when}"


def format_report(report: VerifyReport) -> list[str]:
    """Printable lines, all in French (the command is for players, like the declarations it
    reads); a running duel says so and how many rolls its end will make checkable."""
    lines = [f"sujet {report.topic_id} : empreinte {report.commitment or '?'}"]
    if report.running:
        lines.append("graine révélée : pas encore (elle le sera dans la déclaration finale)")
    elif report.seed is None:
        lines.append("graine révélée : aucune dans ce sujet")
    else:
        lines.append(
            "graine révélée : "
            + report.seed
            + (" (conforme à l'empreinte)" if report.seed_matches else " (NON conforme)")
        )
    for c in report.checks:
        state = "ok" if c.ok else f"DIFFÉRENT (recalculé {c.recomputed})"
        where = f"tour {c.turn}" if c.turn else "placement (ouverture)"
        if c.label:
            where += f", {_label_fr(c.label)}"
        lines.append(f"{where}, message n°{c.post_id} : {c.declared} {state}")
    if report.ignored:
        lines.append(
            f"messages ignorés (marque du bot, mais pas écrits par {report.bot}) : "
            + ", ".join(str(i) for i in report.ignored)
        )
    lines.extend(f"note : {n}" for n in report.notes)
    lines.extend(f"problème : {p}" for p in report.problems)
    if report.running:
        lines.append(_pending_line(report.pending))
        return lines
    if not report.checks and report.ok:
        lines.append(
            "aucun lancer déclaré dans ce sujet : la graine révélée est conforme, "
            "rien d'autre à vérifier"
        )
        return lines
    good = sum(c.ok for c in report.checks)
    noun = "lancer vérifié" if len(report.checks) <= 1 else "lancers vérifiés"
    lines.append(
        f"{good}/{len(report.checks)} {noun}" + (" : tout est conforme" if report.ok else "")
    )
    return lines
