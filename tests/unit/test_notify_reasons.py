"""Issue 23: every internal reason code a person may read gets a French sentence, in one place
(:mod:`forumbot.publish.reasons`), and the review page says the same as the notices.

The codes are found by reading the source of ``forumbot/duels`` and ``forumbot/club`` (and
the other writers of ``referee_tasks``), not listed by hand: a new hold reason or task kind
without a French sentence fails here."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import forumbot
from forumbot.publish.reasons import (
    HOLD_REASONS_FR,
    TASK_KINDS_FR,
    UNKNOWN_REASON_FR,
    reason_code,
    reason_fr,
    task_kind_fr,
    turn_label,
)
from forumbot.publish.typography import plain
from forumbot.web.tasks import KIND_FR
from forumbot.web.words import Words

ROOT = Path(forumbot.__file__).parent
_CODE_SHAPE = re.compile(r"^[a-z][a-z_ ]*(?::|\s->|$)")
_INSERT = re.compile(r"into referee_tasks \(([^)]*)\)\s*values \(([^)]*)\)", re.S)


def _sample(node: ast.expr) -> str | None:
    """A string literal, or an f-string with its holes filled with ``12`` (None: other)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        if node.values and not isinstance(node.values[0], ast.Constant):
            return None  # f"{type(exc).__name__}: {exc}": a publishing error, not a code
        return "".join(str(v.value) if isinstance(v, ast.Constant) else "12" for v in node.values)
    return None


def _module_constants(tree: ast.Module) -> dict[str, str]:
    out = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            text = _sample(stmt.value)
            if isinstance(target, ast.Name) and text is not None:
                out[target.id] = text
    return out


def _value(node: ast.expr, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return _sample(node)


def hold_reasons() -> dict[str, str]:
    """Every ``last_error`` a flow or the club writes on a declaration it holds or cancels:
    ``hold=...`` arguments, ``"last_error": ...`` dict entries, constants documented as a
    ``last_error``, parameters of ``... last_error = ?`` SQL, and the reason of
    ``storage.duel_rows.hold_drafts(duel_id, why, at)`` (that SQL, moved to storage/ by issue
    27). -> {sample: where}."""
    found: dict[str, str] = {}
    for path in sorted([*ROOT.joinpath("duels").rglob("*.py"), *ROOT.joinpath("club").rglob(
        "*.py")]):  # fmt: skip
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source)
        constants = _module_constants(tree)
        where = str(path.relative_to(ROOT))
        candidates: list[ast.expr] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.keyword) and node.arg == "hold":
                candidates.append(node.value)
            if isinstance(node, ast.Dict):
                for k, v in zip(node.keys, node.values, strict=True):
                    if isinstance(k, ast.Constant) and k.value == "last_error" and v is not None:
                        candidates.append(v)
            if isinstance(node, ast.Call):
                sql = [a for a in node.args if isinstance(a, ast.Constant) and isinstance(
                    a.value, str) and "last_error = ?" in a.value]  # fmt: skip
                if sql:
                    for a in node.args:
                        if isinstance(a, ast.List):
                            candidates.extend(a.elts[:1])  # the value set first
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr == "hold_drafts":
                    candidates.extend(node.args[1:2])
        for i, stmt in enumerate(tree.body[:-1]):
            doc = tree.body[i + 1]
            if (
                isinstance(stmt, ast.Assign)
                and isinstance(doc, ast.Expr)
                and isinstance(doc.value, ast.Constant)
                and "last_error" in str(doc.value.value)
            ):
                candidates.append(stmt.value)
        for node in candidates:
            text = _value(node, constants)
            if text is not None and _CODE_SHAPE.match(text):
                found[text] = where
    return found


def task_kinds() -> dict[str, str]:
    """Every ``referee_tasks.kind`` written anywhere in forumbot: SQL inserts with a literal
    kind, ``add_task(..., kind, ...)`` calls, task rows (``{"kind": ...}``) given to
    ``open_task`` / ``open_task_once``, ``TASK_KIND`` constants. -> {kind: where}."""
    found: dict[str, str] = {}
    for path in sorted(ROOT.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if not any(w in source for w in ("referee_tasks", "add_task", "open_task")):
            continue
        tree = ast.parse(source)
        constants = _module_constants(tree)
        where = str(path.relative_to(ROOT))
        for name, value in constants.items():
            if name == "TASK_KIND":
                found[value] = where
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                insert = _INSERT.search(node.value)
                if insert is not None:
                    columns = [c.strip() for c in insert.group(1).split(",")]
                    values = [v.strip() for v in insert.group(2).split(",")]
                    literal = values[columns.index("kind")]
                    if literal.startswith("'"):
                        found[literal.strip("'")] = where
            called = getattr(node, "func", None)
            called_name = getattr(called, "attr", None) or getattr(called, "id", "")
            if isinstance(node, ast.Call) and called_name.startswith("open_task"):
                # a task row given whole: its literal « kind »
                for row in (a for a in node.args if isinstance(a, ast.Dict)):
                    for key, value in zip(row.keys, row.values, strict=True):
                        if isinstance(key, ast.Constant) and key.value == "kind":
                            kind = _value(value, constants)
                            if kind is not None:
                                found[kind] = where
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
                if name == "add_task" and len(node.args) > 3:
                    kind = _value(node.args[3], constants)
                    if kind is not None:
                        found[kind] = where
    return found


def test_the_source_scan_finds_the_known_codes() -> None:
    """The scanner itself works: it finds the codes issue 23 names."""
    codes = {reason_code(t) for t in hold_reasons()}
    assert {"missing_dice", "late_edit", "cast_before_start", "topic moved"} <= codes
    assert {"signup_unsure", "mechanism", "owl_question", "stalemate", "topic_moved",
            "notice_failed"} <= set(task_kinds())  # fmt: skip


@pytest.mark.parametrize("text", sorted(hold_reasons()))
def test_every_hold_reason_has_a_french_sentence(text: str) -> None:
    code = reason_code(text)
    assert code in HOLD_REASONS_FR, f"{text!r} ({hold_reasons()[text]}): no French sentence"
    french = reason_fr(text)
    assert french and french != UNKNOWN_REASON_FR
    assert code not in french and "referee" not in french and "_" not in french


@pytest.mark.parametrize("kind", sorted(task_kinds()))
def test_every_task_kind_has_a_french_sentence(kind: str) -> None:
    assert kind in TASK_KINDS_FR, f"task kind {kind!r} ({task_kinds()[kind]}): no French"
    assert "_" not in task_kind_fr(kind)


def test_the_review_page_s_task_kinds_are_all_known_to_the_notices() -> None:
    assert set(KIND_FR) <= set(TASK_KINDS_FR)


@pytest.mark.parametrize(
    "raw",
    ["some_new_code: something english", "ForumError: 503", "", "x" * 50, "déjà en français"],
)
def test_the_fallback_never_shows_a_raw_code(raw: str) -> None:
    french = reason_fr(raw)
    if raw:
        assert french and raw not in french and "_" not in french
    assert "unknown" not in task_kind_fr("some_new_kind") and "_" not in task_kind_fr("a_b")


def test_the_review_page_says_what_the_notices_say() -> None:
    w = Words("fr", "Europe/Paris", lambda s, *a: s % a if a else s)
    for text in hold_reasons():  # the same words; the page typesets them (issue 25)
        assert plain(w.reason(text)) == plain(reason_fr(text))
    assert w.turn(0) == turn_label(0) == "ouverture"
    assert w.turn(0, "opening") == "ouverture" and w.turn(3, "turn") == "tour 3"
    assert w.task_kind("signup_unsure") == task_kind_fr("signup_unsure")
    english = Words("en", "Europe/Paris", lambda s, *a: s)
    assert english.turn(0) == "opening" and english.turn(2) == "turn 2"
