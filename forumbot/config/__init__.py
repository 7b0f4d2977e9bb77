"""The bot's configuration: one TOML file (``forumbot init`` writes a commented example).

Every setting is declared once, in the schema below (pydantic v2 models, one per TOML
section): its type, default, bounds, unit (also in the name: ``poll_interval_s``,
``review_delay_s``) and help text. The same declarations

- parse the file, refusing an unknown key or section with the closest valid name
  (``unknown setting club.review_delay; did you mean club.review_delay_s?``);
- write the example file (:data:`EXAMPLE_CONFIG`, one comment per setting);
- give the defaults of the flat :class:`Config` the rest of the code reads.

What the schema cannot see (a ruleset that does not exist, an unknown timezone, a URL without
scheme) is checked by :func:`forumbot.ops.validate.config_problems`, which ``doctor``,
``check`` and ``run`` all call.

The bot account's password is never stored in the file: it comes from the environment
variable named by ``bot.password_env`` or from ``bot.password_file`` (a file readable only by
the service user).

Errors: :class:`ConfigError` (one line naming the setting) for everything here.
"""

from forumbot.config.errors import ConfigError, ReviewDelay
from forumbot.config.example import EXAMPLE_CONFIG
from forumbot.config.loading import load_config, parse_config
from forumbot.config.model import (
    FLAT_SETTINGS,
    VERIFICATION_PATH,
    Config,
    Registration,
    WatchedForum,
    check_config_file,
    check_secret_file,
    refuse_writable_by_others,
)
from forumbot.config.schema import MAX_CONCURRENT_BY_KIND, SettingInfo, settings

__all__ = [
    "EXAMPLE_CONFIG",
    "FLAT_SETTINGS",
    "MAX_CONCURRENT_BY_KIND",
    "Config",
    "ConfigError",
    "Registration",
    "ReviewDelay",
    "SettingInfo",
    "VERIFICATION_PATH",
    "WatchedForum",
    "check_config_file",
    "check_secret_file",
    "load_config",
    "parse_config",
    "refuse_writable_by_others",
    "settings",
]
