"""One TLS context for every HTTP client of the process.

httpx builds a new ``ssl.SSLContext`` for each ``httpx.Client`` (certifi's bundle of about
150 authorities loaded again: about 1.5 MiB each). The start-up clock check, the forum client
and the doctor each make a client; :func:`shared_ssl_context` builds the context once, with
httpx's own defaults (``httpx.create_ssl_context()``: certificates verified against certifi,
``SSLKEYLOGFILE`` honoured), and every client passes it as ``verify=`` (issue 12, memory). An
``SSLContext`` may be shared by clients and threads.
"""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """The process's TLS context (verifying, httpx's defaults); built at the first call."""
    return httpx.create_ssl_context()


def verify_for(transport: httpx.BaseTransport | None) -> ssl.SSLContext | bool:
    """``verify=`` for an ``httpx.Client``: the shared context when the client makes its own
    connections, ``True`` (unused) when a transport is injected (tests)."""
    return shared_ssl_context() if transport is None else True


__all__ = ["shared_ssl_context", "verify_for"]
