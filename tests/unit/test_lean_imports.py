"""Issue 12, memory: what ``import forumbot`` leaves out, and what still works without it.

Each check runs in a fresh interpreter (``sys.executable -c``): the test process itself has
imported everything already."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from forumbot.forums.tls import shared_ssl_context, verify_for

ROOT = Path(__file__).resolve().parents[2]


def fresh(code: str) -> dict[str, object]:
    """Run ``code`` (which prints one JSON object) in a new interpreter rooted at the repo."""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_the_bot_and_its_phpbb_client_import_no_optional_heavy_module() -> None:
    loaded = fresh(
        "import json, sys\n"
        "import forumbot.app, forumbot.ops.scheduler\n"
        "import forumbot.forums.phpbb, forumbot.forums.forumactif\n"
        "heavy = ['numpy', 'httpx._main', 'trio', 'charset_normalizer', 'dateparser', 'rich']\n"
        "print(json.dumps({name: name in sys.modules for name in heavy}))\n"
    )
    assert loaded == dict.fromkeys(loaded, False)


def test_beautifulsoup_still_detects_an_undeclared_encoding_on_demand() -> None:
    found = fresh(
        "import json, sys\n"
        "import forumbot, bs4\n"
        "before = 'charset_normalizer' in sys.modules\n"
        "text = 'Le duel commence ce soir près de la forêt, élève. ' * 40\n"
        "soup = bs4.BeautifulSoup(text.encode('cp1252'), 'lxml')\n"
        "print(json.dumps({'before': before, 'after': 'charset_normalizer' in sys.modules,\n"
        "                  'encoding': soup.original_encoding}))\n"
    )
    assert found["before"] is False and found["after"] is True
    assert found["encoding"]  # the detector answered (its guess is charset-normalizer's)


def test_the_lazy_parsers_still_parse_dates_and_charsets() -> None:
    parsed = fresh(
        "import json\n"
        "from datetime import datetime\n"
        "from parsers.charset import detect_charset\n"
        "from parsers.forumactif.dates import parse_forumactif_date\n"
        "now = datetime(2025, 1, 3, 12, 0)\n"
        "at = parse_forumactif_date('Lun 30 Déc 2024 - 9:05', now=now)\n"
        "print(json.dumps({'charset': detect_charset(('Дуэль начинается сегодня вечером. ' * 20)"
        ".encode('cp1251')), 'date': at.isoformat()}))\n"
    )
    assert parsed == {"charset": "cp1251", "date": "2024-12-30T09:05:00+01:00"}


def test_every_client_shares_one_tls_context_unless_a_transport_is_injected() -> None:
    assert shared_ssl_context() is shared_ssl_context()
    assert verify_for(None) is shared_ssl_context()
    assert verify_for(httpx.MockTransport(lambda r: httpx.Response(200))) is True
