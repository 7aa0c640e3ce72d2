"""Block sizes for Inductor's kernels on MTIA: what `XBLOCK`, `YBLOCK`, `ZBLOCK`, `R0_BLOCK` a launch gets.

A GPU config packs a block for one streaming multiprocessor's warps; on MTIA a program runs on one
PE and its tiles live in that PE's local store. We aim for at least one program per PE (64 on the
8x8 grid) and tiles as large as the local store holds with room for double buffering: the DMA of
the next tile overlaps the work on this one. These are first guesses: the launcher times them and
their neighbours (`candidates`) on the simulator and keeps the fastest (`tuning.py`), halving a
block when the compiler says the tiles do not fit (`OutOfResources`).
"""
from __future__ import annotations

MIN_BLOCK = 16            # below this a program's DMA and issue overhead outweighs its work
MAX_POINTWISE = 2048      # elements per program: 8 KB per f32 tile, 2048 is where longer DMAs stop paying off


def pow2_ceil(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def pow2_floor(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n).bit_length() - 1)


def tile_elements(local_store_bytes: int, buffers: int) -> int:
    """Elements of one f32 tile when `buffers` tiles, each double-buffered, share half the local
    store (the other half holds the compiler's temporaries)."""
    return pow2_floor(local_store_bytes // 2 // (buffers * 2 * 4))


def choose(names: list, numels: dict, persistent_r: int | None, pes: int, local_store_bytes: int,
           buffers: int) -> dict:
    """Block sizes for the constexpr block parameters `names` ("XBLOCK", "YBLOCK", "ZBLOCK", "R0_BLOCK", ...).

    numels: {"x": xnumel, "y": ..., "r0_": ...}; persistent_r: a persistent reduction's fixed
    R0_BLOCK (its whole row is one tile); buffers: tiles the kernel keeps (its loads and stores)."""
    budget = min(tile_elements(local_store_bytes, max(1, buffers)), 8192)
    out = {}
    r = 1
    if "R0_BLOCK" in names:
        r = min(pow2_ceil(numels.get("r0_", 1)), budget // MIN_BLOCK if numels.get("x", 1) > 1 else budget)
        out["R0_BLOCK"] = max(r, 1)
    elif persistent_r:
        r = persistent_r
    x = numels.get("x", 1)
    y = numels.get("y", 1)
    if "YBLOCK" in names:
        # a 2-D or 3-D tile (transposes, broadcasts over two axes): the x side contiguous, then y, and
        # z (the outer axis of a 3-D tile) gets what is left of the elements per program
        cap = min(budget, MAX_POINTWISE)
        xb = min(pow2_ceil(x), 64)
        yb = min(pow2_ceil(y), max(1, cap // xb))
        out["YBLOCK"] = yb
        if "XBLOCK" in names:
            out["XBLOCK"] = xb
        if "ZBLOCK" in names:
            out["ZBLOCK"] = min(pow2_ceil(numels.get("z", 1)), max(1, cap // (xb * yb)))
        return out
    if "XBLOCK" in names:
        per_pe = pow2_ceil(-(-x // pes))
        cap = max(1, budget // r) if r > 1 else min(budget, MAX_POINTWISE)
        floor = 1 if r > 1 else MIN_BLOCK
        out["XBLOCK"] = max(1, min(cap, max(per_pe, floor), pow2_ceil(x)))
    return out


AXES = {"XBLOCK": "x", "YBLOCK": "y", "ZBLOCK": "z", "R0_BLOCK": "r0_", "R1_BLOCK": "r1_"}


def candidates(first: dict, numels: dict) -> list[dict]:
    """The block sizes tuning tries: the first guess, then each of its blocks halved and doubled, none
    past the next power of two of its axis (a larger block only masks more)."""
    out = [first]
    for name, value in first.items():
        top = pow2_ceil(numels.get(AXES.get(name, ""), value))
        for other in (value // 2, value * 2):
            cfg = {**first, name: other}
            if 1 <= other <= top and cfg not in out:
                out.append(cfg)
    return out


def halve(cfg: dict) -> dict | None:
    """The config with its largest block halved (None when every block is 1)."""
    if not cfg or max(cfg.values()) <= 1:
        return None
    name = max(cfg, key=lambda k: (cfg[k], k))
    return {**cfg, name: cfg[name] // 2}
