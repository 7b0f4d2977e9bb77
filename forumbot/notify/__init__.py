"""Notices to referees and admins (issue 18): something waits for them, they are told.

The room:

- :mod:`forumbot.notify.settings`: the ``[notify]`` table (Apprise URLs per role and person,
  secrets from the environment or a file), each person's channels and quiet hours;
- :mod:`forumbot.notify.scan`: finds what started waiting (drafts created or held, violations
  to judge, 2v2 referee tasks) and queues notices, without touching the referee;
- :mod:`forumbot.notify.outbox`: who is told; the ``notices`` outbox, sent exactly once (owls
  gathered per person through :mod:`forumbot.publish.owls`, other channels through Apprise);
- :mod:`forumbot.notify.items`: what one notice says, read again when it is sent;
- :mod:`forumbot.notify.faults`: one bad item never stops the others, and is reported once;
- :mod:`forumbot.notify.claims`: « je m'en occupe »: a taken draft does not publish by itself;
- :mod:`forumbot.notify.job`: the scheduler's notify pass (scan, then send).

Texts are French templates: ``forumbot/publish/templates/fr/notice_*.j2``; reason codes and
turns in French: :mod:`forumbot.publish.reasons`.
"""
