"""Issue 24, done when: "deploy/README.md's walkthrough, followed as written, gives a setup
where F1-F4 fail for the attacker". The settings are read from the documents themselves (the
README's ``[web]`` block, ``forumbot.docker.toml``, the systemd unit, ``compose.yaml``, both
Caddyfiles), then served (`forumbot web` in process, :mod:`tests.integration.test_web_attack`)
and attacked: a direct local client forging ``X-Forwarded-For`` gets no extra guess (F4), the
app and both Caddyfiles send HSTS (F3); no container of the compose setup is trusted by an
address (the proxy is the peer of a socket only it and the app mount).
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.test_web_attack import _burst, _ready_login, serve_web  # noqa: F401

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
YEAR_S = 365 * 24 * 3600


def readme_web() -> dict[str, Any]:
    """The ``[web]`` table of the README's section 4a ("The settings"), as TOML."""
    text = (DEPLOY / "README.md").read_text(encoding="utf-8")
    section = text.split("**a. The settings.**", 1)[1]
    block = re.search(r"```toml\n(.*?)```", section, re.S)
    assert block, "no TOML block in the README's section 4a"
    return dict(tomllib.loads(block.group(1))["web"])


def docker_web() -> dict[str, Any]:
    """The ``[web]`` table of deploy/forumbot.docker.toml."""
    return dict(tomllib.loads((DEPLOY / "forumbot.docker.toml").read_text("utf-8"))["web"])


def unit_socket() -> str:
    """The ``--uds`` of forumbot-web.service's ExecStart."""
    unit = (DEPLOY / "forumbot-web.service").read_text(encoding="utf-8")
    start = next(line for line in unit.splitlines() if line.startswith("ExecStart="))
    found = re.search(r"--uds (\S+)", start)
    assert found and "--port" not in start and "--host" not in start, start
    return found.group(1)


def caddy_site(name: str) -> str:
    """The site block of a Caddyfile (comments dropped)."""
    lines = [line.split("#", 1)[0] for line in (DEPLOY / name).read_text("utf-8").splitlines()]
    text = "\n".join(lines)
    found = re.search(r"^\S+ \{\n(.*?)^\}", text, re.S | re.M)
    assert found, f"no site block in {name}"
    return found.group(1)


def hsts_max_age(site: str) -> int:
    found = re.search(r'header\s+Strict-Transport-Security\s+"max-age=(\d+)[^"]*"', site)
    return int(found.group(1)) if found else 0


@pytest.mark.parametrize("settings", [readme_web, docker_web], ids=["README", "docker"])
def test_f4_documented_settings_give_a_forged_forwarded_for_no_bypass(
    serve_web: Any,  # noqa: F811
    settings: Any,
) -> None:
    """A local process calling the app directly (were it ever on TCP loopback, with the
    documented trusted_proxies) with a new forged X-Forwarded-For each guess: 5 guesses, as
    one client; and the documented https_only sends HSTS (F3)."""
    web = settings()
    assert web["https_only"] is True
    served = serve_web(list(web["trusted_proxies"]), https_only=web["https_only"])
    forged = [
        ("127.0.0.1", "rita", f"wrong-{i}", {"X-Forwarded-For": f"10.{i}.0.1"}) for i in range(30)
    ]
    assert _burst(served, forged) == Counter({401: 5, 429: 25})
    with served.client() as c:
        page = c.get("/login", headers={"X-Forwarded-For": "10.200.0.1"})
    assert page.status_code == 200
    assert page.headers["strict-transport-security"] == f"max-age={YEAR_S}"


def test_f4_the_documented_socket_is_the_proxy_seat(serve_web: Any) -> None:  # noqa: F811
    """Served as the unit serves it (its --uds, the README's settings): through the socket
    (Caddy's seat) the forwarded client is believed and limited to 5 guesses."""
    web = readme_web()
    served = serve_web(list(web["trusted_proxies"]), uds=True, https_only=True)
    xff = {"X-Forwarded-For": "198.51.100.9"}
    assert _burst(served, [("", "rita", f"w-{i}", xff) for i in range(12)]) == Counter(
        {401: 5, 429: 7}
    )
    assert unit_socket() == "/run/forumbot-web/web.sock"


@pytest.mark.parametrize("name", ["Caddyfile", "Caddyfile.docker"])
def test_f3_documented_caddyfiles_send_hsts_and_proxy_to_the_socket(name: str) -> None:
    site = caddy_site(name)
    assert hsts_max_age(site) >= YEAR_S
    assert re.search(r"^\s*reverse_proxy unix/" + re.escape(unit_socket()) + r"\s*$", site, re.M)


@pytest.mark.parametrize("name", ["compose.yaml", "compose.pg.yaml"])
def test_compose_trusts_exactly_the_proxy(name: str) -> None:
    """compose.yaml and compose.pg.yaml: the review page has no port, no fixed address, listens
    on a socket in a volume that caddy and it mount and no other service does;
    forumbot.docker.toml trusts that socket's peer only."""
    compose = yaml.safe_load((DEPLOY / name).read_text(encoding="utf-8"))
    services = compose["services"]
    web = services["forumbot-web"]
    command = web["command"]
    sock = command[command.index("--uds") + 1]
    assert "--port" not in command and "--host" not in command
    assert "ports" not in web and "expose" not in web
    for service in services.values():  # no address is anyone's credential
        networks = service.get("networks") or {}
        if isinstance(networks, dict):
            assert not any((n or {}).get("ipv4_address") for n in networks.values()), service
    folder = str(Path(sock).parent)
    mounting = {
        svc
        for svc, spec in services.items()
        for volume in spec.get("volumes", [])
        if volume.split(":")[1] == folder
    }
    assert mounting == {"forumbot-web", "caddy"}
    volume = next(v.split(":")[0] for v in web["volumes"] if v.split(":")[1] == folder)
    assert volume in compose["volumes"] and not volume.startswith(("/", "."))
    assert docker_web()["trusted_proxies"] == ["unix"]
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert f"-m 0750 {folder}" in dockerfile


def test_compose_pg_runs_serve_on_an_unexposed_postgresql_of_the_clients_version() -> None:
    """Issue 27: compose.pg.yaml runs `forumbot serve --boards` on a PostgreSQL reachable from
    the forumbot services only (an internal network, no host port), waits for it to be ready,
    gives libpq its password in a file (never in a club's storage.url), and builds the image
    with psycopg and the PostgreSQL client of the server's major version (pg_dump refuses a
    newer server); the systemd unit of serve starts after a local PostgreSQL."""
    compose = yaml.safe_load((DEPLOY / "compose.pg.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    pg, serve = services["postgres"], services["forumbot-serve"]
    assert "ports" not in pg and pg["networks"] == ["db"]
    assert compose["networks"]["db"]["internal"] is True
    command = serve["command"]
    assert command[:3] == ["serve", "--boards", "/etc/forumbot/clubs"]
    assert serve["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "db" in serve["networks"] and "default" in serve["networks"]  # the boards are outside
    for name in ("forumbot-serve", "forumbot-web"):
        assert services[name]["environment"]["PGPASSFILE"] == "/run/secrets/pgpass"
        assert "pgpass" in services[name]["secrets"]
    assert serve["build"]["args"] == {"EXTRAS": "[postgres]", "PG_CLIENT": "1"}
    web = services["forumbot-web"]["command"]  # every club's page, the host's in schema host
    assert web[:3] == ["web", "--boards", "/etc/forumbot/clubs"] and "-c" not in web
    assert web[web.index("--host-db") + 1].startswith("postgresql://") and "?schema=host" in web[4]
    assert "--https-only" in web and web[web.index("--trusted-proxy") + 1] == "unix"
    assert "FORUMBOT_WEB_SECRET" in services["forumbot-web"]["environment"]
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert "bookworm" in pg["image"] and pg["image"].startswith("postgres:15")
    assert dockerfile.count("FROM python:3.11-slim-bookworm") == 2  # Debian 12: client 15
    assert "postgresql-client" in dockerfile and '".${EXTRAS}"' in dockerfile
    unit = (DEPLOY / "forumbot-serve.service").read_text(encoding="utf-8")
    assert re.search(r"^After=.*postgresql\.service", unit, re.M)
    readme = (DEPLOY / "README.md").read_text(encoding="utf-8")
    assert "postgresql://forumbot@postgres:5432/forumbot?schema=" in readme
    assert "pg_dump" in readme and "pg_restore" in readme


def test_pins_install_on_debian_12_python() -> None:
    """deploy/README.md installs on Debian 12 (Python 3.11.2): deploy/pin_constraints.py
    refuses a pin whose Requires-Python excludes it; soupsieve, whose 3.x needs 3.11.5
    (broken possessive quantifiers in ``re`` before it), is pinned to 2.x."""
    sys.path.insert(0, str(DEPLOY))
    try:
        import pin_constraints
    finally:
        sys.path.remove(str(DEPLOY))
    assert pin_constraints.OLDEST_PYTHON == (3, 11, 2)
    assert pin_constraints.excludes_oldest(">=3.11.5")
    assert pin_constraints.excludes_oldest(">=3.12") and pin_constraints.excludes_oldest("<3.11")
    assert not pin_constraints.excludes_oldest(">=3.8, <4")
    assert not pin_constraints.excludes_oldest(">=3.11") and not pin_constraints.excludes_oldest(
        None
    )
    pins = dict(
        line.split("==")
        for line in (DEPLOY.parent / "constraints.txt").read_text("utf-8").splitlines()
        if "==" in line
    )
    assert tuple(int(p) for p in pins["soupsieve"].split(".")[:2]) < (3, 0)


def test_a_shared_role_channel_is_documented() -> None:
    """Issue 24, also seen: "a shared Apprise role channel lists every referee's duels in one
    message; by design, but not documented": the deploy walkthrough and the operations guide
    say so, and name the private alternative."""
    docs = DEPLOY.parent / "docs" / "operations.md"
    for path in (DEPLOY / "README.md", docs):
        text = " ".join(path.read_text(encoding="utf-8").split())
        assert "[notify.referee]" in text and "[notify.people.<name>]" in text, path
        assert "every referee's duels" in text, path
