"""``python -m forumbot``: same as the ``forumbot`` command."""

from forumbot.cli import main

main()
