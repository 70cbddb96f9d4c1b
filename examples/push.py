"""Push notification delivery for the example server: loopback webhooks only.

A push config's URL comes from whoever calls CreateTaskPushNotificationConfig: a
conformance kit, a fuzzer, anyone. Posting to it unchecked makes the server a proxy
into any network it can reach (server-side request forgery, which the A2A spec's
push notification security considerations ask agents to guard against). This example
therefore delivers only to loopback: the host must be an IP literal in ``127.0.0.0/8``
or ``::1``, or the name ``localhost`` (resolved here and checked again). Any other URL
is refused before a socket or a resolver is touched, and recorded as a failed
delivery.

The connection goes to the very address that was checked (no second resolution, no
proxy from the environment, no redirects followed), so a URL cannot pass the check
and then reach somewhere else.
"""

from __future__ import annotations

import asyncio
import collections
import http.client
import ipaddress
import logging
import socket
import ssl
import urllib.parse
from dataclasses import dataclass

from a2a.types import a2a_pb2 as pb
from google.protobuf import json_format

log = logging.getLogger("examples.push")

RECORD_SIZE = 100
"""How many recent deliveries and failures a :class:`WebhookSender` remembers."""


class PushRefused(ValueError):
    """A webhook URL this server will not post to; the message says why."""


@dataclass(frozen=True)
class Target:
    """Where one delivery goes: the checked IP address and the request to send there."""

    scheme: str
    address: str
    port: int
    host_header: str
    hostname: str
    path: str


def loopback_target(url: str) -> Target:
    """The loopback address ``url`` points at; :class:`PushRefused` for any other URL.

    Only ``localhost`` is ever resolved (from the hosts file on any sane machine), and
    every address it resolves to must be loopback too.
    """
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:  # an unclosed "[" of an IPv6 host, say
        raise PushRefused(f"url {url!r}: not a URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise PushRefused(f"url {url!r}: scheme must be http or https")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise PushRefused(f"url {url!r}: bad port") from None
    hostname = parts.hostname or ""
    try:
        address = ipaddress.ip_address(hostname)
    except ValueError:
        if hostname != "localhost":
            raise PushRefused(
                f"url {url!r}: host {hostname!r} is not loopback (127.0.0.0/8, ::1,"
                " localhost)"
            ) from None
        try:
            infos = socket.getaddrinfo(
                hostname, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
            )
        except OSError as exc:
            raise PushRefused(
                f"url {url!r}: localhost does not resolve: {exc}"
            ) from None
        found = {str(info[4][0]) for info in infos}
        addresses = [ipaddress.ip_address(a) for a in sorted(found)]
        if not addresses or not all(a.is_loopback for a in addresses):
            raise PushRefused(
                f"url {url!r}: localhost resolves to {sorted(found)}, not loopback"
            ) from None
        address = addresses[0]
    if not address.is_loopback:
        raise PushRefused(f"url {url!r}: address {address} is not loopback")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    host_header = parts.netloc.rpartition("@")[2]  # never send userinfo as the host
    return Target(parts.scheme, str(address), port, host_header, hostname, path)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """TLS to a checked address, verifying the certificate for the URL's host name."""

    def __init__(self, target: Target, timeout: float, context: ssl.SSLContext) -> None:
        super().__init__(target.hostname, target.port, timeout=timeout, context=context)
        self._target, self._tls = target, context

    def connect(self) -> None:
        """Connect to the checked address instead of resolving the host name again."""
        raw = socket.create_connection((self._target.address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(raw, server_hostname=self._target.hostname)


def post(target: Target, body: bytes, headers: dict[str, str], timeout: float) -> int:
    """POST ``body`` to a checked target; the HTTP status (redirects are not followed)."""
    connection: http.client.HTTPConnection
    if target.scheme == "https":
        connection = _PinnedHTTPS(target, timeout, ssl.create_default_context())
    else:
        connection = http.client.HTTPConnection(
            target.address, target.port, timeout=timeout
        )
    try:
        connection.request(
            "POST", target.path, body, {**headers, "Host": target.host_header}
        )
        return connection.getresponse().status
    finally:
        connection.close()


class WebhookSender:
    """The agent's ``push_sender``: posts each task update to a push config's URL.

    Deliveries run in the event loop's executor, so that a slow webhook never holds up
    the agent; each call returns its delivery (a future), which a stream about to
    report the same update waits for, a little (examples/agent.py). ``delivered`` and
    ``failures`` keep the latest outcomes as ``(url, detail)`` pairs: the HTTP status,
    or why nothing was sent.
    """

    def __init__(self, *, timeout: float = 5.0) -> None:
        self.timeout = timeout
        self.delivered: collections.deque[tuple[str, str]] = collections.deque(
            maxlen=RECORD_SIZE
        )
        self.failures: collections.deque[tuple[str, str]] = collections.deque(
            maxlen=RECORD_SIZE
        )

    def __call__(
        self, config: pb.TaskPushNotificationConfig, event: pb.StreamResponse
    ) -> asyncio.Future[None] | None:
        """Check the URL now, post in the background (§4.3.3 payload and headers);
        the delivery, None when the URL is refused."""
        try:
            target = loopback_target(config.url)
        except PushRefused as exc:
            log.warning("push for task %s not sent: %s", config.task_id, exc)
            self.failures.append((config.url, str(exc)))
            return None
        headers = {"Content-Type": "application/a2a+json"}
        if config.token:
            headers["X-A2A-Notification-Token"] = config.token
        if config.HasField("authentication") and config.authentication.credentials:
            scheme = config.authentication.scheme or "Bearer"
            headers["Authorization"] = f"{scheme} {config.authentication.credentials}"
        body = json_format.MessageToJson(event).encode()
        return asyncio.get_running_loop().run_in_executor(
            None, self.deliver, config.url, target, body, headers
        )

    def deliver(
        self, url: str, target: Target, body: bytes, headers: dict[str, str]
    ) -> None:
        """One POST, its outcome recorded; a dead webhook must not stop the agent."""
        try:
            status = post(target, body, headers, self.timeout)
        except (OSError, http.client.HTTPException) as exc:
            log.warning("push to %s failed: %s", url, exc)
            self.failures.append((url, f"{type(exc).__name__}: {exc}"))
            return
        if 200 <= status < 300:
            self.delivered.append((url, str(status)))
        else:
            self.failures.append((url, f"HTTP {status}"))
