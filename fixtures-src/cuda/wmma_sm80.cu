// fixture: min_sm=80
// WMMA with bf16, tf32, int8, int4/b1 (experimental) and f64 fragments (sm_80+).
#include <mma.h>
#include <cuda_bf16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.f);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_tf32(const float* A, const float* B, float* C) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> c;
    wmma::fill_fragment(c, 0.f);
    for (int k = 0; k < 32; k += 8) {
        wmma::load_matrix_sync(a, A + k, 32);
        wmma::load_matrix_sync(b, B + k * 16, 16);
        for (int i = 0; i < a.num_elements; ++i) a.x[i] = wmma::__float_to_tf32(a.x[i]);
        for (int i = 0; i < b.num_elements; ++i) b.x[i] = wmma::__float_to_tf32(b.x[i]);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_int8(const signed char* A, const signed char* B, int* C) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> c;
    wmma::fill_fragment(c, 0);
    wmma::load_matrix_sync(a, A, 16);
    wmma::load_matrix_sync(b, B, 16);
    wmma::mma_sync(c, a, b, c, true);
    wmma::store_matrix_sync(C, c, 16, wmma::mem_col_major);
}

extern "C" __global__ void wmma_f64(const double* A, const double* B, double* C) {
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> c;
    wmma::load_matrix_sync(c, C, 8, wmma::mem_row_major);
    wmma::load_matrix_sync(a, A, 4);
    wmma::load_matrix_sync(b, B, 8);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(C, c, 8, wmma::mem_row_major);
}

extern "C" __global__ void wmma_u4_b1(const void* A4, const void* B4, int* C4, const void* A1, const void* B1, int* C1) {
    using namespace wmma::experimental;
    wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::u4, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::u4, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> c;
    wmma::fill_fragment(c, 0);
    wmma::load_matrix_sync(a, A4, 32);
    wmma::load_matrix_sync(b, B4, 32);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(C4, c, 8, wmma::mem_row_major);
    wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> a1;
    wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> b1;
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> c1;
    wmma::fill_fragment(c1, 0);
    wmma::load_matrix_sync(a1, A1, 128);
    wmma::load_matrix_sync(b1, B1, 128);
    wmma::bmma_sync(c1, a1, b1, c1, bmmaBitOpAND);
    wmma::store_matrix_sync(C1, c1, 8, wmma::mem_row_major);
}
