// Minimal CUDA device-side declarations for compiling with
//   clang-19 -x cuda --cuda-device-only -nocudainc -nocudalib
// (no CUDA SDK headers and no libdevice: only clang builtins and inline PTX).
#pragma once
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#include <__clang_cuda_builtin_vars.h>

typedef unsigned long long u64;
typedef long long i64;
typedef __SIZE_TYPE__ size_t;

extern "C" __device__ int printf(const char*, ...);
extern "C" __device__ void* malloc(size_t);
extern "C" __device__ void free(void*);

static __device__ __forceinline__ int atomicAdd(int* p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicAdd(unsigned* p, unsigned v) { return (unsigned)__nvvm_atom_add_gen_i((int*)p, (int)v); }
static __device__ __forceinline__ float atomicAdd(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }
static __device__ __forceinline__ double atomicAdd(double* p, double v) { return __nvvm_atom_add_gen_d(p, v); }
static __device__ __forceinline__ u64 atomicAdd(u64* p, u64 v) { return (u64)__nvvm_atom_add_gen_ll((long long*)p, (long long)v); }
static __device__ __forceinline__ int atomicCAS(int* p, int c, int v) { return __nvvm_atom_cas_gen_i(p, c, v); }
static __device__ __forceinline__ u64 atomicCAS(u64* p, u64 c, u64 v) { return (u64)__nvvm_atom_cas_gen_ll((long long*)p, (long long)c, (long long)v); }
static __device__ __forceinline__ int atomicExch(int* p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
static __device__ __forceinline__ int atomicMax(int* p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ int atomicMin(int* p, int v) { return __nvvm_atom_min_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicMax(unsigned* p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
static __device__ __forceinline__ int atomicAnd(int* p, int v) { return __nvvm_atom_and_gen_i(p, v); }
static __device__ __forceinline__ int atomicOr(int* p, int v) { return __nvvm_atom_or_gen_i(p, v); }
static __device__ __forceinline__ int atomicXor(int* p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicInc(unsigned* p, unsigned v) { return __nvvm_atom_inc_gen_ui(p, v); }
static __device__ __forceinline__ unsigned atomicDec(unsigned* p, unsigned v) { return __nvvm_atom_dec_gen_ui(p, v); }
static __device__ __forceinline__ int atomicAdd_block(int* p, int v) { return __nvvm_atom_cta_add_gen_i(p, v); }
static __device__ __forceinline__ int atomicAdd_system(int* p, int v) { return __nvvm_atom_sys_add_gen_i(p, v); }

static __device__ __forceinline__ void __syncwarp(unsigned m = 0xffffffffu) { __nvvm_bar_warp_sync(m); }
static __device__ __forceinline__ void __threadfence() { __nvvm_membar_gl(); }
static __device__ __forceinline__ void __threadfence_block() { __nvvm_membar_cta(); }
static __device__ __forceinline__ void __threadfence_system() { __nvvm_membar_sys(); }

static __device__ __forceinline__ int __shfl_sync(unsigned m, int v, int l, int w = 32) { return __nvvm_shfl_sync_idx_i32(m, v, l, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ float __shfl_sync(unsigned m, float v, int l, int w = 32) { return __nvvm_shfl_sync_idx_f32(m, v, l, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ int __shfl_up_sync(unsigned m, int v, unsigned d, int w = 32) { return __nvvm_shfl_sync_up_i32(m, v, d, (32 - w) << 8); }
static __device__ __forceinline__ float __shfl_up_sync(unsigned m, float v, unsigned d, int w = 32) { return __nvvm_shfl_sync_up_f32(m, v, d, (32 - w) << 8); }
static __device__ __forceinline__ int __shfl_down_sync(unsigned m, int v, unsigned d, int w = 32) { return __nvvm_shfl_sync_down_i32(m, v, d, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ float __shfl_down_sync(unsigned m, float v, unsigned d, int w = 32) { return __nvvm_shfl_sync_down_f32(m, v, d, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ int __shfl_xor_sync(unsigned m, int v, int x, int w = 32) { return __nvvm_shfl_sync_bfly_i32(m, v, x, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ float __shfl_xor_sync(unsigned m, float v, int x, int w = 32) { return __nvvm_shfl_sync_bfly_f32(m, v, x, ((32 - w) << 8) | 0x1f); }
static __device__ __forceinline__ double __shfl_xor_sync(unsigned m, double v, int x) {
    long long b = __builtin_bit_cast(long long, v);
    int lo = __nvvm_shfl_sync_bfly_i32(m, (int)b, x, 0x1f), hi = __nvvm_shfl_sync_bfly_i32(m, (int)(b >> 32), x, 0x1f);
    return __builtin_bit_cast(double, ((long long)hi << 32) | (unsigned)lo);
}
static __device__ __forceinline__ unsigned __ballot_sync(unsigned m, int p) { return __nvvm_vote_ballot_sync(m, p); }
static __device__ __forceinline__ int __all_sync(unsigned m, int p) { return __nvvm_vote_all_sync(m, p); }
static __device__ __forceinline__ int __any_sync(unsigned m, int p) { return __nvvm_vote_any_sync(m, p); }
static __device__ __forceinline__ int __uni_sync(unsigned m, int p) { return __nvvm_vote_uni_sync(m, p); }
static __device__ __forceinline__ unsigned __activemask() { unsigned r; asm volatile("activemask.b32 %0;" : "=r"(r)); return r; }
static __device__ __forceinline__ unsigned __match_any_sync(unsigned m, int v) { return __nvvm_match_any_sync_i32(m, v); }
static __device__ __forceinline__ int __popc(unsigned v) { return __builtin_popcount(v); }
static __device__ __forceinline__ int __clz(unsigned v) { return v ? __builtin_clz(v) : 32; }
static __device__ __forceinline__ int __ffs(unsigned v) { return __builtin_ffs((int)v); }
static __device__ __forceinline__ long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }

static __device__ __forceinline__ float sqrtf(float x) { return __builtin_sqrtf(x); }
static __device__ __forceinline__ double sqrt(double x) { return __builtin_sqrt(x); }
static __device__ __forceinline__ float fabsf(float x) { return __builtin_fabsf(x); }
static __device__ __forceinline__ double fabs(double x) { return __builtin_fabs(x); }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static __device__ __forceinline__ double fma(double a, double b, double c) { return __builtin_fma(a, b, c); }
static __device__ __forceinline__ float fminf(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
static __device__ __forceinline__ float floorf(float x) { return __builtin_floorf(x); }
static __device__ __forceinline__ float __expf(float x) { return __nvvm_ex2_approx_f(x * 1.4426950408889634f); }
static __device__ __forceinline__ float __logf(float x) { return __nvvm_lg2_approx_f(x) * 0.6931471805599453f; }
static __device__ __forceinline__ float __sinf(float x) { return __nvvm_sin_approx_f(x); }
static __device__ __forceinline__ float __cosf(float x) { return __nvvm_cos_approx_f(x); }
static __device__ __forceinline__ float rsqrtf(float x) { return __nvvm_rsqrt_approx_f(x); }
static __device__ __forceinline__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
static __device__ __forceinline__ unsigned smem_u32(const void* p) { unsigned r; asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(r) : "l"(p)); return r; }
