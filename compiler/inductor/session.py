"""The model run being simulated: launches and host ops are recorded into every active `Recording`.

`simulate()` opens a recording around one call of the compiled model; the launchers
(`launchers.py`) add a `KernelRun` per launch, the compiled graphs (`backend.py`) add their ATen op
counts each time they run, and the backend counts the graphs it compiles. What Dynamo leaves to
plain PyTorch (the code around a graph break, a frame it skips) runs outside every compiled graph:
`EagerOps` counts those ops, so that they show in `not_simulated` and lower the coverage.
"""
from __future__ import annotations

import re
from collections import Counter
from contextlib import contextmanager

from torch.utils._python_dispatch import TorchDispatchMode

from simulator.energy import drain_joules

from .report import KernelRun, ModelReport
from .resident import Resident

_ACTIVE: list = []
# kernel name -> the ATen ops it came from (filled when Inductor defines the kernel)
KERNEL_ORIGINS: dict[str, tuple] = {}
# kernel name -> the module path of the model its ops came from ("layers.0.attn"; "" for the model itself)
KERNEL_MODULES: dict[str, str] = {}
_GRAPHS_RUNNING: list[Resident] = []    # the compiled graphs running now, each with its device-resident tensors
_ABLATING: list[tuple] = []             # backend switches each launch is also timed without (`ablating`)


class EagerOps(TorchDispatchMode):
    """Counts the ATen compute ops (not views) that run outside the compiled graphs (not the profiler's
    markers, which an optimizer's step() places around itself: they compute nothing)."""

    def __init__(self):
        super().__init__()
        self.ops: Counter = Counter()

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        """Dynamo compiles under this mode (a mode without it makes Dynamo skip every frame) and the
        mode is off while Dynamo and Inductor trace."""
        return True

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if not _GRAPHS_RUNNING and not func.is_view and func.namespace != "profiler":
            self.ops[str(func.overloadpacket)] += 1
        return func(*args, **(kwargs or {}))


@contextmanager
def graph_running(inputs, sites=(), phase: str = "forward"):
    """Around the run of one compiled graph: its tensors live on the device (`resident.py`) until it
    returns; yields a list that the caller puts the graph's outputs in. `sites`: (kernel name, module
    path) of each kernel call in the graph's code, in order (the n-th launch of a kernel is its n-th call).
    `phase`: what of a training step the graph is ("forward", "backward", "optimizer"; report.PHASES)."""
    resident = Resident(timing_only())
    resident.phase = phase
    for name, path in sites:
        resident.sites.setdefault(name, []).append(path)
    outputs: list = []
    _GRAPHS_RUNNING.append(resident)
    try:
        with resident:
            yield outputs
    finally:
        transfers = resident.finish((inputs, outputs))     # still inside the graph: not eager ops
        _GRAPHS_RUNNING.pop()
        for rec in _ACTIVE:
            rec.report.transfers.add(transfers)


def resident() -> Resident | None:
    """The device-resident tensors of the graph running now (None outside a graph run)."""
    return _GRAPHS_RUNNING[-1] if _GRAPHS_RUNNING else None


MEMORY_STATES = ("carried", "isolated")
# Carried by default: on the chip, a model's kernels run back to back on one SRAM, so a kernel finds the
# activations the previous one wrote and the weights it shares with it, and pays for the dirty lines it
# evicts; isolated kernels (each on a cold, empty LLC, nothing ever written back) is the simpler model,
# kept to compare against and to time one kernel on its own.
DEFAULT_MEMORY_STATE = "carried"


def check_memory_state(memory_state: str) -> str:
    if memory_state not in MEMORY_STATES:
        raise ValueError(f"memory_state must be one of {', '.join(map(repr, MEMORY_STATES))} (the LLC carried from "
                         f"kernel to kernel, or each kernel on a cold chip), got {memory_state!r}")
    return memory_state


class Recording:
    """One model run: its report and the hardware config it runs on, read once when it starts.
    `timing_only`: its kernels launch with `numerics=False` (`estimate`): nothing is computed.
    `memory_state`: "carried" (the run's launches share one LLC, `state`) or "isolated" (each on a cold one)."""

    def __init__(self, timing_only: bool = False, memory_state: str = DEFAULT_MEMORY_STATE):
        from ..runtime.mtia_executor import new_memory_state
        from ..runtime.target import default_config
        self.config = default_config()
        self.timing_only = timing_only
        self.state = new_memory_state(self.config) if check_memory_state(memory_state) == "carried" else None
        self.report = ModelReport(config=self.config.name, timing_only=timing_only, memory_state=memory_state,
                                  line_bytes=self.config.sram.line_bytes)

    def finish(self) -> None:
        """The run's end: the dirty lines its kernels left in the carried LLC are written back (counted apart
        from the kernels, in `report.drain`)."""
        if self.state is not None:
            d = self.state.drain()
            seconds = d.cycles / (self.config.clock_ghz * 1e9)
            self.report.drain = {"lines": d.lines, "bytes": d.bytes, "cycles": int(round(d.cycles)),
                                 "seconds": seconds, "energy": drain_joules(self.config, d.bytes, seconds)}


def target():
    """The hardware config the launchers choose block sizes for: the innermost recording's (resolved when
    it started), else, outside every recording, the user's default now."""
    if _ACTIVE:
        return _ACTIVE[-1].config
    from ..runtime.target import default_config
    return default_config()


def memory_state():
    """The chip memory state the innermost recording's launches carry (None: isolated kernels, or no run)."""
    return _ACTIVE[-1].state if _ACTIVE else None


def timing_only() -> bool:
    """Whether the innermost recording is a timing-only run (launches compute nothing)."""
    return bool(_ACTIVE) and _ACTIVE[-1].timing_only


def module_path(nodes) -> str:
    """The module of the model that fx `nodes` (one kernel's) came from: the longest module path they
    share, from Dynamo's `nn_module_stack` ("layers.0.mlp"; "" when they share none or the graph kept none)."""
    paths = []
    for node in nodes:
        stack = node.meta.get("nn_module_stack") if hasattr(node, "meta") else None
        if not stack:
            continue
        paths.append(_module_name(list(stack.values())[-1][0]).split("."))
    if not paths:
        return ""
    shared = []
    for parts in zip(*paths):
        if len(set(parts)) != 1:
            break
        shared.append(parts[0])
    return ".".join(shared)


def _module_name(qualified: str) -> str:
    """Dynamo's source of a submodule ("L['self'].layers[0].mlp", "L['self']._modules['fc1']") as a
    module path ("layers.0.mlp", "fc1")."""
    name = re.sub(r"^L\['self'\]\.?|^L\['\w+'\]\.?", "", qualified)
    name = re.sub(r"(?:^|\.)_modules\['([^']+)'\]|\['([^']+)'\]|\[(\d+)\]",
                  lambda m: "." + (m.group(1) or m.group(2) or m.group(3)), name)
    return name.strip(".")


@contextmanager
def recording(timing_only: bool = False, memory_state: str = DEFAULT_MEMORY_STATE):
    rec = Recording(timing_only, memory_state)
    eager = EagerOps()
    _ACTIVE.append(rec)
    try:
        with eager:
            yield rec.report
        rec.finish()
    finally:
        _ACTIVE.remove(rec)
        rec.report.eager_ops.update(eager.ops)
        rec.report.not_simulated.update(eager.ops)


@contextmanager
def ablating(switches):
    """Inside, every launch whose program a backend switch (compiler/backend/options.py) changes is run
    once more, timing-only, with that switch off: its KernelRun's `ablations` holds, per switch, the
    cycles off over the cycles on (what the optimisation is worth in that kernel)."""
    from ..backend.options import BackendOptions
    BackendOptions.of({s: False for s in switches})        # unknown names are refused here
    _ABLATING.append(tuple(switches))
    try:
        yield
    finally:
        _ABLATING.pop()


def ablated_switches() -> tuple:
    return tuple(dict.fromkeys(s for group in _ABLATING for s in group))


def record_launch(launcher, record, blocks: dict, compiled: bool, wall: float, in_run: bool,
                  ablations: dict | None = None) -> None:
    if not in_run:          # an autotuning trial, not part of the model run
        return
    roofline = record.roofline
    run = KernelRun(name=launcher.name, aten_ops=KERNEL_ORIGINS.get(launcher.name, ()), kind=launcher.kind,
                    module=_call_site(launcher.name),
                    grid=record.grid, blocks=dict(blocks), cycles=int(record.cycles), seconds=float(record.seconds),
                    roofline_fraction=float(roofline.fraction), bound=str(roofline.bound), compiled=compiled,
                    wall_seconds=wall, report=record.report, ablations=dict(ablations or {}),
                    reused=bool(getattr(record, "reused", False)),
                    phase=running.phase if (running := resident()) is not None else "forward")
    for rec in _ACTIVE:
        rec.report.kernels.append(run)


def _call_site(name: str) -> str:
    """The module path of this launch of kernel `name`: its next call site in the running graph (one
    kernel serves every layer of a model), else the module it was last defined for."""
    running = resident()
    calls = running.sites.get(name) if running is not None else None
    return calls.pop(0) if calls else KERNEL_MODULES.get(name, "")


def record_graph_run(simulated_ops: int, host_ops: dict) -> None:
    for rec in _ACTIVE:
        rec.report.graphs_run += 1
        rec.report.simulated_ops += simulated_ops
        rec.report.not_simulated.update(host_ops)


def record_graph_compile() -> None:
    for rec in _ACTIVE:
        rec.report.graphs_compiled += 1
