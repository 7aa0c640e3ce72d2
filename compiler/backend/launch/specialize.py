"""A launch's MTIA program in one backend call: the compiled kernel's program for the config and the
switches, specialised to what only the launch knows (its grid, arguments, buffers and placement).

    launched = specialize(compiled, cfg, grid, values, buffers, pe_mapping, switches, num_stages)
    launched.program, launched.broadcasts, launched.switched_off

The programs are compiled once per config, num_stages and switches and kept with the compiled kernel
(`compiled.mtia`, compiler/runtime/compiled.py), so a second launch with the same specialisation
compiles nothing; `mtia_program` is that compile alone (tests and tools read its stages).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field, replace

from isa import Program

from ..options import BackendOptions
from ..pipeline import compile_to_mtia, emit_program
from ..program import defer_store
from . import broadcast, i32_crossings, window_bounds


@dataclass(frozen=True)
class LaunchProgram:
    """What one launch runs, and what the launch chose for it."""
    program: Program
    broadcasts: dict = field(default_factory=dict)    # kernel line of each broadcast load -> its broadcast.Group
    switched_off: tuple = ()                          # switches the launch turned off itself ("index_windows", ...)


def mtia_program(compiled, cfg, num_stages: int = 3, options=None) -> tuple[Program, dict]:
    """The MTIA program of a compiled kernel for `cfg` and its IR stages (compiled once, then kept with the
    kernel); `options`: the backend's switches (a BackendOptions or a dict of them, options.py). Broadcast
    reads are a launch's choice (`specialize`)."""
    return compiled_program(compiled, cfg, num_stages, options)[:2]


def compiled_program(compiled, cfg, num_stages: int, options) -> tuple:
    """(program, stages, the module after the backend's passes), kept per config, stages and switches."""
    options = BackendOptions.of(options)
    cache = compiled.mtia
    key = (cfg.model_dump_json(), num_stages, options.off())
    hit = cache.programs.get(key)
    if hit is None:                # another process may have compiled it (the disk cache)
        stored = cache.stored(compiled.fingerprint, key)
        if stored is not None:
            *hit, cache.modules[key] = stored
            hit = cache.programs[key] = tuple(hit)
    if hit is None:
        # read at each compile, not imported: the tests turn the runtime's round-trip checking on
        check_roundtrip = importlib.import_module("compiler.runtime.compile").CHECK_ROUNDTRIP
        module = cache.modules[key] = compiled.module.clone()            # the backend rewrites its own copy
        meta = {"source": compiled.file, "constexprs": {k: repr(v) for k, v in compiled.constexprs.items()}}
        if options.off():
            meta["switched_off"] = list(options.off())
        hit = cache.programs[key] = compile_to_mtia(module, cfg, num_stages, meta, options, check_roundtrip)
        cache.compiles += 1
        cache.store(compiled.fingerprint, key, (*hit, module))
    return (*hit, cache.modules[key])


def specialize(compiled, cfg, grid: tuple, values: list, buffers: list, pe_mapping: str, switches=None,
               num_stages: int = 3) -> LaunchProgram:
    """The program one launch runs. `values`: one per kernel argument (a pointer's address); `buffers`: the
    buffer each pointer argument lies in (None for scalars); `switches`: the backend's (options.py).

    A window box that could read outside its array in this launch makes it take the program without
    windows (window_bounds.py); a deferred store that is not safe for these buffers, the program without
    it (program/defer_store.py). With the `broadcast_reads` switch on, the box loads that the programs
    running together read alike become broadcast reads (broadcast.py). Raises simulator.errors.ProgramError
    where a run-time i32 block crosses its type's range between its elements (i32_crossings.py)."""
    switches = BackendOptions.of(switches)
    prog, _, module = compiled_program(compiled, cfg, num_stages, switches)
    func = module.functions[0]
    off = ()
    if not window_bounds.inside(func, grid, values, buffers, pe_mapping, cfg.num_pes):   # (True: no windows)
        switches, off = replace(switches, index_windows=False), ("index_windows",)
        prog, _, module = compiled_program(compiled, cfg, num_stages, switches)
        func = module.functions[0]
    if switches.defer_stores and prog.meta.get("persistent") and not defer_store.safe(func, buffers):
        switches, off = replace(switches, defer_stores=False), off + ("defer_stores",)
        prog, _, module = compiled_program(compiled, cfg, num_stages, switches)
        func = module.functions[0]
    launched = _with_broadcast_reads(compiled, cfg, prog, module, grid, values, buffers, pe_mapping, switches, off)
    # an i32 block one box moves wrong in this launch is refused
    i32_crossings.check(launched.program.meta.get("i32_crossings", ()), grid, values)
    return launched


def _with_broadcast_reads(compiled, cfg, prog, module, grid, values, buffers, pe_mapping, switches,
                          off: tuple) -> LaunchProgram:
    """The program with the broadcast reads this launch allows (re-emitted once per choice and kept)."""
    if not switches.broadcast_reads:
        return LaunchProgram(prog, {}, off)
    func = module.functions[0]
    chosen = broadcast.plan(func, grid, values, buffers, pe_mapping, cfg.num_pes, cfg.grid.cols)
    if not chosen:
        return LaunchProgram(prog, {}, off)
    key = (id(prog), tuple(sorted(chosen.items())))
    hit = compiled.mtia.broadcast.get(key)
    if hit is None:
        copy = module.clone()
        loads = broadcast.box_loads(copy.functions[0])
        for i, group in chosen.items():
            loads[i].attrs["bcast"] = group.size
            if group.column:
                loads[i].attrs["bcast_col"] = 1
        hit = compiled.mtia.broadcast[key] = emit_program(copy, cfg, dict(prog.meta, broadcast_reads=len(chosen)),
                                                          switches)[0]
    loads = broadcast.box_loads(func)
    return LaunchProgram(hit, {(loads[i].loc.line if loads[i].loc else i): group for i, group in chosen.items()}, off)
