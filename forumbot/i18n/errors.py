"""The library's English error messages the staff's catalogue translates (issue 25).

The CLI and the review page show a library's error (a refused configuration, a draft that can
no longer change) inside their own sentence; :func:`forumbot.i18n.translate_detail` translates
it when it matches one of these messages (``%s`` standing for the value the library puts
there), and the CLI writes the whole error in English when none matches, so one error never
mixes two languages. Listed here so that ``pybabel extract`` keeps them in the catalogue
(``msgctxt "error"``); each must read exactly as the library writes it.
"""

from __future__ import annotations

from forumbot.i18n import C_

LIBRARY_ERRORS = (
    # rules.balance.simulate.per_cell (forumbot simulate --duels too few for the table)
    C_("error", "at least %s duels (one per pair of %s)"),
    C_("error", "cannot read configuration %s: %s"),
    C_("error", "No such file or directory"),
    C_("error", "Permission denied"),
    C_("error", "Is a directory"),
    C_("error", "no declaration %s"),
    C_("error", "declaration %s is %s: it can no longer change"),
    C_("error", "the text cannot be empty"),
    C_("error", "not a number or true/false: %s"),
    C_("error", "only turn declarations carry computed numbers"),
    C_("error", "unknown draft status %s"),
    C_("error", "a cancellation needs a reason (--reason)"),
    C_("error", "no duel %s"),
    C_("error", "duel %s is %s: nothing to cancel"),
    C_("error", "dropping a draft needs a reason (--reason)"),
    C_("error", "declaration %s is %s: only an unpublished draft can be dropped"),
    C_("error", "declaration %s already waits to be drafted again"),
    C_("error", "duel %s is %s: nothing to draft"),
    C_("error", "duel %s is %s: nothing to resume"),
    C_("error", "duel %s is %s: nobody can concede it"),
    C_("error", "duel %s: a concession already waits for its publication"),
    C_("error", "nothing to correct: give --set or --text-file"),
    C_("error", "turn %s: already so, nothing to correct"),
    C_("error", "declaration %s changed meanwhile (version %s, form had %s): reload it"),
    C_("error", "declaration %s has no violation %s of %s: nothing to waive"),
    C_("error", "declaration %s: %s is not waived, nothing to restore"),
    C_(
        "error",
        "no password: set the environment variable %s (bot.password_env) or bot.password_file",
    ),
    C_("error", "cannot read bot.password_file %s: %s"),
    # forumbot.duels.adoption.UnknownName.describe (duels adopt)
    C_("error", "no member named %s on the board"),
    C_("error", "no member named %s on the board (did you mean %s?)"),
    C_("error", "the board did not say whether %s is a member"),
    C_("error", "the board did not say whether %s is a member (did you mean %s?)"),
    # forumbot.duels.overrides.TextContradicts (drafts edit --text-file) and its differences
    # (forumbot.duels.text_figures.Difference.describe; also the --force warning)
    C_(
        "error",
        "declaration %s: the new text contradicts the draft's numbers (%s); set the numbers "
        "first (--set), or keep the text as written with --force",
    ),
    C_(
        "error",
        "declaration %s: the new text contradicts the draft's numbers (%s); an opening's "
        "numbers cannot be set: only --force keeps the text as written, and the duel keeps "
        "counting from the computed points",
    ),
    C_("error", "%s's total: the text says %s, the draft %s"),
    C_("error", "post %s's %s die: the text says %s, the draft %s"),
    # forumbot.web.users.UserError, forumbot.notify.settings.NotifyConfigError (users ...)
    C_("error", "no user '%s'"),
    # rules.override_keys (drafts edit --set / --waive, the review page): a key or name that
    # names nothing, with the closest one (newcomer6 W4), and the engines' other refusals
    C_(
        "error",
        "referee.override: unknown override key %s: no duellist %s (did you mean %s?); the "
        "duellists: %s",
    ),
    C_("error", "referee.override: unknown override key %s: no duellist %s; the duellists: %s"),
    C_(
        "error",
        "referee.override: unknown override key %s: no duellist or creature %s (did you mean "
        "%s?); the duellists and creatures: %s",
    ),
    C_(
        "error",
        "referee.override: unknown override key %s: no duellist or creature %s; the duellists "
        "and creatures: %s",
    ),
    C_(
        "error",
        "referee.override: unknown override key %s: no field %s (did you mean %s?); the "
        "fields: %s",
    ),
    C_("error", "referee.override: unknown override key %s: no field %s; the fields: %s"),
    C_(
        "error",
        "referee.override: unknown override key %s: write '<duellist>.<field>'; the "
        "duellists: %s",
    ),
    C_(
        "error",
        "referee.override: unknown override key %s: write '<duellist or creature>.<field>'; "
        "the duellists and creatures: %s",
    ),
    C_("error", "referee.override: %s must be true or false, got %s"),
    C_("error", "referee.override: %s must be an integer, got %s"),
    C_("error", "referee.override: %s cannot be negative, got %s"),
    C_("error", "referee.waive: no duellist named %s"),
    C_("error", "referee.waive: no duellist named %s (did you mean %s?)"),
    C_("error", "referee.confirm: no duellist named %s"),
    C_("error", "referee.confirm: no duellist named %s (did you mean %s?)"),
    # forumbot.duels.overrides.TEXT_RERENDERED (a warning of drafts edit --set / --waive)
    C_(
        "error",
        "the text had been edited by hand: it was rendered again from the template so that "
        "it states the new numbers (the hand-edited text is in the audit log)",
    ),
)
"""The messages, in English, as the library writes them."""
