"""The request's task (``codegen/runtime/wire/_cancellation.py``): ``within`` bounds a call
in the task itself and leaves no cancellation request behind, however the call ends;
``DisconnectWatch`` cancels a call whose client left, the same way."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codegen.runtime._cancellation import (
    DeadlineExceeded,
    DisconnectWatch,
    handler_cancelled,
    uncancel,
    within,
)
from codegen.runtime._request import Disconnected

COUNTS = hasattr(asyncio.Task, "cancelling")


async def _left(call: Any, seconds: float | None) -> tuple[Any, int]:
    """The outcome of ``within(call, seconds)`` and the cancellations left."""
    try:
        outcome: Any = await within(call, seconds)
    except BaseException as exc:  # noqa: B902  the outcome under test
        outcome = exc
    task = asyncio.current_task()
    return outcome, task.cancelling() if COUNTS and task else 0  # type: ignore[attr-defined]


async def answer(delay: float, value: Any = "ok") -> Any:
    await asyncio.sleep(delay)
    return value


async def converts(delay: float) -> Any:
    try:
        await asyncio.sleep(delay)
    except asyncio.CancelledError:
        raise ValueError("not a cancellation any more") from None


async def swallows(delay: float) -> Any:
    try:
        await asyncio.sleep(delay)
    except asyncio.CancelledError:
        return "answered anyway"


async def own_timeout() -> Any:
    raise TimeoutError("the handler's own")


@pytest.mark.parametrize(
    ("make", "seconds", "expected"),
    [
        (lambda: answer(0), None, "ok"),
        (lambda: answer(0), 1, "ok"),
        (lambda: answer(1), 0.02, DeadlineExceeded),
        (lambda: converts(1), 0.02, ValueError),
        (lambda: swallows(1), 0.02, "answered anyway"),
        (own_timeout, 1, TimeoutError),
    ],
)
def test_within_ends_every_way_without_leaving_a_cancellation(
    make: Any, seconds: float | None, expected: Any
) -> None:
    outcome, left = asyncio.run(_left(make(), seconds))
    if isinstance(expected, type):
        assert isinstance(outcome, expected), outcome
    else:
        assert outcome == expected
    assert left == 0
    if expected is DeadlineExceeded:
        assert str(outcome) == "the call took longer than 0.02 s"


def test_a_cancellation_from_elsewhere_stays_one() -> None:
    async def scenario() -> None:
        task = asyncio.ensure_future(within(answer(1), 5))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())


@pytest.mark.skipif(not COUNTS, reason="Python 3.11 counts cancellation requests")
def test_uncancel_and_handler_cancelled_read_the_task_count() -> None:
    async def scenario() -> tuple[bool, bool, bool, int]:
        task = asyncio.current_task()
        assert task is not None
        own = handler_cancelled(asyncio.CancelledError())  # nobody cancelled us
        task.cancel()
        being = handler_cancelled(asyncio.CancelledError())
        taken = uncancel(task)
        with pytest.raises(asyncio.CancelledError):  # asyncio still delivers it
            await asyncio.sleep(0)
        return own, being, taken, task.cancelling()

    assert asyncio.run(scenario()) == (True, False, True, 0)
    assert handler_cancelled(ValueError()) is False
    assert uncancel(object()) is True  # a task that counts nothing (Python 3.10)


# ------------------------------------------------------------------ DisconnectWatch

TICK = 0.01


class Client:
    """A request's ``receive`` once its body is read: ``messages`` first, then
    ``http.disconnect`` after ``leave_after`` seconds (None: never)."""

    def __init__(self, leave_after: float | None, *messages: dict[str, Any]) -> None:
        self.leave_after = leave_after
        self.messages = list(messages)
        self.reads = 0

    async def receive(self) -> dict[str, Any]:
        self.reads += 1
        if self.messages:
            return self.messages.pop(0)
        await asyncio.sleep(3600 if self.leave_after is None else self.leave_after)
        return {"type": "http.disconnect"}


async def _watched(
    watch: DisconnectWatch, call: Any, client: Client
) -> tuple[Any, int]:
    """The outcome of ``watch.run`` and the cancellations left; no watcher outlives it."""
    try:
        outcome: Any = await watch.run(call, client.receive)
    except BaseException as exc:  # noqa: B902  the outcome under test
        outcome = exc
    task = asyncio.current_task()
    assert task is not None
    await asyncio.sleep(0)  # a stopped watcher ends
    others = [t for t in asyncio.all_tasks() if t is not task and not t.done()]
    assert others == []
    return outcome, task.cancelling() if COUNTS else 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("make", "client", "expected", "reads"),
    [
        # quicker than a tick: never watched, receive never read
        (lambda: answer(0), Client(0), "ok", 0),
        (lambda: answer(TICK / 2), Client(0), "ok", 0),
        # the client stays: the answer, the watcher stopped
        (lambda: answer(0.1), Client(None), "ok", 1),
        # the client leaves: the call is cancelled, whatever came before the disconnect
        (
            lambda: answer(5),
            Client(0, {"type": "http.request", "body": b""}),
            Disconnected,
            2,
        ),
        # the call answers anyway: its answer, the cancellation taken back
        (lambda: swallows(5), Client(0), "answered anyway", 1),
        (lambda: converts(5), Client(0), ValueError, 1),
    ],
)
def test_a_call_whose_client_leaves_is_cancelled_and_nothing_is_left(
    make: Any, client: Client, expected: Any, reads: int
) -> None:
    outcome, left = asyncio.run(_watched(DisconnectWatch(TICK), make(), client))
    if isinstance(expected, type):
        assert isinstance(outcome, expected), outcome
    else:
        assert outcome == expected
    assert left == 0 and client.reads == reads


async def cleans_up(delay: float) -> Any:
    """Awaits again once cancelled (its cleanup), then answers."""
    try:
        await asyncio.sleep(delay)
    except asyncio.CancelledError:
        await asyncio.sleep(0)
        return "cleaned up"


async def fails_at_once() -> Any:
    raise LookupError("before any await")


async def at_once() -> Any:
    return "at once"


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (at_once, "at once"),  # ends in its first step: never registered
        (lambda: answer(0), "ok"),
        (lambda: answer(TICK / 2), "ok"),
        (fails_at_once, LookupError),
        (lambda: cleans_up(5), "cleaned up"),
    ],
)
def test_a_call_run_under_the_watch_ends_as_awaiting_it_would(
    make: Any, expected: Any
) -> None:
    """However a call steps (at once, later, awaiting again once cancelled), ``run``
    gives what ``await`` gives; the client leaves at once, so a call still running
    at the tick is cancelled."""
    outcome, left = asyncio.run(_watched(DisconnectWatch(TICK), make(), Client(0)))
    if isinstance(expected, type):
        assert isinstance(outcome, expected), outcome
    else:
        assert outcome == expected
    assert left == 0


def test_a_watched_call_closed_unfinished_is_closed_too() -> None:
    """The request's coroutine closed while the call is suspended (the server drops
    it): the call's own cleanup runs, and it is watched no more."""
    closed: list[str] = []

    async def slow() -> Any:
        try:
            await asyncio.sleep(5)
        finally:
            closed.append("call")

    async def scenario() -> tuple[list[str], int]:
        watch = DisconnectWatch(TICK)
        call = slow()  # held here: only closing it runs its cleanup now
        request = watch.run(call, Client(None).receive)
        request.send(None)  # suspended in the call's sleep
        request.close()
        calls = next(iter(watch._loops.values()))
        return list(closed), len(calls.young) + len(calls.old)

    assert asyncio.run(scenario()) == (["call"], 0)


def test_a_cancellation_from_elsewhere_stays_one_under_the_watch() -> None:
    async def scenario() -> None:
        watch = DisconnectWatch(TICK)
        call = asyncio.ensure_future(watch.run(answer(5), Client(None).receive))
        await asyncio.sleep(TICK * 3)  # watched by now
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call

    asyncio.run(scenario())


@pytest.mark.skipif(not COUNTS, reason="cancellation requests are counted from 3.11")
def test_a_client_leaving_during_a_cancellation_from_elsewhere_stays_one() -> None:
    async def cancelled_twice() -> Any:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:  # the watcher's; the server's comes too
            task = asyncio.current_task()
            assert task is not None
            task.cancel()
            raise

    pending: list[int] = []

    async def scenario() -> None:
        with pytest.raises(asyncio.CancelledError):
            await DisconnectWatch(TICK).run(cancelled_twice(), Client(0).receive)
        task = asyncio.current_task()
        assert task is not None
        pending.append(task.cancelling())  # type: ignore[attr-defined]

    with pytest.raises(asyncio.CancelledError):  # the server's, still pending
        asyncio.run(scenario())
    assert pending == [1]


def test_a_receive_that_fails_leaves_the_call_unwatched() -> None:
    async def broken() -> dict[str, Any]:
        raise RuntimeError("no receive here")

    async def scenario() -> Any:
        return await DisconnectWatch(TICK).run(answer(TICK * 4), broken)

    assert asyncio.run(scenario()) == "ok"


def test_one_watch_serves_loop_after_loop() -> None:
    """Each loop has its calls and timer; a closed loop's are forgotten."""
    watch = DisconnectWatch(TICK)
    for _ in range(3):
        outcome, _ = asyncio.run(_watched(watch, answer(5), Client(0)))
        assert isinstance(outcome, Disconnected)
    assert len(watch._loops) == 1


def test_the_tick_must_be_positive() -> None:
    for tick in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="tick must be a positive number"):
            DisconnectWatch(tick)
