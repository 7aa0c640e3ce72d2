"""The simulation's event loop: SimPy's `Environment` with its schedule kept by time, and the loop
that processes events written out. Events are processed in exactly SimPy's order (time, then
priority, then the order they were scheduled in), so runs keep their cycles and their event order.

A run processes about six events per command, and SimPy spends much of its time per event on its
schedule: one heap of (time, priority, id, event) tuples, where every push and pop compares tuples
element by element, and on calls (`run` calls `step` for each event; a timeout goes through a bound
class, `Timeout.__init__` and `schedule`; a process resumes through a bound method made at each
yield). Here:

- the schedule is a heap of the distinct times that have events, and for each time a deque of its
  NORMAL events in the order they were scheduled. The rare events of another priority (process
  starts, interrupts: all more urgent) wait in a small heap of their own per time, served first.
  Comparing two floats replaces comparing tuples, and an event at a time already scheduled (most
  are: completions signal at the current time, engines finish at the same cycles) costs no heap
  operation at all;
- `run()` pops and processes events in one loop;
- `wake(delay)` is a timeout as a slotted `Wake`, scheduled directly, and `call_later(delay, fn,
  arg)` an event whose only callback calls `fn(arg)`;
- `process(generator)` runs a generator as a lighter `Process` than SimPy's (see there), whose
  `sleep(delay)` is a `wake` that reuses one event per process (the engines' and cores' waits for
  their own cycles, two or three per command);
- `now` is a plain attribute that the loop sets with SimPy's `_now`, not a property call on each
  of the ~7 reads a command makes.
"""
from __future__ import annotations

from collections import deque
from heapq import heappop, heappush
from itertools import count

import simpy
from simpy.core import NORMAL, URGENT, EmptySchedule, Infinity, StopSimulation


class Wake:
    """What `env.timeout(delay)` returns, with less to build: processes `yield` it, and callbacks
    appended to `callbacks` run when it is processed."""
    __slots__ = ("callbacks", "__weakref__")   # the tracer keys weakly on events
    _ok = True              # a Wake never fails (SimPy's step and resume read this)
    _value = None
    triggered = True        # as a Timeout: triggered when made, processed at its time

    @property
    def value(self):
        return None

    @property
    def processed(self) -> bool:
        return self.callbacks is None


class _Call:
    """A scheduled call of `fn(arg)`: its one callback is shared, as nothing else waits for it."""
    __slots__ = ("callbacks", "fn", "arg")
    _ok = True


def _call(ev: _Call) -> None:
    ev.fn(ev.arg)


_CALL = (_call,)


class Process:
    """A generator run as a process: it starts as SimPy's do (an URGENT event now), and each event it
    yields resumes it when processed, or at once when already processed. Lighter than SimPy's
    `Process`, which the simulator needs none of the rest of: it is no event itself (nobody waits
    for an engine or a core to end, so its end schedules nothing), it keeps no active process, and
    its callback is made once instead of at each yield. An exception in the generator ends the run
    at once, as itself (SimPy raises a copy when its failed process event is processed)."""
    __slots__ = ("env", "_generator", "_resume_cb", "_alarm", "_alarm_cbs")

    def __init__(self, env: "Environment", generator):
        self.env = env
        self._generator = generator
        self._resume_cb = self._resume
        self._alarm = Wake()                    # what `sleep` schedules
        self._alarm.callbacks = None
        self._alarm_cbs = (self._resume_cb,)
        start = Wake()
        start.callbacks = [self._resume_cb]
        env.schedule(start, URGENT)

    def sleep(self, delay: float) -> Wake:
        """For the process to `yield` at once: it resumes after `delay` cycles (>= 0), where it would
        after yielding `env.wake(delay)`. A process waits for one event at a time, and its sleep event
        is processed before it resumes, so every sleep reuses the same event (no objects to make)."""
        alarm = self._alarm
        if alarm.callbacks is not None:
            raise RuntimeError("a process sleeps while its sleep is pending (sleep from another process?)")
        alarm.callbacks = self._alarm_cbs        # (only this process waits: a shared tuple, no list)
        env = self.env
        t = env._now + delay
        q = env._normal.get(t)
        if q is None:
            q = env._new_time(t)
        q.append(alarm)
        return alarm

    def _resume(self, event) -> None:
        gen = self._generator
        while True:
            try:
                event = gen.send(event._value) if event._ok else gen.throw(event._value)
            except StopIteration:
                return
            callbacks = event.callbacks
            if callbacks is not None:
                if event is not self._alarm:        # (a sleep's callbacks are already this process)
                    callbacks.append(self._resume_cb)
                return


class Environment(simpy.Environment):
    now = 0                 # the current time; an attribute here (SimPy's is a property over `_now`)

    def __init__(self, initial_time: float = 0):
        super().__init__(initial_time)
        for name in ("timeout", "event", "all_of", "any_of"):   # bound once, as SimPy binds its own class's
            setattr(self, name, getattr(self, name))
        self.now = initial_time
        self._times: list = []           # heap of the times that have events
        self._normal: dict = {}          # time -> deque of its NORMAL events (one per time in _times)
        self._other: dict = {}           # time -> heap of (priority, id, event) of its other events
        self._other_ids = count()        # scheduling order of those
        self._free: list = []            # empty deques of times processed, for new times

    def _new_time(self, t) -> deque:
        """Schedule time t, which has no events yet: its (empty) deque of NORMAL events (one that a
        processed time left, when there is one: about one time in two is new)."""
        free = self._free
        q = self._normal[t] = free.pop() if free else deque()
        heappush(self._times, t)
        return q

    def schedule(self, event, priority=NORMAL, delay=0) -> None:
        t = self._now + delay
        q = self._normal.get(t)
        if q is None:                   # (an empty deque is a time being processed: not new)
            q = self._new_time(t)
        if priority == NORMAL:
            q.append(event)
            return
        if priority > NORMAL:           # SimPy's other priorities (URGENT, -1) are all more urgent
            raise ValueError(f"priority {priority} is less urgent than NORMAL: not supported")
        heappush(self._other.setdefault(t, []), (priority, next(self._other_ids), event))

    def process(self, generator) -> Process:
        return Process(self, generator)

    def wake(self, delay: float) -> Wake:
        """A timeout of `delay` cycles (>= 0), scheduled as `env.timeout(delay)` would be."""
        ev = Wake()
        ev.callbacks = []
        t = self._now + delay
        q = self._normal.get(t)
        if q is None:
            q = self._new_time(t)
        q.append(ev)
        return ev

    def call_later(self, delay: float, fn, arg) -> None:
        """Call `fn(arg)` when `delay` cycles have passed, where a timeout with that callback would."""
        ev = _Call()
        ev.callbacks = _CALL
        ev.fn = fn
        ev.arg = arg
        t = self._now + delay
        q = self._normal.get(t)
        if q is None:
            q = self._new_time(t)
        q.append(ev)

    def nothing_else_now(self) -> bool:
        """Whether no other event is scheduled for the current time: an event scheduled now would
        be the next one processed."""
        return not self._normal.get(self._now) and self._now not in self._other

    def peek(self) -> float:
        """The time of the next event (a time left with no events does not count)."""
        return min((t for t in self._times if self._normal[t] or t in self._other), default=Infinity)

    def _next(self):
        """Take the next event off the schedule (None if there is none), setting the clock to its time."""
        times = self._times
        while times:
            t = times[0]
            other = self._other.get(t)
            if other:
                event = heappop(other)[2]
                if not other:
                    del self._other[t]
            else:
                q = self._normal[t]
                if not q:
                    heappop(times)
                    del self._normal[t]
                    continue
                event = q.popleft()
            self._now = self.now = t
            return event
        return None

    def step(self) -> None:
        """Process the next event, as SimPy's `step()` does (its `run(until)` steps with this)."""
        event = self._next()
        if event is None:
            raise EmptySchedule
        callbacks, event.callbacks = event.callbacks, None
        try:
            for callback in callbacks:
                callback(event)
        except StopSimulation:
            # as SimPy: the remaining callbacks run when the simulation resumes, before anything else
            event.callbacks = callbacks[callbacks.index(callback) + 1:]
            self.schedule(event, -1)
            raise
        _check(event)

    def run(self, until=None):
        """Process events until none is left, as SimPy's `run()` does (with `until`, SimPy's own,
        which steps with `step()`)."""
        if until is not None:
            return super().run(until)
        times, normals, others, free = self._times, self._normal, self._other, self._free
        while times:
            t = times[0]
            q = normals[t]
            self._now = self.now = t
            while True:        # every event of time t, including those scheduled while processing them
                if others and t in others:
                    other = others[t]
                    event = heappop(other)[2]
                    if not other:
                        del others[t]
                elif q:
                    event = q.popleft()
                else:
                    break
                callbacks, event.callbacks = event.callbacks, None
                for callback in callbacks:
                    callback(event)
                if not event._ok:
                    _check(event)
            heappop(times)
            del normals[t]
            free.append(q)
        return None


def _check(event) -> None:
    """A failed event nobody handled ends the run with its exception, as in SimPy's step()."""
    if not event._ok and not hasattr(event, "_defused"):
        exc = type(event._value)(*event._value.args)
        exc.__cause__ = event._value
        raise exc
