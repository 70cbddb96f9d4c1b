"""The example agent (examples/agent.py) through its server over loopback HTTP: task
continuation, hold mode, cancel, subscribe, ListTasks paging and validation, refused
messages, the card and the extended card behind its bearer token."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest


from .servers import running

V = {"A2A-Version": "1.0"}


@pytest.fixture()
def client(example: Any) -> Iterator[httpx.Client]:
    with running(example.create_app(hold=False)) as base:
        with httpx.Client(base_url=base, timeout=10, headers=V) as http:
            yield http


def rpc(client: httpx.Client, method: str, params: dict[str, Any]) -> dict[str, Any]:
    answer = client.post(
        "/jsonrpc", json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    )
    assert answer.status_code == 200
    body: dict[str, Any] = answer.json()
    return body


def message(text: str, **extra: Any) -> dict[str, Any]:
    return {
        "message": {
            "messageId": f"m-{text}-{len(extra)}",
            "role": "ROLE_USER",
            "parts": [{"text": text}],
            **extra,
        }
    }


def send(client: httpx.Client, text: str, **extra: Any) -> dict[str, Any]:
    answer = client.post("/rest/message:send", json=message(text, **extra))
    assert answer.status_code == 200, answer.text
    task: dict[str, Any] = answer.json()["task"]
    return task


def test_continuation_by_task_id_appends_history(client: httpx.Client) -> None:
    held = send(client, "hold")
    assert held["status"]["state"] == "TASK_STATE_WORKING"
    more = send(client, "more", taskId=held["id"])
    assert more["id"] == held["id"] and len(more["history"]) == 2
    done = send(client, "done", taskId=held["id"], contextId=held["contextId"])
    assert (
        done["status"]["state"] == "TASK_STATE_COMPLETED" and len(done["history"]) == 3
    )
    # A terminal task takes no more messages (§3.1.1): UnsupportedOperationError.
    refused = client.post(
        "/rest/message:send", json=message("again", taskId=held["id"])
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["details"][0]["reason"] == "UNSUPPORTED_OPERATION"
    unknown = rpc(client, "SendMessage", message("x", taskId="no-such-task"))
    assert unknown["error"]["code"] == -32001
    other_context = rpc(
        client,
        "SendMessage",
        message("x", taskId=send(client, "hold")["id"], contextId="elsewhere"),
    )
    assert other_context["error"]["code"] == -32602


def test_context_id_starts_a_new_task_in_that_context(client: httpx.Client) -> None:
    first = send(client, "hello")
    second = send(client, "again", contextId=first["contextId"])
    assert second["id"] != first["id"] and second["contextId"] == first["contextId"]


def test_hold_by_metadata_then_cancel(client: httpx.Client) -> None:
    held = send(client, "work", metadata={"hold": True})
    assert held["status"]["state"] == "TASK_STATE_WORKING"
    cancelled = client.post(f"/rest/tasks/{held['id']}:cancel", json={})
    assert cancelled.json()["status"]["state"] == "TASK_STATE_CANCELED"
    again = rpc(client, "CancelTask", {"id": held["id"]})
    assert again["error"]["code"] == -32002
    assert rpc(client, "SubscribeToTask", {"id": held["id"]})["error"]["code"] == -32004


def test_subscribe_streams_updates_until_the_task_ends(client: httpx.Client) -> None:
    held = send(client, "hold")
    events: list[dict[str, Any]] = []

    def follow() -> None:
        with client.stream("POST", f"/rest/tasks/{held['id']}:subscribe") as answer:
            for line in answer.iter_lines():
                if line.startswith("data:"):
                    events.append(json.loads(line[5:]))
                    if len(events) == 1:
                        send(
                            client, "more", taskId=held["id"]
                        )  # an update while subscribed
                        send(client, "done", taskId=held["id"])

    reader = threading.Thread(target=follow)
    reader.start()
    reader.join(15)
    assert not reader.is_alive(), "the stream did not close when the task completed"
    assert events[0]["task"]["id"] == held["id"]
    states = [e["statusUpdate"]["status"]["state"] for e in events[1:]]
    assert states == ["TASK_STATE_WORKING", "TASK_STATE_COMPLETED"]


def test_list_tasks_pages_with_signed_tokens(client: httpx.Client) -> None:
    context = send(client, "hello")["contextId"]
    for n in range(4):
        send(client, f"t{n}", contextId=context)
    first = client.get(
        "/rest/tasks", params={"contextId": context, "pageSize": 2}
    ).json()
    assert first["pageSize"] == 2 and first["totalSize"] == 5 and first["nextPageToken"]
    second = client.get(
        "/rest/tasks",
        params={
            "contextId": context,
            "pageSize": 2,
            "pageToken": first["nextPageToken"],
        },
    ).json()
    third = client.get(
        "/rest/tasks",
        params={
            "contextId": context,
            "pageSize": 2,
            "pageToken": second["nextPageToken"],
        },
    ).json()
    ids = [t["id"] for page in (first, second, third) for t in page["tasks"]]
    assert len(ids) == len(set(ids)) == 5 and third["nextPageToken"] == ""
    assert "artifacts" not in first["tasks"][0]  # only with includeArtifacts
    # A token edited to point elsewhere, or replayed with other filters, is refused.
    raw = base64.urlsafe_b64decode(first["nextPageToken"] + "==")
    forged = (
        base64.urlsafe_b64encode(b"9" + raw[raw.index(b".") :]).decode().rstrip("=")
    )
    for params in (
        {"contextId": context, "pageToken": forged},
        {"pageToken": first["nextPageToken"]},
    ):
        bad = client.get("/rest/tasks", params=params)
        assert bad.status_code == 400
        assert (
            bad.json()["error"]["details"][0]["fieldViolations"][0]["field"]
            == "pageToken"
        )


def test_list_tasks_default_page_size_and_empty_answer(client: httpx.Client) -> None:
    context = send(client, "hello")["contextId"]
    for n in range(51):
        send(client, f"t{n}", contextId=context)
    page = rpc(client, "ListTasks", {"contextId": context})["result"]
    assert page["pageSize"] == 50 and page["totalSize"] == 52 and page["nextPageToken"]
    empty = rpc(client, "ListTasks", {"contextId": "nothing-here"})["result"]
    assert empty == {"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0}


@pytest.mark.parametrize(
    "params, field",
    [
        ({"pageSize": 0}, "pageSize"),
        ({"pageSize": -1}, "pageSize"),
        ({"pageSize": 101}, "pageSize"),
        ({"pageToken": "not-a-token"}, "pageToken"),
        ({"historyLength": -1}, "historyLength"),
        ({"status": 42}, "status"),
    ],
)
def test_list_tasks_refuses_bad_parameters(
    client: httpx.Client, params: dict[str, Any], field: str
) -> None:
    answer = rpc(client, "ListTasks", params)
    assert answer["error"]["code"] == -32602
    assert answer["error"]["data"][0]["fieldViolations"][0]["field"] == field
    assert client.get("/rest/tasks", params=params).status_code == 400


@pytest.mark.parametrize("drop", ["messageId", "role", "parts"])
def test_message_without_required_field_is_refused(
    client: httpx.Client, drop: str
) -> None:
    params = message("hello")
    del params["message"][drop]
    assert rpc(client, "SendMessage", params)["error"]["code"] == -32602
    assert client.post("/rest/message:send", json=params).status_code == 400


def test_card_is_complete_and_names_the_real_address(client: httpx.Client) -> None:
    card = client.get("/.well-known/agent-card.json").json()
    for name in (
        "name",
        "description",
        "supportedInterfaces",
        "version",
        "capabilities",
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
    ):
        assert card[name], name
    port = client.base_url.port
    urls = {i["protocolBinding"]: i["url"] for i in card["supportedInterfaces"]}
    assert urls == {
        "HTTP+JSON": f"http://127.0.0.1:{port}/rest",
        "JSONRPC": f"http://127.0.0.1:{port}/jsonrpc",
    }
    assert card["capabilities"] == {
        "streaming": True,
        "pushNotifications": True,
        "extendedAgentCard": True,
    }
    assert "bearer" in card["securitySchemes"]


def test_extended_card_needs_the_bearer_token(
    client: httpx.Client, example: Any
) -> None:
    missing = client.get("/rest/extendedAgentCard")
    assert missing.status_code == 401 and missing.headers[
        "www-authenticate"
    ].startswith("Bearer")
    wrong = rpc(client, "GetExtendedAgentCard", {})
    assert wrong["error"]["code"] == example.UNAUTHENTICATED
    good = {"Authorization": f"Bearer {example.DEFAULT_TOKEN}"}
    card = client.get("/rest/extendedAgentCard", headers=good).json()
    assert len(card["skills"]) == 2
    answer = client.post(
        "/jsonrpc",
        headers=good,
        json={"jsonrpc": "2.0", "id": 2, "method": "GetExtendedAgentCard"},
    )
    assert answer.json()["result"]["name"] == card["name"]


# --- push notifications: loopback webhooks only -----------------------------------------

NOT_LOOPBACK = [
    "http://192.0.2.7/hook",  # TEST-NET-1
    "https://example.com/hook",
    "http://10.0.0.1:8080/hook",
    "http://[2001:db8::1]/hook",
    "http://[::ffff:192.0.2.7]/hook",  # IPv4-mapped: the v4 address decides, refused
    "http://0.0.0.0:9/hook",  # reaches this host on Linux, but is not loopback
    "http://2130706433/hook",  # 127.0.0.1 as one number: a host name, not an IP literal
    "http://localhost.example.com/hook",
    "http://127.0.0.1@192.0.2.7/hook",  # userinfo: the host is 192.0.2.7
    "ftp://127.0.0.1/hook",
    "file:///etc/passwd",
]


@pytest.fixture()
def no_outside_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Fail any resolution or connection that is not loopback; the attempts, listed."""
    import ipaddress
    import socket

    attempts: list[str] = []
    real_resolve, real_connect = socket.getaddrinfo, socket.create_connection

    def loopback(host: object) -> bool:
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(str(host)).is_loopback
        except ValueError:
            return False

    def resolve(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not loopback(host):
            attempts.append(f"resolve {host}")
            raise OSError(f"test: resolving {host} is forbidden")
        return real_resolve(host, *args, **kwargs)

    def connect(address: Any, *args: Any, **kwargs: Any) -> Any:
        if not loopback(address[0]):
            attempts.append(f"connect {address}")
            raise OSError(f"test: connecting to {address} is forbidden")
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    monkeypatch.setattr(socket, "create_connection", connect)
    return attempts


@pytest.mark.parametrize("url", NOT_LOOPBACK)
def test_push_target_refuses_anything_but_loopback(
    url: str, no_outside_network: list[str]
) -> None:
    from examples.push import PushRefused, loopback_target

    with pytest.raises(PushRefused):
        loopback_target(url)
    assert no_outside_network == []


@pytest.mark.parametrize(
    "url, address, port, path",
    [
        ("http://127.0.0.1:9/hook?x=1", "127.0.0.1", 9, "/hook?x=1"),
        ("http://127.8.9.10/", "127.8.9.10", 80, "/"),
        ("https://[::1]:8443", "::1", 8443, "/"),
        ("http://localhost:9/hook", None, 9, "/hook"),
    ],
)
def test_push_target_accepts_loopback(
    url: str, address: str | None, port: int, path: str, no_outside_network: list[str]
) -> None:
    import ipaddress

    from examples.push import loopback_target

    target = loopback_target(url)
    assert ipaddress.ip_address(target.address).is_loopback
    assert (address or target.address, port, path) == (
        target.address,
        target.port,
        target.path,
    )
    assert no_outside_network == []


def test_push_is_delivered_to_loopback_and_never_sent_elsewhere(
    example: Any, no_outside_network: list[str]
) -> None:
    """A real webhook on loopback gets the updates; configs elsewhere are refused and
    recorded as failed deliveries, without a resolution or a connection attempt."""
    import http.server

    from examples.push import WebhookSender

    received: list[tuple[str, dict[str, Any]]] = []

    class Hook(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append(
                (self.headers.get("X-A2A-Notification-Token", ""), json.loads(body))
            )
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    hook = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    sender = WebhookSender(timeout=5)
    try:
        with running(example.create_app(hold=False, push_sender=sender)) as base:
            with httpx.Client(base_url=base, timeout=10, headers=V) as http:
                task = send(http, "hold")
                good = f"http://localhost:{hook.server_port}/hook"
                for url, token in [
                    (good, "t-good"),
                    *((bad, "t-bad") for bad in NOT_LOOPBACK[:4]),
                ]:
                    made = http.post(
                        f"/rest/tasks/{task['id']}/pushNotificationConfigs",
                        json={"url": url, "token": token},
                    )
                    assert made.status_code == 200, made.text
                send(http, "done", taskId=task["id"])
                deadline = threading.Event()
                for _ in range(100):  # the delivery runs in the server's executor
                    if received and len(sender.failures) >= 4:
                        break
                    deadline.wait(0.05)
    finally:
        hook.shutdown()
        hook.server_close()
    assert no_outside_network == [], "a non-loopback webhook was resolved or contacted"
    assert [token for token, _ in received] == ["t-good"]
    assert received[0][1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert [url for url, _ in sender.failures] == NOT_LOOPBACK[:4]
    assert all("not loopback" in why for _, why in sender.failures)
    assert list(sender.delivered) == [(good, "204")]


def test_a_push_url_that_does_not_parse_is_refused_before_anything_is_stored(
    example: Any,
) -> None:
    """``http://[::1`` (urlsplit raises) used to store the task, then fail its push with a
    500: now it is invalid params on both bindings, and the store is as it was."""
    from examples.push import PushRefused, loopback_target

    with pytest.raises(PushRefused, match="not a URL"):
        loopback_target("http://[::1")
    field = "configuration.taskPushNotificationConfig.url"
    with running(example.create_app(hold=False)) as base:
        with httpx.Client(base_url=base, timeout=10, headers=V) as http:
            held = send(http, "hold")

            def stored() -> tuple[list[str], list[dict[str, Any]]]:
                tasks = http.get("/rest/tasks").json()["tasks"]
                configs = http.get(
                    f"/rest/tasks/{held['id']}/pushNotificationConfigs"
                ).json()
                return sorted(t["id"] for t in tasks), configs.get("configs", [])

            before = stored()
            for url in (
                "http://[::1",
                "http://a]b/",
                "https://[zz]/",
                "http://[::1]:port/hook",
                "http:///hook",
            ):
                hook = {"configuration": {"taskPushNotificationConfig": {"url": url}}}
                for request in (
                    message("new task", **{}) | hook,
                    message("more", taskId=held["id"]) | hook,
                ):
                    answer = http.post("/rest/message:send", json=request)
                    assert answer.status_code == 400, (url, answer.text)
                    violations = answer.json()["error"]["details"][0]["fieldViolations"]
                    assert [v["field"] for v in violations] == [field], violations
                    refused = rpc(http, "SendMessage", request)["error"]
                    assert refused["code"] == -32602, refused
                made = http.post(
                    f"/rest/tasks/{held['id']}/pushNotificationConfigs",
                    json={"url": url},
                )
                assert made.status_code == 400, made.text
                assert (
                    made.json()["error"]["details"][0]["fieldViolations"][0]["field"]
                    == "url"
                )
            assert stored() == before
            assert len(http.get(f"/rest/tasks/{held['id']}").json()["history"]) == 1


def _sse(answer: httpx.Response) -> list[dict[str, Any]]:
    return [
        json.loads(line[5:]) for line in answer.iter_lines() if line.startswith("data:")
    ]


def test_held_stream_ends_waiting_for_input_and_the_task_lives_on(
    client: httpx.Client,
) -> None:
    """Over a stream a held task goes to INPUT_REQUIRED, an interrupted state where the
    stream closes (§11.7); the task still takes subscribe, messages and cancel."""
    with client.stream("POST", "/rest/message:stream", json=message("hold")) as answer:
        events = _sse(answer)  # returns only because the server closed the stream
    task = events[0]["task"]
    assert task["status"]["state"] == "TASK_STATE_WORKING"
    assert [e["statusUpdate"]["status"]["state"] for e in events[1:]] == [
        "TASK_STATE_INPUT_REQUIRED"
    ]
    assert (
        client.get(f"/rest/tasks/{task['id']}").json()["status"]["state"]
        == "TASK_STATE_INPUT_REQUIRED"
    )
    with client.stream("POST", f"/rest/tasks/{task['id']}:subscribe") as answer:
        subscribed = _sse(answer)
    assert [list(e) for e in subscribed] == [["task"]]
    assert (
        send(client, "more", taskId=task["id"])["status"]["state"]
        == "TASK_STATE_WORKING"
    )
    assert len(client.get(f"/rest/tasks/{task['id']}").json()["history"]) == 2
    cancelled = client.post(f"/rest/tasks/{task['id']}:cancel", json={})
    assert cancelled.json()["status"]["state"] == "TASK_STATE_CANCELED"


def test_push_config_in_send_configuration_is_kept(client: httpx.Client) -> None:
    """SendMessageConfiguration.taskPushNotificationConfig applies to the task (§3.2.2)."""
    hook = {"url": "http://127.0.0.1:9/hook", "token": "t-1"}
    task = client.post(
        "/rest/message:send",
        json={**message("hold"), "configuration": {"taskPushNotificationConfig": hook}},
    ).json()["task"]
    configs = rpc(client, "ListTaskPushNotificationConfigs", {"taskId": task["id"]})[
        "result"
    ]["configs"]
    assert [(c["url"], c["token"], c["taskId"]) for c in configs] == [
        (hook["url"], "t-1", task["id"])
    ]
    bad = {
        **message("x"),
        "configuration": {"taskPushNotificationConfig": {"url": "ftp://127.0.0.1/"}},
    }
    refused = rpc(client, "SendMessage", bad)["error"]
    assert refused["code"] == -32602
    assert (
        refused["data"][0]["fieldViolations"][0]["field"]
        == "configuration.taskPushNotificationConfig.url"
    )


def test_jsonrpc_answers_are_application_json(client: httpx.Client) -> None:
    """§9.1: JSON-RPC answers, errors included, are application/json (streams aside)."""
    for body in (
        {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "nope"}},
        {"jsonrpc": "2.0", "id": 2, "method": "ListTasks", "params": {}},
    ):
        answer = client.post("/jsonrpc", json=body)
        assert answer.headers["content-type"] == "application/json"


# --- what the generated app gives the example: true URLs, the OpenAPI document, versions


def test_card_links_the_openapi_document_which_leads_to_the_server(
    client: httpx.Client,
) -> None:
    card = client.get("/.well-known/agent-card.json")
    assert card.headers["etag"] and card.headers["cache-control"].startswith("public")
    assert (
        client.get(
            "/.well-known/agent-card.json",
            headers={"If-None-Match": card.headers["etag"]},
        ).status_code
        == 304
    )
    base = f"http://127.0.0.1:{client.base_url.port}"
    assert card.json()["documentationUrl"] == base + "/openapi.json"
    document = client.get(card.json()["documentationUrl"]).json()
    assert document["openapi"].startswith("3.1") and document["servers"] == [
        {"url": base + "/rest"}
    ]
    task = send(client, "hello")
    assert (
        client.get(document["servers"][0]["url"] + f"/tasks/{task['id']}").json()["id"]
        == task["id"]
    )


def test_extended_card_names_the_address_reached_and_jsonrpc_carries_the_challenge(
    example: Any,
) -> None:
    with running(example.create_app(hold=False, token="t0k3n")) as base:
        with httpx.Client(base_url=base, timeout=10, headers=V) as http:
            envelope = {"jsonrpc": "2.0", "id": 1, "method": "GetExtendedAgentCard"}
            refused = http.post(
                "/jsonrpc",
                json=envelope,
                headers={"Authorization": f"Bearer {example.DEFAULT_TOKEN}"},
            )
            assert refused.json()["error"]["code"] == example.UNAUTHENTICATED == -31001
            assert refused.headers["www-authenticate"] == 'Bearer realm="a2a-example"'
            card = http.post(
                "/jsonrpc", json=envelope, headers={"Authorization": "bearer t0k3n"}
            ).json()["result"]
            urls = {i["protocolBinding"]: i["url"] for i in card["supportedInterfaces"]}
            assert urls == {"HTTP+JSON": f"{base}/rest", "JSONRPC": f"{base}/jsonrpc"}
            assert (
                http.get(
                    "/rest/extendedAgentCard",
                    headers={"Authorization": "Bearer t0k3n\u00e9".encode("latin-1")},
                ).status_code
                == 401
            )


def test_a_request_without_a_version_is_served_and_an_unknown_version_refused(
    client: httpx.Client,
) -> None:
    """No A2A-Version counts as 0.3 (§3.2.6), which the example serves as 1.0 (the
    conformance kit sends none); a version it does not speak is refused."""
    plain = httpx.get(str(client.base_url.join("/rest/tasks")), timeout=10)
    assert plain.status_code == 200 and plain.json()["tasks"] == []
    newer = client.get("/rest/tasks", headers={"A2A-Version": "2.0"})
    assert (
        newer.status_code == 400
        and newer.json()["error"]["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"
    )


def test_a_request_the_proto_cannot_read_is_invalid_params(
    client: httpx.Client,
) -> None:
    bad = message("hello")
    bad["message"]["role"] = "ROLE_NOBODY"
    error = rpc(client, "SendMessage", bad)["error"]
    assert error["code"] == -32602 and "ROLE_NOBODY" in error["message"]
    assert client.post("/rest/message:send", json=bad).status_code == 400


def _streamed_first_event_after(
    monkeypatch: pytest.MonkeyPatch, webhook_seconds: float | None
) -> tuple[float, list[str]]:
    """Seconds until a stream's first event, with a push config whose webhook takes
    ``webhook_seconds`` to answer (None: never), and what the webhook had been told
    of by then (the example's agent, imported with the ``example`` fixture)."""
    import asyncio
    import time

    from a2a.types import a2a_pb2 as pb

    from examples import agent as example_agent

    monkeypatch.setattr(example_agent, "PUSH_WAIT_SECONDS", 0.3)

    async def run() -> tuple[float, list[str]]:
        told: list[str] = []
        loop = asyncio.get_running_loop()

        def sender(config: Any, event: Any) -> asyncio.Future[None]:
            delivery: asyncio.Future[None] = loop.create_future()

            def answered() -> None:
                told.append(pb.TaskState.Name(event.status_update.status.state))
                delivery.set_result(None)

            if webhook_seconds is not None:
                loop.call_later(webhook_seconds, answered)
            return delivery

        agent = example_agent.Agent(hold=True, push_sender=sender)
        request = pb.SendMessageRequest(
            message=pb.Message(
                message_id="m1", role=pb.ROLE_USER, parts=[pb.Part(text="hi")]
            )
        )
        request.configuration.task_push_notification_config.url = "http://[::1]:9/h"
        began = time.monotonic()
        stream = agent.SendStreamingMessage(request)
        first = await stream.__anext__()
        took = time.monotonic() - began
        await stream.aclose()
        assert first.HasField("task")
        return took, list(told)

    return asyncio.run(run())


def test_a_stream_reports_an_update_after_the_webhook_was_told_of_it(
    example: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    took, told = _streamed_first_event_after(monkeypatch, 0.1)
    # held, over a stream: working, then waiting for input (each update pushed)
    assert told == ["TASK_STATE_WORKING", "TASK_STATE_INPUT_REQUIRED"]
    assert 0.1 <= took < 0.3


def test_a_stream_waits_for_a_webhook_that_never_answers_a_bounded_time(
    example: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    took, told = _streamed_first_event_after(monkeypatch, None)
    assert told == [] and 0.3 <= took < 1.0
