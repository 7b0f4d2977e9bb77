"""The review web app's routes, one module per area (the app itself: :mod:`forumbot.web.app`).

- :mod:`~forumbot.web.routes.common`: shared dependencies, renderer, guards, error page.
- :mod:`~forumbot.web.routes.login`: log in / out.
- :mod:`~forumbot.web.routes.drafts`: the draft queue and one draft's changes.
- :mod:`~forumbot.web.routes.duels`: duels, points chart, referees.
- :mod:`~forumbot.web.routes.violations`: violations, CSV, decisions.
- :mod:`~forumbot.web.routes.tasks`: referee tasks.
- :mod:`~forumbot.web.routes.notify`: my notice settings.
"""
