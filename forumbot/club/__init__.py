"""The duelling club: sign-ups (1v1 and 2v2 desks), the leaderboard and rewards, the club's own
posts and the bot's PM inbox. See docs/architecture.md.

- :mod:`~forumbot.club.jobs`: :func:`~forumbot.club.jobs.build_club`, the club's after-poll work
  wired once at bootstrap.
- :mod:`~forumbot.club.registrations`: the desk's cycle and the kind -> desk registry
  (``KIND_HANDLERS``); :mod:`~forumbot.club.solo_registrations` (1v1) and
  :mod:`~forumbot.club.duo_registrations` (2v2) are the two desks, which share
  :mod:`~forumbot.club.context`, :mod:`~forumbot.club.profiles`,
  :mod:`~forumbot.club.engagements`, :mod:`~forumbot.club.replies` and
  :mod:`~forumbot.club.topics` and import neither each other nor the cycle.
- :mod:`~forumbot.club.opening` opens a 1v1 duel (topic, duel, magic-type owls);
  :mod:`~forumbot.club.settling` and :mod:`~forumbot.club.duo_settling` settle finished duels.
- :mod:`~forumbot.club.leaderboard`, :mod:`~forumbot.club.posts`, :mod:`~forumbot.club.inbox`.
"""
