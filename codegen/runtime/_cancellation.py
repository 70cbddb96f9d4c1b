"""The request's task: deadlines, and telling a real cancellation from a handler's.

A handler runs in the task of the request it serves, never in a task of its own, so
that whatever it raises reaches the application's error policy (asyncio lets a
``SystemExit`` raised in another task out of the event loop). ``within`` bounds it with
a timer that cancels that task, and takes the cancellation back once it is turned into
``DeadlineExceeded``; ``uncancel`` takes back one cancellation request;
``handler_cancelled`` tells a handler's own ``CancelledError`` from a real cancellation.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

__all__ = ["DeadlineExceeded", "handler_cancelled", "uncancel", "within"]

T = TypeVar("T")


class DeadlineExceeded(Exception):
    """The handler ran past the call's deadline and was cancelled."""


def uncancel(task: Any) -> bool:
    """Take back one cancellation request of ``task``; True when no other is left
    (before Python 3.11 requests are not counted, so it is always True)."""
    take_back = getattr(task, "uncancel", None)
    return take_back is None or take_back() == 0


def handler_cancelled(exc: BaseException) -> bool:
    """Whether ``exc`` is a ``CancelledError`` a handler raised while this request was
    not being cancelled (it awaited a task cancelled elsewhere): a handler failure
    like any other. A real cancellation (the server's, a task group's) propagates;
    before Python 3.11 the two cannot be told apart, so both propagate."""
    import asyncio  # loaded already when a CancelledError exists

    if not isinstance(exc, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return cancelling is not None and cancelling() == 0


async def within(call: Awaitable[T], seconds: float | None) -> T:
    """``await call`` in the current task, cancelled with ``DeadlineExceeded`` after
    ``seconds`` (None: no limit).

    The handler's own ``TimeoutError`` stays its own, and a cancellation from
    elsewhere stays a cancellation. However the call ends once the timer fired (it
    returns, raises the cancellation, or turns it into another exception), the
    timer's cancellation request is taken back.
    """
    if seconds is None:
        return await call
    import asyncio

    task = asyncio.current_task()
    assert task is not None, "within() runs inside a task"
    fired = False

    def expire() -> None:
        nonlocal fired
        fired = True
        task.cancel()

    timer = asyncio.get_running_loop().call_later(seconds, expire)
    try:
        result = await call
    except asyncio.CancelledError:
        if fired and uncancel(task):
            raise DeadlineExceeded(f"the call took longer than {seconds:g} s") from None
        raise
    except BaseException:
        if fired:
            uncancel(task)  # the call turned the cancellation into another error
        raise
    finally:
        timer.cancel()
    if fired:
        uncancel(task)  # the call swallowed the cancellation and answered anyway
    return result
