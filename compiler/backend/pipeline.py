"""The MTIA backend in one function: Triton IR -> passes -> codegen -> registers -> isa.Program.

    program, stages = compile_to_mtia(module, cfg)
    program, cpp, llvm = emit_program(module, cfg)     # codegen alone, for a module the passes have run on

`stages` holds the IR after each backend pass ("mtia.<pass>"), the assembly ("mtia-asm"), the C++
rendering ("cpp"), the control code as LLVM IR ("llvm") and the JSON stream ("json"), so each
step's effect can be read and tested; `stage_names(cfg)` lists them all, in order. A pass that runs
more than once (CSE, before and after hoisting) names its last run "mtia.<pass>", as it always has, and
each earlier run "mtia.<pass>.<n>", n counting its runs from 1 ("mtia.cse.1", then "mtia.cse").
"""
from __future__ import annotations

import time

from isa import Program

from ..errors import CompilationError, OutOfResources
from ..ir import print_module, reprint, verify
from ..ir.passes import CommonSubexpressionElimination, DeadCodeElimination
from .analysis import i32_guards
from .analysis.plan import read_plan
from .codegen.generate import Codegen
from .options import BackendOptions
from .passes.allocate_ls import SPILL_BYTES, AllocateLocalStore
from .passes.bufferize import Bufferize
from .passes.carry_row_offsets import CarryRowOffsets
from .passes.coalesce_k import CoalesceK, may_apply
from .passes.expand_combine import ExpandCombine
from .passes.licm import HoistLoopInvariants
from .passes.lower_memory import LowerMemory
from .passes.map_engines import MapEngines
from .passes.materialize_pointers import MaterializePointers
from .passes.scalarize_iter_args import ScalarizeIterArgs
from .passes.select_boxes import SelectBoxes
from .passes.transpose_boxes import TransposeBoxes
from .program.command_forms import apply_command_forms
from .program.defer_store import defer_final_store
from .program.regalloc import RegAllocError, allocate
from .target import Target


def backend_passes(cfg, num_stages: int = 3, options: BackendOptions | None = None) -> list:
    """The passes, in order. Each is a frozen dataclass with `name` and `run(module)`; `options` turns
    optimisations off one by one (options.py)."""
    target = Target.of(cfg)
    opts = options or BackendOptions()
    hoist = [HoistLoopInvariants(),          # scalar address arithmetic out of loops
             CommonSubexpressionElimination()] if opts.licm else []   # ... where it meets code hoisted before
    coalesce = [CoalesceK(target.dpe_dtypes, num_stages, _latency_bytes(cfg))] if opts.coalesce_k else []
    rows = [CarryRowOffsets()] if opts.row_loads else []
    selects = [SelectBoxes()] if opts.select_boxes else []
    transposes = [TransposeBoxes()] if opts.transposed_boxes else []
    return [
        ExpandCombine(),                     # reduce/scan combines the RE cannot run -> SE and MLU steps
        ScalarizeIterArgs(opts.remap_boxes),     # loop-carried pointer blocks -> scalar pointers
        *rows,                               # ... moved row by row -> their rows' offsets
        LowerMemory(target.dma_align, opts.remap_boxes, opts.mask_boxes, opts.index_windows,   # -> box DMAs,
                    opts.row_loads),                                                        # rows, gathers
        *selects,                            # tl.where under a box mask -> one SE select of valid extents
        *transposes,                         # boxes walking memory across rows -> along rows, then a transpose
        MaterializePointers(),               # any other pointer block -> address tiles and gathers
        CommonSubexpressionElimination(),
        *hoist,
        *coalesce,                           # two K steps of a matmul loop per command (kept if they fit)
        DeadCodeElimination(),
        MapEngines(opts.fold_casts, dpe_dtypes=target.dpe_dtypes),  # DPE / SE / RE / MLU / DMA / RVV / core for every op
        Bufferize(opts.rotate_carried),      # tiles -> CB slots; views, in-place updates, pops
        AllocateLocalStore(target.ls_bytes, num_stages, target.name, target.slot_align),   # slots per CB (shared if need be), LS addresses
    ]


# the stages after the passes' IR: the assembly, the C++ rendering, the LLVM IR and the JSON stream
OUTPUT_STAGES = ("mtia-asm", "cpp", "llvm", "json")


def stage_names(cfg, num_stages: int = 3) -> list[str]:
    """Every stage `compile_to_mtia` gives with all options on, in pipeline order (a switch turned off
    leaves its pass's stage out)."""
    return [*pass_stage_names(backend_passes(cfg, num_stages)), *OUTPUT_STAGES]


def pass_stage_names(passes: list) -> list[str]:
    """The stage name of each pass's IR, one per pass: "mtia.<pass>" for a pass's last run, and
    "mtia.<pass>.<n>" for its n-th run before that (module docstring)."""
    runs = {}
    for p in passes:
        runs[p.name] = runs.get(p.name, 0) + 1
    seen: dict[str, int] = {}
    names = []
    for p in passes:
        seen[p.name] = seen.get(p.name, 0) + 1
        names.append(f"mtia.{p.name}" if seen[p.name] == runs[p.name] else f"mtia.{p.name}.{seen[p.name]}")
    return names


def _latency_bytes(cfg) -> int:
    """What a PE's DMA moves during one load's fixed latency (descriptor setup, the SRAM's access, the
    mesh's hops from the grid's middle to its edge): K coalescing halves the loads in flight, which
    leaves that latency exposed unless a K step's tiles take at least twice as long to move."""
    hops = (cfg.grid.rows + cfg.grid.cols) // 2
    cycles = cfg.pe.dma.setup_cycles + cfg.sram.latency_cycles + hops * cfg.noc.hop_cycles
    return int(2 * cycles * cfg.gbps_to_bpc(cfg.pe.dma.gbps))


def compile_to_mtia(module, cfg, num_stages: int = 3, meta: dict | None = None,
                    options: BackendOptions | None = None, check_roundtrip: bool = False) -> tuple[Program, dict]:
    """`options` turns optimisations off (options.py); with `check_roundtrip`, each pass's output is
    verified and its printed IR must parse back to the same text."""
    t0 = time.perf_counter()
    opts = options or BackendOptions()
    stages: dict[str, str] = {}
    crossings: list = []
    with i32_guards.watch(crossings):     # run-time i32 blocks taken as boxes: the launch checks them
        passes = backend_passes(cfg, num_stages, options)
        _run_passes(module, passes, pass_stage_names(passes), stages, check_roundtrip)
    verify(module)
    prog, cpp, llvm = emit_program(module, cfg, meta, opts)
    if crossings:
        prog.meta["i32_crossings"] = crossings
    prog.meta["compile_seconds"] = round(time.perf_counter() - t0, 4)
    stages["mtia-asm"] = prog.to_asm()
    stages["cpp"] = cpp
    stages["llvm"] = llvm
    stages["json"] = prog.dumps(indent=1)
    return prog, stages


def _run_passes(module, passes: list, names: list, stages: dict, check_roundtrip: bool) -> None:
    """Run the passes in order, keeping each one's IR in `stages` under its name in `names`. K coalescing
    doubles a loop's tiles, which only the local-store allocation can weigh: when they do not all get
    their slots, the passes run again from a copy taken before it, with the loops as written."""
    saved = None
    for i, p in enumerate(passes):
        if isinstance(p, CoalesceK) and may_apply(module):
            saved = (i, module.clone())
        elif isinstance(p, AllocateLocalStore) and saved is not None and not p.fits_at_full_depth(module) and \
                any(f.attrs.get("mtia.coalesced_k") for f in module.functions):
            at, copy = saved
            module.regions.clear()
            module.add_region(copy.regions.pop())
            stages[names[at]] = print_module(module)       # as if it had changed nothing
            return _run_passes(module, passes[at + 1:], names[at + 1:], stages, check_roundtrip)
        p.run(module)
        if check_roundtrip:                  # the tests' checking mode: each pass's output verified
            verify(module)
        text = stages[names[i]] = print_module(module)
        if check_roundtrip and reprint(text) != text:
            raise CompilationError(f"internal error: IR stage '{names[i]}' does not round-trip through the parser")


def emit_program(module, cfg, meta: dict | None = None,
                 options: BackendOptions | None = None) -> tuple[Program, str, str]:
    """Codegen, register allocation and the command forms of a module the backend passes have run
    on: the program, its C++ rendering and its control code as LLVM IR (both without the forms)."""
    opts = options or BackendOptions()
    func = module.functions[0]
    plan = read_plan(func)
    g = Codegen(func, plan, Target.of(cfg))
    emitter = g.run()
    arg_vregs = [r for _, r in g.args]
    spill_bytes = func.attrs.get("mtia.spill_bytes", SPILL_BYTES)       # (less where tiles took the rest)
    try:
        instrs, labels, arg_regs, spills, lines = allocate(emitter.code, arg_vregs, cfg.ls_bytes - spill_bytes,
                                                           spill_bytes)
    except RegAllocError as e:
        raise OutOfResources(f"{e} ({spill_bytes} bytes of local store hold spills: the kernel's tiles take the rest of "
                             f"its {cfg.ls_bytes}). Use smaller block sizes or fewer live scalars",
                             required=cfg.ls_bytes - spill_bytes + e.spill_bytes if e.spill_bytes else None,
                             limit=cfg.ls_bytes) from None
    prog = Program(func.attrs.get("sym_name", "kernel"))
    prog.instrs = instrs
    prog.labels = labels
    for a, r in g.args:
        t = a.type
        kind = "ptr" if t.is_ptr() else ("float" if t.is_floating() else "int")
        dtype = (t.element_ty.ir if t.is_ptr() else t.ir)
        reg = arg_regs.get(r)
        prog.arg(a.name_hint or f"arg{a.index}", kind, dtype, (("f" if r.cls == "f" else "x") + str(reg))
                 if reg is not None else "x0")
    for st in plan.storages:
        prog.cb(st.id, st.name, st.base, st.nbytes, st.slots)
    prog.meta = dict(meta or {})
    prog.meta.update({"lines": lines, "ls_bytes": func.attrs.get("mtia.ls_used", 0), "spills": spills,
                      "config": cfg.name})
    apply_command_forms(prog, opts.auto_increment, cfg.pe.command_contexts if opts.command_contexts else 0)
    if opts.defer_stores:
        defer_final_store(prog, cfg.ls_bytes - spill_bytes, Target.of(cfg).slot_align)
    return prog, g.cpp.text(), g.llvm.text()
