"""Broadcast reads (`broadcast_reads`, on by default): a box load that the programs running together on
a broadcast group read alike becomes one `dma.in ... bcast=N` for the group, decided at launch from
the grid, the arguments and the placement. The results are the bits the interpreter gives (outputs
NaN-poisoned, so unwritten elements show); the SRAM serves fewer bytes; loads the launch cannot
prove alike, and kernels whose programs may wait on each other, are not broadcast."""
import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.backend.launch.broadcast import Group
from compiler.kernels.matmul_tutorial import matmul_tutorial


@triton.jit
def _add_row(X, W, Out, N: tl.constexpr):
    """Every program reads the same row W: a broadcast wherever programs run in step."""
    pid = tl.program_id(0)
    r = tl.arange(0, N)
    tl.store(Out + pid * N + r, tl.load(X + pid * N + r) + tl.load(W + r))


@triton.jit
def _add_row_every(X, W, Out, N: tl.constexpr):
    """Program p reads W p % 3 + 1 times: the members of a group (along a grid row, or down a column:
    PEs 8 apart) do not issue the load alike."""
    pid = tl.program_id(0)
    r = tl.arange(0, N)
    acc = tl.load(X + pid * N + r)
    for _ in range(pid % 3 + 1):
        acc += tl.load(W + r)
    tl.store(Out + pid * N + r, acc)


@triton.jit
def _add_row_in_place(X, W, N: tl.constexpr):
    """X += W, and program 0 also writes W: the kernel reads what it writes."""
    pid = tl.program_id(0)
    r = tl.arange(0, N)
    w = tl.load(W + r)
    tl.store(X + pid * N + r, tl.load(X + pid * N + r) + w)
    if pid == 0:
        tl.store(W + r, w)


@triton.jit
def _add_row_counted(X, W, Out, Count, N: tl.constexpr):
    pid = tl.program_id(0)
    r = tl.arange(0, N)
    tl.store(Out + pid * N + r, tl.load(X + pid * N + r) + tl.load(W + r))
    tl.atomic_add(Count, 1)


def _rows(programs, n=64, seed=3):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((programs, n)).astype(np.float32), rng.standard_normal(n).astype(np.float32)


def _add(kernel, programs, **launch):
    x, w = _rows(programs)
    out = np.full_like(x, np.nan)
    run = kernel[(programs,)](x, w, out, N=x.shape[1], **launch)
    return out, run, x + w[None, :]


def test_a_row_every_program_reads_is_broadcast_to_whole_grid_rows():
    out, run, want = _add(_add_row, 64)
    ref, _, _ = _add(_add_row, 64, executor="interpreter")
    assert list(run.broadcast_reads.values()) == [Group(8)]        # W; X differs by program
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(out, ref)
    off, plain, _ = _add(_add_row, 64, mtia_options={"broadcast_reads": False})
    assert plain.broadcast_reads == {}
    np.testing.assert_array_equal(off, out)
    assert run.report.bytes["sram"] < plain.report.bytes["sram"]


def test_groups_follow_the_placement_and_must_be_whole():
    # 256 programs, linear: PE p runs 4p..4p+3, so every PE of a group runs four programs
    _, run, _ = _add(_add_row, 256)
    assert list(run.broadcast_reads.values()) == [Group(8)]
    # 3 programs on PEs 0..2: PE 3 has none, so no group of 2, 4 or 8 has all its members busy
    out, run, want = _add(_add_row, 3)
    assert run.broadcast_reads == {}
    np.testing.assert_array_equal(out, want)
    # 70 programs round robin: PEs 0..5 run two, the others one; groups of 4 or 8 would mix the two
    # (PEs 4..7), groups of 2 do not
    out, run, want = _add(_add_row, 70, pe_mapping="round_robin")
    assert list(run.broadcast_reads.values()) == [Group(2)]
    np.testing.assert_array_equal(out, want)


def test_loads_issued_unlike_across_a_group_are_not_broadcast():
    x, w = _rows(64)
    out = np.full_like(x, np.nan)
    run = _add_row_every[(64,)](x, w, out, N=64)
    assert run.broadcast_reads == {}
    want = x.copy()
    for p in range(64):
        for _ in range(p % 3 + 1):
            want[p] += w                                   # the kernel's order of additions
    np.testing.assert_array_equal(out, want)


@triton.jit
def _row_then_unequal_work(X, W, Out, N: tl.constexpr):
    """Every program reads W once, alike, and then works pid % 3 + 1 steps: unequal work per member
    of any group (8 % 3 != 0: a grid column's members differ too)."""
    pid = tl.program_id(0)
    r = tl.arange(0, N)
    acc = tl.load(X + pid * N + r) + tl.load(W + r)
    for _ in range(pid % 3 + 1):
        acc = acc * 0.5 + 1.0
    tl.store(Out + pid * N + r, acc)


def test_a_read_alike_is_not_broadcast_when_the_members_then_work_unequally():
    x, w = _rows(64)
    out = np.full_like(x, np.nan)
    run = _row_then_unequal_work[(64,)](x, w, out, N=64)
    assert run.broadcast_reads == {}          # the members would wait for the slowest at each W read
    want = x + w[None, :]
    for p in range(64):
        for _ in range(p % 3 + 1):
            want[p] = want[p] * np.float32(0.5) + np.float32(1.0)
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_kernels_that_may_synchronise_through_memory_broadcast_nothing():
    x, w = _rows(64)
    want = x + w[None, :]
    run = _add_row_in_place[(64,)](x, w, N=64)
    assert run.broadcast_reads == {}
    np.testing.assert_array_equal(x, want)
    x, w = _rows(64)
    out, count = np.full_like(x, np.nan), np.zeros(1, np.int32)
    run = _add_row_counted[(64,)](x, w, out, count, N=64)
    assert run.broadcast_reads == {} and count[0] == 64
    np.testing.assert_array_equal(out, want)


def test_a_row_inside_an_array_the_kernel_writes_is_not_broadcast():
    """W is the last row of Out's array (one buffer): the kernel writes the array it reads W from."""
    x, w = _rows(64)
    out = np.full((65, 64), np.nan, np.float32)
    out[64] = w
    run = _add_row[(64,)](x, out[64], out, N=64)
    assert run.broadcast_reads == {}
    np.testing.assert_array_equal(out[:64], x + w[None, :])
    np.testing.assert_array_equal(out[64], w)


@pytest.mark.parametrize("size,blocks,b_group,a_group", [(256, (64, 64, 64), 4, 2), (1024, (64, 64, 64), 2, 4)])
def test_the_tutorial_matmul_broadcasts_b_along_grid_rows_and_a_down_columns(size, blocks, b_group, a_group):
    """GROUP_SIZE_M orders programs down M first, so the programs placed side by side share a column
    block of B, and those placed a grid row apart share a row block of A. At 256: 16 programs on PEs
    0..15, 4 per column block of B (a row group of 4), programs p and p + 8 one row block of A (a column
    group of 2: PEs 16.. have no program). At 1024 linear placement puts programs 4p..4p+3 on PE p:
    programs 8g + j and 8g + 4 + j share B (row pairs), and PEs p, p + 8, p + 16, p + 24 run programs
    32 apart, which share A inside a group of 8 row blocks (column groups of 4)."""
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((size, 128)) / 4).astype(np.float16)
    b = (rng.standard_normal((128, size)) / 4).astype(np.float16)
    bm, bn, bk = blocks
    (c,), (run,) = matmul_tutorial(a, b, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk)
    a_line, b_line = sorted(run.broadcast_reads)               # the kernel loads A, then B
    assert run.broadcast_reads == {a_line: Group(a_group, column=True), b_line: Group(b_group)}
    (ref,), _ = matmul_tutorial(a, b, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, executor="interpreter")
    np.testing.assert_array_equal(c, ref)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(c.astype(np.float32), want.astype(np.float32), rtol=2e-2, atol=2e-2)


@triton.jit
def _add_row_of_column(X, W, Out, N: tl.constexpr, COLS: tl.constexpr):
    """Program p reads row p % COLS of W: the programs of a grid column read one row, a grid row's all differ."""
    pid = tl.program_id(0)
    r = tl.arange(0, N)
    tl.store(Out + pid * N + r, tl.load(X + pid * N + r) + tl.load(W + (pid % COLS) * N + r))


def test_a_load_alike_only_down_grid_columns_is_broadcast_down_them():
    cols = 8                                                     # MTIA 2i's 8x8 grid
    x, _ = _rows(64)
    w = np.random.default_rng(4).standard_normal((cols, 64)).astype(np.float32)
    want = x + w[np.arange(64) % cols]
    runs = {}
    for on in (True, False):
        out = np.full_like(x, np.nan)
        runs[on] = _add_row_of_column[(64,)](x, w, out, N=64, COLS=cols, mtia_options={"broadcast_reads": on})
        np.testing.assert_array_equal(out, want)
    assert list(runs[True].broadcast_reads.values()) == [Group(8, column=True)]
    assert runs[True].report.bytes["sram"] < runs[False].report.bytes["sram"]
    asm = _add_row_of_column.compile(x, w, x, N=64, COLS=cols).asm["mtia-asm"]
    assert "bcast_col" not in asm                  # chosen at launch: the compiled program has no groups
