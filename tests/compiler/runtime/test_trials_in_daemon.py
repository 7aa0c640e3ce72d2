"""Autotune trials inside a daemonic process (a Dask worker or a process-pool worker running a sweep
point) run one after another there: such a process may not start children."""
import multiprocessing as mp

from compiler.runtime import trials


def _square(i):
    return float(i * i)


def _in_daemon(queue):
    try:
        queue.put((trials.can_fork(), {i: o.cost for i, o in trials.run_trials(_square, range(4), workers=4).items()}))
    except Exception as e:          # what a daemon's fork used to raise
        queue.put((None, f"{type(e).__name__}: {e}"))


def test_trials_run_in_a_daemonic_process():
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    p = ctx.Process(target=_in_daemon, args=(queue,), daemon=True)
    p.start()
    forks, costs = queue.get(timeout=60)
    p.join(timeout=60)
    assert forks is False and costs == {0: 0.0, 1: 1.0, 2: 4.0, 3: 9.0}


def test_a_plain_process_still_forks_workers():
    assert trials.can_fork()
