"""The long run of the differential tester: `python -m difftest --examples 5000` (from tests/).

Runs batches of generated kernels on both executors. Each disagreement is shrunk by hypothesis to
a minimal kernel, printed, and written to --out (one text file per failure, named by its hash) to
be pinned in difftest/pinned.py once understood; the run then goes on with the next batch. A
generator error (a kernel the interpreter rejects) is reported the same way: it is a bug of the
generator, not of the compiler. Exits 1 if anything was found.
"""
from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed

from .generate import Case, cases
from .run import Disagreement, check

SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def run_batch(n: int, seed: int, counter: list) -> tuple[str, Case, str] | None:
    """Check up to n kernels; the first failure (shrunk) as (kind, case, message), else None."""
    found: list = []

    @hypothesis_seed(seed)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=SUPPRESS,
              print_blob=False, report_multiple_bugs=False)
    @given(cases())
    def test(case):
        counter[0] += 1
        try:
            check(case)
        except Disagreement as e:
            found[:] = ["disagreement", case, str(e)]
            raise
        except Exception as e:
            found[:] = ["generator error", case, f"{type(e).__name__}: {e}"]
            raise

    try:
        test()
    except Exception:  # noqa: BLE001 - the shrunk failure is in `found`
        return tuple(found) if found else ("error", None, "hypothesis failed without a case")
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m difftest", description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=1000, help="how many kernels to check in all")
    ap.add_argument("--batch", type=int, default=100, help="kernels per hypothesis run (each gets its own seed)")
    ap.add_argument("--seed", type=int, default=int(time.time()), help="seed of the first batch")
    ap.add_argument("--out", type=Path, default=Path("difftest-failures"), help="where failures are written")
    args = ap.parse_args(argv)
    counter, failures, start, batch = [0], 0, time.perf_counter(), 0
    while counter[0] < args.examples:
        seed = args.seed + batch
        batch += 1
        found = run_batch(min(args.batch, args.examples - counter[0]), seed, counter)
        if found is not None:
            failures += 1
            kind, case, message = found
            text = f"{kind} (batch seed {seed})\n{message}\n\n{case.describe() if case else ''}"
            args.out.mkdir(parents=True, exist_ok=True)
            path = args.out / f"{hashlib.sha1(text.encode()).hexdigest()[:12]}.txt"
            path.write_text(text)
            print(f"\n== {kind} -> {path}\n{text}", flush=True)
        print(f"{counter[0]} kernels checked, {failures} failures, {time.perf_counter() - start:.0f} s",
              flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
