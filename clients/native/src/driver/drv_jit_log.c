/* drv_jit_log: cuModuleLoadDataEx of PTX with a type error on line 12 (bad_type.ptx:
 * add.f32 on .u32 registers), with CU_JIT_ERROR_LOG_BUFFER / _SIZE_BYTES and
 * CU_JIT_INFO_LOG_BUFFER / _SIZE_BYTES options. It must fail with
 * CUDA_ERROR_INVALID_PTX, and the error log must be non-empty and mention "line 12"
 * (ptxas says "ptxas application ptx input, line 12; error : Arguments mismatch for
 * instruction 'add'"). The size option is written back with the log's length. A
 * correct PTX module then loads with the same options and an empty error log. */
#include "drv_check.h"
#include "bad_type_ptx.h"
#include "kernels_ptx.h"

int main(void) {
    CUcontext ctx = setup_context(NULL);
    char errlog[4096], infolog[4096];
    memset(errlog, 0, sizeof(errlog));
    memset(infolog, 0, sizeof(infolog));
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                           CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {errlog, (void *)(uintptr_t)sizeof(errlog), infolog, (void *)(uintptr_t)sizeof(infolog)};
    CUmodule mod = NULL;

    EXPECT("cuModuleLoadDataEx(bad_type.ptx)", cuModuleLoadDataEx(&mod, bad_type_ptx, 4, opts, vals),
           CUDA_ERROR_INVALID_PTX);
    size_t len = strlen(errlog);
    size_t reported = (size_t)(uintptr_t)vals[1];
    printf("error log non-empty: %s\n", yesno(len > 0));
    printf("log mentions line 12: %s\n", yesno(strstr(errlog, "line 12") != NULL));
    printf("error log size written back: %s\n", yesno(reported > 0 && reported <= sizeof(errlog)));
    REQUIRE(len > 0 && strstr(errlog, "line 12") != NULL && reported > 0 && reported <= sizeof(errlog));
    /* the same through cuModuleLoadData: no log, same error */
    EXPECT("cuModuleLoadData(bad_type.ptx)", cuModuleLoadData(&mod, bad_type_ptx), CUDA_ERROR_INVALID_PTX);

    /* not sticky; a good module with the same options leaves the error log empty */
    memset(errlog, 0, sizeof(errlog));
    vals[1] = (void *)(uintptr_t)sizeof(errlog);
    vals[3] = (void *)(uintptr_t)sizeof(infolog);
    CK(cuModuleLoadDataEx(&mod, kernels_ptx, 4, opts, vals));
    printf("good PTX: error log empty: %s\n", yesno(errlog[0] == 0));
    REQUIRE(errlog[0] == 0);
    int ok = run_vadd(mod, 3000);
    printf("good PTX: vadd: %s\n", ok ? "ok" : "WRONG");
    REQUIRE(ok);
    CK(cuModuleUnload(mod));
    CK(cuCtxDestroy(ctx));
    printf("PASSED\n");
    return 0;
}
