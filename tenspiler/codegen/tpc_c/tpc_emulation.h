/* tpc_emulation.h -- a plain GNU C11 emulation of the Intel Gaudi TPC-C intrinsics that
 * tenspiler's `tpc_c` backend emits (tenspiler/codegen/tpc_c/), so that a generated kernel can
 * be compiled with the system C compiler and run on the host:
 *
 *     cc -O2 -std=gnu11 -fwrapv -ffp-contract=off -shared -fPIC \
 *        -DTENSPILER_KERNEL=0 -Dmain=tenspiler_kernel_main harness.c -lm
 *
 * where harness.c defines TPC_EMULATION_HARNESS, includes this header, then the kernel file,
 * then calls tenspiler_kernel_main once per index-space member (tenspiler/codegen/tpc_c/
 * emulation.py generates and drives it).
 *
 * This is NOT the Habana SDK: it implements exactly the intrinsics, types and switches
 * tenspiler emits, on plain C arrays. Their names, argument orders, types and switch values
 * were checked against the public TPC toolchain (HabanaAI/tpc_llvm: clang/lib/Headers/
 * tpc-intrinsics.h, tpc-defs.h, tpc-special.h, clang/include/clang/Basic/BuiltinsTPC.def); the
 * table, with what is and is not confirmed, is tenspiler/codegen/tpc_c/INTRINSICS.md. The
 * real intrinsics take trailing (switches, income, predicate, polarity) arguments with
 * defaults (switches=0, predicate=1, polarity=0); tenspiler passes at most the switches, and
 * this emulation accepts exactly the forms tenspiler emits.
 *
 *   float64  = 64 float lanes        int64 = 64 int32 lanes       uint64 = 64 uint32 lanes
 *   int128 / uint128 = {v1, v2} pairs of int64 / uint64 (tpc-defs.h); for v_i32_mul_b's
 *                      result: v1 = low 32 bits, v2 = high 32 bits of each 64-bit product
 *   int5     = 5 int coordinates (a GCC vector of 8 ints, so that `a + b`, `c[0] = d` and
 *              `{0, 0, 0, 0, 0}` work as in TPC-C, where int5 is ext_vector_type(5))
 *   tensor   = an index into a table of 1-D tensor descriptors {data, size, dtype} that the
 *              harness fills (tpc_emu_bind); the kernel sees only coordinates (tpc-defs.h:
 *              `typedef int tensor;`).
 *
 * Tensor access follows the TPC rules the kernels rely on: a load element whose coordinate is
 * outside [0, size) reads the pad value 0; a store element outside [0, size) is dropped.
 * A 32-bit access moves 64 elements (c[0] ... c[0] + 63). An access to an 8-bit tensor moves
 * one 2048-bit vector = 256 elements (c[0] ... c[0] + 255), permuted as tpc_llvm's
 * TPCEliminateRedundantLinearity.cpp (getSwizzleSourceIx) models the switches:
 *   v_i32_ld_tnsr_b(c, t, SW_UNPACK | SW_UNPCK_8_TO_32): byte k of lane L = t[c[0] + 64 k + L]
 *   v_i32_st_tnsr(c, t, v, SW_PACK | SW_PCK_32_TO_8):     t[c[0] + 64 k + L] = byte k of v[L]
 * (k = 0..3, L = 0..63; byte k = bits 8k..8k+7, TPC being little-endian: tpc_llvm
 * llvm/include/llvm/Target/TargetInfoTPC.h). So lane L's low byte holds element c[0] + L, but
 * the other three bytes hold elements 64, 128, 192 further -- not zeros -- and a packing store
 * writes all 256 elements.
 *
 * Scalar operands: TPC-C converts a scalar argument to a vector parameter implicitly (a
 * broadcast, e.g. `v_f32_mul_b(x, 2.0f)`, `v_f32_sub_b(1, input, ...)` in tpc-special.h); here
 * the operands of every intrinsic go through TPC_EMU_F/I/U, which keep a vector of the right
 * type and broadcast a scalar (a vector of another element type is a compile error, as in
 * TPC-C).
 *
 * Integer arithmetic wraps modulo 2^32 (TPC ADD/SUB/MUL without SW_SAT); float arithmetic is
 * IEEE binary32 with round-to-nearest-even and no contraction (compile with
 * -ffp-contract=off). exp/sqrt/log/tanh use the C library (the SDK's v_exp_f32 ... in
 * tpc-special.h are polynomial / lookup-table approximations; tenspiler's proofs treat these
 * functions as uninterpreted).
 *
 * Misuse (a dtype that does not match the tensor, an unknown switch) does not crash: it
 * records a message that tpc_emu_error_message() returns and the harness reports.
 */
#ifndef TENSPILER_TPC_EMULATION_H
#define TENSPILER_TPC_EMULATION_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TPC_EMU_LANES 64
#define TPC_EMU_MAX_TENSORS 16

typedef float float64 __attribute__((vector_size(256)));
typedef int32_t int64 __attribute__((vector_size(256)));
typedef uint32_t uint64 __attribute__((vector_size(256)));
typedef int int5 __attribute__((vector_size(32)));
typedef struct { int64 v1; int64 v2; } int128;
typedef struct { uint64 v1; uint64 v2; } uint128;
typedef int tensor;

/* ---------------------------------------------------------------- switches */
/* The values of tpc-defs.h (HabanaAI/tpc_llvm clang/lib/Headers/tpc-defs.h). */
enum {
    SW_RHNE = 0x0 << (0 + 16),    /* CONVERT: round half to nearest even */
    SW_RZ = 0x1 << (0 + 16),      /* CONVERT: round toward zero */
    SW_UNPCK_8_TO_32 = 0x2 << 1,  /* LD_TNSR UNPACK_DT */
    SW_UNPACK = 0x1 << 4,         /* LD_TNSR: unpack according to UNPACK_DT */
    SW_PACK = 0x1 << 2,           /* ST_TNSR: pack according to PACK_DT */
    SW_PCK_32_TO_8 = 0x2 << 4     /* ST_TNSR PACK_DT */
};

/* ---------------------------------------------------------------- state */
enum { TPC_EMU_F32 = 1, TPC_EMU_I32 = 2, TPC_EMU_U8 = 3 };

typedef struct {
    void *data;
    int size;  /* elements */
    int dtype; /* TPC_EMU_F32 / TPC_EMU_I32 / TPC_EMU_U8; 0: unbound */
} tpc_emu_tensor_t;

static tpc_emu_tensor_t tpc_emu_tensors[TPC_EMU_MAX_TENSORS];
static int5 tpc_emu_offset;
static int5 tpc_emu_size;
static char tpc_emu_error[256];

static void tpc_emu_fail(const char *what, const char *why) {
    if (!tpc_emu_error[0]) snprintf(tpc_emu_error, sizeof tpc_emu_error, "%s: %s", what, why);
}

static inline const char *tpc_emu_error_message(void) { return tpc_emu_error; }

static inline void tpc_emu_reset(void) {
    memset(tpc_emu_tensors, 0, sizeof tpc_emu_tensors);
    tpc_emu_error[0] = 0;
}

static inline int tpc_emu_bind(int t, void *data, int size, int dtype) {
    if (t < 0 || t >= TPC_EMU_MAX_TENSORS) { tpc_emu_fail("tpc_emu_bind", "tensor index out of range"); return -1; }
    tpc_emu_tensors[t].data = data;
    tpc_emu_tensors[t].size = size;
    tpc_emu_tensors[t].dtype = dtype;
    return 0;
}

/* The index-space slice of the member about to run: dim 0 only (the kernels are 1-D). */
static inline void tpc_emu_member(int offset0, int size0) {
    int5 o = {offset0, 0, 0, 0, 0};
    int5 s = {size0, 1, 1, 1, 1};
    tpc_emu_offset = o;
    tpc_emu_size = s;
}

static inline int5 get_index_space_offset(void) { return tpc_emu_offset; }
static inline int5 get_index_space_size(void) { return tpc_emu_size; }

static inline tpc_emu_tensor_t *tpc_emu_get(tensor t, int dtype, const char *what) {
    if (t < 0 || t >= TPC_EMU_MAX_TENSORS || !tpc_emu_tensors[t].dtype) {
        tpc_emu_fail(what, "unbound tensor");
        return NULL;
    }
    if (tpc_emu_tensors[t].dtype != dtype) {
        tpc_emu_fail(what, "element type does not match the tensor's");
        return NULL;
    }
    return &tpc_emu_tensors[t];
}

/* ---------------------------------------------------------------- argument helpers */
#define TPC_EMU_NARGS(...) TPC_EMU_NARGS_(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TPC_EMU_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define TPC_EMU_CAT(a, b) TPC_EMU_CAT_(a, b)
#define TPC_EMU_CAT_(a, b) a##b
/* f(args) -> f_<number of args>(args): intrinsics with defaulted trailing arguments */
#define TPC_EMU_ARITY(f, ...) TPC_EMU_CAT(f, TPC_EMU_NARGS(__VA_ARGS__))(__VA_ARGS__)

static inline float64 tpc_emu_keep_f(float64 v) { return v; }
static inline int64 tpc_emu_keep_i(int64 v) { return v; }
static inline uint64 tpc_emu_keep_u(uint64 v) { return v; }
static inline float64 tpc_emu_splat_f(float s) { float64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = s; return r; }
static inline int64 tpc_emu_splat_i(int32_t s) { int64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = s; return r; }
static inline uint64 tpc_emu_splat_u(uint32_t s) { uint64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = s; return r; }
/* a vector operand as it is, or a scalar broadcast to all lanes */
#define TPC_EMU_F(x) _Generic((x), float64: tpc_emu_keep_f, default: tpc_emu_splat_f)(x)
#define TPC_EMU_I(x) _Generic((x), int64: tpc_emu_keep_i, default: tpc_emu_splat_i)(x)
#define TPC_EMU_U(x) _Generic((x), uint64: tpc_emu_keep_u, default: tpc_emu_splat_u)(x)

/* ---------------------------------------------------------------- LD_TNSR / ST_TNSR */
static inline float64 tpc_emu_f32_ld(int5 c, tensor t) {
    float64 r = {0};
    tpc_emu_tensor_t *d = tpc_emu_get(t, TPC_EMU_F32, "v_f32_ld_tnsr_b");
    if (!d) return r;
    for (int i = 0; i < TPC_EMU_LANES; i++) {
        long k = (long)c[0] + i;
        if (k >= 0 && k < d->size) r[i] = ((const float *)d->data)[k];
    }
    return r;
}

static inline int64 tpc_emu_i32_ld_3(int5 c, tensor t, int sw) {
    int64 r = {0};
    if (sw == (SW_UNPACK | SW_UNPCK_8_TO_32)) {
        /* 256 elements of an 8-bit tensor: byte k of lane L = t[c[0] + 64 k + L] */
        tpc_emu_tensor_t *d = tpc_emu_get(t, TPC_EMU_U8, "v_i32_ld_tnsr_b (SW_UNPACK | SW_UNPCK_8_TO_32)");
        if (!d) return r;
        for (int i = 0; i < TPC_EMU_LANES; i++) {
            uint32_t lane = 0;
            for (int k = 0; k < 4; k++) {
                long e = (long)c[0] + 64L * k + i;
                if (e >= 0 && e < d->size) lane |= (uint32_t)((const uint8_t *)d->data)[e] << (8 * k);
            }
            r[i] = (int32_t)lane;
        }
        return r;
    }
    if (sw != 0) { tpc_emu_fail("v_i32_ld_tnsr_b", "unsupported switches"); return r; }
    tpc_emu_tensor_t *d = tpc_emu_get(t, TPC_EMU_I32, "v_i32_ld_tnsr_b");
    if (!d) return r;
    for (int i = 0; i < TPC_EMU_LANES; i++) {
        long k = (long)c[0] + i;
        if (k >= 0 && k < d->size) r[i] = ((const int32_t *)d->data)[k];
    }
    return r;
}
static inline int64 tpc_emu_i32_ld_2(int5 c, tensor t) { return tpc_emu_i32_ld_3(c, t, 0); }

static inline void tpc_emu_f32_st(int5 c, tensor t, float64 v) {
    tpc_emu_tensor_t *d = tpc_emu_get(t, TPC_EMU_F32, "v_f32_st_tnsr");
    if (!d) return;
    for (int i = 0; i < TPC_EMU_LANES; i++) {
        long k = (long)c[0] + i;
        if (k >= 0 && k < d->size) ((float *)d->data)[k] = v[i];
    }
}

static inline void tpc_emu_i32_st_4(int5 c, tensor t, int64 v, int sw) {
    if (sw == (SW_PACK | SW_PCK_32_TO_8)) {
        /* 256 elements of an 8-bit tensor: t[c[0] + 64 k + L] = byte k of lane L */
        tpc_emu_tensor_t *d = tpc_emu_get(t, TPC_EMU_U8, "v_i32_st_tnsr (SW_PACK | SW_PCK_32_TO_8)");
        if (!d) return;
        for (int i = 0; i < TPC_EMU_LANES; i++)
            for (int k = 0; k < 4; k++) {
                long e = (long)c[0] + 64L * k + i;
                if (e >= 0 && e < d->size) ((uint8_t *)d->data)[e] = (uint8_t)((uint32_t)v[i] >> (8 * k));
            }
        return;
    }
    if (sw != 0) { tpc_emu_fail("v_i32_st_tnsr", "unsupported switches"); return; }
    tpc_emu_tensor_t *d = tpc_emu_get(t, TPC_EMU_I32, "v_i32_st_tnsr");
    if (!d) return;
    for (int i = 0; i < TPC_EMU_LANES; i++) {
        long k = (long)c[0] + i;
        if (k >= 0 && k < d->size) ((int32_t *)d->data)[k] = v[i];
    }
}
static inline void tpc_emu_i32_st_3(int5 c, tensor t, int64 v) { tpc_emu_i32_st_4(c, t, v, 0); }

#define v_f32_ld_tnsr_b(c, t) tpc_emu_f32_ld((c), (t))
#define v_i32_ld_tnsr_b(...) TPC_EMU_ARITY(tpc_emu_i32_ld_, __VA_ARGS__)
#define v_f32_st_tnsr(c, t, v) tpc_emu_f32_st((c), (t), TPC_EMU_F(v))
#define v_i32_st_tnsr(...) TPC_EMU_ARITY(tpc_emu_i32_st_, __VA_ARGS__)

/* ---------------------------------------------------------------- MOV, lane ids */
#define v_f32_mov_b(x) TPC_EMU_F(x)
#define v_i32_mov_b(x) TPC_EMU_I(x)
#define v_u32_mov_b(x) TPC_EMU_U(x)

static inline uint64 read_lane_id_4b_b(void) {
    uint64 r;
    for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = (uint32_t)i;
    return r;
}

#define as_int64(x) ((int64)(x))
#define as_uint64(x) ((uint64)(x))

/* ---------------------------------------------------------------- ADD, SUB, MUL */
static inline float64 tpc_emu_f32_add(float64 a, float64 b) { return a + b; }
static inline int64 tpc_emu_i32_add(int64 a, int64 b) { return (int64)((uint64)a + (uint64)b); }
static inline uint64 tpc_emu_u32_add(uint64 a, uint64 b) { return a + b; }

static inline float64 tpc_emu_f32_sub(float64 a, float64 b) { return a - b; }
static inline int64 tpc_emu_i32_sub(int64 a, int64 b) { return (int64)((uint64)a - (uint64)b); }
static inline uint64 tpc_emu_u32_sub(uint64 a, uint64 b) { return a - b; }

static inline float64 tpc_emu_f32_mul(float64 a, float64 b) { return a * b; }
static inline int128 tpc_emu_i32_mul(int64 a, int64 b) {
    int128 r;
    for (int i = 0; i < TPC_EMU_LANES; i++) {
        int64_t p = (int64_t)a[i] * (int64_t)b[i];
        r.v1[i] = (int32_t)(uint32_t)((uint64_t)p & 0xffffffffu);
        r.v2[i] = (int32_t)(p >> 32);
    }
    return r;
}

#define v_f32_add_b(a, b) tpc_emu_f32_add(TPC_EMU_F(a), TPC_EMU_F(b))
#define v_i32_add_b(a, b) tpc_emu_i32_add(TPC_EMU_I(a), TPC_EMU_I(b))
#define v_u32_add_b(a, b) tpc_emu_u32_add(TPC_EMU_U(a), TPC_EMU_U(b))
#define v_f32_sub_b(a, b) tpc_emu_f32_sub(TPC_EMU_F(a), TPC_EMU_F(b))
#define v_i32_sub_b(a, b) tpc_emu_i32_sub(TPC_EMU_I(a), TPC_EMU_I(b))
#define v_u32_sub_b(a, b) tpc_emu_u32_sub(TPC_EMU_U(a), TPC_EMU_U(b))
#define v_f32_mul_b(a, b) tpc_emu_f32_mul(TPC_EMU_F(a), TPC_EMU_F(b))
#define v_i32_mul_b(a, b) tpc_emu_i32_mul(TPC_EMU_I(a), TPC_EMU_I(b))

/* ---------------------------------------------------------------- MAX, MIN, ABS */
static inline float64 tpc_emu_f32_max(float64 a, float64 b) { float64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = a[i] > b[i] ? a[i] : b[i]; return r; }
static inline int64 tpc_emu_i32_max(int64 a, int64 b) { int64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = a[i] > b[i] ? a[i] : b[i]; return r; }
static inline float64 tpc_emu_f32_min(float64 a, float64 b) { float64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = a[i] < b[i] ? a[i] : b[i]; return r; }
static inline int64 tpc_emu_i32_min(int64 a, int64 b) { int64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = a[i] < b[i] ? a[i] : b[i]; return r; }
static inline float64 tpc_emu_f32_abs(float64 a) { float64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = fabsf(a[i]); return r; }
/* ABS saturates |INT32_MIN| to INT32_MAX (the default, without SW_NO_SAT) */
static inline int64 tpc_emu_i32_abs(int64 a) { int64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = a[i] == INT32_MIN ? INT32_MAX : (a[i] < 0 ? -a[i] : a[i]); return r; }
#define v_f32_max_b(a, b) tpc_emu_f32_max(TPC_EMU_F(a), TPC_EMU_F(b))
#define v_i32_max_b(a, b) tpc_emu_i32_max(TPC_EMU_I(a), TPC_EMU_I(b))
#define v_f32_min_b(a, b) tpc_emu_f32_min(TPC_EMU_F(a), TPC_EMU_F(b))
#define v_i32_min_b(a, b) tpc_emu_i32_min(TPC_EMU_I(a), TPC_EMU_I(b))
#define v_f32_abs_b(a) tpc_emu_f32_abs(TPC_EMU_F(a))
#define v_i32_abs_b(a) tpc_emu_i32_abs(TPC_EMU_I(a))

/* ---------------------------------------------------------------- AND, OR, XOR, SHL, SHR */
/* The shift amount (SRC2, an int64 in tpc-intrinsics.h) is a scalar in [0, 31] wherever
 * tenspiler shifts; other amounts are reported (their TPC semantics are not documented in the
 * public headers). Whether v_i32_shr_b shifts arithmetically is not documented either: it is
 * emulated as an arithmetic shift, and tenspiler only uses it where the result is masked to
 * the low 8 bits (`(x >> 8 q) & 255`, q <= 3), which is the same for both kinds of shift. */
static inline int64 tpc_emu_i32_and(int64 a, int64 b) { return a & b; }
static inline int64 tpc_emu_i32_or(int64 a, int64 b) { return a | b; }
static inline int64 tpc_emu_i32_xor(int64 a, int64 b) { return a ^ b; }
static inline uint64 tpc_emu_u32_or(uint64 a, uint64 b) { return a | b; }
static inline int tpc_emu_shift_ok(int k, const char *what) {
    if (k < 0 || k > 31) { tpc_emu_fail(what, "shift amount outside [0, 31]"); return 0; }
    return 1;
}
static inline uint64 tpc_emu_u32_shl(uint64 a, int k) { return tpc_emu_shift_ok(k, "v_u32_shl_b") ? a << (uint32_t)k : a; }
static inline uint64 tpc_emu_u32_shr(uint64 a, int k) { return tpc_emu_shift_ok(k, "v_u32_shr_b") ? a >> (uint32_t)k : a; }
static inline int64 tpc_emu_i32_shl(int64 a, int k) {
    return tpc_emu_shift_ok(k, "v_i32_shl_b") ? (int64)((uint64)a << (uint32_t)k) : a;
}
static inline int64 tpc_emu_i32_shr(int64 a, int k) { return tpc_emu_shift_ok(k, "v_i32_shr_b") ? a >> k : a; }
#define v_i32_and_b(a, b) tpc_emu_i32_and(TPC_EMU_I(a), TPC_EMU_I(b))
#define v_i32_or_b(a, b) tpc_emu_i32_or(TPC_EMU_I(a), TPC_EMU_I(b))
#define v_i32_xor_b(a, b) tpc_emu_i32_xor(TPC_EMU_I(a), TPC_EMU_I(b))
#define v_u32_or_b(a, b) tpc_emu_u32_or(TPC_EMU_U(a), TPC_EMU_U(b))
#define v_u32_shl_b(a, k) tpc_emu_u32_shl(TPC_EMU_U(a), (k))
#define v_u32_shr_b(a, k) tpc_emu_u32_shr(TPC_EMU_U(a), (k))
#define v_i32_shl_b(a, k) tpc_emu_i32_shl(TPC_EMU_I(a), (k))
#define v_i32_shr_b(a, k) tpc_emu_i32_shr(TPC_EMU_I(a), (k))

/* ---------------------------------------------------------------- CONVERT */
static inline float64 tpc_emu_cvt_i32_f32(int64 a, int sw) {
    float64 r;
    if (sw != SW_RHNE) tpc_emu_fail("v_convert_i32_to_f32_b", "only SW_RHNE is emulated");
    for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = (float)a[i]; /* round to nearest even */
    return r;
}
static inline int64 tpc_emu_cvt_f32_i32(float64 a, int sw) {
    int64 r;
    if (sw != SW_RZ) tpc_emu_fail("v_convert_f32_to_i32_b", "only SW_RZ is emulated");
    for (int i = 0; i < TPC_EMU_LANES; i++) {
        float x = a[i];
        /* truncation toward zero; out of range (undefined in C) saturates, NaN gives 0 */
        r[i] = x != x ? 0 : x >= 2147483648.0f ? INT32_MAX : x <= -2147483648.0f ? INT32_MIN : (int32_t)x;
    }
    return r;
}
static inline int64 tpc_emu_cvt_u32_i32(uint64 a, int sw) {
    if (sw != 0 && sw != SW_RHNE) tpc_emu_fail("v_convert_u32_to_i32_b", "unsupported switches");
    return (int64)a; /* the lane ids 0..63 it is used on are in range */
}
#define v_convert_i32_to_f32_b(...) TPC_EMU_CAT(TPC_EMU_CVT_IF, TPC_EMU_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define TPC_EMU_CVT_IF1(a) tpc_emu_cvt_i32_f32(TPC_EMU_I(a), SW_RHNE)
#define TPC_EMU_CVT_IF2(a, s) tpc_emu_cvt_i32_f32(TPC_EMU_I(a), (s))
#define v_convert_f32_to_i32_b(...) TPC_EMU_CAT(TPC_EMU_CVT_FI, TPC_EMU_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define TPC_EMU_CVT_FI1(a) tpc_emu_cvt_f32_i32(TPC_EMU_F(a), SW_RHNE)
#define TPC_EMU_CVT_FI2(a, s) tpc_emu_cvt_f32_i32(TPC_EMU_F(a), (s))
#define v_convert_u32_to_i32_b(...) TPC_EMU_CAT(TPC_EMU_CVT_UI, TPC_EMU_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define TPC_EMU_CVT_UI1(a) tpc_emu_cvt_u32_i32(TPC_EMU_U(a), 0)
#define TPC_EMU_CVT_UI2(a, s) tpc_emu_cvt_u32_i32(TPC_EMU_U(a), (s))

/* ---------------------------------------------------------------- SEL_<cmp>: r = a <cmp> b ? c : d */
#define TPC_EMU_SEL1(RT, RV, CT, CV, NAME, OP) \
    static inline RV tpc_emu_##RT##_sel_##NAME##_##CT(CV a, CV b, RV c, RV d) { \
        RV r; \
        for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = a[i] OP b[i] ? c[i] : d[i]; \
        return r; \
    }
#define TPC_EMU_SEL_FAMILY(CT, CV, NAME, OP) \
    TPC_EMU_SEL1(f32, float64, CT, CV, NAME, OP) \
    TPC_EMU_SEL1(i32, int64, CT, CV, NAME, OP) \
    TPC_EMU_SEL1(u32, uint64, CT, CV, NAME, OP)
TPC_EMU_SEL_FAMILY(f32, float64, eq, ==)
TPC_EMU_SEL_FAMILY(f32, float64, neq, !=)
TPC_EMU_SEL_FAMILY(f32, float64, less, <)
TPC_EMU_SEL_FAMILY(f32, float64, leq, <=)
TPC_EMU_SEL_FAMILY(f32, float64, grt, >)
TPC_EMU_SEL_FAMILY(f32, float64, geq, >=)
TPC_EMU_SEL_FAMILY(i32, int64, eq, ==)
TPC_EMU_SEL_FAMILY(i32, int64, neq, !=)
TPC_EMU_SEL_FAMILY(i32, int64, less, <)
TPC_EMU_SEL_FAMILY(i32, int64, leq, <=)
TPC_EMU_SEL_FAMILY(i32, int64, grt, >)
TPC_EMU_SEL_FAMILY(i32, int64, geq, >=)
TPC_EMU_SEL_FAMILY(u32, uint64, eq, ==)
TPC_EMU_SEL_FAMILY(u32, uint64, neq, !=)
TPC_EMU_SEL_FAMILY(u32, uint64, less, <)
TPC_EMU_SEL_FAMILY(u32, uint64, leq, <=)
TPC_EMU_SEL_FAMILY(u32, uint64, grt, >)
TPC_EMU_SEL_FAMILY(u32, uint64, geq, >=)

#define v_f32_sel_eq_f32_b(a, b, c, d) tpc_emu_f32_sel_eq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_neq_f32_b(a, b, c, d) tpc_emu_f32_sel_neq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_less_f32_b(a, b, c, d) tpc_emu_f32_sel_less_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_leq_f32_b(a, b, c, d) tpc_emu_f32_sel_leq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_grt_f32_b(a, b, c, d) tpc_emu_f32_sel_grt_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_geq_f32_b(a, b, c, d) tpc_emu_f32_sel_geq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_eq_i32_b(a, b, c, d) tpc_emu_f32_sel_eq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_neq_i32_b(a, b, c, d) tpc_emu_f32_sel_neq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_less_i32_b(a, b, c, d) tpc_emu_f32_sel_less_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_leq_i32_b(a, b, c, d) tpc_emu_f32_sel_leq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_grt_i32_b(a, b, c, d) tpc_emu_f32_sel_grt_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_geq_i32_b(a, b, c, d) tpc_emu_f32_sel_geq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_eq_u32_b(a, b, c, d) tpc_emu_f32_sel_eq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_neq_u32_b(a, b, c, d) tpc_emu_f32_sel_neq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_less_u32_b(a, b, c, d) tpc_emu_f32_sel_less_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_leq_u32_b(a, b, c, d) tpc_emu_f32_sel_leq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_grt_u32_b(a, b, c, d) tpc_emu_f32_sel_grt_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_f32_sel_geq_u32_b(a, b, c, d) tpc_emu_f32_sel_geq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_F(c), TPC_EMU_F(d))
#define v_i32_sel_eq_f32_b(a, b, c, d) tpc_emu_i32_sel_eq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_neq_f32_b(a, b, c, d) tpc_emu_i32_sel_neq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_less_f32_b(a, b, c, d) tpc_emu_i32_sel_less_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_leq_f32_b(a, b, c, d) tpc_emu_i32_sel_leq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_grt_f32_b(a, b, c, d) tpc_emu_i32_sel_grt_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_geq_f32_b(a, b, c, d) tpc_emu_i32_sel_geq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_eq_i32_b(a, b, c, d) tpc_emu_i32_sel_eq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_neq_i32_b(a, b, c, d) tpc_emu_i32_sel_neq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_less_i32_b(a, b, c, d) tpc_emu_i32_sel_less_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_leq_i32_b(a, b, c, d) tpc_emu_i32_sel_leq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_grt_i32_b(a, b, c, d) tpc_emu_i32_sel_grt_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_geq_i32_b(a, b, c, d) tpc_emu_i32_sel_geq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_eq_u32_b(a, b, c, d) tpc_emu_i32_sel_eq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_neq_u32_b(a, b, c, d) tpc_emu_i32_sel_neq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_less_u32_b(a, b, c, d) tpc_emu_i32_sel_less_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_leq_u32_b(a, b, c, d) tpc_emu_i32_sel_leq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_grt_u32_b(a, b, c, d) tpc_emu_i32_sel_grt_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_i32_sel_geq_u32_b(a, b, c, d) tpc_emu_i32_sel_geq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_I(c), TPC_EMU_I(d))
#define v_u32_sel_eq_f32_b(a, b, c, d) tpc_emu_u32_sel_eq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_neq_f32_b(a, b, c, d) tpc_emu_u32_sel_neq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_less_f32_b(a, b, c, d) tpc_emu_u32_sel_less_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_leq_f32_b(a, b, c, d) tpc_emu_u32_sel_leq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_grt_f32_b(a, b, c, d) tpc_emu_u32_sel_grt_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_geq_f32_b(a, b, c, d) tpc_emu_u32_sel_geq_f32(TPC_EMU_F(a), TPC_EMU_F(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_eq_i32_b(a, b, c, d) tpc_emu_u32_sel_eq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_neq_i32_b(a, b, c, d) tpc_emu_u32_sel_neq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_less_i32_b(a, b, c, d) tpc_emu_u32_sel_less_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_leq_i32_b(a, b, c, d) tpc_emu_u32_sel_leq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_grt_i32_b(a, b, c, d) tpc_emu_u32_sel_grt_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_geq_i32_b(a, b, c, d) tpc_emu_u32_sel_geq_i32(TPC_EMU_I(a), TPC_EMU_I(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_eq_u32_b(a, b, c, d) tpc_emu_u32_sel_eq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_neq_u32_b(a, b, c, d) tpc_emu_u32_sel_neq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_less_u32_b(a, b, c, d) tpc_emu_u32_sel_less_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_leq_u32_b(a, b, c, d) tpc_emu_u32_sel_leq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_grt_u32_b(a, b, c, d) tpc_emu_u32_sel_grt_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_U(c), TPC_EMU_U(d))
#define v_u32_sel_geq_u32_b(a, b, c, d) tpc_emu_u32_sel_geq_u32(TPC_EMU_U(a), TPC_EMU_U(b), TPC_EMU_U(c), TPC_EMU_U(d))

/* ---------------------------------------------------------------- special functions (tpc-special.h) */
static inline float64 tpc_emu_exp(float64 a) { float64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = expf(a[i]); return r; }
static inline float64 tpc_emu_sqrt(float64 a) { float64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = sqrtf(a[i]); return r; }
static inline float64 tpc_emu_log(float64 a) { float64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = logf(a[i]); return r; }
static inline float64 tpc_emu_tanh(float64 a) { float64 r; for (int i = 0; i < TPC_EMU_LANES; i++) r[i] = tanhf(a[i]); return r; }
#define v_exp_f32(a) tpc_emu_exp(TPC_EMU_F(a))
#define v_sqrt_f32(a) tpc_emu_sqrt(TPC_EMU_F(a))
#define v_log_f32(a) tpc_emu_log(TPC_EMU_F(a))
#define v_tanh_f32(a) tpc_emu_tanh(TPC_EMU_F(a))

#endif /* TENSPILER_TPC_EMULATION_H */
