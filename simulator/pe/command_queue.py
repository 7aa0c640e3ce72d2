"""An engine's bounded command queue: what `simpy.Store` does for one producer (the control core) and
one consumer (the engine), event for event, with less work per command.

The events are the Store's, scheduled at the same moments, so a run keeps its exact event order:

- `get()` with a command queued fires at once (it is scheduled now, and the engine resumes when it
  is processed); with none, it waits until a put serves it.
- `put()` with room appends the command. A Store schedules the put's event, whose processing serves
  a waiting get; here it is scheduled only when a get is waiting (otherwise its processing finds no
  get to serve: the engine cannot ask again before the put's event is processed), as a `call_later`
  of the simulation's `Environment` (the queue needs that one: SimPy's has no `call_later`).
- `put()` on a full queue returns an event the core waits for; it fires when a get makes room, and
  its processing serves a waiting get before the core resumes, as the Store's does.
"""
from __future__ import annotations

from collections import deque

from ..signal import Signal


class CommandQueue:
    __slots__ = ("env", "capacity", "items", "getter", "putter")

    def __init__(self, env, capacity: int):
        self.env = env
        self.capacity = capacity
        self.items: deque = deque()
        self.getter: Signal | None = None     # the engine's get, while it waits for a command
        self.putter = None                    # (event, command) of the core's put, while the queue is full

    def get(self) -> Signal:
        """The engine's get: with a command queued, an engine may instead pop it, sleep 0 cycles and
        then `make_room()`, which the get's processing would do before resuming it."""
        ev = Signal(self.env)
        ev.callbacks.append(self.make_room)      # a get always frees a place first, then resumes the engine
        if self.items:
            ev.succeed(self.items.popleft())
        else:
            self.getter = ev
        return ev

    def take(self):
        """The oldest command at once, or None when the engine must `yield get()` for it.

        A get with a command queued is scheduled at once, and the engine resumes when it is
        processed. When nothing else is scheduled for now, it is the next event processed, so
        taking the command without it (and making room for a blocked put first, as its processing
        would) keeps the run's exact order. The caller must be a process resumed by an event with
        no callbacks after its own (an engine woken by its occupancy timeout)."""
        if self.items and self.env.nothing_else_now():
            cmd = self.items.popleft()
            self.make_room()
            return cmd
        return None

    def put(self, cmd) -> Signal | None:
        """Queue `cmd`; on a full queue, the event that fires once it is queued (else None)."""
        if len(self.items) >= self.capacity:
            ev = Signal(self.env)
            ev.callbacks.append(self._serve)
            self.putter = (ev, cmd)
            return ev
        self.items.append(cmd)
        if self.getter is not None:          # the put's event, processed when a Signal's would be
            self.env.call_later(0, self._serve, None)
        return None

    def _serve(self, _) -> None:
        """A put's processing: hand the oldest command to a waiting get."""
        g = self.getter
        if g is not None and self.items:
            self.getter = None
            g.succeed(self.items.popleft())

    def make_room(self, _=None) -> None:
        """A get's processing (its callback): a put blocked on the full queue goes in."""
        if self.putter is not None and len(self.items) < self.capacity:
            ev, cmd = self.putter
            self.putter = None
            self.items.append(cmd)
            ev.succeed()
