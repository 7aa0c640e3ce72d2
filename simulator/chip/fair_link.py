"""A bandwidth resource whose arbiter serves its requesters in turn (round robin, burst by burst).

Modelled as fluid fair sharing: while k requesters have bytes to move, each gets 1/k of the
bandwidth; a requester's own transfers go one after another (its port sends them in order). So a
PE that queues six tiles at once does not hold the link for all six while another PE's single
transfer waits behind them, as it would on a first-come link (`Link`).

Cost stays one calculation per transfer start or end: a virtual clock `v` counts the bytes each
active requester has been served (it advances at bandwidth / k), a transfer ends when `v` reaches
its start plus its size, and a heap holds each requester's head transfer by that virtual finish.
"""
from __future__ import annotations

import heapq
from collections import deque

import simpy


class FairLink:
    __slots__ = ("env", "name", "bpc", "v", "t", "queues", "heads", "gen", "busy", "bytes", "_seq")

    def __init__(self, env: simpy.Environment, name: str, bytes_per_cycle: float):
        self.env = env
        self.name = name
        self.bpc = float(bytes_per_cycle)
        self.v = 0.0                 # bytes served so far to each active requester
        self.t = 0.0                 # when v was last brought up to date
        self.queues: dict = {}       # requester -> deque of (bytes, done event)
        self.heads: list = []        # heap of (virtual finish, seq, requester), one per active requester
        self.gen = 0                 # the pending wake-up's number; older ones are stale
        self.busy = 0.0              # cycles with something to send
        self.bytes = 0               # bytes carried
        self._seq = 0

    def start(self, requester, nbytes: float) -> simpy.Event:
        """Queue `nbytes` for `requester` now; the event fires when its last byte is through."""
        done = self.env.event()
        self.bytes += nbytes
        if nbytes <= 0:
            done.succeed()
            return done
        self._advance()
        q = self.queues.get(requester)
        if q is None:
            q = self.queues[requester] = deque()
        q.append((float(nbytes), done))
        if len(q) == 1:
            self._push(self.v + nbytes, requester)
        self._schedule()
        return done

    def _push(self, finish: float, requester) -> None:
        self._seq += 1
        heapq.heappush(self.heads, (finish, self._seq, requester))

    def _advance(self) -> None:
        now = self.env.now
        if self.heads and now > self.t:
            self.v += (now - self.t) * self.bpc / len(self.heads)
            self.busy += now - self.t
        self.t = now

    def _schedule(self) -> None:
        self.gen += 1
        if not self.heads:
            return
        delay = max(0.0, (self.heads[0][0] - self.v) * len(self.heads) / self.bpc)
        gen = self.gen
        self.env.timeout(delay).callbacks.append(lambda _: self._wake(gen))

    def _wake(self, gen: int) -> None:
        if gen != self.gen:                   # a start or an end since rescheduled it
            return
        self._advance()
        eps = 1e-9 * max(1.0, self.v)
        while self.heads and self.heads[0][0] <= self.v + eps:
            finish, _, requester = heapq.heappop(self.heads)
            q = self.queues[requester]
            _, done = q.popleft()
            done.succeed()
            if q:
                self._push(finish + q[0][0], requester)     # its next transfer starts where this ended
            else:
                del self.queues[requester]
        self._schedule()
