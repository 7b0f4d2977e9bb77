"""HTTP front of the sandbox board: stdlib ``ThreadingHTTPServer`` on 127.0.0.1."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Protocol
from urllib.parse import urlsplit

from forumbot.sandbox.board_model import (
    Request,
    Response,
    cookie_dict,
    parse_form_body,
    query_dict,
)


class Handles(Protocol):
    """What the server needs of a board (:class:`forumbot.sandbox.board.SandboxBoard` or the
    Forumactif flavour): one request in, one response out."""

    def handle(self, req: Request) -> Response: ...


def make_server(board: Handles, host: str, port: int) -> ThreadingHTTPServer:
    """A threading HTTP server answering every request with ``board.handle``."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "Apache"
        sys_version = ""

        def _serve(self, method: str) -> None:
            parts = urlsplit(self.path)
            body = b""
            if method == "POST":
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
            req = Request(
                method=method,
                path=parts.path,
                query=query_dict(parts.query),
                form=parse_form_body(self.headers.get("Content-Type") or "", body)
                if method == "POST"
                else [],
                cookies=cookie_dict(self.headers.get("Cookie")),
                user_agent=self.headers.get("User-Agent") or "",
                host=self.headers.get("Host") or f"{host}:{port}",
            )
            resp = board.handle(req)
            data = resp.body.encode("utf-8")
            self.send_response(resp.status)
            for key, value in resp.headers:
                self.send_header(key, value)
            self.send_header("Cache-Control", 'private, no-cache="set-cookie"')
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - http.server API
            self._serve("GET")

        def do_HEAD(self) -> None:  # noqa: N802
            self._serve("HEAD")

        def do_POST(self) -> None:  # noqa: N802
            self._serve("POST")

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            return

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    return server
