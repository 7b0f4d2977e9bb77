"""A referee's everyday `drafts edit` refusals read in French on a French board (newcomer check
after issue 25: they printed whole in English, never mixed, but English)."""

from __future__ import annotations

from forumbot.i18n import translate_detail


def test_the_override_refusals_are_in_the_catalogue() -> None:
    assert translate_detail(
        "fr", "declaration 4 changed meanwhile (version 3, form had 2): reload it"
    ) == "la déclaration 4 a changé entre-temps (version 3, le formulaire avait la version 2) : rechargez-la"  # noqa: E501
    assert translate_detail(
        "fr", "declaration 4 has no violation 'late_edit' of 'Aurora Vexley': nothing to waive"
    ) == "la déclaration 4 n'a pas d'infraction 'late_edit' de 'Aurora Vexley', rien à lever"
    english = "declaration 4: X:late_edit is not waived, nothing to restore"
    assert translate_detail("en", english) == english
