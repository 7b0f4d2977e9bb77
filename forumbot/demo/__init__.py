"""The demos: scripted duellists play on the bundled sandbox board while the real bot referees
(:mod:`forumbot.demo.classic` for 1v1, :mod:`forumbot.demo.duo` for 2v2)."""
