"""The kernel listings are real code: the C++ of every library kernel and of frontend kernels with
the control flow the library lacks compiles (g++ -fsyntax-only against the MTIA intrinsics header
kept in the repository), and their control code as LLVM IR assembles (llvm-as).

.ci/run installs both tools (Debian's g++ and llvm) where they are missing, so CI runs these tests;
on a machine without a tool its tests are skipped, saying which tool is missing."""
import re
import shutil
import subprocess

import numpy as np
import pytest

import compiler as triton
import compiler.language as tl
from compiler.backend.codegen.intrinsics import HEADER, header_text

from filecheck import check_ir
from library_stages import library_stages

KERNELS = sorted(library_stages())


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed here (.ci/run installs it: apt-get install g++ llvm)")
    return path


# ---- frontend kernels: the control flow and scalar work the library kernels do not show ------------

@triton.jit
def _while_and_if_kernel(X, Out, N, LIMIT: tl.constexpr, BLOCK: tl.constexpr):
    i = 0
    acc = tl.zeros([BLOCK], tl.float32)
    while i < N:                                         # a while loop carrying a scalar and a block
        x = tl.load(X + i * BLOCK + tl.arange(0, BLOCK))
        if i % 2 == 0:                                   # an if yielding a scalar
            scale = 2.0
        else:
            scale = 0.5
        acc += x * scale
        i += 1
    total = tl.sum(acc, 0)
    if total > LIMIT:
        total = LIMIT * 1.0
    tl.store(Out, total)


@triton.jit
def _scalar_work_kernel(X, H, Out, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    first = tl.load(X + pid, mask=pid < n, other=-1.0)  # a masked scalar load
    h = tl.load(H)                                       # a scalar f16 load (the SE widens it)
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0.0)
    tl.device_assert(x == x, "no NaN")                   # a block condition the RE reduces
    best = tl.argmax(x, 0)
    tl.atomic_add(Out + 1, tl.exp(first))               # a scalar the SE computes, an atomic
    tl.store(Out, (tl.max(x, 0) + h + best).to(tl.float32))
    tl.store(Out + 2, tl.abs(pid - n).to(tl.float32))   # a scalar integer abs


def _frontend_stages() -> dict[str, dict]:
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(4, np.float32)
    kernels = {
        "while_and_if": _while_and_if_kernel.compile(x, out, 4, LIMIT=100, BLOCK=64),
        "scalar_work": _scalar_work_kernel.compile(x, np.ones(1, np.float16), out, 100, BLOCK=128),
    }
    return {name: {stage: c.asm[stage] for stage in ("cpp", "llvm")} for name, c in kernels.items()}


FRONTEND = ["while_and_if", "scalar_work"]
_FRONTEND_CACHE: dict = {}


def _stages(kernel: str) -> dict:
    if kernel in FRONTEND:
        if not _FRONTEND_CACHE:
            _FRONTEND_CACHE.update(_frontend_stages())
        return _FRONTEND_CACHE[kernel]
    return library_stages()[kernel]


def test_the_intrinsics_header_is_the_one_the_isa_gives():
    assert HEADER.read_text() == header_text(), "run: python -m compiler.backend.codegen.intrinsics"


@pytest.mark.parametrize("kernel", KERNELS + FRONTEND)
def test_the_cpp_listing_compiles(kernel, tmp_path):
    gxx = _tool("g++")
    src = tmp_path / f"{kernel}.cpp"
    src.write_text(_stages(kernel)["cpp"])
    p = subprocess.run([gxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Werror", "-Wno-unused-variable",
                        "-Wno-unused-but-set-variable", "-I", str(HEADER.parent), str(src)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr + "\n" + src.read_text()


def _llvm_as() -> list[str]:
    tool = _tool("llvm-as")
    version = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=60).stdout
    major = int(re.search(r"version (\d+)", version).group(1))
    return [tool] + (["-opaque-pointers"] if major < 15 else [])      # opaque pointers are the default from 15


@pytest.mark.parametrize("kernel", KERNELS + FRONTEND)
def test_the_llvm_ir_assembles(kernel, tmp_path):
    src = tmp_path / f"{kernel}.ll"
    src.write_text(_stages(kernel)["llvm"])
    p = subprocess.run(_llvm_as() + [str(src), "-o", str(tmp_path / "out.bc")], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr + "\n" + src.read_text()


def test_the_matmul_listings_carry_the_pointers_through_the_loop():
    stages = library_stages()["matmul_kernel"]
    check_ir(stages["cpp"], """
        CHECK: #include "mtia_intrinsics.h"
        CHECK: void matmul_kernel(mtia::half* a_ptr, mtia::half* b_ptr, mtia::half* c_ptr, int32_t M
        CHECK: const mtia::buffer cb0{0};   // acc: {{\\d+}} B per slot
        CHECK: mtia::half* a_ptrs = {{\\w+}};
        CHECK-NEXT: mtia::half* b_ptrs = {{\\w+}};
        CHECK-NEXT: for (int32_t k = 0; k < {{\\w+}}; k += 1) {
        CHECK: mtia::dma_in({.dst = cb1.push, .base = a_ptrs, .strides = {stride_am, 1}
        CHECK: mtia::dpe_mm({.out = cb0.acc, .a = cb1.pop, .b = cb2.pop, .trans_a = 0, .trans_b = 0});
        CHECK: mtia::half* {{\\w+}} = a_ptrs + 32;
        CHECK: a_ptrs = {{\\w+}};
        CHECK-NEXT: b_ptrs = {{\\w+}};
        CHECK-NEXT: }
        CHECK: mtia::dma_out({.src = cb0.pop
    """)
    check_ir(stages["llvm"], """
        CHECK: declare void @mtia.dma.in(...)
        CHECK: define void @matmul_kernel(ptr %a_ptr, ptr %b_ptr, ptr %c_ptr, i32 %M
        CHECK: br label %{{for.cond.\\d+}}
        CHECK: %k = phi i32 [ 0, %entry ], [ %k.next, %{{for.body.\\d+}} ]
        CHECK-NEXT: %a_ptrs = phi ptr [ {{%[\\w.]+}}, %entry ], [ {{%[\\w.]+}}, %{{for.body.\\d+}} ]
        CHECK: call void (...) @mtia.dma.in(i32 1, i32 2, ptr %a_ptrs
        CHECK: call void (...) @mtia.dpe.mm(i32 0, i32 3, i32 1, i32 1, i32 2, i32 1
        CHECK: getelementptr half, ptr %a_ptrs, i64 32
        CHECK: %k.next = add i32 %k, 1
        CHECK: call void (...) @mtia.dma.out(i32 0, i32 1
        CHECK: ret void
    """)
