"""The model run being simulated: launches and host ops are recorded into every active `Recording`.

`simulate()` opens a recording around one call of the compiled model; the launchers
(`launchers.py`) add a `KernelRun` per launch, the compiled graphs (`backend.py`) add their ATen op
counts each time they run, and the backend counts the graphs it compiles.
"""
from __future__ import annotations

from contextlib import contextmanager

from .report import KernelRun, ModelReport

_ACTIVE: list = []
# kernel name -> the ATen ops it came from (filled when Inductor defines the kernel)
KERNEL_ORIGINS: dict[str, tuple] = {}


class Recording:
    def __init__(self):
        from simulator import get_config
        self.report = ModelReport(config=get_config().name)


@contextmanager
def recording():
    rec = Recording()
    _ACTIVE.append(rec)
    try:
        yield rec.report
    finally:
        _ACTIVE.remove(rec)


def record_launch(launcher, record, blocks: dict, compiled: bool, wall: float, numerics: bool) -> None:
    if not numerics:        # an autotuning trial, not part of the model run
        return
    roofline = record.roofline
    run = KernelRun(name=launcher.name, aten_ops=KERNEL_ORIGINS.get(launcher.name, ()), kind=launcher.kind,
                    grid=record.grid, blocks=dict(blocks), cycles=int(record.cycles), seconds=float(record.seconds),
                    roofline_fraction=float(roofline.fraction), bound=str(roofline.bound), compiled=compiled,
                    wall_seconds=wall, report=record.report)
    for rec in _ACTIVE:
        rec.report.kernels.append(run)


def record_graph_run(simulated_ops: int, host_ops: dict) -> None:
    for rec in _ACTIVE:
        rec.report.simulated_ops += simulated_ops
        rec.report.not_simulated.update(host_ops)


def record_graph_compile() -> None:
    for rec in _ACTIVE:
        rec.report.graphs_compiled += 1
