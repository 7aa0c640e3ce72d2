"""The simulator's own event machinery, which keeps a run's cost per command flat: the event loop
processes events in exactly SimPy's order; an engine's command queue serves commands at exactly the
moments, and in exactly the order, a SimPy Store would, also when the engine takes a command without
an event; a completion signal nobody waits for costs no scheduled event; the completions a PE keeps
for fences stay bounded by the commands in flight, however long the run."""
from __future__ import annotations

import random

import numpy as np
import simpy

import compiler.runtime.mtia_executor  # noqa: F401  (registers the executor)
from compiler.kernels import library
from simulator import use_config
from simulator.event_loop import Environment
from simulator.pe.command_queue import CommandQueue
from simulator.pe.pe import PE
from simulator.signal import Signal


def _log_of(make_queue, seed: int, env_class=simpy.Environment, take: bool = False) -> list:
    """(time, who, item) of a producer putting 40 items into a bounded queue and a consumer taking
    them, each pausing at random; a third process ticks at the same moments to expose the order.
    With `take`, the consumer takes a queued item as the engines do: without an event where the queue
    allows it, else (an item queued) popping it, sleeping 0 cycles and making room."""
    rng = random.Random(seed)
    gaps_p = [rng.choice([0, 0, 1, 3]) for _ in range(40)]
    gaps_c = [rng.choice([0, 1, 2, 5]) for _ in range(40)]
    env = env_class()
    q = make_queue(env)
    log = []

    def producer():
        for i, g in enumerate(gaps_p):
            if g:
                yield env.timeout(g)
            ev = q.put(i)
            if ev is not None:
                yield ev
            log.append((env.now, "put", i))

    def consumer():
        for g in gaps_c:
            item = q.take() if take else None
            if item is None and take and q.items:
                item = q.items.popleft()
                yield consuming.sleep(0)
                q.make_room()
            elif item is None:
                item = yield q.get()
            log.append((env.now, "got", item))
            if g:
                yield env.timeout(g)

    def ticker():
        for _ in range(200):
            yield env.timeout(1)
            log.append((env.now, "tick", None))

    env.process(producer())
    consuming = env.process(consumer())
    env.process(ticker())
    env.run()
    return log


class _Store:
    """simpy.Store behind CommandQueue's interface: put returns the event to wait for when full."""
    def __init__(self, env, capacity):
        self.s = simpy.Store(env, capacity)

    def put(self, item):
        full = len(self.s.items) >= self.s.capacity
        ev = self.s.put(item)
        return ev if full else None

    def get(self):
        return self.s.get()


def test_the_command_queue_serves_as_a_simpy_store_does():
    for seed in range(20):
        for cap in (1, 2, 4):
            store = _log_of(lambda env, cap=cap: _Store(env, cap), seed)
            assert _log_of(lambda env, cap=cap: CommandQueue(env, cap), seed, Environment) == store
            assert _log_of(lambda env, cap=cap: CommandQueue(env, cap), seed, Environment, take=True) == store


def _event_order(env, seed: int, until=None) -> list:
    """(time, who, step) each time one of a changing set of processes resumes: they sleep for
    random delays (0, whole and fractional, some equal), wait for and fire shared events, and start
    new processes (whose start is an URGENT event) as they go. On our Environment a third of the
    sleeps are `wake`s and a third the process's own `sleep`, and some callbacks are `call_later`s,
    which must order as SimPy's timeouts do."""
    rng = random.Random(seed)
    ours = isinstance(env, Environment)
    log = []
    shared = [env.event() for _ in range(6)]

    def sleep(d, me):
        r = rng.random()
        if ours and r < 1 / 3:
            return env.wake(d)
        if ours and r < 2 / 3:
            return me[0].sleep(d)
        return env.timeout(d)

    def later(d, who):
        if rng.random() < 0.5 and ours:
            env.call_later(d, log.append, (who, "call"))
        else:
            env.timeout(d).callbacks.append(lambda _: log.append((who, "call")))

    def proc(who, steps, me):
        for i in range(steps):
            r = rng.random()
            if r < 0.5:
                yield sleep(rng.choice([0, 0, 1, 2, 0.5, 1.5, 3]), me)
            elif r < 0.65:
                ev = rng.choice(shared)
                if not ev.triggered:
                    yield ev
            elif r < 0.8:
                ev = rng.choice(shared)
                if not ev.triggered:
                    ev.succeed(who)
            elif r < 0.9 and who < 40:
                start(who * 2 + 1 + (i % 2), rng.randint(1, 8))
            else:
                later(rng.choice([0, 1, 2.5]), who)
            log.append((env.now, who, i))

    def start(who, steps):
        me = []             # the process itself, for its sleeps
        me.append(env.process(proc(who, steps, me)))

    for who in range(4):
        start(who, 30)
    if until is not None:
        env.run(until)
        log.append(("paused", env.now))
    env.run()
    return log


def test_the_event_loop_processes_events_in_simpys_order():
    for seed in range(40):
        assert _event_order(Environment(), seed) == _event_order(simpy.Environment(), seed)
    for seed in range(5):      # run(until) pauses where SimPy does, and the rest runs on in the same order
        assert _event_order(Environment(), seed, until=7.5) == _event_order(simpy.Environment(), seed, until=7.5)


def test_a_signal_nobody_waits_for_is_not_scheduled_and_a_waiter_resumes():
    env = simpy.Environment()
    lonely = Signal(env)
    lonely.succeed()
    assert lonely.triggered and lonely.processed and not env._queue
    waited = Signal(env)
    seen = []

    def waiter():
        value = yield waited
        seen.append((env.now, value))

    def firer():
        yield env.timeout(3)
        waited.succeed("v")

    env.process(waiter())
    env.process(firer())
    env.run()
    assert seen == [(3, "v")]


def test_the_completions_kept_for_fences_stay_bounded_on_a_long_run(monkeypatch):
    longest = [0]
    track = PE.track

    def tracked(self, cmd):
        track(self, cmd)
        longest[0] = max(longest[0], len(self.pending))
    monkeypatch.setattr(PE, "track", tracked)
    k = library()["attention"]
    inputs = k.make_inputs((2, 1024, 64), np.random.default_rng(0))
    with use_config("mtia-small"):
        _, runs = k.run(*inputs, numerics=False)
    assert runs[0].report.commands > 4 * 1000          # mtia-small's 4 PEs issue over 1000 commands each
    assert longest[0] <= 2 * 16 * 5 + 64, longest      # twice what 5 queues of 16 hold, plus the first compaction
