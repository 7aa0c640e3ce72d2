"""How long compiling takes: every library kernel, frontend (Python AST -> IR) and MTIA backend
(IR -> instruction stream) timed separately, each from scratch (no cache)."""
from __future__ import annotations

import time

import numpy as np


def compile_times(config: str = "mtia-2i") -> list[dict]:
    from compiler.kernels import library
    from compiler.runtime import executor as ex
    from compiler.runtime.mtia_executor import mtia_program
    from simulator import load_config
    cfg = load_config(config)
    rows = []

    class _Timer:
        """An executor that compiles for MTIA, times it, and runs nothing."""
        name = "compile-timer"

        def launch(self, compiled, grid, args, options):
            t = time.perf_counter()
            mtia_program(compiled, cfg)
            rows.append({"kernel": compiled.name, "backend_s": time.perf_counter() - t})
            return ex.RunRecord(compiled.name, grid, self.name, 0, 0.0)

    ex.register_executor("compile-timer", _Timer())
    rng = np.random.default_rng(0)
    out = []
    first = next(iter(library().values()))          # pay the one-time imports before timing
    with ex.use_executor("compile-timer"):
        first.run(*first.make_inputs(first.test_shapes[0], rng))
    for name, k in library().items():
        inputs = k.make_inputs(k.test_shapes[-1], rng)
        for fn in _jit_functions(k):
            fn.cache.clear()
        rows.clear()
        t = time.perf_counter()
        with ex.use_executor("compile-timer"):
            k.run(*inputs)
        total = time.perf_counter() - t
        backend = sum(r["backend_s"] for r in rows)
        out.append({"library_kernel": name, "kernels": len(rows), "frontend_s": total - backend,
                    "backend_s": backend, "total_s": total})
    return out


def _jit_functions(k) -> list:
    import importlib
    mod = importlib.import_module(k.run.__module__)
    return [v for v in vars(mod).values() if hasattr(v, "cache") and hasattr(v, "compile_count")]


def format_compile_times(rows: list[dict]) -> str:
    lines = ["compile times (frontend + MTIA backend, from scratch, per library kernel):",
             f"  {'kernel':<22}{'jit fns':>8}{'frontend s':>12}{'backend s':>11}{'total s':>9}"]
    for r in rows:
        lines.append(f"  {r['library_kernel']:<22}{r['kernels']:>8}{r['frontend_s']:>12.3f}{r['backend_s']:>11.3f}"
                     f"{r['total_s']:>9.3f}")
    lines.append(f"  slowest: {max(r['total_s'] for r in rows):.3f} s")
    return "\n".join(lines)
