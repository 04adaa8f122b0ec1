/* drv_sass_only: a fatbin holding only sm_90 SASS (an ELF cubin, no PTX) cannot run on a
 * compute-8.0 device: cuModuleLoadData and cuModuleLoadFatBinary must fail with
 * CUDA_ERROR_NO_BINARY_FOR_GPU. The context stays usable: a PTX module loads and runs. */
#include "drv_check.h"
#include "kernels_fatbin_sm90.h"
#include "kernels_ptx.h"

int main(void) {
    CUmodule mod = NULL;
    CUcontext ctx = setup_context(NULL);
    unsigned short kind;
    memcpy(&kind, kernels_fatbin_sm90 + 16, sizeof(kind));
    printf("embedded fatbin: first entry kind %u (2 = ELF cubin)\n", kind);
    REQUIRE(kind == 2);
    EXPECT("cuModuleLoadData(SASS-only fatbin)", cuModuleLoadData(&mod, kernels_fatbin_sm90),
           CUDA_ERROR_NO_BINARY_FOR_GPU);
    EXPECT("cuModuleLoadFatBinary(SASS-only fatbin)", cuModuleLoadFatBinary(&mod, kernels_fatbin_sm90),
           CUDA_ERROR_NO_BINARY_FOR_GPU);
    EXPECT("cuModuleLoadDataEx(SASS-only fatbin)", cuModuleLoadDataEx(&mod, kernels_fatbin_sm90, 0, NULL, NULL),
           CUDA_ERROR_NO_BINARY_FOR_GPU);
    /* not sticky */
    CK(cuCtxSynchronize());
    CK(cuModuleLoadData(&mod, kernels_ptx));
    int ok = run_vadd(mod, 1000);
    printf("PTX module afterwards: %s\n", ok ? "ok" : "WRONG");
    REQUIRE(ok);
    CK(cuModuleUnload(mod));
    CK(cuCtxDestroy(ctx));
    printf("PASSED\n");
    return 0;
}
