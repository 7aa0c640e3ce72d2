"""Layer normalisation, forward and backward (Triton tutorial 05's algorithm, without its lock):

forward   y = (x - mean) * rstd * w + b, one row per program, walking the row in BLOCK_SIZE chunks;
backward  dx per row, and dw/db in two stages: each program sums dy * x_hat and dy over its rows
          into one partial row, then a second kernel adds the partial rows column by column.
"""
from __future__ import annotations

import numpy as np

import compiler as triton
import compiler.language as tl

from . import LibraryKernel


@triton.jit
def layernorm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        _mean += tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(Y + cols, (x - mean) * rstd * w + b, mask=mask)


@triton.jit
def layernorm_bwd_dx_kernel(DX, DY, PartialDW, PartialDB, X, W, Mean, Rstd, stride, M, N,
                            ROWS_PER_PROGRAM: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    w = tl.load(W + cols, mask=mask, other=0.0)
    dw = tl.zeros([BLOCK_N], dtype=tl.float32)
    db = tl.zeros([BLOCK_N], dtype=tl.float32)
    first = pid * ROWS_PER_PROGRAM
    for row in range(first, tl.minimum(first + ROWS_PER_PROGRAM, M)):
        x = tl.load(X + row * stride + cols, mask=mask, other=0.0)
        dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = tl.where(mask, (x - mean) * rstd, 0.0)
        wdy = tl.where(mask, w * dy, 0.0)
        c1 = tl.sum(xhat * wdy, axis=0) / N
        c2 = tl.sum(wdy, axis=0) / N
        dx = (wdy - (xhat * c1 + c2)) * rstd
        tl.store(DX + row * stride + cols, dx, mask=mask)
        dw += dy * xhat
        db += dy
    tl.store(PartialDW + pid * N + cols, dw, mask=mask)
    tl.store(PartialDB + pid * N + cols, db, mask=mask)


@triton.jit
def layernorm_bwd_dwdb_kernel(PartialDW, PartialDB, DW, DB, P, N, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    dw = tl.zeros([BLOCK_P, BLOCK_N], dtype=tl.float32)
    db = tl.zeros([BLOCK_P, BLOCK_N], dtype=tl.float32)
    for i in range(0, P, BLOCK_P):
        rows = i + tl.arange(0, BLOCK_P)
        mask = (rows[:, None] < P) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(PartialDW + offs, mask=mask, other=0.0)
        db += tl.load(PartialDB + offs, mask=mask, other=0.0)
    tl.store(DW + cols, tl.sum(dw, axis=0), mask=cols < N)
    tl.store(DB + cols, tl.sum(db, axis=0), mask=cols < N)


def layernorm_fwd(x, w, b, eps: float = 1e-5, **launch):
    M, N = x.shape
    y = np.full_like(x, np.nan)
    mean = np.full(M, np.nan, np.float32)
    rstd = np.full(M, np.nan, np.float32)
    # about a dozen row chunks live in the local store at once (loads, temporaries, accumulators)
    ls_bytes = triton.runtime.driver.active.utils.get_device_properties(0)["max_shared_mem"]
    block = min(4096, triton.next_power_of_2(N), ls_bytes // (4 * 16))
    run = layernorm_fwd_kernel[(M,)](x, y, w, b, mean, rstd, x.strides[0] // 4, N, eps, BLOCK_SIZE=block, **launch)
    return (y, mean, rstd), [run]


def layernorm_bwd(dy, x, w, mean, rstd, **launch):
    M, N = x.shape
    block_n = triton.next_power_of_2(N)
    programs = min(M, 64)
    rows = triton.cdiv(M, programs)
    programs = triton.cdiv(M, rows)
    dx = np.full_like(x, np.nan)
    pdw = np.full((programs, N), np.nan, np.float32)
    pdb = np.full((programs, N), np.nan, np.float32)
    r1 = layernorm_bwd_dx_kernel[(programs,)](dx, dy, pdw, pdb, x, w, mean, rstd, x.strides[0] // 4, M, N,
                                              ROWS_PER_PROGRAM=rows, BLOCK_N=block_n, **launch)
    dw = np.full(N, np.nan, np.float32)
    db = np.full(N, np.nan, np.float32)
    bn = min(128, block_n)
    r2 = layernorm_bwd_dwdb_kernel[(triton.cdiv(N, bn),)](pdw, pdb, dw, db, programs, N, BLOCK_P=32, BLOCK_N=bn,
                                                          **launch)
    return (dx, dw, db), [r1, r2]


def reference_fwd(x, w, b, eps=1e-5):
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)
    var = ((x64 - mean[:, None]) ** 2).mean(axis=1)
    rstd = 1 / np.sqrt(var + eps)
    y = (x64 - mean[:, None]) * rstd[:, None] * w + b
    return y.astype(np.float32), mean.astype(np.float32), rstd.astype(np.float32)


def reference_bwd(dy, x, w, mean, rstd):
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    xhat = (x64 - mean[:, None]) * rstd[:, None]
    wdy = w * dy64
    N = x.shape[1]
    c1 = (xhat * wdy).sum(axis=1, keepdims=True) / N
    c2 = wdy.sum(axis=1, keepdims=True) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    return dx.astype(np.float32), (dy64 * xhat).sum(0).astype(np.float32), dy64.sum(0).astype(np.float32)


def make_fwd_inputs(shape, rng):
    M, N = shape
    return (rng.standard_normal((M, N)).astype(np.float32), rng.standard_normal(N).astype(np.float32),
            rng.standard_normal(N).astype(np.float32))


def make_bwd_inputs(shape, rng):
    x, w, _ = make_fwd_inputs(shape, rng)
    _, mean, rstd = reference_fwd(x, w, np.zeros_like(w))
    return rng.standard_normal(x.shape).astype(np.float32), x, w, mean, rstd


LIBRARY = [
    LibraryKernel("layernorm_fwd", "layer norm forward: y, mean, rstd per row", layernorm_fwd, reference_fwd,
                  make_fwd_inputs, (4096, 4096), ((3, 10), (17, 300), (64, 5000)), rtol=1e-4, atol=1e-4,
                  dims=("M", "N")),
    LibraryKernel("layernorm_bwd", "layer norm backward: dx per row, dw and db reduced in two stages",
                  layernorm_bwd, reference_bwd, make_bwd_inputs, (4096, 1024), ((3, 10), (70, 300)),
                  rtol=1e-4, atol=1e-4, dims=("M", "N")),
]
