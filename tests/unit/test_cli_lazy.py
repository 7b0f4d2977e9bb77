"""Issue 26, start-up: the CLI imports a command's module only when that command runs, so
``forumbot simulate`` starts without the web app, the scheduler, storage or the board's
libraries; ``forumbot --help`` still lists every command with its help."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from importlib import import_module
from pathlib import Path

import click
from click.testing import CliRunner

import forumbot.cli
from forumbot.cli import COMMAND_MODULES, SUBCOMMANDS, main

ROOT = Path(__file__).resolve().parents[2]

HEAVY = (
    "forumbot.app", "forumbot.storage", "forumbot.ops.scheduler", "forumbot.web.app",
    "forumbot.config", "sqlite_utils", "httpx", "bs4", "apscheduler", "babel.messages",
    "starlette", "uvicorn",
)  # fmt: skip
"""Modules ``forumbot simulate`` has no use for."""


def test_the_table_names_every_command_of_every_module_and_no_other() -> None:
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(forumbot.cli.__path__):
        module = import_module(f"forumbot.cli.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            assert command.name not in found, f"{command.name} in two modules"
            found[str(command.name)] = info.name
    assert found == COMMAND_MODULES


def test_groups_get_the_commands_other_modules_add() -> None:
    ctx = click.Context(main)
    for group, extras in SUBCOMMANDS.items():
        command = main.get_command(ctx, group)
        assert isinstance(command, click.Group)
        for module_name, attribute in extras:
            extra = getattr(import_module(f"forumbot.cli.{module_name}"), attribute)
            assert command.get_command(ctx, str(extra.name)) is extra


def test_help_lists_every_command_with_its_help() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0, result.output
    listed = result.output.split("Commands:", 1)[1].splitlines()
    names = {line.split()[0]: line.split(None, 1)[1] for line in listed if line.strip()}
    assert set(names) == set(COMMAND_MODULES)
    assert all(len(help_text) > 10 for help_text in names.values()), names


def test_an_unknown_command_is_refused_as_before() -> None:
    result = CliRunner().invoke(main, ["nosuch"])
    assert result.exit_code == 2 and "No such command 'nosuch'" in result.output


def test_simulate_imports_none_of_the_bot_s_heavy_modules() -> None:
    code = (
        "import json, sys\n"
        "from click.testing import CliRunner\n"
        "from forumbot.cli import main\n"
        "out = CliRunner().invoke(main, ['simulate', '--duels', '49', '--jobs', '1'])\n"
        "assert out.exit_code == 0, out.output\n"
        f"heavy = {list(HEAVY)!r}\n"
        "print(json.dumps(sorted(h for h in heavy if any(m == h or m.startswith(h + '.') "
        "for m in sys.modules))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
