"""Differential testing of the two executors: random valid Triton kernels (`generate.cases`, and the
special families of families.py: overlapping block/scalar accesses, negative and zero strides, i32
wrap, numpy scalars, conversions of special values), each run on the reference interpreter and on the
MTIA backend and simulator, and against numpy where a family says what the answer is (`run.check`).

    python -m difftest --examples 20000 --jobs 2   # from tests/: the long run (see __main__.py)
    python -m difftest.on_triton export ...        # the main family against real Triton on a GPU (on_triton.py)
"""
