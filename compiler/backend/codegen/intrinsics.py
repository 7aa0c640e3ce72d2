"""The C++ header of MTIA intrinsics that the kernel listing (`compiled.asm["cpp"]`) is written against.

One function per engine command of the ISA, taking a struct of the command's fields by name, so a
command reads `mtia::dma_in({.dst = cb1.push, .base = a_ptrs, .strides = {stride_am, 1}})`, and
the control core's own operations (program ids, circular-buffer pops and reads, debug output).
The header is generated from the ISA declarations and kept in the repository beside this file
(`mtia_intrinsics.h`; `python -m compiler.backend.codegen.intrinsics` rewrites it, a test checks
that it is current). It declares, it does not define: the listing is for reading and for
`g++ -std=c++20 -fsyntax-only`, the hardware runs the instruction stream.
"""
from __future__ import annotations

from pathlib import Path

import isa
from isa import fields

HEADER = Path(__file__).with_name("mtia_intrinsics.h")
ENGINE_UNITS = ("dma", "dpe", "se", "re", "mlu")

# field kind -> C++ type of the struct member
_TYPES = {fields.TileKind: "tile", fields.OptTile: "tile", fields.Src: "src", fields.OptSrc: "src", fields.XReg: "xreg",
          fields.XOrImm: "int64_t", fields.Imm: "int64_t", fields.FImm: "double", fields.FOrImm: "double",
          fields.XList: "xlist", fields.IntList: "std::initializer_list<int>"}

PREAMBLE = """\
// MTIA intrinsics for the C++ rendering of compiled kernels. Generated from the ISA by
// compiler/backend/codegen/intrinsics.py: do not edit by hand.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace mtia {

// element types the host C++ has no name for (storage only: engines do the arithmetic)
struct half { uint16_t bits; operator float() const; half(float); };
struct bfloat16 { uint16_t bits; operator float() const; bfloat16(float); };
struct f8e4m3 { uint8_t bits; operator float() const; f8e4m3(float); };
struct f8e5m2 { uint8_t bits; operator float() const; f8e5m2(float); };
constexpr double inf = __builtin_inf();
constexpr double nan = __builtin_nan("");

// a slot of a circular buffer as an engine operand: read and kept, read and popped (the last
// read), pushed (a fresh slot), or updated in place (acc); cb < 0 is no tile (an absent mask)
enum class mode { keep, pop, push, acc };
struct tile { int cb = -1; mode how = mode::keep; };
struct buffer {
  int id;
  tile keep, pop, push, acc;
  constexpr explicit buffer(int id)
      : id(id), keep{id, mode::keep}, pop{id, mode::pop}, push{id, mode::push}, acc{id, mode::acc} {}
};

// an engine source: a tile, or a scalar the engine broadcasts
struct src {
  tile t;
  double scalar = 0;
  constexpr src(tile t) : t(t) {}
  template <class T> requires std::is_arithmetic_v<T> constexpr src(T v) : scalar(static_cast<double>(v)) {}
  template <class T> src(const T* address);         // an address held as an integer (pointer tiles)
};
// an x register operand: an integer or an address
struct xreg {
  int64_t v;
  template <class T> requires std::is_integral_v<T> constexpr xreg(T x) : v(x) {}
  template <class T> xreg(const T* p) : v(reinterpret_cast<int64_t>(p)) {}
};
using xlist = std::initializer_list<int64_t>;

// the control core
int32_t program_id(int axis);
int32_t num_programs(int axis);
int32_t pe_id();
void fence();
void device_assert(bool cond, const char* message);
void cb_pop(const buffer& cb);                       // drop the oldest slot of a CB
template <class T> T cb_read(const buffer& cb);      // wait for a slot, load its first element
// a strip-mined RVV loop over whole tiles: out = a <op> b (a scalar operand uses the .vx form)
void rvv_loop(const char* op, tile out, src a, src b);
// tl.mtia.re_reduce: a chain over the reduction network, then a broadcast to every PE
void re_all_reduce(const char* op, tile value, tile partial, tile total);

// scalar operations the C++ operators do not spell (the result has the first operand's type)
template <class T, class U> T minsi(T a, U b);
template <class T, class U> T maxsi(T a, U b);
template <class T, class U> T minui(T a, U b);
template <class T, class U> T maxui(T a, U b);
template <class T, class U> T minnumf(T a, U b);       // a NaN operand loses
template <class T, class U> T maxnumf(T a, U b);
template <class T, class U> T minimumf(T a, U b);      // a NaN operand wins
template <class T, class U> T maximumf(T a, U b);
template <class T, class U> bool ordered(T a, U b);    // neither is NaN
template <class T> T sqrt(T a);
template <class T> T absi(T a);                         // the most negative integer stays itself
template <class To, class From> To fptoi_sat(From x);  // truncated; out of range saturates, NaN -> 0
template <class To, class From> To bitcast(From x);

// engine commands: one struct of named fields and one function per ISA instruction
"""


def _cpp_default(kind, default) -> str:
    if default is None or default == ():
        return " = {}"
    if isinstance(default, str):
        return f' = "{default}"'
    return f" = {default!r}"


def _member(name: str, kind, default) -> str:
    names = issubclass(kind, (fields.Label, fields.Text, fields.Dtype)) or hasattr(kind, "values")   # choice()
    ctype = _TYPES.get(kind) or ("const char*" if names else None)
    if ctype is None:
        raise TypeError(f"no C++ type for field kind {kind.__name__} ({name})")
    return f"{ctype} {name}" + (_cpp_default(kind, default) if default is not _NONE else "")


_NONE = object()


def _declaration(cls) -> str:
    fn = cls.mnemonic.replace(".", "_")
    members = []
    for name, kind, has_default in cls.fields:
        default = cls.__dataclass_fields__[name].default if has_default else _NONE
        members.append(_member(name, kind, default))
    doc = " ".join((cls.__doc__ or "").split())
    return (f"// {cls.mnemonic}: {doc}\n"
            f"struct {fn}_args {{ {'; '.join(members)}; }};\n"
            f"void {fn}(const {fn}_args&);\n")


def header_text() -> str:
    commands = [cls for cls in isa.REGISTRY.values() if cls.unit in ENGINE_UNITS]
    return PREAMBLE + "\n".join(_declaration(cls) for cls in commands) + "\n}  // namespace mtia\n"


if __name__ == "__main__":
    HEADER.write_text(header_text())
