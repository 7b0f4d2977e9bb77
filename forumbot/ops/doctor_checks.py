"""The record of one ``doctor`` finding (:class:`Check`) and its builder :func:`_check`, shared
by :mod:`forumbot.ops.doctor`, :mod:`forumbot.ops.doctor_folders` and
:mod:`forumbot.ops.doctor_all` (each a module of its own under the 600-line bound)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from forumbot.i18n import Plural

CheckStatus = Literal["ok", "warn", "fail", "skip"]
"""A check's outcome (:attr:`Check.status`)."""


@dataclass(frozen=True)
class Check:
    """One doctor finding.

    Attributes:
        name: short key (``config``, ``password``, ``board``, ``login``, ``forum 3``,
            ``database``, ``migrations``, ``filesystem``, ``clock``).
        status: ``ok``; ``warn`` (works, but look at it); ``fail`` (the bot cannot run
            unattended as is); ``skip`` (not checked: offline, or an earlier check failed).
        detail: one English line for the operator.
        message: ``detail``'s English template (``%s`` placeholders), marked for the staff's
            catalogue (:mod:`forumbot.i18n`), or ``""`` when the detail is a library's text
            only; args: the values filling it (an exception stands for a library's English
            text, translated only when the catalogue knows it).
        alone: the sentence said without the library's texts (``%s`` filled by
            ``alone_args``), for a staff's language whose catalogue does not know them: the
            CLI prints it, then the library's texts as a quoted technical detail (« détail
            technique : « … » »), so one report speaks one language (issue 25); ``""`` when
            no arg is an exception.
        alone_args: the values filling ``alone``.
    """

    name: str
    status: CheckStatus
    detail: str
    message: str = ""
    args: tuple[object, ...] = ()
    alone: str = ""
    alone_args: tuple[object, ...] = ()

    @property
    def library_texts(self) -> tuple[str, ...]:
        """The args that are a library's English text (exceptions), as strings."""
        return tuple(str(a) for a in self.args if isinstance(a, BaseException))

    @property
    def failed(self) -> bool:
        """True when the status is ``fail``."""
        return self.status == "fail"


class Text(Exception):
    """A library's English text put in a check's message (a validation problem): the staff's
    language shows it only when the catalogue knows it (:func:`forumbot.i18n.translate_detail`)."""


def _check(
    name: str,
    status: CheckStatus,
    message: str,
    *args: object,
    alone: str = "",
    alone_args: tuple[object, ...] | None = None,
) -> Check:
    """A :class:`Check` whose English ``detail`` is ``message % args``; ``alone`` is the
    sentence without the library's texts (:attr:`Check.alone`), filled by ``alone_args``
    (default: the args that are not exceptions, in order).

    Raises:
        ValueError: an arg is an exception (a library's text) and ``alone`` is not given.
    """
    if not alone and any(isinstance(a, BaseException) for a in args):
        raise ValueError(f"check {name!r}: a library's text needs the sentence said without it")
    if alone_args is None:
        alone_args = tuple(a for a in args if not isinstance(a, BaseException))
    english = message.english() if isinstance(message, Plural) else message  # « 1 topic »
    detail = english % args if args else english
    return Check(name, status, detail, message, args, alone, alone_args)
