/* drv_link: JIT linking of two relocatable PTX modules (nvcc -rdc=true -ptx).
 * link_main.ptx calls an extern device function and reads an extern __device__ variable,
 * both defined in link_lib.ptx. cuLinkCreate with info/error log buffers,
 * cuLinkAddData (CU_JIT_INPUT_PTX) twice, cuLinkComplete, cuModuleLoadData of the linked
 * image, cuModuleGetFunction, cuModuleGetGlobal, launch, cuLinkDestroy. Also: linking
 * link_main.ptx alone must fail at cuLinkComplete with an error log naming the missing
 * symbol. */
#include "drv_check.h"
#include "link_lib_ptx.h"
#include "link_main_ptx.h"

int main(void) {
    CUcontext ctx = setup_context(NULL);
    char info[8192], err[8192];
    CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                           CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    void *vals[] = {info, (void *)(uintptr_t)sizeof(info), err, (void *)(uintptr_t)sizeof(err), (void *)(uintptr_t)1};
    CUlinkState link;
    void *image = NULL;
    size_t image_size = 0;
    memset(info, 0, sizeof(info));
    memset(err, 0, sizeof(err));

    printf("link_main.ptx has .extern .func: %s\n", yesno(strstr((const char *)link_main_ptx, ".extern .func") != NULL));
    CK(cuLinkCreate(5, opts, vals, &link));
    CK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)link_main_ptx, link_main_ptx_SIZE + 1, "link_main.ptx", 0, NULL,
                     NULL));
    CK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)link_lib_ptx, link_lib_ptx_SIZE + 1, "link_lib.ptx", 0, NULL,
                     NULL));
    CK(cuLinkComplete(link, &image, &image_size));
    printf("cuLinkComplete: image non-empty: %s, error log empty: %s\n", yesno(image != NULL && image_size > 0),
           yesno(err[0] == 0));
    REQUIRE(image != NULL && image_size > 0 && err[0] == 0);

    CUmodule mod;
    CUfunction f;
    CK(cuModuleLoadData(&mod, image));  /* before cuLinkDestroy, which frees the image */
    CK(cuLinkDestroy(link));
    CK(cuModuleGetFunction(&f, mod, "link_kernel"));
    CUdeviceptr bias;
    size_t bias_size = 0;
    int bias_value = 0;
    CK(cuModuleGetGlobal(&bias, &bias_size, mod, "link_bias"));
    CK(cuMemcpyDtoH(&bias_value, bias, sizeof(int)));
    printf("link_bias: size %zu, initial value %d\n", bias_size, bias_value);
    REQUIRE(bias_size == 4 && bias_value == 1000);

    const int n = 500;
    int h[500], i;
    CUdeviceptr d;
    CK(cuMemAlloc(&d, sizeof(h)));
    void *args[] = {&d, (void *)&n};
    CK(cuLaunchKernel(f, 4, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CK(cuMemcpyDtoH(h, d, sizeof(h)));
    for (i = 0; i < n; i++)
        if (h[i] != 3 * i + 7 + 1000) {
            printf("FAILED: out[%d]=%d, expected %d\n", i, h[i], 3 * i + 7 + 1000);
            return 1;
        }
    printf("linked kernel (extern function + extern variable): ok\n");
    /* change the variable defined in the other module, run again */
    bias_value = -5;
    CK(cuMemcpyHtoD(bias, &bias_value, sizeof(int)));
    CK(cuLaunchKernel(f, 4, 1, 1, 128, 1, 1, 0, NULL, args, NULL));
    CK(cuMemcpyDtoH(h, d, sizeof(h)));
    for (i = 0; i < n; i++)
        if (h[i] != 3 * i + 7 - 5) {
            printf("FAILED: second run out[%d]=%d, expected %d\n", i, h[i], 3 * i + 2);
            return 1;
        }
    printf("after cuMemcpyHtoD to link_bias: ok\n");
    CK(cuMemFree(d));
    CK(cuModuleUnload(mod));

    /* unresolved extern: link_main.ptx alone */
    memset(err, 0, sizeof(err));
    CK(cuLinkCreate(5, opts, vals, &link));
    CK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)link_main_ptx, link_main_ptx_SIZE + 1, "link_main.ptx", 0, NULL,
                     NULL));
    CUresult r = cuLinkComplete(link, &image, &image_size);
    printf("cuLinkComplete without link_lib.ptx fails: %s\n", yesno(r != CUDA_SUCCESS));
    printf("error log names link_combine or link_bias: %s\n",
           yesno(strstr(err, "link_combine") != NULL || strstr(err, "link_bias") != NULL));
    REQUIRE(r != CUDA_SUCCESS && (strstr(err, "link_combine") != NULL || strstr(err, "link_bias") != NULL));
    CK(cuLinkDestroy(link));
    CK(cuCtxDestroy(ctx));
    printf("PASSED\n");
    return 0;
}
