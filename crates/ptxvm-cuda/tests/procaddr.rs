//! `cuGetProcAddress` resolution, the error table and the stubs, checked against what
//! real clients ask for (/work/shared/notes/cuda-driver-interop.md §2).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use cuda::generated::errors::{ERROR_COUNT, ERRORS, error_name, error_string};
use cuda::procaddr::{
    ALWAYS_IMPLEMENTED, APIS, CU_GET_PROC_ADDRESS_DEFAULT as DEFAULT,
    CU_GET_PROC_ADDRESS_LEGACY_STREAM as LEGACY,
    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM as PTDS, DRIVER_SYMBOLS, Resolution, STUBBED,
    is_stub, resolve, resolve_cstr,
};
use cuda::types::{CUDA_ERROR_NOT_SUPPORTED, CUDA_SUCCESS};

use Resolution::{Found, NotFound, VersionNotSufficient};

#[track_caller]
fn check(name: &str, version: i32, flags: u64, want: Resolution) {
    assert_eq!(
        resolve(name, version, flags),
        want,
        "{name}@{version} flags={flags}"
    );
}

/// cuda-bindings 13.4.4 / libcudart 13.5 requests and the symbols they must get.
#[test]
fn notes_examples() {
    let cases: &[(&str, i32, &str)] = &[
        ("cuMemAlloc", 3020, "cuMemAlloc_v2"),
        ("cuMemFree", 3020, "cuMemFree_v2"),
        ("cuMemGetInfo", 3020, "cuMemGetInfo_v2"),
        ("cuMemcpyHtoD", 3020, "cuMemcpyHtoD_v2"),
        ("cuMemcpyHtoDAsync", 3020, "cuMemcpyHtoDAsync_v2"),
        ("cuCtxCreate", 3020, "cuCtxCreate_v2"),
        ("cuCtxCreate", 11040, "cuCtxCreate_v3"),
        ("cuCtxCreate", 12050, "cuCtxCreate_v4"),
        ("cuCtxDestroy", 4000, "cuCtxDestroy_v2"),
        ("cuCtxPushCurrent", 4000, "cuCtxPushCurrent_v2"),
        ("cuCtxPopCurrent", 4000, "cuCtxPopCurrent_v2"),
        (
            "cuDevicePrimaryCtxRelease",
            11000,
            "cuDevicePrimaryCtxRelease_v2",
        ),
        (
            "cuDevicePrimaryCtxSetFlags",
            11000,
            "cuDevicePrimaryCtxSetFlags_v2",
        ),
        (
            "cuDevicePrimaryCtxReset",
            11000,
            "cuDevicePrimaryCtxReset_v2",
        ),
        ("cuDeviceTotalMem", 3020, "cuDeviceTotalMem_v2"),
        ("cuDeviceGetUuid", 9020, "cuDeviceGetUuid"),
        ("cuDeviceGetUuid", 11040, "cuDeviceGetUuid_v2"),
        ("cuModuleGetGlobal", 3020, "cuModuleGetGlobal_v2"),
        ("cuLinkCreate", 6050, "cuLinkCreate_v2"),
        ("cuLinkAddData", 6050, "cuLinkAddData_v2"),
        ("cuLinkAddFile", 6050, "cuLinkAddFile_v2"),
        ("cuLinkComplete", 5050, "cuLinkComplete"),
        ("cuLinkDestroy", 5050, "cuLinkDestroy"),
        ("cuLibraryLoadData", 12000, "cuLibraryLoadData"),
        ("cuLibraryGetKernel", 12000, "cuLibraryGetKernel"),
        ("cuKernelGetLibrary", 12050, "cuKernelGetLibrary"),
        ("cuEventDestroy", 4000, "cuEventDestroy_v2"),
        ("cuEventElapsedTime", 2000, "cuEventElapsedTime"),
        ("cuEventElapsedTime", 12080, "cuEventElapsedTime_v2"),
        ("cuStreamGetCtx", 9020, "cuStreamGetCtx"),
        ("cuStreamGetCtx", 12050, "cuStreamGetCtx_v2"),
        ("cuLaunchKernel", 4000, "cuLaunchKernel"),
        ("cuLaunchKernelEx", 11060, "cuLaunchKernelEx"),
        ("cuCtxGetDevice", 2000, "cuCtxGetDevice"),
        ("cuCtxGetDevice", 13000, "cuCtxGetDevice_v2"),
        ("cuCtxSynchronize", 2000, "cuCtxSynchronize"),
        ("cuCtxSynchronize", 13000, "cuCtxSynchronize_v2"),
        ("cuGetErrorName", 6000, "cuGetErrorName"),
        ("cuGetErrorString", 6000, "cuGetErrorString"),
        ("cuGetExportTable", 3000, "cuGetExportTable"),
        ("cuGetProcAddress", 11030, "cuGetProcAddress"),
        ("cuGetProcAddress", 12000, "cuGetProcAddress_v2"),
        ("cuInit", 2000, "cuInit"),
        ("cuDriverGetVersion", 2020, "cuDriverGetVersion"),
        ("cuIpcOpenMemHandle", 4010, "cuIpcOpenMemHandle"),
        ("cuIpcOpenMemHandle", 11000, "cuIpcOpenMemHandle_v2"),
        ("cuGraphInstantiate", 10000, "cuGraphInstantiate"),
        ("cuGraphInstantiate", 11000, "cuGraphInstantiate_v2"),
        ("cuStreamGetCaptureInfo", 10010, "cuStreamGetCaptureInfo"),
        ("cuStreamGetCaptureInfo", 11030, "cuStreamGetCaptureInfo_v2"),
        ("cuStreamGetCaptureInfo", 12030, "cuStreamGetCaptureInfo_v3"),
        ("cuMemcpyBatchAsync", 12080, "cuMemcpyBatchAsync"),
        ("cuMemcpyBatchAsync", 13000, "cuMemcpyBatchAsync_v2"),
        ("cuLaunchHostFunc", 10000, "cuLaunchHostFunc"),
        ("cuLaunchHostFunc", 13010, "cuLaunchHostFunc_v2"),
    ];
    for &(name, version, symbol) in cases {
        for flags in [DEFAULT, LEGACY] {
            check(name, version, flags, Found(symbol));
        }
    }
    // Between revisions the older one stays in force; later versions keep the newest.
    check("cuCtxCreate", 11039, DEFAULT, Found("cuCtxCreate_v2"));
    check("cuCtxCreate", 13050, DEFAULT, Found("cuCtxCreate_v4"));
    check("cuCtxGetDevice", 12090, DEFAULT, Found("cuCtxGetDevice"));
    check("cuMemAlloc", i32::MAX, DEFAULT, Found("cuMemAlloc_v2"));
    // The legacy 32-bit-pointer revision is in the table (the caller decides).
    check("cuMemAlloc", 2000, DEFAULT, Found("cuMemAlloc"));
    check("cuMemAlloc", 3010, DEFAULT, Found("cuMemAlloc"));
}

/// `CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM` (cuda-bindings with
/// CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1, libcudart's flags=2 lookups).
#[test]
fn per_thread_default_stream() {
    check("cuLaunchKernel", 7000, PTDS, Found("cuLaunchKernel_ptsz"));
    check("cuMemcpyHtoD", 7000, PTDS, Found("cuMemcpyHtoD_v2_ptds"));
    check(
        "cuMemcpyHtoDAsync",
        7000,
        PTDS,
        Found("cuMemcpyHtoDAsync_v2_ptsz"),
    );
    check(
        "cuStreamSynchronize",
        7000,
        PTDS,
        Found("cuStreamSynchronize_ptsz"),
    );
    check(
        "cuLaunchKernelEx",
        11060,
        PTDS,
        Found("cuLaunchKernelEx_ptsz"),
    );
    check(
        "cuMemAllocAsync",
        11020,
        PTDS,
        Found("cuMemAllocAsync_ptsz"),
    );
    check("cuStreamGetCtx", 9020, PTDS, Found("cuStreamGetCtx_ptsz"));
    check(
        "cuStreamGetCtx",
        12050,
        PTDS,
        Found("cuStreamGetCtx_v2_ptsz"),
    );
    check(
        "cuMemPrefetchAsync",
        8000,
        PTDS,
        Found("cuMemPrefetchAsync_ptsz"),
    );
    check(
        "cuMemPrefetchAsync",
        12020,
        PTDS,
        Found("cuMemPrefetchAsync_v2_ptsz"),
    );
    check(
        "cuStreamBeginCapture",
        10000,
        PTDS,
        Found("cuStreamBeginCapture_ptsz"),
    );
    check(
        "cuStreamBeginCapture",
        10010,
        PTDS,
        Found("cuStreamBeginCapture_v2_ptsz"),
    );
    check(
        "cuGLMapBufferObject",
        7000,
        PTDS,
        Found("cuGLMapBufferObject_v2_ptds"),
    );
    // The per-thread revision exists from 7000 only; the real driver does not fall back.
    check("cuMemcpyHtoD", 3020, PTDS, VersionNotSufficient);
    check("cuLaunchKernel", 4000, PTDS, VersionNotSufficient);
    // Flags 0/1 keep the legacy-stream entry points.
    check("cuLaunchKernel", 7000, DEFAULT, Found("cuLaunchKernel"));
    check("cuLaunchKernel", 7000, LEGACY, Found("cuLaunchKernel"));
    check("cuMemcpyHtoD", 13050, LEGACY, Found("cuMemcpyHtoD_v2"));
    // APIs without per-thread revisions resolve as with flags 0.
    check("cuMemAlloc", 3020, PTDS, Found("cuMemAlloc_v2"));
    check("cuCtxCreate", 12050, PTDS, Found("cuCtxCreate_v4"));
    check("cuInit", 2000, PTDS, Found("cuInit"));
}

#[test]
fn not_found_and_too_new() {
    check("", 0, DEFAULT, NotFound);
    check("", 13050, PTDS, NotFound);
    check("cuNoSuchFunction", 13050, DEFAULT, NotFound);
    // Exported names with a revision suffix are not API names.
    check("cuMemAlloc_v2", 13050, DEFAULT, NotFound);
    check("cuLaunchKernel_ptsz", 13050, PTDS, NotFound);
    check("cumemalloc", 13050, DEFAULT, NotFound);
    // cuda-bindings asked for cuLogs* at 12080, before their 12090 typedefs.
    for name in [
        "cuLogsRegisterCallback",
        "cuLogsUnregisterCallback",
        "cuLogsCurrent",
        "cuLogsDumpToFile",
        "cuLogsDumpToMemory",
    ] {
        check(name, 12080, DEFAULT, VersionNotSufficient);
        check(name, 12090, DEFAULT, Found(name));
    }
    check("cuCtxGetDevice", 1999, DEFAULT, VersionNotSufficient);
    check("cuInit", 0, DEFAULT, VersionNotSufficient);
    check("cuInit", -1, DEFAULT, VersionNotSufficient);
    check(
        "cuCheckpointOperationComplete",
        13030,
        DEFAULT,
        VersionNotSufficient,
    );
    check(
        "cuCheckpointOperationComplete",
        13040,
        DEFAULT,
        Found("cuCheckpointOperationComplete"),
    );
    assert_eq!(resolve_cstr(c"cuMemAlloc", 3020, 0), Found("cuMemAlloc_v2"));
    assert_eq!(resolve_cstr(c"", 0, 0), NotFound);
    assert_eq!(NotFound.status(), 1);
    assert_eq!(VersionNotSufficient.status(), 2);
}

/// Every lookup libcudart 13.5 makes besides the `""` probe (name@versions; +ptds: also
/// with flags=2), as traced in the notes' appendix.
const CUDART_13_5_LOOKUPS: &str = "
cuInit@2000 cuGetProcAddress@11030,12000 cuDeviceGet@2000 cuDeviceGetCount@2000
cuDeviceGetName@2000 cuDeviceTotalMem@3020 cuDeviceGetAttribute@2000 cuDeviceGetP2PAttribute@8000
cuDeviceGetHostAtomicCapabilities@13000 cuDeviceGetP2PAtomicCapabilities@13000 cuDriverGetVersion@2020
cuDeviceGetByPCIBusId@4010 cuDeviceGetPCIBusId@4010 cuDeviceGetUuid@9020,11040
cuDeviceGetTexture1DLinearMaxWidth@11010 cuDeviceGetDefaultMemPool@11020 cuDeviceSetMemPool@11020
cuDeviceGetMemPool@11020 cuFlushGPUDirectRDMAWrites@11030 cuDevicePrimaryCtxRetain@7000
cuDevicePrimaryCtxRelease@7000 cuDevicePrimaryCtxSetFlags@11000 cuDevicePrimaryCtxGetState@7000
cuDevicePrimaryCtxReset@7000 cuCtxCreate@3020 cuCtxGetFlags@7000 cuCtxSetCurrent@4000 cuCtxGetCurrent@4000
cuCtxDetach@2000 cuCtxGetApiVersion@3020 cuCtxGetDevice@2000,13000 cuCtxGetLimit@3010 cuCtxSetLimit@3010
cuCtxGetCacheConfig@3020 cuCtxSetCacheConfig@3020 cuCtxGetSharedMemConfig@4020
cuCtxGetStreamPriorityRange@5050 cuCtxSetSharedMemConfig@4020 cuCtxSynchronize@2000,13000
cuCtxResetPersistingL2Cache@11000 cuCtxPopCurrent@4000 cuCtxPushCurrent@4000 cuModuleLoad@2000
cuModuleLoadData@2000 cuModuleLoadFatBinary@2000 cuModuleUnload@2000 cuModuleGetFunction@2000
cuModuleGetGlobal@3020 cuModuleGetTexRef@2000 cuModuleGetSurfRef@3000 cuModuleGetLoadingMode@11070
cuLibraryLoadData@12000 cuLibraryLoadFromFile@12000 cuLibraryUnload@12000 cuLibraryGetKernel@12000
cuLibraryGetModule@12000 cuKernelGetFunction@12000 cuLibraryGetGlobal@12000 cuLibraryGetManaged@12000
cuLibraryGetUnifiedFunction@12000 cuLibraryGetKernelCount@12040 cuLibraryEnumerateKernels@12040
cuKernelGetAttribute@12000 cuKernelSetAttribute@12000 cuKernelSetCacheConfig@12000 cuKernelGetName@12030
cuKernelGetParamInfo@12040 cuKernelGetParamCount@13020 cuLinkCreate@5050 cuLinkAddData@5050
cuLinkAddFile@5050 cuLinkComplete@5050 cuLinkDestroy@5050 cuMemGetInfo@3020 cuMemAllocManaged@6000
cuMemAlloc@3020 cuMemAllocPitch@3020 cuMemFree@3020 cuMemGetAddressRange@3020 cuMemFreeHost@2000
cuMemHostAlloc@2020 cuMemHostGetDevicePointer@3020 cuMemHostGetFlags@2030 cuMemHostRegister@6050
cuMemHostUnregister@4000 cuPointerGetAttribute@4000 cuPointerGetAttributes@7000 cuMemAllocAsync@11020+ptds
cuMemAllocFromPoolAsync@11020+ptds cuMemFreeAsync@11020+ptds cuMemPoolTrimTo@11020
cuMemPoolSetAttribute@11020 cuMemPoolGetAttribute@11020 cuMemPoolSetAccess@11020 cuMemPoolGetAccess@11020
cuMemPoolCreate@11020 cuMemPoolDestroy@11020 cuMemPoolExportToShareableHandle@11020
cuMemPoolImportFromShareableHandle@11020 cuMemPoolExportPointer@11020 cuMemPoolImportPointer@11020
cuMemGetDefaultMemPool@13000 cuMemGetMemPool@13000 cuMemSetMemPool@13000 cuMemcpy@4000+ptds
cuMemcpyAsync@4000+ptds cuMemcpyPeer@4000+ptds cuMemcpyPeerAsync@4000+ptds cuMemcpyHtoD@3020+ptds
cuMemcpyHtoDAsync@3020+ptds cuMemcpyDtoH@3020+ptds cuMemcpyDtoHAsync@3020+ptds cuMemcpyDtoD@3020+ptds
cuMemcpyDtoDAsync@3020+ptds cuMemcpy2DUnaligned@3020+ptds cuMemcpy2DAsync@3020+ptds cuMemcpy3D@3020+ptds
cuMemcpy3DAsync@3020+ptds cuMemcpy3DPeer@4000+ptds cuMemcpy3DPeerAsync@4000+ptds
cuMemcpyBatchAsync@13000,12080+ptds cuMemcpy3DBatchAsync@13000,12080+ptds
cuMemcpyWithAttributesAsync@13020+ptds cuMemcpy3DWithAttributesAsync@13020+ptds cuMemsetD8@3020+ptds
cuMemsetD8Async@3020+ptds cuMemsetD2D8@3020+ptds cuMemsetD2D8Async@3020+ptds cuFuncSetCacheConfig@3000
cuFuncSetSharedMemConfig@4020 cuFuncGetAttribute@2020 cuFuncSetAttribute@9000 cuFuncGetName@12030
cuFuncGetParamInfo@12040 cuFuncGetParamCount@13020 cuArrayCreate@3020 cuArrayGetDescriptor@3020
cuArrayGetSparseProperties@11010 cuArrayGetPlane@11020 cuArray3DCreate@3020 cuArray3DGetDescriptor@3020
cuArrayDestroy@2000 cuMipmappedArrayCreate@5000 cuMipmappedArrayGetLevel@5000
cuMipmappedArrayGetSparseProperties@11010 cuMipmappedArrayDestroy@5000 cuArrayGetMemoryRequirements@11060
cuMipmappedArrayGetMemoryRequirements@11060 cuTexObjectCreate@5000 cuTexObjectDestroy@5000
cuTexObjectGetResourceDesc@5000 cuTexObjectGetTextureDesc@5000 cuTexObjectGetResourceViewDesc@5000
cuSurfObjectCreate@5000 cuSurfObjectDestroy@5000 cuSurfObjectGetResourceDesc@5000
cuImportExternalMemory@10000 cuExternalMemoryGetMappedBuffer@10000
cuExternalMemoryGetMappedMipmappedArray@10000 cuDestroyExternalMemory@10000 cuImportExternalSemaphore@10000
cuSignalExternalSemaphoresAsync@10000+ptds cuWaitExternalSemaphoresAsync@10000+ptds
cuDestroyExternalSemaphore@10000 cuDeviceGetNvSciSyncAttributes@10020 cuLaunchKernel@4000+ptds
cuLaunchCooperativeKernel@9000+ptds cuLaunchHostFunc@10000,13010+ptds cuLaunchKernelEx@11060+ptds
cuEventCreate@2000 cuEventRecord@2000+ptds cuEventRecordWithFlags@11010+ptds cuEventQuery@2000
cuEventSynchronize@2000 cuEventDestroy@4000 cuEventElapsedTime@2000,12080 cuStreamWaitValue32@8000+ptds
cuStreamWriteValue32@8000+ptds cuStreamWaitValue64@9000+ptds cuStreamWriteValue64@9000+ptds
cuStreamBatchMemOp@8000+ptds cuStreamCreate@2000 cuStreamCreateWithPriority@5050
cuStreamGetPriority@5050+ptds cuStreamGetFlags@5050+ptds cuStreamGetDevice@12080+ptds
cuStreamGetCtx@9020,12050+ptds cuStreamGetId@12000+ptds cuStreamDestroy@4000 cuStreamWaitEvent@3020+ptds
cuStreamAddCallback@5000+ptds cuStreamSynchronize@2000+ptds cuStreamQuery@2000+ptds
cuStreamAttachMemAsync@6000+ptds cuStreamCopyAttributes@11000+ptds cuStreamGetAttribute@11000+ptds
cuStreamSetAttribute@11000+ptds cuDeviceCanAccessPeer@4000 cuCtxEnablePeerAccess@4000
cuCtxDisablePeerAccess@4000 cuIpcGetEventHandle@4010 cuIpcOpenEventHandle@4010 cuIpcGetMemHandle@4010
cuIpcOpenMemHandle@4010,11000 cuIpcCloseMemHandle@4010 cuGLCtxCreate@3020 cuGLInit@2000 cuGLGetDevices@4010
cuGLRegisterBufferObject@2000 cuGLMapBufferObject@3020+ptds cuGLMapBufferObjectAsync@3020+ptds
cuGLUnmapBufferObject@2000 cuGLUnmapBufferObjectAsync@2030 cuGLUnregisterBufferObject@2000
cuGLSetBufferObjectMapFlags@2030 cuGraphicsGLRegisterImage@3000 cuGraphicsGLRegisterBuffer@3000
cuGraphicsEGLRegisterImage@7000 cuEGLStreamConsumerConnect@7000 cuEGLStreamConsumerDisconnect@7000
cuEGLStreamConsumerAcquireFrame@7000 cuEGLStreamConsumerReleaseFrame@7000 cuEGLStreamProducerConnect@7000
cuEGLStreamProducerDisconnect@7000 cuEGLStreamProducerPresentFrame@7000 cuEGLStreamProducerReturnFrame@7000
cuGraphicsResourceGetMappedEglFrame@7000 cuEGLStreamConsumerConnectWithFlags@8000
cuGraphicsUnregisterResource@3000 cuGraphicsMapResources@3000+ptds cuGraphicsUnmapResources@3000+ptds
cuGraphicsResourceSetMapFlags@6050 cuGraphicsSubResourceGetMappedArray@3000
cuGraphicsResourceGetMappedMipmappedArray@5000 cuGraphicsResourceGetMappedPointer@3020
cuProfilerInitialize@4000 cuProfilerStart@4000 cuProfilerStop@4000 cuVDPAUGetDevice@3010
cuVDPAUCtxCreate@3020 cuGraphicsVDPAURegisterVideoSurface@3010 cuGraphicsVDPAURegisterOutputSurface@3010
cuGetExportTable@3000 cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags@7000
cuOccupancyAvailableDynamicSMemPerBlock@10020 cuOccupancyMaxPotentialClusterSize@11070
cuOccupancyMaxActiveClusters@11070 cuMemAdvise@8000,12020 cuMemPrefetchAsync@8000,12020+ptds
cuMemPrefetchBatchAsync@13000+ptds cuMemDiscardBatchAsync@13000+ptds
cuMemDiscardAndPrefetchBatchAsync@13000+ptds cuMemRangeGetAttribute@8000 cuMemRangeGetAttributes@8000
cuMemGetLocationInfo@13040 cuGetErrorString@6000 cuGetErrorName@6000 cuGraphCreate@10000
cuGraphAddKernelNode@12000 cuGraphKernelNodeGetParams@12000 cuGraphKernelNodeSetParams@12000
cuGraphAddMemcpyNode@10000 cuGraphMemcpyNodeGetParams@10000 cuGraphMemcpyNodeSetParams@10000
cuGraphAddMemsetNode@10000 cuGraphMemsetNodeGetParams@10000 cuGraphMemsetNodeSetParams@10000
cuGraphAddHostNode@10000 cuGraphHostNodeGetParams@10000 cuGraphHostNodeSetParams@10000
cuGraphAddChildGraphNode@10000 cuGraphChildGraphNodeGetGraph@10000 cuGraphAddEmptyNode@10000
cuGraphAddEventRecordNode@11010 cuGraphEventRecordNodeGetEvent@11010 cuGraphEventRecordNodeSetEvent@11010
cuGraphAddEventWaitNode@11010 cuGraphEventWaitNodeGetEvent@11010 cuGraphEventWaitNodeSetEvent@11010
cuGraphAddExternalSemaphoresSignalNode@11020 cuGraphExternalSemaphoresSignalNodeGetParams@11020
cuGraphExternalSemaphoresSignalNodeSetParams@11020 cuGraphAddExternalSemaphoresWaitNode@11020
cuGraphExternalSemaphoresWaitNodeGetParams@11020 cuGraphExternalSemaphoresWaitNodeSetParams@11020
cuGraphExecExternalSemaphoresSignalNodeSetParams@11020 cuGraphExecExternalSemaphoresWaitNodeSetParams@11020
cuGraphAddMemAllocNode@11040 cuGraphMemAllocNodeGetParams@11040 cuGraphAddMemFreeNode@11040
cuGraphMemFreeNodeGetParams@11040 cuDeviceGraphMemTrim@11040 cuDeviceGetGraphMemAttribute@11040
cuDeviceSetGraphMemAttribute@11040 cuGraphClone@10000 cuGraphNodeFindInClone@10000 cuGraphNodeGetType@10000
cuGraphNodeGetContainingGraph@13010 cuGraphNodeGetLocalId@13010 cuGraphNodeGetToolsId@13010
cuGraphGetId@13010 cuGraphExecGetId@13010 cuGraphGetNodes@10000 cuGraphGetRootNodes@10000
cuGraphGetEdges@10000,12030 cuGraphNodeGetDependencies@10000,12030 cuGraphNodeGetDependentNodes@10000,12030
cuGraphAddDependencies@10000,12030 cuGraphRemoveDependencies@10000,12030 cuGraphDestroyNode@10000
cuGraphInstantiate@10000,11000 cuGraphInstantiateWithFlags@11040 cuGraphUpload@11010+ptds
cuGraphLaunch@10000+ptds cuGraphExecDestroy@10000 cuGraphDestroy@10000 cuStreamBeginCapture@10000,10010+ptds
cuStreamBeginRecaptureToGraph@13030+ptds cuStreamBeginCaptureToGraph@12030+ptds cuStreamEndCapture@10000+ptds
cuStreamIsCapturing@10000+ptds cuStreamGetCaptureInfo@10010,11030,12030+ptds
cuStreamUpdateCaptureDependencies@11030,12030+ptds cuGraphExecKernelNodeSetParams@12000
cuGraphExecMemcpyNodeSetParams@10020 cuGraphExecMemsetNodeSetParams@10020 cuGraphExecHostNodeSetParams@10020
cuGraphExecChildGraphNodeSetParams@11010 cuGraphExecEventRecordNodeSetEvent@11010
cuGraphExecEventWaitNodeSetEvent@11010 cuThreadExchangeStreamCaptureMode@10010 cuGraphExecUpdate@12000
cuGraphKernelNodeCopyAttributes@11000 cuGraphKernelNodeGetAttribute@11000 cuGraphKernelNodeSetAttribute@11000
cuGraphDebugDotPrint@11030 cuUserObjectCreate@11030 cuUserObjectRetain@11030 cuUserObjectRelease@11030
cuGraphRetainUserObject@11030 cuGraphReleaseUserObject@11030 cuGraphNodeSetEnabled@11060
cuGraphNodeGetEnabled@11060 cuGraphInstantiateWithParams@12000+ptds cuGraphExecGetFlags@12000
cuGraphAddNode@12020,12030 cuGraphNodeSetParams@12020 cuGraphNodeGetParams@13020
cuGraphExecNodeSetParams@12020 cuGraphConditionalHandleCreate@12030 cuDeviceRegisterAsyncNotification@12040
cuDeviceUnregisterAsyncNotification@12040 cuLogsRegisterCallback@12090 cuLogsUnregisterCallback@12090
cuLogsCurrent@12090 cuLogsDumpToFile@12090 cuLogsDumpToMemory@12090 cuDeviceGetDevResource@12040
cuDevSmResourceSplitByCount@12040 cuDevResourceGenerateDesc@12040 cuCtxFromGreenCtx@12040
cuGreenCtxCreate@12040 cuGreenCtxDestroy@12040 cuCtxGetDevResource@12040 cuGreenCtxGetDevResource@12040
cuCtxGetId@12000 cuGreenCtxGetId@12090 cuGreenCtxStreamCreate@12050 cuStreamGetDevResource@13010+ptds
cuCtxRecordEvent@12050 cuCtxWaitEvent@12050 cuGreenCtxRecordEvent@12040 cuGreenCtxWaitEvent@12040
cuDevSmResourceSplit@13010 cuSubgridWorkerGridCreate@13030 cuSubgridWorksetCreate@13030 cuSubgridCreate@13030
";

#[test]
fn cudart_13_5_lookups() {
    let mut names = 0;
    for item in CUDART_13_5_LOOKUPS.split_whitespace() {
        let (name, rest) = item.split_once('@').expect("name@versions");
        let (versions, ptds) = match rest.strip_suffix("+ptds") {
            Some(v) => (v, true),
            None => (rest, false),
        };
        names += 1;
        for v in versions.split(',') {
            let v: i32 = v.parse().expect("version");
            let got = resolve(name, v, DEFAULT);
            if name.starts_with("cuSubgrid") {
                // Not in the 13.5 headers: not found, which libcudart tolerates.
                assert_eq!(got, NotFound, "{name}@{v}");
                continue;
            }
            let Found(symbol) = got else {
                panic!("{name}@{v}: {got:?}");
            };
            assert!(
                symbol == name || symbol.starts_with(&format!("{name}_v")),
                "{name}@{v}: {symbol}"
            );
            // A non-stream API answers flags=2 like flags=0.
            if !ptds {
                assert_eq!(resolve(name, v, PTDS), got, "{name}@{v} flags=2");
            }
        }
        if ptds {
            let Found(symbol) = resolve(name, 13050, PTDS) else {
                panic!("{name}: no per-thread revision");
            };
            assert!(
                symbol.ends_with("_ptds") || symbol.ends_with("_ptsz"),
                "{name}: {symbol}"
            );
        }
    }
    assert_eq!(names, 377);
}

#[test]
fn error_table() {
    assert_eq!(ERRORS.len(), ERROR_COUNT);
    assert!(
        ERRORS.windows(2).all(|w| w[0].0 < w[1].0),
        "sorted by code, no duplicates"
    );
    let names: HashSet<_> = ERRORS.iter().map(|e| e.1).collect();
    assert_eq!(names.len(), ERRORS.len());
    for &(code, name, desc) in ERRORS {
        assert_eq!(error_name(code), Some(name));
        assert_eq!(error_string(code), Some(desc));
        let name = name.to_str().unwrap();
        assert!(
            name == "CUDA_SUCCESS" || name.starts_with("CUDA_ERROR_"),
            "{name}"
        );
        assert!(!desc.to_bytes().is_empty(), "{name}");
    }
    assert_eq!(CUDA_SUCCESS, 0);
    assert_eq!(CUDA_ERROR_NOT_SUPPORTED, 801);
    assert_eq!(error_name(0), Some(c"CUDA_SUCCESS"));
    assert_eq!(error_name(1), Some(c"CUDA_ERROR_INVALID_VALUE"));
    assert_eq!(error_name(801), Some(c"CUDA_ERROR_NOT_SUPPORTED"));
    assert_eq!(error_name(999), Some(c"CUDA_ERROR_UNKNOWN"));
    assert_eq!(error_name(9), None);
    assert_eq!(error_string(u32::MAX), None);
}

fn include_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("PTXVM_CUDA_INCLUDE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from("/work/venv/dev/lib/python3.11/site-packages/nvidia/cu13/include")
        });
    if dir.join("cuda.h").exists() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: no cuda.h in {} (set PTXVM_CUDA_INCLUDE)",
            dir.display()
        );
        None
    }
}

/// The table has exactly the enumerators of `CUresult` in the header, counted independently.
#[test]
fn error_table_matches_header() {
    let Some(dir) = include_dir() else { return };
    let text = std::fs::read_to_string(dir.join("cuda.h")).unwrap();
    let start = text.find("typedef enum cudaError_enum {").unwrap();
    let end = start + text[start..].find("} CUresult;").unwrap();
    let in_header: Vec<&str> = text[start..end]
        .lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let name = l
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()?;
            (name.starts_with("CUDA_") && l[name.len()..].trim_start().starts_with('='))
                .then_some(name)
        })
        .collect();
    assert_eq!(in_header.len(), ERRORS.len());
    for name in in_header {
        assert!(
            ERRORS.iter().any(|e| e.1.to_str() == Ok(name)),
            "{name} missing"
        );
    }
}

#[test]
fn stubs() {
    let always: HashSet<&str> = ALWAYS_IMPLEMENTED.iter().copied().collect();
    for s in STUBBED {
        assert!(!always.contains(s), "{s} is always implemented but stubbed");
        assert!(
            DRIVER_SYMBOLS.binary_search(s).is_ok(),
            "{s} is not a driver symbol"
        );
        assert!(is_stub(s));
    }
    for s in ALWAYS_IMPLEMENTED {
        assert!(!is_stub(s));
        assert!(DRIVER_SYMBOLS.binary_search(s).is_ok(), "{s}");
    }
    assert!(!is_stub(""));
    assert!(!is_stub("cuMemAlloc_v3"));
    // Every symbol a revision names is exported: implemented, or stubbed, never both.
    let implemented: HashSet<&str> = cuda::generated::stubs::IMPLEMENTED
        .iter()
        .copied()
        .collect();
    for api in APIS {
        for r in api.normal.iter().chain(api.per_thread) {
            assert!(
                is_stub(r.symbol) != implemented.contains(r.symbol),
                "{}: stubbed and implemented, or neither",
                r.symbol
            );
        }
    }
    for s in [
        "cuMemAlloc_v2",
        "cuLaunchKernel_ptsz",
        "cuMemcpyHtoD_v2_ptds",
    ] {
        assert!(implemented.contains(s) && !is_stub(s), "{s}");
    }
    // The 32-bit-pointer legacy revision and graphics interop stay stubs.
    for s in ["cuMemAlloc", "cuGLInit"] {
        assert!(is_stub(s), "{s}");
    }
}

#[test]
fn stub_returns_not_supported() {
    // Called twice: the stderr line is written once.
    assert_eq!(
        cuda::generated::stubs::cuGraphCreate(),
        CUDA_ERROR_NOT_SUPPORTED
    );
    assert_eq!(
        cuda::generated::stubs::cuGraphCreate(),
        CUDA_ERROR_NOT_SUPPORTED
    );
}

/// The committed tables are what the generator makes from the headers now (which also
/// shows its output is deterministic). By hand: `python3 tools/gen_driver_tables.py --check`.
#[test]
fn generated_files_are_fresh() {
    let Some(dir) = include_dir() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let venv_python = Path::new("/work/venv/dev/bin/python");
    let python = std::env::var_os("PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            if venv_python.exists() {
                venv_python.to_path_buf()
            } else {
                PathBuf::from("python3")
            }
        });
    let out = match Command::new(&python)
        .arg(root.join("tools/gen_driver_tables.py"))
        .arg(&dir)
        .arg("--check")
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: cannot run {}: {e}", python.display());
            return;
        }
    };
    assert!(
        out.status.success(),
        "generated tables are stale, re-run tools/gen_driver_tables.py:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
