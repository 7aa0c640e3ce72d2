"""A GPU-style Triton script: only the two import lines differ from the GPU version.

    mtiasim run examples/vector_add.py            # runs it on the simulated MTIA 2i, prints each launch
    mtiasim compile examples/vector_add.py --stage mtia-asm
"""
import numpy as np

import compiler as triton  # was: import triton
import compiler.language as tl  # was: import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add(x, y):
    out = np.empty_like(x)
    n = out.size
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    run = add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    return out, run


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = rng.random(98_432, dtype=np.float32)
    y = rng.random(98_432, dtype=np.float32)
    out, run = add(x, y)
    print(f"max |out - (x + y)| = {np.abs(out - (x + y)).max()}")
    print(f"{run.cycles} cycles, {run.seconds * 1e6:.2f} us, {100 * run.roofline.fraction:.1f}% of the "
          f"{run.roofline.bound} roofline")
