"""The sandbox board: a local, in-process test double of a phpBB 3.3 board.

``SandboxBoard(users=[("Hibou", "pw")]).start()`` serves it on 127.0.0.1 and returns its base
URL; see :mod:`forumbot.sandbox.board` for what it reproduces, ``python -m forumbot.sandbox``
to run one by hand.
"""

from __future__ import annotations

from forumbot.sandbox.board import Forum, Pm, PostRecord, SandboxBoard, Topic, User

__all__ = ["Forum", "Pm", "PostRecord", "SandboxBoard", "Topic", "User"]
