"""`triton.testing` on the simulator: benchmarks report simulated time, not host time.

    ms = triton.testing.do_bench(lambda: add(x, y))          # simulated milliseconds
    triton.testing.assert_close(out, ref, atol=1e-2)

    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["size"], x_vals=[2**i for i in range(12, 20)], line_arg="provider",
        line_vals=["triton"], line_names=["Triton"], plot_name="vector-add", args={}, ylabel="GB/s"))
    def benchmark(size, provider): ...
    benchmark.run(print_data=True, show_plots=True)

`do_bench` runs `fn` once and adds up the simulated time of the kernels it launched. The simulation
is deterministic, so warm-up and repetitions would only repeat that figure, and every quantile is
that figure. A function that launches nothing on the simulator (host numpy, the interpreter) has no
simulated time: `do_bench` warns and returns NaN, so a table with such a line still prints.
Autotuned kernels are tuned on their first call, outside the timed launches (as Triton's warm-up
does), so call `fn` once before timing it if tuning should not be timed twice.
"""
from __future__ import annotations

import csv
import math
import warnings
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .runtime.jit import LAUNCH_OBSERVERS

RETURN_MODES = ("min", "max", "mean", "median", "all")


@contextmanager
def recorded_launches():
    """Collect (compiled, grid, record) for every launch committed inside the block."""
    seen: list = []

    def observe(compiled, grid, record):
        seen.append((compiled, grid, record))
    LAUNCH_OBSERVERS.append(observe)
    try:
        yield seen
    finally:
        LAUNCH_OBSERVERS.remove(observe)


def simulated_ms(fn) -> float:
    """Simulated milliseconds of the kernel launches `fn()` makes (NaN, with a warning, if none has a clock)."""
    with recorded_launches() as seen:
        fn()
    if not seen:
        warnings.warn("do_bench: the function launched no kernel, so it has no simulated time (NaN)",
                      stacklevel=3)
        return math.nan
    unclocked = sorted({rec.executor for _, _, rec in seen if rec.seconds is None})
    if unclocked:
        warnings.warn(f"do_bench: launches on {', '.join(unclocked)} have no simulated clock (NaN); "
                      "run them on the 'mtia' executor", stacklevel=3)
        return math.nan
    return sum(rec.seconds for _, _, rec in seen) * 1e3


def do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
    """Triton's signature; returns simulated milliseconds of `fn`'s launches (`warmup`, `rep` and
    `grad_to_none` change nothing: the simulation gives the same time every run)."""
    if return_mode not in RETURN_MODES:
        raise ValueError(f"do_bench: return_mode must be one of {', '.join(RETURN_MODES)}, got {return_mode!r}")
    ms = simulated_ms(fn)
    if quantiles is not None:
        return [ms for _ in quantiles]
    return [ms] if return_mode == "all" else ms


def assert_close(x, y, atol=None, rtol=None, err_msg=""):
    """Assert that x and y agree element-wise within atol + rtol * |y| (defaults: atol 1e-2, rtol 0,
    as Triton's). Tolerances may be callables of the dtype. NaNs in the same places are equal."""
    x, y = np.asarray(x), np.asarray(y)
    atol = atol(x.dtype) if callable(atol) else (1e-2 if atol is None else atol)
    rtol = rtol(x.dtype) if callable(rtol) else (0.0 if rtol is None else rtol)
    if x.dtype == np.bool_ or y.dtype == np.bool_:
        np.testing.assert_array_equal(x, y, err_msg=err_msg)
        return
    np.testing.assert_allclose(x.astype(np.float64), y.astype(np.float64), atol=atol, rtol=rtol,
                               equal_nan=True, err_msg=err_msg)


class Benchmark:
    """One table (and plot): `x_names` take each of `x_vals` (one value for all names, or a tuple
    with one per name); `line_arg` takes each of `line_vals`, one line per value, labelled by
    `line_names`; `args` are passed unchanged. The function returns y, or (y, y_min, y_max)."""

    def __init__(self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args, xlabel="", ylabel="",
                 x_log=False, y_log=False, color=None, styles=None):
        if len(line_vals) != len(line_names):
            raise ValueError(f"Benchmark {plot_name!r}: {len(line_vals)} line_vals but {len(line_names)} line_names")
        self.x_names, self.x_vals = list(x_names), list(x_vals)
        self.line_arg, self.line_vals, self.line_names = line_arg, list(line_vals), list(line_names)
        self.plot_name, self.args = plot_name, dict(args)
        self.xlabel, self.ylabel, self.x_log, self.y_log = xlabel, ylabel, x_log, y_log
        self.color, self.styles = color, styles


class Table:
    """A benchmark's results: `columns` (x names, then one per line) and `rows` of values; the
    y_min / y_max of each line ride along in `low` / `high` (for the plot's bands)."""

    def __init__(self, bench: Benchmark):
        self.bench = bench
        self.columns = bench.x_names + bench.line_names
        self.rows: list[list] = []
        self.low: list[list] = []
        self.high: list[list] = []

    def text(self) -> str:
        cells = [[_fmt(v) for v in row] for row in self.rows]
        widths = [max(len(c), *(len(r[i]) for r in cells)) if cells else len(c) for i, c in enumerate(self.columns)]
        lines = ["  ".join(c.rjust(w) for c, w in zip(self.columns, widths))]
        lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in cells]
        return "\n".join(lines)

    def to_csv(self, path: Path) -> None:
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(self.columns)
            w.writerows(self.rows)

    def to_dataframe(self):
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("Mark.run(return_df=True) needs pandas: pip install pandas") from None
        return pd.DataFrame(self.rows, columns=self.columns)


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.6g}"
    return str(v)


class Mark:
    """What `perf_report` returns: call `.run(...)` to fill, print, plot and save the tables."""

    def __init__(self, fn, benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _table(self, bench: Benchmark, **kwargs) -> Table:
        table = Table(bench)
        for x in bench.x_vals:
            xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
            if len(xs) != len(bench.x_names):
                raise ValueError(f"Benchmark {bench.plot_name!r}: x value {x!r} has {len(xs)} entries for "
                                 f"{len(bench.x_names)} x_names {bench.x_names}")
            mid, low, high = [], [], []
            for line in bench.line_vals:
                ret = self.fn(**dict(zip(bench.x_names, xs)), **{bench.line_arg: line}, **bench.args, **kwargs)
                y, y_lo, y_hi = ret if isinstance(ret, (tuple, list)) else (ret, None, None)
                mid.append(y)
                low.append(y_lo)
                high.append(y_hi)
            table.rows.append(xs + mid)
            table.low.append(low)
            table.high.append(high)
        return table

    def _plot(self, table: Table, show: bool, save_path: Path | None) -> None:
        import matplotlib.pyplot as plt
        bench = table.bench
        fig, ax = plt.subplots()
        xs = [row[0] for row in table.rows]
        nx = len(bench.x_names)
        for i, name in enumerate(bench.line_names):
            color, style = (bench.styles[i] if bench.styles else (bench.color, None))
            ys = [row[nx + i] for row in table.rows]
            ax.plot(xs, ys, label=name, color=color, ls=style)
            lo = [r[i] for r in table.low]
            hi = [r[i] for r in table.high]
            if all(v is not None for v in lo + hi):
                ax.fill_between(xs, lo, hi, alpha=0.15, color=color)
        ax.legend()
        ax.set_xlabel(bench.xlabel or " = ".join(bench.x_names))
        ax.set_ylabel(bench.ylabel)
        ax.set_title(f"{bench.plot_name} (simulated)")
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        if save_path is not None:
            fig.savefig(save_path / f"{bench.plot_name}.png")
        if show:
            plt.show()
        plt.close(fig)

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        """Fill each benchmark's table; print it, plot it, and/or save `<plot_name>.csv` and `.png`
        (plus results.html) under `save_path`. With `return_df`, return the pandas DataFrame(s)."""
        benches = [self.benchmarks] if isinstance(self.benchmarks, Benchmark) else list(self.benchmarks)
        out = Path(save_path) if save_path else None
        if out is not None:
            out.mkdir(parents=True, exist_ok=True)
        tables = []
        for bench in benches:
            table = self._table(bench, **kwargs)
            tables.append(table)
            if print_data:
                print(f"{bench.plot_name}:")
                print(table.text())
            if out is not None:
                table.to_csv(out / f"{bench.plot_name}.csv")
            if show_plots or (out is not None and bench.plot_name):
                self._plot(table, show_plots, out)
        if out is not None:
            images = "".join(f'<img src="{b.plot_name}.png"/>\n' for b in benches)
            (out / "results.html").write_text(f"<html><body>\n{images}</body></html>\n")
        if return_df:
            frames = [t.to_dataframe() for t in tables]
            return frames[0] if len(frames) == 1 else frames
        return None


def perf_report(benchmarks):
    """Decorate a benchmark function; `.run(...)` on the result fills and shows the tables."""
    return lambda fn: Mark(fn, benchmarks)


def do_bench_cudagraph(fn, rep=20, grad_to_none=None, quantiles=None, return_mode="mean"):
    """The CUDA-graph variant has nothing to add on a simulator: the same simulated time as do_bench."""
    return do_bench(fn, quantiles=quantiles, return_mode=return_mode)


# --- the chip's peaks, as Triton's testing helpers report the GPU's (for roofline arithmetic) ---------

def _device_config(device=None):
    """The config of the simulated device, asked of the driver as Triton's helpers ask it of the GPU's:
    the user's default (compiler/runtime/driver.py)."""
    from .runtime.driver import device_config
    return device_config(0 if device is None else device)


def get_dram_gbps(device=None) -> float:
    """DRAM bandwidth of the selected config, GB/s."""
    return _device_config(device).dram.bandwidth_gbps


def get_max_tensorcore_tflops(dtype, clock_rate=None, device=None) -> float:
    """Peak DPE (matrix engine) TFLOP/s of the selected config for `dtype` (a tl dtype, numpy dtype
    or name such as "fp16"); `clock_rate` in kHz, as Triton takes it, overrides the config's clock."""
    cfg = _device_config(device)
    name = _dtype_name(dtype)
    macs = cfg.pe.dpe.macs_per_cycle
    if name not in macs:
        raise ValueError(f"the DPE of {cfg.name} takes {', '.join(macs)}, not {name}")
    hz = clock_rate * 1e3 if clock_rate else cfg.clock_ghz * 1e9
    return 2 * macs[name] * cfg.num_pes * hz / 1e12


def get_max_simd_tflops(dtype, clock_rate=None, device=None) -> float:
    """Peak SE (SIMD engine) element operations per second of the selected config, in T/s."""
    cfg = _device_config(device)
    hz = clock_rate * 1e3 if clock_rate else cfg.clock_ghz * 1e9
    return cfg.pe.se.elems_per_cycle * cfg.num_pes * hz / 1e12


@contextmanager
def set_gpu_clock(ref_sm_clock=1350, ref_mem_clock=1215):
    """GPU benchmarks pin the clocks; the simulated chip runs at its config's clock: yields
    (core clock MHz, memory bandwidth GB/s) of the selected config."""
    cfg = _device_config()
    yield cfg.clock_ghz * 1e3, cfg.dram.bandwidth_gbps


_DTYPE_NAMES = {"fp16": "f16", "float16": "f16", "bf16": "bf16", "bfloat16": "bf16", "fp32": "f32",
                "float32": "f32", "tf32": "f32", "int8": "i8", "uint8": "u8", "fp8e4nv": "f8e4m3",
                "float8_e4m3fn": "f8e4m3", "fp8e5": "f8e5m2", "float8_e5m2": "f8e5m2"}


def _dtype_name(dtype) -> str:
    if isinstance(dtype, type) and issubclass(dtype, np.generic):
        dtype = np.dtype(dtype)
    s = str(getattr(dtype, "name", dtype)).replace("torch.", "").replace("tl.", "")
    return _DTYPE_NAMES.get(s, s)
