"""The request's task: deadlines, a client that leaves, and telling a real
cancellation from a handler's.

A handler runs in the task of the request it serves, never in a task of its own, so
that whatever it raises reaches the application's error policy (asyncio lets a
``SystemExit`` raised in another task out of the event loop). ``within`` bounds it with
a timer that cancels that task, and takes the cancellation back once it is turned into
``DeadlineExceeded``; ``DisconnectWatch`` cancels it when the HTTP client goes away,
and takes that back as ``Disconnected``; ``uncancel`` takes back one cancellation
request; ``handler_cancelled`` tells a handler's own ``CancelledError`` from a real
cancellation.
"""

from __future__ import annotations

from collections.abc import Awaitable, Coroutine, Generator
from types import CoroutineType, coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ._request import Disconnected, Receive

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "DeadlineExceeded",
    "DisconnectWatch",
    "handler_cancelled",
    "uncancel",
    "within",
]

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


class DisconnectWatch:
    """Cancels a call whose HTTP client went away, without a task per call.

    ``run(call, receive)`` awaits ``call`` in the current task (the request's), as
    ``within`` does. A call still running one to two ticks later (``tick`` seconds;
    one timer per event loop ticks for all its calls) gets a watcher task that reads
    ``receive`` until ``http.disconnect``, then cancels the call's task; ``run`` takes
    that cancellation back and raises ``Disconnected`` (a gRPC call the handler was
    awaiting is cancelled with it). A quicker call, the usual one, ends before it is
    watched: one that awaits nothing that suspends (a coroutine, stepped once at
    once) costs nothing of it, another a few dict operations, no task and no timer
    of its own. A cancellation from elsewhere stays a cancellation. ``receive`` must be the
    request's, its body read: the watcher is the only one reading it then.
    """

    def __init__(self, tick: float = 0.05) -> None:
        import asyncio  # here, not at import: a third of the package's import time

        if not tick > 0:
            raise ValueError(f"tick must be a positive number of seconds, not {tick!r}")
        self.tick = tick
        self._loops: dict[asyncio.AbstractEventLoop, _LoopCalls] = {}
        self._current_task = asyncio.current_task
        self._cancelled = asyncio.CancelledError

    async def run(self, call: Awaitable[T], receive: Receive) -> T:
        """``await call``; ``Disconnected`` when the client left while it ran."""
        if type(call) is CoroutineType:
            # Its first step at once: a call that ends in it, the usual one, is over
            # before anything could watch it.
            try:
                pending = call.send(None)
            except StopIteration as done:
                answer: T = done.value
                return answer
            call = _rest(call, pending)
        task = self._current_task()
        assert task is not None, "run() runs inside a task"
        calls = self._loops.get(task.get_loop()) or self._calls_of(task.get_loop())
        calls.young[task] = receive
        if calls.timer is None:
            calls.start()
        try:
            return await call
        except self._cancelled:
            if calls.left(task):
                raise Disconnected from None
            raise
        finally:
            if (  # never watched, the usual case; else its watcher stops
                calls.young.pop(task, None) is None
                and calls.old.pop(task, None) is None
            ):
                calls.forget(task)

    def _calls_of(self, loop: asyncio.AbstractEventLoop) -> _LoopCalls:
        for old in list(self._loops):  # a loop seen first: forget the closed ones
            if old.is_closed():
                del self._loops[old]
        calls = self._loops[loop] = _LoopCalls(loop, self.tick)
        return calls


@coroutine
def _rest(call: Coroutine[Any, Any, T], pending: Any) -> Generator[Any, Any, T]:
    """The rest of ``call``, whose first step yielded ``pending``: each of its later
    steps as ``await call`` would take it (what the task sends or throws in goes on
    to ``call``)."""
    while True:
        try:
            sent = yield pending
        except GeneratorExit:
            call.close()
            raise
        except BaseException as exc:  # a cancellation, thrown in by the task
            try:
                pending = call.throw(exc)
            except StopIteration as done:
                answer: T = done.value
                return answer
            continue
        try:
            pending = call.send(sent)
        except StopIteration as done:
            answer = done.value
            return answer


class _LoopCalls:
    """The calls ``DisconnectWatch`` runs on one event loop: those that started since
    the last tick (``young``), before it (``old``: watched at the next), and those
    watched, with their watcher."""

    def __init__(self, loop: asyncio.AbstractEventLoop, tick: float) -> None:
        self.loop, self.tick = loop, tick
        self.young: dict[asyncio.Task[Any], Receive] = {}
        self.old: dict[asyncio.Task[Any], Receive] = {}
        self.watchers: dict[asyncio.Task[Any], asyncio.Task[None]] = {}
        self.cut: set[asyncio.Task[Any]] = set()  # cancelled by their watcher
        self.timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self.timer = self.loop.call_later(self.tick, self._tick)

    def _tick(self) -> None:
        for task, receive in self.old.items():
            self.watchers[task] = self.loop.create_task(self._watch(task, receive))
        self.old, self.young = self.young, {}
        self.timer = None
        if self.old:
            self.start()

    async def _watch(self, task: asyncio.Task[Any], receive: Receive) -> None:
        try:
            while (await receive())["type"] != "http.disconnect":
                pass
        except Exception:  # a server whose receive fails: nothing to watch
            return
        self.cut.add(task)
        task.cancel()

    def left(self, task: asyncio.Task[Any]) -> bool:
        """Whether ``task`` was cancelled by its watcher (the client left), that
        cancellation taken back and no other pending."""
        if task not in self.cut:
            return False
        self.cut.discard(task)
        return uncancel(task)

    def forget(self, task: asyncio.Task[Any]) -> None:
        """The watched call of ``task`` ended: its watcher stops."""
        watcher = self.watchers.pop(task, None)
        if watcher is not None:
            watcher.cancel()
        if task in self.cut:  # the call answered anyway, its cancellation swallowed
            self.cut.discard(task)
            uncancel(task)
