"""The request's task (``codegen/runtime/_cancellation.py``): ``within`` bounds a call
in the task itself and leaves no cancellation request behind, however the call ends."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codegen.runtime._cancellation import (
    DeadlineExceeded,
    handler_cancelled,
    uncancel,
    within,
)

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
