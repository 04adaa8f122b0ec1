// device_query: cudaGetDeviceCount, cudaGetDeviceProperties, cudaDeviceGetAttribute,
// cudaDriverGetVersion/cudaRuntimeGetVersion. Prints only values that are fixed by the
// compute capability 8.0 architecture; everything machine-dependent is printed as a
// yes/no plausibility check.
#include "check.h"
#include <cstring>

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    printf("device count>=1: %s\n", yesno(count >= 1));
    REQUIRE(count >= 1);
    int dev = -1;
    CHECK(cudaGetDevice(&dev));
    printf("current device: %d\n", dev);
    cudaDeviceProp p;
    memset(&p, 0, sizeof(p));
    CHECK(cudaGetDeviceProperties(&p, 0));
    p.name[sizeof(p.name) - 1] = 0;
    bool name_ok = strlen(p.name) > 0;
    printf("name non-empty: %s\n", yesno(name_ok));
    printf("compute capability: %d.%d\n", p.major, p.minor);
    printf("warpSize: %d\n", p.warpSize);
    printf("maxThreadsPerBlock: %d\n", p.maxThreadsPerBlock);
    printf("maxThreadsDim: %d x %d x %d\n", p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]);
    printf("maxGridSize: %d x %d x %d\n", p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
    printf("sharedMemPerBlock: %zu\n", p.sharedMemPerBlock);
    printf("sharedMemPerBlockOptin>=65536: %s\n", yesno(p.sharedMemPerBlockOptin >= 65536));
    printf("totalConstMem: %zu\n", p.totalConstMem);
    printf("regsPerBlock: %d\n", p.regsPerBlock);
    printf("maxThreadsPerMultiProcessor: %d\n", p.maxThreadsPerMultiProcessor);
    printf("totalGlobalMem>0: %s\n", yesno(p.totalGlobalMem > 0));
    printf("multiProcessorCount>0: %s\n", yesno(p.multiProcessorCount > 0));
    printf("unifiedAddressing: %d\n", p.unifiedAddressing);
    printf("managedMemory: %d\n", p.managedMemory);
    bool ok = name_ok && p.major == 8 && p.minor == 0 && p.warpSize == 32 && p.maxThreadsPerBlock == 1024 &&
              p.maxThreadsDim[0] == 1024 && p.maxThreadsDim[1] == 1024 && p.maxThreadsDim[2] == 64 &&
              p.maxGridSize[0] == 2147483647 && p.maxGridSize[1] == 65535 && p.maxGridSize[2] == 65535 &&
              p.sharedMemPerBlock == 49152 && p.sharedMemPerBlockOptin >= 65536 && p.totalConstMem == 65536 &&
              p.regsPerBlock == 65536 && p.maxThreadsPerMultiProcessor == 2048 && p.totalGlobalMem > 0 &&
              p.multiProcessorCount > 0 && p.unifiedAddressing == 1 && p.managedMemory == 1;
    REQUIRE(ok);

    // the same values through cudaDeviceGetAttribute
    int v = 0;
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
    REQUIRE(v == p.major);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMinor, 0));
    REQUIRE(v == p.minor);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0));
    REQUIRE(v == 32);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0));
    REQUIRE(v == 1024);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    REQUIRE(v == p.multiProcessorCount);
    CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock, 0));
    REQUIRE(v == 49152);
    printf("cudaDeviceGetAttribute agrees: yes\n");

    int drv = 0, rt = 0;
    CHECK(cudaDriverGetVersion(&drv));
    CHECK(cudaRuntimeGetVersion(&rt));
    printf("cudaDriverGetVersion>=12000: %s\n", yesno(drv >= 12000));
    printf("cudaRuntimeGetVersion>=12000: %s\n", yesno(rt >= 12000));
    REQUIRE(drv >= 12000 && rt >= 12000);
    printf("PASSED\n");
    return 0;
}
