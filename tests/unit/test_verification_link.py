"""Issue 25: posts to players name « l'outil de vérification du club », never a command, and
link it to the page that tells them how to check the dice (``club.verify_docs_url``)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

from jinja2 import TemplateNotFound

from forumbot.config import load_config
from forumbot.duels.flow import FlowContext, FlowSettings
from forumbot.publish.render import VERIFICATION_TOOL, VERIFICATION_UNLINKED, make_environment

DOCS = "https://forumbot.example/docs/verification.md"


def test_the_tool_is_linked_when_the_club_gives_the_page() -> None:
    env = make_environment("fr")
    template = env.from_string("à partir de la graine avec {{ verification_tool() }}.")
    assert template.render(verify_docs_url=DOCS) == (
        f"à partir de la graine avec [url={DOCS}]{VERIFICATION_TOOL}[/url]."
    )
    assert template.render() == (
        f"à partir de la graine avec {VERIFICATION_TOOL}{VERIFICATION_UNLINKED}."
    )
    # not a link that could break the BBCode, nor another scheme
    assert "[url" not in template.render(verify_docs_url="javascript:alert(1)")
    assert "[url" not in template.render(verify_docs_url="https://x.example/a]b")


def test_the_setting_reaches_the_flows(tmp_path: Path) -> None:
    path = tmp_path / "forumbot.toml"
    path.write_text(
        f'[board]\nurl = "http://127.0.0.1:9"\n[bot]\nusername = "Hibou"\n'
        f'[club]\nverify_docs_url = "{DOCS}"\n',
        encoding="utf-8",
    )
    path.chmod(0o600)
    assert load_config(path).verify_docs_url == DOCS
    assert FlowSettings(board_id=1, platform="phpbb3").verify_docs_url == ""
    # a flow's render gives it to every template (the duel's last declaration reveals the seed)
    settings = FlowSettings(board_id=1, platform="phpbb3", verify_docs_url=DOCS)
    flow = SimpleNamespace(settings=settings, now=lambda: datetime(2026, 12, 2, tzinfo=UTC))
    context: dict[str, object] = {}
    try:
        FlowContext.render(flow, "no_such_template.bbcode.j2", context)  # type: ignore[arg-type]
    except TemplateNotFound:
        pass
    assert context["verify_docs_url"] == DOCS
