"""The shape every fixed-function engine shares: a bounded command queue in the Command Processor
and a SimPy process that takes commands in order, waits for their CB dependencies, holds the engine
for the command's occupancy and completes it after the pipeline latency.

Subclasses say what a command costs: `occupancy(cmd)` in cycles, `latency`, and the operations it
counts. Engines run one command at a time and in order, so a command does not wait for an earlier
command of the same engine (the pipeline forwards its result).
"""
from __future__ import annotations

import math

import simpy


class Engine:
    kind = "engine"
    in_order = True

    def __init__(self, pe, latency: int, command_cycles: int):
        self.pe = pe
        self.env: simpy.Environment = pe.env
        self.queue = simpy.Store(self.env, capacity=pe.cfg.pe.queue_depth)
        self.latency = latency
        self.command_cycles = command_cycles
        self.busy = 0.0
        self.commands = 0
        self.ops = 0.0                  # arithmetic operations (FLOPs for floats) done
        self.current = None             # the command at the head, for deadlock reports
        self.waiting = None             # what the head command waits for
        self.env.process(self.run())

    def occupancy(self, cmd) -> float:
        raise NotImplementedError

    def run(self):
        env = self.env
        pe = self.pe
        while True:
            cmd = yield self.queue.get()
            self.current = cmd
            for ev, why in cmd.deps:
                if not ev.triggered:
                    self.waiting = why
                    yield ev
            self.waiting = None
            start = env.now
            occ = self.command_cycles + self.occupancy(cmd)
            end = max(start + occ, pe.ls_port.reserve(start, ls_bytes(cmd)))
            cmd.start, cmd.end = start, end
            yield env.timeout(end - start)
            self.busy += end - start
            self.commands += 1
            self.current = None
            if self.latency:
                env.timeout(self.latency).callbacks.append(lambda _, c=cmd: pe.complete(c))
            else:
                pe.complete(cmd)

    def state(self) -> dict:
        return {"queued": len(self.queue.items), "busy_cycles": self.busy, "commands": self.commands}


def ls_bytes(cmd) -> int:
    """Local-store traffic of a command: every tile read, every tile written (acc: both)."""
    n = 0
    for _, t in cmd.tiles:
        n += t.nbytes * (2 if t.mode == "acc" else 1)
    return n


def cdiv(a: float, b: float) -> int:
    return int(math.ceil(a / b))
