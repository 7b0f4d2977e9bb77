"""One seeded club season: the script, its loop on the fake clock, and the summary.

The loop: run what is due on the clock (scripted posts, referee decisions, moderators, a lock
lifted, restarts, kills, outages: Poisson processes scheduled on the clock), then one bot
cycle (poll with the desk, publish, notify), then look at the board and the bot's database
to schedule what players do next; the clock then jumps straight to the next due thing
(:meth:`Season._next_due`: a scripted action, a sign-up, a draft's publication, a deadline,
a notice's owl, a task, a backup), at least a minute and at most two hours. A wake for a
publication or a notice only (nothing changed on the board) runs publish and notify, as the
bot's publish worker does between two polls. Nobody ever really sleeps: every wait is
:meth:`forumbot.demo.season.DemoClock.sleep`.

After ``weeks`` weeks nobody signs up any more, the running and queued duels are played to
their end (at most four more weeks), and the invariants of :mod:`soak.checks` are checked.
"""

from __future__ import annotations

import json
import random
import re
import tempfile
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from forumbot.demo.season import _fatigue, duel_text, next_post
from forumbot.duels.concession import concede_duel
from forumbot.duels.ending import EndingError
from forumbot.errors import BoardPaused
from rules.model import DuelState
from soak import checks, checks_duo
from soak.db_views import epoch_of, iso_of, live_players, published_count
from soak.duos import DUO_SHARE, Duos, match_players
from soak.players import WITHDRAWALS, Player, invalid_signup_text, make_players, signup_text
from soak.staff import Referees, enabled_moderator_events
from soak.summary import Summary
from soak.world import BOT, REFEREE, Killed, World, make_world

HOUR, DAY = 3600.0, 86400.0
MIN_STEP_S = 60.0
"""The shortest jump of the clock between two bot cycles (the poll interval)."""
PUBLISH_WAKES = frozenset({"draft", "approved", "claim", "notice", "backup"})
"""Wakes of the clock that need no poll (nothing changed on the board since the last one)."""
QUIET_WAKES = PUBLISH_WAKES | {"script"}
"""Wakes that poll only when the script changed the board, restarted the bot or recorded a
concession since the last poll (``poll_owed``): a kill armed or a player who finds nothing
to post changes nothing the poll would read."""
MAX_STEP_S = 2 * HOUR
"""The longest jump of the clock between two bot cycles (the bot polls at least that often)."""
BOLD_RE = re.compile(r"\[b\]([^\[]+)\[/b\]")


@dataclass
class DuelScript:
    """What the script knows of one running duel."""

    duel_id: int
    topic_id: int
    published: int = -1  # published declarations when the next post was scheduled
    silent: bool = False
    early: bool = False


class Season:
    """The seeded script of one season on ``world``."""

    def __init__(
        self, world: World, players: list[Player], rng: random.Random, weeks: float,
        drain_days: float = 28.0,
    ) -> None:
        self.world, self.players, self.rng = world, players, rng
        self.real_kills = 0  # real SIGKILLs of a bot process to schedule (soak.real_kill)
        self.by_name = {p.name: p for p in players}
        self.start = world.clock()
        self.signups_end = self.start + weeks * 7 * DAY
        self.end = self.signups_end + drain_days * DAY
        self.rs = _fatigue()
        self.referees = Referees(random.Random(rng.random()))
        self.moderators = enabled_moderator_events(world.board)
        self.asks: list[checks.Ask] = []
        self.withdrawn: list[checks.Ask] = []
        self.withdrawal_posts: list[int] = []
        self.invalid_posts: dict[int, tuple[float, str]] = {}  # no year -> (when, author)
        self.named: dict[int, str | None] = {}  # sign-up post -> the partner it names
        self.next_signup = {p.name: self.start + rng.uniform(0, 3 * DAY) for p in players}
        self.duels: dict[int, DuelScript] = {}
        self.posts = 0
        self.last_post_at = 0.0
        self.count: Counter[str] = Counter()
        self.live_violations: dict[str, None] = {}
        self.restore_at = self.start + rng.uniform(0.3, 0.7) * weeks * 7 * DAY
        self.last_backup_day = -1
        self.progress: Callable[[str], None] | None = None
        self.cycles = 0
        self.wake = "start"  # why the clock woke (see _next_due)
        self.poll_owed = True  # the next cycle polls whatever woke it
        self.last_poll_at = 0.0
        self.wakes: Counter[str] = Counter()
        self.duo = Duos(world, random.Random(rng.random()), self._post, self._owe)

    # -- the loop ----------------------------------------------------------------------------
    def run(self) -> None:
        """Play the season to its end (all duels over, or ``drain_days`` after the sign-ups)."""
        clock = self.world.clock
        day = -1
        self._schedule_disruptions()
        while clock() < self.end:
            if self.progress is not None and int((clock() - self.start) // DAY) != day:
                day = int((clock() - self.start) // DAY)
                self.progress(f"day {day}: {self.posts} posts, {len(self.duels)} running, "
                              f"{self.count['signup']} sign-ups, {self.cycles} cycles")
            fired = self.world.due_timers()
            for action in fired:
                action()
            self._nightly()
            stale = clock() - self.last_poll_at >= MAX_STEP_S
            self.cycle(poll=self.poll_owed or stale or self.wake not in QUIET_WAKES)
            self.referees.act(self.world)
            self._observe()
            if clock() >= self.signups_end and self._all_over():
                break
            clock.sleep(self._step())
        for _ in range(6):  # the last publications, notices and leaderboard edit
            clock.sleep(20 * 60)
            if self.world.outage is not None:
                self.world.outage.until = 0.0  # the board is back for the final count
            self.cycle()
            self.referees.act(self.world)

    def cycle(self, poll: bool = True) -> None:
        """One bot cycle (poll + desk, publish, notify); a simulated kill restarts the bot.

        ``poll`` False (the clock woke for a draft's publication or a notice only, and the
        board did not change since the last poll): publish and notify only, as the bot's
        publish worker does between two polls; the poll then runs in this cycle only when a
        publication finished a duel (the desk opens the next pairing)."""
        self.cycles += 1
        world = self.world
        assert world.bot is not None
        bot = world.bot
        self.poll_owed = False
        jobs: list[tuple[str, Callable[[], object]]] = [
            ("publish", bot.publish), ("notify", bot.wired_notify().run)]  # fmt: skip
        if poll:
            jobs.insert(0, ("poll", bot.poll))
            self.last_poll_at = world.clock()
        else:
            self.count["cycles_publish_only"] += 1
            running = len(bot.storage.duels("running"))
            jobs.insert(1, ("poll", lambda: bot.poll() if len(
                bot.storage.duels("running")) < running else None))  # fmt: skip
        for name, job in jobs:
            try:
                job()
            except Killed:
                world.killed()
                self.poll_owed = True  # the new process polls at its start
                break
            except BoardPaused:
                self.count["paused_jobs"] += 1
            except Exception as exc:  # noqa: BLE001 - the scheduler's _guard: log, run again
                if bot.storage.db.conn.in_transaction:
                    bot.storage.db.conn.rollback()
                self.count[f"{name}_failed"] += 1
                where = traceback.extract_tb(exc.__traceback__)[-1]
                problem = (f"{name} job failed: {type(exc).__name__}: {exc} "
                           f"({Path(where.filename).name}:{where.lineno})")  # fmt: skip
                self.live_violations.setdefault(problem, None)
        for problem in checks.one_place(world):
            self.live_violations.setdefault(problem, None)

    def _step(self) -> float:
        """Seconds until the next thing that is due (:meth:`_next_due`), at least a minute
        (the bot's poll interval) and at most :data:`MAX_STEP_S`: the clock jumps over the
        time when nothing happens instead of ticking through it."""
        return max(MIN_STEP_S, min(MAX_STEP_S, self._next_due() - self.world.clock()))

    def _next_due(self) -> float:
        """The epoch second of the next due thing: a scripted action (posts, edits,
        concessions, restarts, kills, outages, moderators, a lock lifted), a player's next
        sign-up, the end of an outage, a nightly backup, and in the bot's database: a draft's
        publication (its review delay or a referee's claim), a relaunch deadline or its
        reminder, a pending notice's owl (:func:`forumbot.notify.outbox.owl_due_at`), a
        referee task old enough for the referees, a claimed draft the referee approves.
        Which one it was is counted in ``wakes`` (the summary's ``wake_*`` figures)."""
        world = self.world
        assert world.bot is not None
        storage, now = world.bot.storage, world.clock()
        due: list[tuple[float, str]] = [(now + MAX_STEP_S, "idle")]
        if world.timers:
            due.append((world.timers[0][0], "script"))
        if now < self.signups_end:
            live = live_players(storage)
            due += [(t, "signup") for name, t in self.next_signup.items() if name not in live]
        if world.outage is not None and world.outage.active:
            due.append((world.outage.until, "outage"))
        due += [(self._next_backup(), "backup"), (self.restore_at, "restore")]
        due += [(t, "claim") for t in self.referees.claimed.values()]
        for decl in storage.declarations(("draft", "approved", "publishing", "held"), None):
            if decl["status"] in ("approved", "publishing"):
                due.append((now, "approved"))
            elif decl["status"] == "draft":
                for key in ("publish_after", "claim_until"):
                    if decl.get(key):
                        due.append((epoch_of(str(decl[key])), "draft"))
            else:  # a held draft: the referees look again within an hour
                due.append((now + HOUR, "held"))
        for column in ("due_at", "remind_at"):
            row = storage.db.execute(
                f"select min({column}) from deadlines where status = 'pending' "
                f"and {column} > ?", [iso_of(now)]).fetchone()  # fmt: skip
            if row and row[0]:
                due.append((epoch_of(str(row[0])), "deadline"))
        due += [(t, "notice") for t in self._notices_due(now)]
        row = storage.db.execute(
            "select min(created_at) from referee_tasks where status = 'open'").fetchone()
        if row and row[0]:
            due.append((max(now + HOUR / 2, epoch_of(str(row[0])) + HOUR), "task"))
        at, why = min(due)
        self.wakes[why] += 1
        self.wake = why
        return max(now, at)

    def _notices_due(self, now: float) -> list[float]:
        """When the pending notices go out (owls: gathered per person; Apprise: at once)."""
        from forumbot.notify.outbox import owl_due_at
        from forumbot.notify.settings import notify_config

        assert self.world.bot is not None and self.world.config is not None
        storage = self.world.bot.storage
        rows = list(storage.db["notices"].rows_where("status in ('pending', 'batched')"))
        if not rows:
            return []
        cfg = notify_config(self.world.config)
        by_owl: dict[str, list[dict[str, object]]] = {}
        out = []
        for row in rows:
            if row["channel"] == "owl" and row["status"] == "pending":
                by_owl.setdefault(str(row["recipient"]), []).append(row)
            else:
                out.append(now)
        utc = self.world.clock.utc()
        for group in by_owl.values():
            out.append(owl_due_at(storage, cfg, group, utc).timestamp())  # type: ignore[arg-type]
        return out

    def _next_backup(self) -> float:
        """The next nightly backup (04:00 of the season's days, from the start's noon)."""
        now = self.world.clock()
        day = int((now - self.start) // DAY)
        at = self.start + day * DAY + 16 * HOUR  # (start 12:00) + 16 h = 04:00 next day
        return at if at > now else at + DAY

    def _nightly(self) -> None:
        """``forumbot run``'s nightly backup, once a day after 04:00; the restore when due."""
        world, now = self.world, self.world.clock()
        day = int((now - self.start - 16 * HOUR) // DAY)
        if day >= 0 and day != self.last_backup_day:
            self.last_backup_day = day
            world.nightly_backup()
        if now >= self.restore_at:
            self.restore_at = float("inf")
            world.restore_last_backup()
            self.poll_owed = True

    def _all_over(self) -> bool:
        assert self.world.bot is not None
        db = self.world.bot.storage.db
        live = db["queue"].count_where("status in ('queued', 'opening', 'running')")
        live += db["duo_matches"].count_where("status in ('queued', 'opening')")
        return not live and not self.world.bot.storage.duels("running")

    # -- disruptions -------------------------------------------------------------------------
    def _schedule_disruptions(self) -> None:
        """The season's disruptions as Poisson processes on the clock (rates per day):
        restarts 0.4, kills armed 3 (the kill happens at the 1st-4th client write after),
        outages 0.15 (10 min to 3 h), moderator actions 0.3 (lock or move a running duel's
        topic). Each event schedules the next one of its kind."""
        world, rng = self.world, self.rng

        def every(rate_per_day: float, action: Callable[[], object]) -> None:
            def fire() -> None:
                if self.world.clock() < self.signups_end or not self._all_over():
                    action()
                world.later(rng.expovariate(rate_per_day / DAY), fire)

            world.later(rng.expovariate(rate_per_day / DAY), fire)

        def arm() -> None:
            if world.crash.countdown is None:
                world.crash.arm(rng.randint(1, 4), rng.choice(("before", "after")))

        def outage() -> None:
            if world.outage is not None and not world.outage.active:
                world.outage.start(rng.uniform(10 * 60, 3 * HOUR))
                world.note("outage")

        def moderate() -> None:
            if self.moderators and self.duels:
                name, _, action = rng.choice(self.moderators)
                script = self.duels[rng.choice(sorted(self.duels))]
                self.count[f"moderator_{name}"] += 1
                self._owe(action(world, rng, script.topic_id))

        every(0.4, lambda: self._owe(world.restart()))
        if self.real_kills:  # their own draws: the season's other draws stay the same
            real = random.Random(self.world.seed * 15485863)
            for _ in range(self.real_kills):
                world.later(real.uniform(0.05, 0.95) * (self.signups_end - self.start),
                            lambda: self._real_kill(real, 48))  # fmt: skip
        every(3.0, arm)
        every(0.15, outage)
        every(0.3, moderate)

    def _real_kill(self, rng: random.Random, tries: int) -> None:
        """A real SIGKILL (:mod:`soak.real_kill`) once the bot has writes waiting (looked
        for every hour, ``tries`` times, then done idle)."""
        from soak.real_kill import run_real_kill, writes_waiting

        if tries > 0 and not writes_waiting(self.world):
            self.world.later(HOUR, lambda: self._real_kill(rng, tries - 1))
            return
        self._owe(run_real_kill(self.world, rng))

    def _owe(self, _done: object = None) -> None:
        """The script changed the board or the bot: the next cycle polls."""
        self.poll_owed = True

    # -- players -----------------------------------------------------------------------------
    def _observe(self) -> None:
        world = self.world
        assert world.bot is not None
        storage = world.bot.storage
        now = world.clock()
        live = live_players(storage)
        if now < self.signups_end:
            for player in self.players:
                if player.name not in live and now >= self.next_signup[player.name]:
                    self._sign_up(player, live)
        for duel in storage.duels("running"):
            duel_id = int(duel["id"])
            script = self.duels.setdefault(duel_id, DuelScript(duel_id, int(duel["topic_id"])))
            published = published_count(storage, duel_id)
            if published == 0 and not script.early:
                script.early = True
                if self.rng.random() < 0.12:  # a duellist posts before the top
                    self.count["before_top"] += 1
                    world.later(self.rng.uniform(60, 500), lambda d=duel_id: self._play(d, -2))
            if published > 0 and published != script.published:
                script.published = published
                self._schedule_turn(script, published)
        running = {int(d["id"]) for d in storage.duels("running")}
        for duel_id in list(self.duels):
            if duel_id not in running:
                self.duels.pop(duel_id)
                players = match_players(storage, duel_id) + [
                    p for row in storage.db["queue"].rows_where("duel_id = ?", [duel_id])
                    for p in (row["first_player"], row["second_player"])]  # fmt: skip
                for who in players:
                    if who in self.next_signup:
                        self.next_signup[who] = now + self.rng.uniform(2 * HOUR, 4 * DAY)

    def _sign_up(self, me: Player, live: dict[str, object]) -> None:
        rng, world, now = self.rng, self.world, self.world.clock()
        self.next_signup[me.name] = now + rng.uniform(2 * DAY, 5 * DAY)  # if nothing happens
        if rng.random() < 0.07:
            post_id = self._post(world.thread, me.name, invalid_signup_text(rng, me))
            self.invalid_posts[post_id] = (now, me.name)
            self.count["invalid_signup"] += 1
            self.next_signup[me.name] = now + rng.uniform(20 * 60, 3 * HOUR)  # the corrected one
            return
        if self.duo.wants():
            return self.duo.sign_up(me, self.players, live)
        partner = None
        if rng.random() < 0.35:
            free = [p for p in self.players if p.name != me.name and p.name not in live]
            busy = [p for p in self.players if p.name != me.name and p.name in live]
            pool = busy if busy and rng.random() < 0.1 else free
            partner = rng.choice(pool) if pool else None
        text = signup_text(rng, me, partner, rng.random() < 0.2)
        post_id = self._post(world.thread, me.name, text)
        self.named[post_id] = partner.name if partner else None
        self.asks.append(checks.Ask(now, me.name, partner.name if partner else None))
        self.count["signup"] += 1
        if partner is not None and partner.name not in live and rng.random() < 0.5:
            self.count["mutual"] += 1
            world.later(rng.uniform(5 * 60, 10 * HOUR), lambda: self._name_back(partner, me))
        if rng.random() < 0.04:
            self.count["withdrawal"] += 1
            world.later(rng.uniform(10 * 60, 6 * HOUR), lambda: self._withdraw(me))

    def _name_back(self, me: Player, partner: Player) -> None:
        post_id = self._post(self.world.thread, me.name, signup_text(self.rng, me, partner, False))
        self.named[post_id] = partner.name
        self.asks.append(checks.Ask(self.world.clock(), me.name, partner.name))
        self.next_signup[me.name] = self.world.clock() + self.rng.uniform(2 * DAY, 5 * DAY)

    def _withdraw(self, me: Player) -> None:
        post_id = self._post(self.world.thread, me.name, self.rng.choice(WITHDRAWALS))
        self.withdrawn.append(checks.Ask(self.world.clock(), me.name, None))
        self.withdrawal_posts.append(post_id)

    def _read_from_profile(self) -> list[checks.Ask]:
        """The sign-ups without a year that the desk read with the author's recorded profile
        (accepted: an open request, :func:`forumbot.club.signup_checks.from_profile`)."""
        assert self.world.bot is not None
        db = self.world.bot.storage.db
        ids = ",".join(map(str, self.invalid_posts)) or "0"
        return [checks.Ask(*self.invalid_posts[int(r["post_id"])], None)
                for r in db["registration_posts"].rows_where(
                    f"post_id in ({ids}) and status = 'accepted'")]  # fmt: skip

    def withdrawals(self) -> dict[str, object]:
        """How the desk read the withdrawals (``registration_posts`` code per post) and how
        many withdrawn players were paired afterwards (the desk has no withdrawal: a
        finding, not an invariant)."""
        assert self.world.bot is not None
        db = self.world.bot.storage.db
        codes = Counter(
            f"{r['status']}:{r['code']}" for r in db["registration_posts"].rows_where(
                f"post_id in ({','.join(map(str, self.withdrawal_posts)) or '0'})")
        )  # fmt: skip
        paired = 0
        for ask in self.withdrawn:
            paired += db["queue"].count_where(
                "(first_player = ? or second_player = ?) and created_at > ?",
                [ask.player, ask.player, iso_of(ask.at)],
            )
        return {"withdrawal_read": "+".join(f"{k}*{n}" for k, n in sorted(codes.items())),
                "paired_after_withdrawal": paired}  # fmt: skip

    def _post(self, topic_id: int, who: str, text: str) -> int:
        self.last_post_at = self.world.clock()
        self.poll_owed = True
        return int(self.world.board.post_reply(topic_id, who, text))

    # -- duels -------------------------------------------------------------------------------
    def _schedule_turn(self, script: DuelScript, published: int) -> None:
        rng, world = self.rng, self.world
        if script.silent:
            script.silent = False  # back after the relaunch
        elif rng.random() < 0.07:
            script.silent = True  # nobody posts: the 36 h deadline passes
            self.count["silent"] += 1
            # ... unless the bot says nothing for days: then the player comes back anyway
            world.later(rng.uniform(40, 80) * HOUR, lambda: self._play(script.duel_id, published))
            return
        if rng.random() < 0.015:
            self.count["concession"] += 1
            world.later(rng.uniform(HOUR, DAY), lambda: self._concede(script.duel_id))
            return
        delay = rng.uniform(10 * 60, 3 * HOUR) if rng.random() < 0.7 else rng.uniform(3, 30) * HOUR
        world.later(delay, lambda: self._play(script.duel_id, published))

    def _play(self, duel_id: int, published: int) -> None:
        world = self.world
        assert world.bot is not None
        storage = world.bot.storage
        duel = storage.duel(duel_id)
        now_published = published_count(storage, duel_id)
        if duel["status"] != "running" or (published >= 0 and now_published != published):
            return
        if self._conceded_on_board(int(duel["topic_id"])):
            return  # the players read the board: a restored database may not know it yet
        if self.duo.is_duo(duel_id):
            return self.duo.play(duel_id, published, self._late_edit)
        state = DuelState.from_dict(json.loads(duel["state_json"]))
        post = next_post(self.rs, state, self.rng)
        them = next(d.name for d in state.duellists if d.name != post.duellist)
        text = duel_text(self.rng, post, them)
        post_id = self._post(int(duel["topic_id"]), post.duellist, text)
        self.posts += 1
        if self.rng.random() < 0.04 and BOLD_RE.search(text):  # a late edit of the spell
            self.count["late_edit"] += 1
            other = self.rng.choice([s.name for s in self.rs.spells])
            edited = BOLD_RE.sub(f"[b]{other}[/b]", text)
            self._late_edit(post_id, edited, post.duellist)

    def _late_edit(self, post_id: int, edited: str, who: str) -> None:
        self.world.later(self.rng.uniform(20 * 60, 8 * HOUR), lambda: self._owe(
            self.world.board.edit_post(post_id, edited, by=who)))  # fmt: skip

    def _conceded_on_board(self, topic_id: int) -> bool:
        """True when the topic holds the bot's concession post (the duel is over for the
        players whatever the bot's database says)."""
        bot_id = self.world.board.user_id(BOT)
        return any(p.poster_id == bot_id and "-concession·" in p.text
                   for p in self.world.board.posts(topic_id))  # fmt: skip

    def _concede(self, duel_id: int) -> None:
        assert self.world.bot is not None
        storage = self.world.bot.storage
        duel = storage.duel(duel_id)
        if duel["status"] != "running":
            return
        names = [str(d["name"]) for d in storage.duellists(duel_id)]
        self.poll_owed = True
        try:
            concede_duel(storage, duel_id, self.rng.choice(names), REFEREE, self.world.clock.utc())
        except EndingError:
            self.count["concession_refused"] += 1

    # -- the end -----------------------------------------------------------------------------
    def summary(self) -> Summary:
        """Check the invariants and count."""
        world = self.world
        assert world.bot is not None
        storage = world.bot.storage
        violations = list(self.live_violations)
        violations += checks.asked_for(world, self.asks + self._read_from_profile())
        violations += checks.exactly_once(world)
        violations += checks.owls_per_duel(world)
        violations += checks.no_post_lost(world)
        violations += checks.duels_end(world)
        violations += checks.notices_once(world)
        violations += checks.notices_delivered_once(world)
        violations += checks.leaderboard(world)
        violations += checks.refusals_real(world, self.invalid_posts, self.named)
        violations += checks_duo.duos_asked_for(world, self.duo.asks)
        violations += checks_duo.duo_leaderboard(world)
        violations += checks_duo.duo_refusals_real(world, self.duo.named)
        _, pms = checks.marker_counts(world)
        notices = checks.notice_counts(world)
        statuses = Counter(str(d["status"]) for d in storage.duels())
        summary = Summary(
            seed=world.seed,
            duels=len(storage.duels()),
            posts=self.posts + self.duo.posts,
            owls=sum(pms.values()),
            notices=sum(world.deliveries.values()),
            restarts=world.restarts,
            kills=world.kills,
            restores=world.restores,
            outages=world.outage.count if world.outage else 0,
            violations=violations,
        )
        summary.extra = {
            "finished": statuses.get("finished", 0),
            "duels_2v2": storage.db["duo_duels"].count,
            "notices_dropped": notices.get("dropped", 0),
            "notices_failed": notices.get("failed", 0),
            "moderators": ",".join(n for n, _, _ in self.moderators) or "none",
            "days": round((world.clock() - self.start) / DAY, 1),
            "cycles": self.cycles,
        }
        if world.real_kills:
            summary.extra["real_kills"] = "+".join(
                f"{how}*{n}" for how, n in sorted(world.real_kills.items()))  # fmt: skip
        if self.withdrawn:
            summary.extra.update(self.withdrawals())
        return summary


def run_seed(
    seed: int,
    players: int = 40,
    weeks: float = 8,
    folder: Path | None = None,
    progress: Callable[[str], None] | None = None,
    drain_days: float = 28.0,
    http: bool = False,
    real_kills: int = 0,
    duo_share: float = DUO_SHARE,
) -> Summary:
    """Play one seeded season; returns its :class:`Summary` (violations listed in it).
    ``http``: the bot talks to the board over a real socket (:func:`soak.world.make_world`);
    ``real_kills``: that many real bot processes SIGKILLed during the sign-up weeks
    (:mod:`soak.real_kill`; the board is then served on 127.0.0.1 too); ``duo_share``: the
    share of sign-ups posted in the 2v2 thread (:mod:`soak.duos`)."""
    rng = random.Random(seed)
    cast = make_players(players, rng)
    where = folder or Path(tempfile.mkdtemp(prefix=f"forumbot-soak-{seed}-"))
    world = make_world(seed, where, [p.name for p in cast], http=http, serve=real_kills > 0)
    try:
        season = Season(world, cast, rng, weeks, drain_days)
        season.progress, season.real_kills = progress, real_kills
        season.duo.share = duo_share
        season.run()
        summary = season.summary()
        summary.extra.update(
            {k: v for k, v in sorted((season.count + season.duo.count).items())}
            | {f"ref_{k}": v for k, v in sorted(season.referees.did.items())}
            | {f"wake_{k}": v for k, v in sorted(season.wakes.items())}
        )
        return summary
    finally:
        world.close()
