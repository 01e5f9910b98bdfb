"""A fixed pool of daemon threads for the tool calls, taking them from one first-in first-out queue, and the
size of their arguments, which tells the stdin reader when to stop reading (back-pressure)."""

from __future__ import annotations

import contextlib
import functools
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel

T = TypeVar("T")

WORKERS = 4  # searches hold the GIL: more threads would not go faster, but one call waiting on a lock stalls less
WEIGHT_LIMIT = 16_000_000  # characters of string arguments waiting or running before stdin is no longer read


@dataclass
class _Job:
    """One call handed to the workers, and what came of it."""

    function: Callable[[], Any]
    token: anyio.lowlevel.EventLoopToken
    done: anyio.Event
    value: Any = None
    error: BaseException | None = None
    abandoned: bool = False


class WorkerPool:
    """`workers` daemon threads (a call that never returns cannot keep the process alive after the client
    closed stdin) running calls in arrival order; `has_room` is False while the calls queued or running carry
    `max_weight` characters of arguments or more."""

    def __init__(self, workers: int = WORKERS, max_weight: int = WEIGHT_LIMIT) -> None:
        self.workers = workers
        self.max_weight = max_weight
        self.weight = 0
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []

    def has_room(self) -> bool:
        """Whether the calls pending leave room for another one."""
        return self.weight < self.max_weight

    async def run(self, function: Callable[..., T], *args: Any, weight: int = 0) -> T:
        """`function(*args)` on a worker, after the calls queued before it. Cancelled while it waits, the call is
        skipped; cancelled while it runs, it runs to its end and its result is dropped."""
        if not self._threads:
            self._threads = [threading.Thread(target=self._work, name=f"memtui-mcp-worker-{n}", daemon=True)
                             for n in range(self.workers)]
            for thread in self._threads:
                thread.start()
        job = _Job(functools.partial(function, *args), anyio.lowlevel.current_token(), anyio.Event())
        self.weight += weight
        self._jobs.put(job)
        try:
            await job.done.wait()
        finally:
            job.abandoned = True
            self.weight -= weight
        error, job.error = job.error, None  # raised from a local that is then dropped: no frame ↔ error cycle
        if error is None:
            return job.value
        try:
            raise error
        finally:
            del error

    def _work(self) -> None:
        while True:
            _run(self._jobs.get())


def _run(job: _Job) -> None:
    """Run one job on a worker and wake its caller (its own frame: a worker waiting for the next job holds
    nothing of the last, such as a 10 MB argument)."""
    if job.abandoned:
        return
    try:
        job.value = job.function()
    except BaseException as exc:
        job.error = exc
    with contextlib.suppress(RuntimeError):  # the server has shut down meanwhile
        anyio.from_thread.run_sync(job.done.set, token=job.token)
