"""How a calling thread waits for IREE's task workers without taking a core from them.

On `local-task` the calling thread submits a call and sleeps until the last
worker signals the result's fence. When that worker wakes it, Linux lets the
woken thread preempt the worker at once. IREE's wait then spins until the
worker has marked its wake-up callback finished, but the worker is the thread
it preempted: on a machine with as many workers as cores both are stuck until
the scheduler's next tick. That costs about a millisecond per call (the zoo's
bf16 GEMM on two cores: 3.6-3.8 ms per call against 2.4 ms).

A thread under SCHED_BATCH never preempts on wake-up, so a call that waits
long enough for this to matter runs under it and the thread gets its usual
policy back after. Short calls keep their policy: for them the three system
calls and a wake-up that has to wait for a free core cost more (an f32[4] add
on two workers: 18 -> 24 us per call) than the race does. Whether a function's
calls are long is learned from its last call. Threads under any other policy
(real-time, idle) are left alone, as are systems without these calls.
`OXLA_BATCH_WAIT=0` in the environment when a module is loaded turns this off
for its functions (to measure it, or to leave every thread's policy alone).
"""

from __future__ import annotations

import os
from time import perf_counter

# Drivers whose calls are carried out by worker threads while the caller waits.
WORKER_DRIVERS = frozenset({"local-task"})

_BATCH = getattr(os, "SCHED_BATCH", None)
_OTHER = getattr(os, "SCHED_OTHER", None)
_PARAM = os.sched_param(0) if _BATCH is not None else None
# A call that took longer than this makes the function's next call wait under SCHED_BATCH (the zoo's
# smallest programs take 0.1-0.3 ms on two workers and gain 0.05-0.1 ms each; see docs/performance.md).
SLOW_CALL_S = 50e-6


def enter_batch() -> bool:
    """Put the calling thread under SCHED_BATCH if it runs under SCHED_OTHER; True when it changed."""
    if _BATCH is None:
        return False
    try:
        if os.sched_getscheduler(0) != _OTHER:
            return False
        os.sched_setscheduler(0, _BATCH, _PARAM)
    except OSError:
        return False
    return True


def leave_batch() -> None:
    """Give the calling thread SCHED_OTHER back after enter_batch() returned True."""
    try:
        os.sched_setscheduler(0, _OTHER, _PARAM)
    except OSError:
        pass


def waits_for_workers(fn, driver: str):
    """`fn` wrapped to wait for `driver`'s workers under SCHED_BATCH once one of its calls was slow.

    `fn` itself where the driver has no workers, the system no such policy, or OXLA_BATCH_WAIT is 0.
    """
    if driver not in WORKER_DRIVERS or _BATCH is None or os.environ.get("OXLA_BATCH_WAIT") == "0":
        return fn
    slow = False

    def call(*args):
        nonlocal slow
        batch = slow and enter_batch()
        began = perf_counter()
        try:
            return fn(*args)
        finally:
            if batch:
                leave_batch()
            slow = perf_counter() - began > SLOW_CALL_S

    call.__doc__ = fn.__doc__
    return call
