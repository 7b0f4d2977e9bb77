"""Verifiable dice: every roll derives from a secret seed and public inputs.

The bot commits to a secret seed when a duel opens (it publishes ``commitment(seed)``) and
reveals the seed at the end, so anyone can recompute every roll from the thread alone
(``forumbot verify-dice``). A roll never depends on the post's wording, only on the duel,
the turn, the post id and the dice name, so a legal edit never changes it (RULES.md, "Dice").

Derivation of die ``i`` (0-based) of a roll::

    HMAC-SHA256(key=seed, msg="forumbot-dice-v1|{duel_key}|{turn}|{post_id}|{name}|{i}|{k}")

read as a big-endian integer; ``k`` counts rejection rounds (0, 1, ...) and a value is
accepted when it is below the largest multiple of ``sides`` under 2**256, then ``value %
sides + 1`` is the face. Pure: no RNG, no clock.
"""

from __future__ import annotations

import hashlib
import hmac

DERIVATION = "forumbot-dice-v1"
_SPACE = 1 << 256


def commitment(seed: bytes) -> str:
    """The public commitment to a secret seed: ``sha256(seed)`` as 64 hex chars."""
    return hashlib.sha256(seed).hexdigest()


def derive_die(
    seed: bytes, duel_key: str, turn: int, post_id: int, name: str, index: int, sides: int = 6
) -> int:
    """One die face in ``1..sides`` derived from the seed and public inputs (see module doc).

    Raises:
        ValueError: when ``sides`` < 2.
    """
    if sides < 2:
        raise ValueError(f"a die needs at least 2 sides, got {sides}")
    limit = _SPACE - (_SPACE % sides)
    k = 0
    while True:
        msg = f"{DERIVATION}|{duel_key}|{turn}|{post_id}|{name}|{index}|{k}".encode()
        value = int.from_bytes(hmac.new(seed, msg, hashlib.sha256).digest(), "big")
        if value < limit:
            return value % sides + 1
        k += 1


def derive_roll(
    seed: bytes, duel_key: str, turn: int, post_id: int, name: str, count: int, sides: int = 6
) -> tuple[int, ...]:
    """``count`` dice for one post: ``(derive_die(..., i) for i in range(count))``."""
    return tuple(derive_die(seed, duel_key, turn, post_id, name, i, sides) for i in range(count))


def verify_seed(seed: bytes, published_commitment: str) -> bool:
    """True when ``seed`` matches a commitment published earlier."""
    return hmac.compare_digest(commitment(seed), published_commitment.strip().lower())
