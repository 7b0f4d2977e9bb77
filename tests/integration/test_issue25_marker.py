"""Issue 25, the marker: discreet on each platform ([size] is a percentage on phpBB, pixels on
Forumactif, where [size=70] printed it 70 px high), and still found where the bot looks: the
post's rendered HTML and text (``find_marker``) and its BBCode source (quote and edit forms).
Both sandbox flavours, with the real clients."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from forumbot.forums.forumactif import ForumactifClient
from forumbot.forums.phpbb import PhpbbClient
from forumbot.publish.render import MARKER_STYLES, client_platform, marker_line, marker_text
from forumbot.sandbox import SandboxBoard
from forumbot.sandbox.forumactif import ForumactifSandbox

KEY = "b1t3-opening"


class Clock:
    """Epoch seconds that move only when someone sleeps."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC).timestamp()

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def aware(self) -> datetime:
        return datetime.fromtimestamp(self.now, UTC)


def test_marker_line_per_platform() -> None:
    assert marker_line(KEY, "phpbb3") == (
        "\n[size=50][color=#B4C0CA]forumbot·b1t3-opening·[/color][/size]"
    )
    size, color = MARKER_STYLES["forumactif"]
    assert size < 12 and marker_line(KEY, "forumactif") == (
        f"\n[size={size}][color={color}]forumbot·b1t3-opening·[/color][/size]"
    )
    assert "[size=70]" not in marker_line(KEY, "forumactif")
    assert marker_line(KEY, "unknown") == marker_line(KEY, "phpbb3")
    assert client_platform(object()) == "phpbb3"


@pytest.fixture
def phpbb() -> Iterator[tuple[SandboxBoard, PhpbbClient]]:
    clock = Clock()
    board = SandboxBoard(clock=clock, flood_interval_s=0)
    board.add_user("Hibou", "pw-h", ignore_flood=True)
    board.add_user("Arbitre", "a")
    board.start()
    yield board, PhpbbClient(board.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock)
    board.stop()


@pytest.fixture(params=["prosilver", "awesomebb"])
def forumactif(
    request: pytest.FixtureRequest,
) -> Iterator[tuple[ForumactifSandbox, ForumactifClient]]:
    clock = Clock()
    board = ForumactifSandbox(version=request.param, clock=clock, flood_interval_s=0.0, seed=3)
    board.add_user("Hibou", "hibou-pw")
    board.add_user("Arbitre", "arbitre-pw", level=1)
    board.start()
    client = ForumactifClient(
        board.base_url, "Hibou", "hibou-pw", sleep=clock.sleep, clock=clock, now=clock.aware,
        flood_interval_s=0.0, timeout_s=5.0,
    )  # fmt: skip
    yield board, client
    board.stop()


def _publish(board: SandboxBoard | ForumactifSandbox, client: PhpbbClient | ForumactifClient,
             ) -> tuple[int, int]:  # fmt: skip
    topic = board.create_topic(3 if isinstance(board, SandboxBoard) else 2, "Arbitre",
                               "Duel : Aurora contre Cassius", "Ouverture")  # fmt: skip
    message = "Déclaration de l'arbitre." + marker_line(KEY, client_platform(client))
    return topic, client.reply(topic, message, marker_text(KEY))


def test_phpbb_marker_is_very_small_light_and_found(
    phpbb: tuple[SandboxBoard, PhpbbClient],
) -> None:
    board, client = phpbb
    topic, post_id = _publish(board, client)
    post = next(p for p in client.read_topic(topic, None) if p.post_id == post_id)
    assert marker_text(KEY) in post.text and marker_text(KEY) in post.html
    assert re.search(r'font-size:50%[^"]*"><span style="color:#B4C0CA">forumbot·', post.html)
    assert "[size" not in post.html and "[color" not in post.html
    assert client.find_marker(topic, marker_text(KEY), None) == post_id
    source = board.posts(topic)[-1].text  # what the quote and edit forms give back
    assert marker_text(KEY) in source


def test_forumactif_marker_is_in_pixels_light_and_found(
    forumactif: tuple[ForumactifSandbox, ForumactifClient],
) -> None:
    board, client = forumactif
    assert client_platform(client) == "forumactif"
    topic, post_id = _publish(board, client)
    post = next(p for p in client.read_topic(topic, None) if p.post_id == post_id)
    size, color = MARKER_STYLES["forumactif"]
    assert marker_text(KEY) in post.html
    assert f'font-size: {size}px; line-height: normal"><font color="{color}">forumbot·' in post.html
    assert "[size" not in post.html and "70px" not in post.html
    assert client.find_marker(topic, marker_text(KEY), None) == post_id
    assert marker_text(KEY) in board.posts(topic)[-1].text  # the edit form's source
