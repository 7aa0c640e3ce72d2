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
// dma.in: dst[i] = mem[base + sum_k(j_k * strides[k]) * itemsize] for every index i of dst's box with skip[k] <= i_k < valid[k] (no lower clip when skip is empty, all of the box when valid is empty), j_k = i_k except along a wrapped or clamped dimension (module docstring; a box that skips is not remapped); the other elements of dst = pad. prefetch (DMA_IN with prefetch): when nonzero, the same box at base + prefetch bytes is also brought from DRAM into the LLC (clipped to the array base is in); the transfer does not wait for it. bcast=N (N > 1): a broadcast read. The N PEs of this PE's group (N consecutive PEs of a grid row, PE index // N; N divides the columns) each issue the same dma.in, and the k-th broadcast read of every member is one transfer: memory and the NoC up to where the routes part carry it once. It starts when the last member has issued it; a member that never does leaves the others waiting. bcast_col=1: the group runs down a grid column instead (N consecutive PEs of a column, grid row // N; N divides the rows): ISCA'25's weights broadcast across PE columns. Each row's route to the crossbar carries its own copy; the SRAM is read once. ctx, inc: the command forms of the module docstring.
struct dma_in_args { tile dst; xreg base; xlist strides; xlist valid = {}; xlist skip = {}; double pad = 0.0; int64_t unaligned = 0; xlist wrap = {}; xlist clamp = {}; int64_t prefetch = 0; int64_t bcast = 0; int64_t bcast_col = 0; int64_t ctx = 0; int64_t inc = 0; };
void dma_in(const dma_in_args&);

// dma.out: mem[base + sum_k(j_k * strides[k]) * itemsize] = src[i] for every index i of src's box with skip[k] <= i_k < valid[k], j_k as for dma.in (where a clamp sends several elements to one address, the last in row-major order lands); nothing else is written. ctx, inc: the command forms of the module docstring.
struct dma_out_args { tile src; xreg base; xlist strides; xlist valid = {}; xlist skip = {}; int64_t unaligned = 0; xlist wrap = {}; xlist clamp = {}; int64_t ctx = 0; int64_t inc = 0; };
void dma_out(const dma_out_args&);

// dma.gather: dst[i] = mem[base + offsets[i] * itemsize] where mask[i] (or everywhere without a mask); dst[i] = pad elsewhere. offsets and mask broadcast to dst's shape. Each element is its own memory transaction: the fallback for pointer tensors that are not affine.
struct dma_gather_args { tile dst; xreg base; tile offsets; tile mask = {}; double pad = 0.0; };
void dma_gather(const dma_gather_args&);

// dma.scatter: mem[base + offsets[i] * itemsize] = src[i] where mask[i]; later elements win on repeated addresses (row-major order).
struct dma_scatter_args { tile src; xreg base; tile offsets; tile mask = {}; };
void dma_scatter(const dma_scatter_args&);

// dma.rows: Indexed DMA_IN: dst[r, c] = mem[base + (index[r] * row_stride + j) * itemsize] for c < valid_cols (all columns when 0) and the rows r where mask[r] (every row without a mask); pad elsewhere. j = c, or with wrap=[start, bound] j = (start + c) rem bound (C's remainder, as for dma.in): a row is then up to two runs. One descriptor per row (embedding lookups, rows gathered by loaded indices). An index may be negative: it is an offset from base like any other.
struct dma_rows_args { tile dst; xreg base; tile index; int64_t row_stride; int64_t valid_cols = 0; double pad = 0.0; tile mask = {}; xlist wrap = {}; };
void dma_rows(const dma_rows_args&);

// dma.atomic: For each element i in row-major order where mask[i]: old = mem[a]; mem[a] = op(old, val[i]) with a = base + offsets[i] * itemsize; dst[i] = old (dst may be none). Without offsets (and mask) the addresses are a box, as dma.out's: a = base + sum_k(i_k * strides[k]) * itemsize for every index i of val's box with i_k < valid[k] (all of it when valid is empty), in row-major order; dst[i] = 0 elsewhere (unaligned as for dma.out). Atomic with respect to every other PE: each element's read-modify-write happens at the memory in one step.
struct dma_atomic_args { const char* op; tile dst; xreg base; tile offsets; tile val; tile mask = {}; xlist strides = {}; xlist valid = {}; int64_t unaligned = 0; };
void dma_atomic(const dma_atomic_args&);

// dma.cas: For each element i in row-major order: old = mem[a]; if old == cmp[i]: mem[a] = val[i]; dst[i] = old, with a = base + offsets[i] * itemsize. Atomic like dma.atomic.
struct dma_cas_args { tile dst; xreg base; tile offsets; tile cmp; tile val; };
void dma_cas(const dma_cas_args&);

// dma.prefetch: Bring `nbytes` starting at DRAM address base (within the array base is in) into the LLC part of SRAM. No data reaches the local store. The command completes once its descriptor is issued; a later load of those lines waits for a fill still in flight.
struct dma_prefetch_args { xreg base; int64_t nbytes; };
void dma_prefetch(const dma_prefetch_args&);

// dma.discard: Dead-tensor hint: the `nbytes` bytes from DRAM address base hold data nobody reads again. Their whole LLC lines are dropped without being written back to DRAM, and those bytes of memory become undefined (the simulator fills them with 0xff). Bytes in SRAM scratch are untouched.
struct dma_discard_args { xreg base; int64_t nbytes; };
void dma_discard(const dma_discard_args&);

// dpe.mm: out = a @ b, or out = out + a @ b when out's mode is acc. a is [M, K] ([K, M] with trans_a), b is [K, N] ([N, K] with trans_b), out is [M, N]; a leading batch dimension is allowed on all three. Products are exact and summed in f32 (i32 for i8/u8 inputs), then rounded to out's dtype. a and b have the same dtype. `rows`, when nonzero, is the number of rows of a that hold data (an effective shape): the DPE skips the rest and leaves those rows of out unchanged (acc) or zero. kslices=s (s >= 2): K is s equal slices summed one after another: out = out + a_1 @ b_1, rounded to out's dtype, then + a_2 @ b_2, ..., as s commands in sequence would (a fresh out starts from a_1 @ b_1); the DPE takes them in one command, at the time of that work in one. `kused`, when nonzero, is how many of the slices hold data (at most s count): the rest are skipped, no time and no effect. The backend's K coalescing issues one command per two K steps (compiler/backend/passes/ coalesce_k.py), kused the steps left. ctx=c (c >= 1, multi-context: ISCA'25's GEMM contexts): issued through command context c of the DPE, which keeps the operands of the last command issued through it; operands equal to those are not sent again (the same result, less of the control core's time).
struct dpe_mm_args { tile out; tile a; tile b; int64_t trans_a = 0; int64_t trans_b = 0; int64_t rows = 0; int64_t kslices = 1; int64_t kused = 0; int64_t ctx = 0; };
void dpe_mm(const dpe_mm_args&);

// mlu.transpose: out = a with its axes permuted: out axis k is a's axis perm[k] (numpy transpose).
struct mlu_transpose_args { tile out; tile a; std::initializer_list<int> perm; };
void mlu_transpose(const mlu_transpose_args&);

// mlu.reshape: out = a's elements in row-major order, laid out in out's shape (same element count).
struct mlu_reshape_args { tile out; tile a; };
void mlu_reshape(const mlu_reshape_args&);

// mlu.bcast: out = a broadcast to out's shape (numpy rules, shapes aligned on the right).
struct mlu_bcast_args { tile out; tile a; };
void mlu_bcast(const mlu_bcast_args&);

// mlu.concat: out = a followed by b along `axis`.
struct mlu_concat_args { tile out; tile a; tile b; int64_t axis; };
void mlu_concat(const mlu_concat_args&);

// mlu.join: out = stack(a, b) along a new last axis of size 2 (tl.join).
struct mlu_join_args { tile out; tile a; tile b; };
void mlu_join(const mlu_join_args&);

// mlu.slice: out = the box of a starting at index `start` with out's shape, taking every `step`-th element along each axis (step empty = 1s) (tl.split, tl.extract_slice).
struct mlu_slice_args { tile out; tile a; std::initializer_list<int> start; std::initializer_list<int> step = {}; };
void mlu_slice(const mlu_slice_args&);

// mlu.gather: out = the elements of a picked along `axis` by index (tl.gather): out and index have one shape, and out[..., i, ...] = a[..., index[..., i, ...], ...] with i at position `axis`; every other coordinate is the same in out and a. An index outside a's extent along axis is an error.
struct mlu_gather_args { tile out; tile a; tile index; int64_t axis; };
void mlu_gather(const mlu_gather_args&);

// re.reduce: out = op over axis `axis` of a. out's shape is a's with that axis removed or kept as 1. Sums of floats accumulate in f32 (f64 for f64). max/min ignore NaNs (IEEE maxNum/minNum: NaN only when every element is NaN), as Triton's tl.max/tl.min do; argmax/argmin give the first index of that extreme as i32 (0 when every element is NaN).
struct re_reduce_args { tile out; tile a; const char* op; int64_t axis; };
void re_reduce(const re_reduce_args&);

// re.scan: out = the inclusive prefix op of a along `axis` (reverse=1 scans from the end); max/min ignore NaNs as re.reduce's do.
struct re_scan_args { tile out; tile a; const char* op; int64_t axis; int64_t reverse = 0; };
void re_scan(const re_scan_args&);

// re.send: Send tile a over the reduction network into CB `cb` of PE `pe`, as a push there. The receiving CB's slots are claimed in the order sends arrive.
struct re_send_args { tile a; int64_t pe; int64_t cb; };
void re_send(const re_send_args&);

// re.histogram: out[b] = how many elements of a equal b, for 0 <= b < out's length (tl.histogram); elements outside that range, and those where mask is 0, are not counted. out is i32.
struct re_histogram_args { tile out; tile a; tile mask = {}; };
void re_histogram(const re_histogram_args&);

// se.mov: out = a converted to out's dtype (a copy, a broadcast or a cast: float to int truncates toward zero and saturates, NaN -> 0, as isa/float_to_int.py defines; int to float rounds to nearest even).
struct se_mov_args { tile out; src a; };
void se_mov(const se_mov_args&);

// se.bitcast: out = the bits of a reinterpreted as out's dtype (same element size).
struct se_bitcast_args { tile out; src a; };
void se_bitcast(const se_bitcast_args&);

// se.fill: out = value everywhere.
struct se_fill_args { tile out; double value; };
void se_fill(const se_fill_args&);

// se.iota: out[i] = start + i for the row-major index i (tl.arange).
struct se_iota_args { tile out; int64_t start = 0; };
void se_iota(const se_iota_args&);

// se.neg: out = -a.
struct se_neg_args { tile out; src a; };
void se_neg(const se_neg_args&);

// se.abs: out = |a|.
struct se_abs_args { tile out; src a; };
void se_abs(const se_abs_args&);

// se.not: out = ~a (bitwise; logical not on i1).
struct se_not_args { tile out; src a; };
void se_not(const se_not_args&);

// se.exp: out = e^a (lookup table with interpolation, f32 accurate).
struct se_exp_args { tile out; src a; };
void se_exp(const se_exp_args&);

// se.exp2: out = 2^a.
struct se_exp2_args { tile out; src a; };
void se_exp2(const se_exp2_args&);

// se.log: out = ln(a) (nan for a < 0, -inf at 0).
struct se_log_args { tile out; src a; };
void se_log(const se_log_args&);

// se.log2: out = log2(a).
struct se_log2_args { tile out; src a; };
void se_log2(const se_log2_args&);

// se.sqrt: out = sqrt(a).
struct se_sqrt_args { tile out; src a; };
void se_sqrt(const se_sqrt_args&);

// se.rsqrt: out = 1 / sqrt(a).
struct se_rsqrt_args { tile out; src a; };
void se_rsqrt(const se_rsqrt_args&);

// se.recip: out = 1 / a.
struct se_recip_args { tile out; src a; };
void se_recip(const se_recip_args&);

// se.sigmoid: out = 1 / (1 + e^-a).
struct se_sigmoid_args { tile out; src a; };
void se_sigmoid(const se_sigmoid_args&);

// se.tanh: out = tanh(a).
struct se_tanh_args { tile out; src a; };
void se_tanh(const se_tanh_args&);

// se.erf: out = erf(a).
struct se_erf_args { tile out; src a; };
void se_erf(const se_erf_args&);

// se.sin: out = sin(a).
struct se_sin_args { tile out; src a; };
void se_sin(const se_sin_args&);

// se.cos: out = cos(a).
struct se_cos_args { tile out; src a; };
void se_cos(const se_cos_args&);

// se.floor: out = floor(a).
struct se_floor_args { tile out; src a; };
void se_floor(const se_floor_args&);

// se.ceil: out = ceil(a).
struct se_ceil_args { tile out; src a; };
void se_ceil(const se_ceil_args&);

// se.rint: out = a rounded to the nearest integer, ties to even.
struct se_rint_args { tile out; src a; };
void se_rint(const se_rint_args&);

// se.isnan: out = a is nan (i1).
struct se_isnan_args { tile out; src a; };
void se_isnan(const se_isnan_args&);

// se.isinf: out = a is +inf or -inf (i1).
struct se_isinf_args { tile out; src a; };
void se_isinf(const se_isinf_args&);

// se.add: out = a + b.
struct se_add_args { tile out; src a; src b; };
void se_add(const se_add_args&);

// se.sub: out = a - b.
struct se_sub_args { tile out; src a; src b; };
void se_sub(const se_sub_args&);

// se.mul: out = a * b.
struct se_mul_args { tile out; src a; src b; };
void se_mul(const se_mul_args&);

// se.div: out = a / b: IEEE division for floats; for integers truncation toward zero (C), and x / 0 = 0 (undefined in Triton; the sanitizer reports it).
struct se_div_args { tile out; src a; src b; };
void se_div(const se_div_args&);

// se.rem: out = a % b with the sign of a (C fmod for floats, C remainder for integers); x % 0 = 0 for integers.
struct se_rem_args { tile out; src a; src b; };
void se_rem(const se_rem_args&);

// se.max: out = max(a, b); a nan operand yields the other (IEEE maxNum).
struct se_max_args { tile out; src a; src b; };
void se_max(const se_max_args&);

// se.min: out = min(a, b); a nan operand yields the other (IEEE minNum).
struct se_min_args { tile out; src a; src b; };
void se_min(const se_min_args&);

// se.maxnan: out = max(a, b), nan if either is nan (propagate_nan=ALL).
struct se_maxnan_args { tile out; src a; src b; };
void se_maxnan(const se_maxnan_args&);

// se.minnan: out = min(a, b), nan if either is nan (propagate_nan=ALL).
struct se_minnan_args { tile out; src a; src b; };
void se_minnan(const se_minnan_args&);

// se.pow: out = a ** b (floats).
struct se_pow_args { tile out; src a; src b; };
void se_pow(const se_pow_args&);

// se.atan2: out = atan2(a, b).
struct se_atan2_args { tile out; src a; src b; };
void se_atan2(const se_atan2_args&);

// se.and: out = a & b (integers and i1).
struct se_and_args { tile out; src a; src b; };
void se_and(const se_and_args&);

// se.or: out = a | b.
struct se_or_args { tile out; src a; src b; };
void se_or(const se_or_args&);

// se.xor: out = a ^ b.
struct se_xor_args { tile out; src a; src b; };
void se_xor(const se_xor_args&);

// se.shl: out = a << b (bits shifted out are lost; shifts >= the width give 0).
struct se_shl_args { tile out; src a; src b; };
void se_shl(const se_shl_args&);

// se.shr: out = a >> b: arithmetic for signed dtypes, logical for unsigned.
struct se_shr_args { tile out; src a; src b; };
void se_shr(const se_shr_args&);

// se.umulhi: out = the high half of the double-width product a * b (32-bit or 64-bit integers).
struct se_umulhi_args { tile out; src a; src b; };
void se_umulhi(const se_umulhi_args&);

// se.eq: out = a == b (i1).
struct se_eq_args { tile out; src a; src b; };
void se_eq(const se_eq_args&);

// se.ne: out = a != b (i1; true when either is nan).
struct se_ne_args { tile out; src a; src b; };
void se_ne(const se_ne_args&);

// se.lt: out = a < b (i1).
struct se_lt_args { tile out; src a; src b; };
void se_lt(const se_lt_args&);

// se.le: out = a <= b (i1).
struct se_le_args { tile out; src a; src b; };
void se_le(const se_le_args&);

// se.gt: out = a > b (i1).
struct se_gt_args { tile out; src a; src b; };
void se_gt(const se_gt_args&);

// se.ge: out = a >= b (i1).
struct se_ge_args { tile out; src a; src b; };
void se_ge(const se_ge_args&);

// se.select: out = a where cond else b (tl.where).
struct se_select_args { tile out; src cond; src a; src b; };
void se_select(const se_select_args&);

// se.select_box: out[i] = a[i] where i_k < valid[k] along every dimension k, else b[i]: tl.where under a mask that keeps the first valid[k] indices of each dimension (`offs < n`), with no mask tile. A count below 0 keeps nothing of its dimension, one past the dimension's size all of it.
struct se_select_box_args { tile out; src a; src b; xlist valid; };
void se_select_box(const se_select_box_args&);

// se.fma: out = a * b + c, rounded once.
struct se_fma_args { tile out; src a; src b; src c; };
void se_fma(const se_fma_args&);

// dbg.print: tl.device_print of one operand, printed on the host: a line for each element of value (a tile, in row-major order) or one for a scalar (a register or an immediate), of `dtype`, as `print_lines` writes them: `pid (x, y, z) idx (i, ...)<prefix>(operand k) <value>`, with `(operand k) ` only when the print has more than one (`operands`), values in hexadecimal when `hex`. With value none (operands=0) one line, `pid (x, y, z)<prefix>`. A command of the SE, so that a program's prints come in its program order, each once the values it prints are computed.
struct dbg_print_args { const char* prefix; src value; const char* dtype; int64_t operand = 0; int64_t operands = 1; int64_t hex = 0; };
void dbg_print(const dbg_print_args&);

}  // namespace mtia
