"""Differential testing of the two executors: random valid Triton kernels (`generate.cases`), each
run on the reference interpreter and on the MTIA backend and simulator (`run.check`).

    python -m difftest --examples 5000       # from tests/: the long run (see __main__.py)
    python -m difftest.on_triton export ...  # the same kernels against real Triton on a GPU (on_triton.py)
"""
