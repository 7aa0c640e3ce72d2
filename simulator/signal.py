"""A one-shot SimPy event that is scheduled only if something waits for it.

Most completion events of a run have nobody waiting when they fire: a slot read after its writer
finished, a command no fence waits for. SimPy schedules every triggered event anyway, and
processing one without callbacks does nothing. A `Signal` fires the same way (`succeed()`; processes
`yield` it and callbacks append to `callbacks`), but when nothing has registered a callback by then
it is marked processed at once instead of scheduled. Events left out of the schedule change no
ordering of the others (SimPy orders by time, priority and the order of scheduling), so runs keep
their exact event order: a Signal saves the heap push, the heap pop and the empty processing.

The one rule it needs: wait only for a Signal that has not fired (`if not sig.triggered: yield sig`),
as every waiter in the simulator does. Appending a callback to a fired Signal raises AttributeError
instead of waiting for a processing that will never come.
"""
from __future__ import annotations


class Signal:
    __slots__ = ("env", "callbacks", "triggered", "_value", "__weakref__")   # the tracer keys weakly on events
    _ok = True                      # a Signal never fails (SimPy's step and resume read this)

    def __init__(self, env):
        self.env = env
        self.callbacks: list | None = []
        self.triggered = False
        self._value = None

    def succeed(self, value=None) -> "Signal":
        if self.triggered:
            raise RuntimeError(f"{self!r} has already been triggered")
        self.triggered = True
        self._value = value
        if self.callbacks:
            self.env.schedule(self)
        else:
            self.callbacks = None   # processed: nobody waited
        return self

    @property
    def value(self):
        return self._value

    @property
    def processed(self) -> bool:
        return self.callbacks is None

    def __repr__(self) -> str:
        return f"<Signal {'fired' if self.triggered else 'pending'} at {id(self):#x}>"
