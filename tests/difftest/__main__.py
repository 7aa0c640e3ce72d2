"""The long run of the differential tester: `python -m difftest --examples 20000 --jobs 2` (from tests/).

Runs batches of generated kernels on both executors, the batches of each family in turn (--families),
`--jobs` batches at a time in worker processes. Each disagreement is shrunk by hypothesis to a minimal
kernel, printed, and written to --out (one text file per failure, named by its hash) to be pinned in
difftest/pinned.py once understood; the run then goes on with the next batch. A generator error (a
kernel the interpreter rejects) is reported the same way: it is a bug of the generator, not of the
compiler. Progress (kernels checked, kernels per second, failures per family) is printed as batches
end. Exits 1 if anything was found.
"""
from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed

from .families import FAMILIES
from .pinned import PINNED
from .run import Disagreement, check

SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def run_batch(n: int, seed: int, family: str = "kernels") -> tuple[int, tuple | None]:
    """Check up to n kernels of `family`: how many were checked, and the first failure (shrunk) as
    (kind, description, message), else None."""
    found: list = []
    counter = [0]

    @hypothesis_seed(seed)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=SUPPRESS,
              print_blob=False, report_multiple_bugs=False)
    @given(FAMILIES[family]())
    def test(case):
        counter[0] += not found          # the kernels hypothesis runs while shrinking a failure are not new
        try:
            check(case)
        except Disagreement as e:
            found[:] = ["disagreement", case.describe(), str(e)]
            raise
        except Exception as e:
            found[:] = ["generator error", case.describe(), f"{type(e).__name__}: {e}"]
            raise

    try:
        test()
    except Exception:  # noqa: BLE001 - the shrunk failure is in `found`
        return counter[0], tuple(found) if found else ("error", "", "hypothesis failed without a case")
    return counter[0], None


def _batch(job: tuple) -> tuple:
    n, seed, family = job
    return (*run_batch(n, seed, family), seed, family)


def batches(args):
    """(kernels, seed, family) of each batch, the families in turn, until --examples are planned."""
    planned, k = 0, 0
    while planned < args.examples:
        n = min(args.batch, args.examples - planned)
        yield n, args.seed + k, args.families[k % len(args.families)]
        planned += n
        k += 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m difftest", description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=1000, help="how many kernels to check in all")
    ap.add_argument("--batch", type=int, default=100, help="kernels per hypothesis run (each gets its own seed)")
    ap.add_argument("--seed", type=int, default=int(time.time()), help="seed of the first batch")
    ap.add_argument("--families", type=lambda s: s.split(","), default=list(FAMILIES),
                    help=f"comma-separated families to draw from, in turn by batch (default: all of "
                         f"{','.join(FAMILIES)})")
    ap.add_argument("--jobs", type=int, default=1, help="batches run at once, each in a worker process")
    ap.add_argument("--out", type=Path, default=Path("difftest-failures"), help="where failures are written")
    ap.add_argument("--shrink-seconds", type=int, default=120,
                    help="how long hypothesis may shrink one failure (its own default is 300)")
    args = ap.parse_args(argv)
    # hypothesis has no setting for this; its engine reads the module constant when shrinking begins
    # (and forked workers inherit it)
    from hypothesis.internal.conjecture import engine
    engine.MAX_SHRINKING_SECONDS = args.shrink_seconds
    unknown = [f for f in args.families if f not in FAMILIES]
    if unknown:
        ap.error(f"--families: unknown {', '.join(unknown)} (known: {', '.join(FAMILIES)})")
    checked, failures, start = 0, {f: 0 for f in args.families}, time.perf_counter()

    def done(n_checked, found, seed, family):
        nonlocal checked
        checked += n_checked
        if found is not None:
            failures[family] += 1
            kind, described, message = found
            text = f"{kind} (family {family}, batch seed {seed})\n{message}\n\n{described}"
            args.out.mkdir(parents=True, exist_ok=True)
            path = args.out / f"{hashlib.sha1(text.encode()).hexdigest()[:12]}.txt"
            path.write_text(text)
            print(f"\n== {kind} -> {path}\n{text}", flush=True)
        elapsed = time.perf_counter() - start
        found_text = ", ".join(f"{f} {c}" for f, c in failures.items() if c) or "none"
        print(f"{checked} of {args.examples} kernels checked, {elapsed:.0f} s, {checked / elapsed:.1f} kernels/s; "
              f"failures: {found_text}", flush=True)

    if args.jobs <= 1:
        for n, seed, family in batches(args):
            done(*run_batch(n, seed, family), seed, family)
    else:
        # a fresh forked worker per batch: it starts with the compiler imported and its memory goes with it
        # (a process keeps ~0.2 MB of compiled state per kernel it ran, gigabytes over a long run). One
        # pinned kernel checked first loads the config and the lazily imported passes for all of them.
        check(PINNED[0].case)
        with multiprocessing.get_context("fork").Pool(args.jobs, maxtasksperchild=1) as pool:
            for result in pool.imap_unordered(_batch, batches(args)):
                done(*result)
    return 1 if any(failures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
