"""Running the bot unattended: the scheduler, health, ``doctor``, backup and restore, JSON logs
and the dry run (``check``). See docs/architecture.md."""
