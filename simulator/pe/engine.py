"""The shape every fixed-function engine shares: a bounded command queue in the Command Processor
and a SimPy process that takes commands in order, waits for their CB dependencies, holds the engine
for the command's occupancy and completes it after the pipeline latency.

Subclasses say what a command costs: `occupancy(cmd)` in cycles, `latency`, and the operations it
counts. Engines run one command at a time and in order, so a command does not wait for an earlier
command of the same engine (the pipeline forwards its result).

Each engine also keeps `stalls`: cycles it could not work, by reason. "issue": its queue was empty
until the control core issued the next command; "data <cb>": a tile it reads was not written yet;
"space <cb>": no free slot to push into; "readers <cb>": earlier readers of a slot it updates in
place had not finished; "ls port": the local store's port was busy with other engines' or the DMA's bytes.
The report adds "done": the engine had finished its last command while the run went on.
"""
from __future__ import annotations

import math

import simpy

from ..activity import spread, window_cycles
from .command_queue import CommandQueue


class Engine:
    kind = "engine"
    in_order = True

    def __init__(self, pe, latency: int, command_cycles: int):
        self.pe = pe
        self.env: simpy.Environment = pe.env
        self.queue = CommandQueue(self.env, pe.cfg.pe.queue_depth)
        self.latency = latency
        self.command_cycles = command_cycles
        self.busy = 0.0
        self.commands = 0
        self.ops = 0.0                  # arithmetic operations (FLOPs for floats) done
        self.current = None             # the command at the head, for deadlock reports
        self.waiting = None             # what the head command waits for
        self.stalls: dict[str, float] = {}
        self.last_end = 0.0             # when its latest command finished
        self.contexts: dict = {}        # command context -> (instruction class, operand words it holds)
        self.activity: dict[int, float] = {}    # busy cycles by time window (energy's power over time)
        self.window = window_cycles(pe.cfg)
        self.proc = self.env.process(self.run())

    def stall(self, reason: str, cycles: float) -> None:
        if cycles > 0:
            self.stalls[reason] = self.stalls.get(reason, 0.0) + cycles

    def wait_reason(self, why) -> str:
        """A dependency's reason as a stall key: "data a (dma)" = a tile of CB `a` that the DMA writes;
        "space acc", "readers qk"."""
        what, cb = why[0], why[1]
        c = self.pe.cbs.get(cb)
        name = c.name if c is not None else cb
        by = f" ({why[3]})" if len(why) > 3 and why[3] else ""
        return f"{what} {name}{by}"

    def idle_clock(self) -> float:
        """Cycles so far in which the engine did no work; a wait stalls it by what this advances.
        (Engines that overlap commands, like the DMA, are busy while their transfers fly.)"""
        return self.env.now

    def next_command(self):
        """Take the next command, counting the wait for the control core as an "issue" stall."""
        queue = self.queue
        if queue.items:                 # a get that fires at once
            cmd = queue.items.popleft()
            yield self.proc.sleep(0)
            queue.make_room()
            return cmd
        t = self.idle_clock()
        cmd = yield queue.get()
        self.stall("issue", self.idle_clock() - t)
        return cmd

    def wait_deps(self, cmd):
        for ev, why in cmd.deps:
            if not ev.triggered:
                self.waiting = why
                reason, t = self.wait_reason(why), self.idle_clock()
                yield ev
                self.stall(reason, self.idle_clock() - t)

    def wait_resolved(self, cmd):
        """A command reaches its engine `pe.cp_cycles` after issue: the command processor's checks."""
        ready = cmd.issued + self.pe.cfg.pe.cp_cycles
        if self.env.now < ready:
            t = self.idle_clock()
            yield self.env.wake(ready - self.env.now)
            self.stall("issue", self.idle_clock() - t)

    def occupancy(self, cmd) -> float:
        raise NotImplementedError

    def ls_traffic(self, cmd) -> int:
        """Bytes the command moves through the local-store port."""
        return cmd.plan.ls_bytes

    def run(self):
        """next_command, wait_deps and wait_resolved written out (this loop runs once per command,
        and these engines' idle clock is the simulation's)."""
        env = self.env
        pe = self.pe
        queue = self.queue
        port = pe.ls_port
        cp_cycles = pe.cfg.pe.cp_cycles
        plain_traffic = type(self).ls_traffic is Engine.ls_traffic      # (the DPE's is its own)
        sleep = self.proc.sleep
        items = queue.items
        occupancy, reserve, complete, call_later = self.occupancy, port.reserve, pe.complete, env.call_later
        nothing_else_now = env.nothing_else_now
        activity, width = self.activity, self.window
        while True:
            if items:       # a get would fire at once: take the command now, go on where its processing would
                cmd = items.popleft()
                if not nothing_else_now():       # (else it would be the next event: no need to wait for it)
                    yield sleep(0)
                queue.make_room()
            else:
                t = env.now
                cmd = yield queue.get()
                if env.now > t:
                    self.stall("issue", env.now - t)
            self.current = cmd
            for ev, why in cmd.deps:
                if not ev.triggered:
                    self.waiting = why
                    reason, t = self.wait_reason(why), env.now
                    yield ev
                    self.stall(reason, env.now - t)
            ready = cmd.issued + cp_cycles
            if env.now < ready:
                t = env.now
                yield sleep(ready - t)
                self.stall("issue", env.now - t)
            self.waiting = None
            start = env.now
            occ = self.command_cycles + occupancy(cmd)
            end = reserve(start, cmd.plan.ls_bytes if plain_traffic else self.ls_traffic(cmd))
            if end > start + occ:
                self.stall("ls port", end - (start + occ))
            else:
                end = start + occ
            cmd.start, cmd.end = start, end
            yield sleep(end - start)
            self.busy += end - start
            w = int(start // width)
            if end <= (w + 1) * width:
                activity[w] = activity.get(w, 0.0) + (end - start)
            else:
                spread(activity, width, start, end, end - start)
            self.last_end = end
            self.commands += 1
            self.current = None
            if self.latency:
                call_later(self.latency, complete, cmd)
            else:
                complete(cmd)

    def state(self) -> dict:
        return {"queued": len(self.queue.items), "busy_cycles": self.busy, "commands": self.commands,
                "stall_cycles": dict(self.stalls)}


def cdiv(a: float, b: float) -> int:
    return int(math.ceil(a / b))
