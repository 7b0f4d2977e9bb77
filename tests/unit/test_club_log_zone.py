"""`forumbot serve`'s text log lines say their time zone (UTC: its clubs may be in several),
as README says of every text log line (newcomer check s4, W9: they had the machine's time,
unlabelled)."""

from __future__ import annotations

import io
import logging
import re

from forumbot.ops.club_log import club_context, install_club_logging


def test_serve_log_lines_carry_the_club_and_their_utc_time() -> None:
    out = io.StringIO()
    root = logging.Logger("serve-test")
    root.addHandler(logging.StreamHandler(out))
    install_club_logging(root)
    with club_context("beauxbatons"):
        root.warning("a pass ran")
    line = out.getvalue().strip()
    assert re.fullmatch(
        r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} UTC WARNING \[beauxbatons\] serve-test: a pass ran",
        line,
    ), line
