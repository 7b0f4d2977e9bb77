"""One bad notice item never stops the others, and is reported once (issue 23).

A row the scanner cannot turn into a notice (a referee task whose ``duel_id`` is garbage, a
declaration without a duel) or a notice that cannot be written (its subject unreadable, its
template failing) is skipped; :func:`report_once` says so **once**, however many passes meet
it again: one error line in the log, one audit row (``notice.broken``, target
``notice-item:<key>``), and, when the item is something a person must act on that nobody
would otherwise see (a draft, a violation: ``needs_task``), one ``referee_tasks`` row (kind
``notice_failed``, for the duel's referees or the admins when its duel is unknown). The
memory is the ``notify_state`` row ``broken:<key>`` (the scanner's own key-value table), so a
restart does not repeat it.
"""

from __future__ import annotations

import logging
from datetime import datetime

from forumbot.publish.labels import slug
from forumbot.storage import Storage, iso

log = logging.getLogger("forumbot.notify")

TASK_KIND = "notice_failed"


def _int_or_none(value: object) -> int | None:
    try:
        return int(value)  # type: ignore[call-overload, no-any-return]
    except (TypeError, ValueError):
        return None


def report_once(
    storage: Storage,
    key: str,
    error: BaseException | str,
    now: datetime,
    *,
    duel_id: object = None,
    needs_task: bool = False,
) -> bool:
    """Report the bad item ``key`` (e.g. ``referee_task:7``) unless it was already reported.
    Commits. Returns True when it was reported now.

    ``duel_id`` (any value; kept only when it is a whole number): the duel a referee task is
    raised for (``needs_task``); None -> the admins see it.
    """
    name = f"broken:{key}"
    text = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    if storage.notices.state(name) is not None:
        return False
    duel = _int_or_none(duel_id)
    with storage.atomic():
        storage.notices.insert_state(name, text[:500])
        storage.audit(
            "forumbot", "notice.broken", f"notice-item:{key}", None, {"error": text[:500]}, now
        )
        if needs_task:
            storage.notices.open_task_once(
                duel,
                TASK_KIND,
                f"notice-broken-{key}",
                f"Notification impossible : {key}",
                "Le bot n'a pas pu préparer la notification de cet élément : "
                "regardez-le sur la page de relecture.",
                iso(now),
                "Erreur technique : le détail est dans le journal du bot "
                "(« cannot be notified ») et l'historique (notice.broken).",
            )
    log.error("notify: %s cannot be notified (%s); skipped, the others go on", key, text)
    return True


OWL_TASK_KIND = "owl_refused"
"""The kind of the task :func:`report_failed_owl` opens (the kind of a duel's refused owl,
:mod:`forumbot.publish.owls`)."""


def report_failed_owl(
    storage: Storage, username: str, account: str, reason: str, now: datetime
) -> bool:
    """Open one referee task (kind :data:`OWL_TASK_KIND`, no duel: the admins see it) for the
    notice owls to ``username`` that the board refused for good (``reason``: the owl's
    ``last_error``, e.g. an account the board does not have): it names the board account
    ``account`` and how to change it (newcomer check s4, W7). Once per person and account,
    however many of their owls fail: a person whose account is fixed and fails again under
    another name gets a new one. Nothing is sent again. Commits. Returns True when the task
    is new."""
    key = f"notice-owl-failed-{slug(username)}-{slug(account)}"
    if storage.notices.state(f"broken:{key}") is not None:
        return False
    quoted = " ".join(str(reason or "").split())[:400]
    with storage.atomic():
        storage.notices.insert_state(f"broken:{key}", quoted)
        storage.notices.open_task_once(
            None,
            OWL_TASK_KIND,
            key,
            f"Hibou refusé par le forum : {account}",
            f"FR : le forum a refusé les hiboux de notification pour {username}, envoyés au "
            f"compte du forum « {account} » : « {quoted} ». Ces notifications sont perdues "
            "(aucune n'est renvoyée). Si ce compte n'existe pas sur le forum, donnez le bon : "
            f'forumbot users notify {username} --forum-name "NOM SUR LE FORUM".\n'
            f'EN: the board refused the notice owls for {username}, sent to the board account '
            f'"{account}": "{quoted}". These notices are lost (none is sent again). If that '
            "account does not exist on the board, name the right one: forumbot users notify "
            f'{username} --forum-name "BOARD NAME".',
            iso(now),
            "",
        )
    log.error(
        "notify: owls to %s (board account %s) refused by the board (%s); referee task opened",
        username, account, quoted,
    )  # fmt: skip
    return True


__all__ = ["OWL_TASK_KIND", "TASK_KIND", "report_failed_owl", "report_once"]
