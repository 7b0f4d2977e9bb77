"""The example file ``forumbot init`` writes, rendered from the schema (one comment per setting)."""

from __future__ import annotations

import textwrap
from typing import Any

from forumbot.config.schema import LIST_SECTIONS, ConfigFile, section_model

# ---------------------------------------------------------------------------------------
# The example file, written from the schema
# ---------------------------------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        return f'"{escaped}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def _comment(text: str, prefix: str = "# ") -> list[str]:
    return textwrap.wrap(
        text, width=92, initial_indent=prefix, subsequent_indent=prefix, break_on_hyphens=False
    )


def _render_example() -> str:
    lines = ["# forumbot configuration. Every setting has a comment; units are in the names."]
    for section, section_info in ConfigFile.model_fields.items():
        model = section_model(section)
        is_list = section in LIST_SECTIONS
        extra = section_info.json_schema_extra
        commented = isinstance(extra, dict) and bool(extra.get("commented"))
        lines.append("")
        if section_info.description:
            lines.extend(_comment(section_info.description))
        header = f"[[{section}]]" if is_list else f"[{section}]"
        lead = "# " if commented else ""
        lines.append(lead + header)
        for key, info in model.model_fields.items():
            meta = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
            example = meta.get("example")
            value = example if example is not None else info.default
            lines.extend(_comment(info.description or "", prefix=lead + "# "))
            lines.append(f"{lead}{key} = {_toml_value(value)}")
    lines.extend(NOTIFY_EXAMPLE.splitlines())
    return "\n".join(lines) + "\n"


NOTIFY_EXAMPLE = """
# Telling referees and admins that something waits for them (issue 18; checked by
# forumbot.notify.settings). By default each referee gets an owl (a private message on the
# board) at the next pass; what comes within owl_gather_s of it is gathered into the next owl,
# which always goes before a draft publishes by itself. Apprise channels (Discord, e-mail,
# Matrix, ntfy, Telegram...) are read from an environment variable or a file, never from
# this file.
# [notify]
# The review page's address, for the links in each notice.
# review_url = "https://arbitres.monforum.example"
# Seconds: items coming this soon after a person's last owl are gathered into the next one...
# owl_gather_s = 900
# ...which goes this many seconds before one of its drafts publishes by itself, if earlier.
# owl_lead_s = 120
# Seconds a draft taken by a referee (« je m'en occupe ») waits before it publishes by itself
# (at most 86400).
# claim_limit_s = 7200
# Seconds all the takes of one draft hold it back together, from its first take, however often
# renewed (at most 172800).
# claim_total_s = 14400
# Tries of an Apprise notice before it is marked failed.
# max_attempts = 5
# Channels of a person who set none: "owl" and/or "apprise".
# default_channels = ["owl", "apprise"]
# Apprise URLs of a role ("referee" or "admin") or of one person, from a variable or a file.
# [notify.referee]
# urls_env = "FORUMBOT_NOTIFY_REFEREE"
# [notify.admin]
# urls_file = "/etc/forumbot/notify-admin.urls"
# [notify.people.rita]
# urls_env = "FORUMBOT_NOTIFY_RITA"
"""
"""The commented ``[notify]`` block of the example file (its keys are parsed by
:func:`forumbot.notify.settings.parse_notify`, not by the schema)."""


EXAMPLE_CONFIG = _render_example()
"""What ``forumbot init`` writes: every setting of the schema with its help as a comment
(written from the declarations above, so it cannot miss one)."""
