"""Launching a test kernel on either executor: the reference interpreter, or the MTIA backend on the
simulated mtia-small chip (checking that it really ran there)."""
from simulator import use_config

EXECUTORS = ["interpreter", "mtia"]


def launch(kernel, grid, *args, executor, **kwargs):
    if executor == "mtia":
        with use_config("mtia-small"):
            rec = kernel[grid](*args, executor="mtia", **kwargs)
        assert rec.executor == "mtia" and rec.cycles > 0
        return rec
    return kernel[grid](*args, executor=executor, **kwargs)
