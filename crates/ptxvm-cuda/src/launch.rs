//! Functions and launches: `cuLaunchKernel` (parameters through `kernelParams` or the
//! `extra` buffer, a `CUfunction` or a `CUkernel`), `cuLaunchKernelEx` with its attributes,
//! function attributes (including the dynamic shared memory opt-in) and the occupancy
//! calculator, which reads the emulated GPU model and the kernel's resources.
//!
//! A launch is checked when it is made (configuration errors are returned at once, as by
//! the real driver) and runs on its stream's worker; a fault in the kernel is printed with
//! ptxvm's diagnostic and becomes the context's sticky error.

use crate::abi::*;
use crate::driver::{Driver, Error, R, api, drv, out};
use crate::handle::{Kind, kind_of};
use crate::stream::{DefaultStream, stream_pair, target};
use crate::types::*;
use ptxvm_vm::arch::GpuModel;
use ptxvm_vm::{FaultKind, Kernel, KernelAttrs, LaunchConfig, ParamInfo, VmError};
use std::ffi::{CString, c_char, c_void};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, AtomicU32, Ordering};

/// A kernel in a loaded module (`CUfunction`).
pub struct Function {
    pub module: usize,
    pub ctx: usize,
    pub dev: i32,
    pub kernel: Kernel,
    pub attrs: KernelAttrs,
    pub params: Vec<ParamInfo>,
    pub c_name: CString,
    pub max_dyn_shared: AtomicU32,
    pub cache_config: AtomicU32,
    pub carveout: AtomicI32,
    pub non_portable_cluster: AtomicI32,
    pub cluster_policy: AtomicI32,
    /// The cluster shape set with `CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_*` (0: not set).
    pub req_cluster: [AtomicU32; 3],
}

impl Function {
    pub fn new(module: usize, ctx: usize, dev: i32, kernel: Kernel, model: &GpuModel) -> Function {
        let attrs = kernel.attrs(model);
        let params = kernel.params();
        let c_name = CString::new(kernel.name()).unwrap_or_default();
        Function {
            module,
            ctx,
            dev,
            max_dyn_shared: AtomicU32::new(
                model.shared_per_block.saturating_sub(attrs.shared_static),
            ),
            attrs,
            params,
            c_name,
            kernel,
            cache_config: AtomicU32::new(0),
            carveout: AtomicI32::new(-1),
            non_portable_cluster: AtomicI32::new(0),
            cluster_policy: AtomicI32::new(0),
            req_cluster: Default::default(),
        }
    }

    fn model<'a>(&self, d: &'a Driver) -> R<&'a GpuModel> {
        Ok(d.dev(self.dev)?.model())
    }

    /// `cuFuncGetAttribute`.
    pub fn attribute(&self, attr: i32, d: &Driver) -> R<i32> {
        let a = &self.attrs;
        let cl = a
            .cluster
            .unwrap_or_else(|| self.set_cluster().unwrap_or([0, 0, 0]));
        Ok(match attr {
            CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK => a.max_threads as i32,
            CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES => a.shared_static as i32,
            CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES => a.const_bytes.min(i32::MAX as u64) as i32,
            CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES => a.local_bytes as i32,
            CU_FUNC_ATTRIBUTE_NUM_REGS => a.regs as i32,
            CU_FUNC_ATTRIBUTE_PTX_VERSION => a.target_sm as i32,
            CU_FUNC_ATTRIBUTE_BINARY_VERSION => self.model(d)?.sm() as i32,
            CU_FUNC_ATTRIBUTE_CACHE_MODE_CA => 0,
            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
                self.max_dyn_shared.load(Ordering::Relaxed) as i32
            }
            CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => {
                self.carveout.load(Ordering::Relaxed)
            }
            CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET => a.explicit_cluster as i32,
            CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH => cl[0] as i32,
            CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT => cl[1] as i32,
            CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH => cl[2] as i32,
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED => {
                self.non_portable_cluster.load(Ordering::Relaxed)
            }
            CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => {
                self.cluster_policy.load(Ordering::Relaxed)
            }
            _ => {
                return Err(Error::quiet(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("unknown function attribute {attr}"),
                ));
            }
        })
    }

    /// `cuFuncSetAttribute`.
    pub fn set_attribute(&self, attr: i32, v: i32, d: &Driver) -> R {
        let m = self.model(d)?;
        match attr {
            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
                let max = m
                    .shared_per_block_optin
                    .saturating_sub(self.attrs.shared_static);
                if v < 0 || v as u32 > max {
                    return Err(Error::quiet(
                        CUDA_ERROR_INVALID_VALUE,
                        format!(
                            "{v} bytes of dynamic shared memory exceed the {max} bytes {} allows this kernel",
                            m.arch
                        ),
                    ));
                }
                self.max_dyn_shared.store(v as u32, Ordering::Relaxed);
            }
            CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => {
                if !(-1..=100).contains(&v) {
                    return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
                }
                self.carveout.store(v, Ordering::Relaxed);
            }
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED => {
                self.non_portable_cluster.store(v, Ordering::Relaxed)
            }
            CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE => {
                self.cluster_policy.store(v, Ordering::Relaxed)
            }
            CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH
            | CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT
            | CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH => {
                // A shape compiled into the kernel (.reqnctapercluster) cannot be changed.
                if self.attrs.cluster.is_some() {
                    return Err(Error::quiet(
                        CUDA_ERROR_NOT_PERMITTED,
                        format!(
                            "kernel `{}` has a compile-time cluster shape (.reqnctapercluster)",
                            self.kernel.name()
                        ),
                    ));
                }
                if v < 0 {
                    return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
                }
                let d = (attr - CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) as usize;
                if let Some(x) = self.req_cluster.get(d) {
                    x.store(v as u32, Ordering::Relaxed);
                }
            }
            _ => return Err(Error::code(CUDA_ERROR_INVALID_VALUE)),
        }
        Ok(())
    }

    /// The cluster shape set by `cuFuncSetAttribute` (unset dimensions are 1), if any.
    fn set_cluster(&self) -> Option<[u32; 3]> {
        let c = self
            .req_cluster
            .each_ref()
            .map(|x| x.load(Ordering::Relaxed));
        (c != [0, 0, 0]).then(|| c.map(|x| x.max(1)))
    }

    pub fn set_cache_config(&self, cfg: u32) -> R {
        if cfg > 3 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        self.cache_config.store(cfg, Ordering::Relaxed);
        Ok(())
    }
}

/// The function a `CUfunction` or `CUkernel` handle stands for in the current context.
pub fn resolve_function(d: &Driver, h: Handle) -> R<Arc<Function>> {
    let h = h as usize;
    let f = if kind_of(h) == Some(Kind::Kernel) {
        crate::module::kernel_function(d, h)?
    } else {
        h
    };
    d.functions
        .get(f)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))
}

/// The CUresult of a guest fault, as the real driver reports it.
pub fn fault_code(kind: &FaultKind, message: &str) -> CUresult {
    match kind {
        FaultKind::OutOfBounds | FaultKind::UseAfterFree | FaultKind::ReadOnly => {
            CUDA_ERROR_ILLEGAL_ADDRESS
        }
        FaultKind::Misaligned => CUDA_ERROR_MISALIGNED_ADDRESS,
        FaultKind::Trap if message.starts_with("assertion failed") => CUDA_ERROR_ASSERT,
        FaultKind::Trap => CUDA_ERROR_LAUNCH_FAILED,
        FaultKind::Breakpoint => CUDA_ERROR_LAUNCH_FAILED,
        FaultKind::Deadlock | FaultKind::Barrier | FaultKind::AsyncHazard => {
            CUDA_ERROR_LAUNCH_FAILED
        }
        FaultKind::MemberMask => CUDA_ERROR_ILLEGAL_INSTRUCTION,
        FaultKind::StepLimit => CUDA_ERROR_LAUNCH_TIMEOUT,
        FaultKind::Unsupported => CUDA_ERROR_ILLEGAL_INSTRUCTION,
        FaultKind::TensorMap => CUDA_ERROR_ILLEGAL_INSTRUCTION,
        FaultKind::StackOverflow => CUDA_ERROR_HARDWARE_STACK_ERROR,
    }
}

/// Builds the kernel parameter buffer from `kernelParams` or `extra`.
///
/// # Safety
/// `params` is NULL or an array of one pointer per parameter, each to the parameter's bytes;
/// `extra` is NULL or a `CU_LAUNCH_PARAM_*` list.
unsafe fn param_buffer(
    f: &Function,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> R<Vec<u8>> {
    let mut buf = vec![0u8; f.kernel.param_buffer_size() as usize];
    if !params.is_null() {
        for (i, p) in f.params.iter().enumerate() {
            // SAFETY: one pointer per parameter, per the caller.
            let src = unsafe { *params.add(i) };
            if src.is_null() {
                return Err(Error::quiet(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("kernelParams[{i}] (`{}`) is NULL", p.name),
                ));
            }
            let dst = buf
                .get_mut(p.offset as usize..p.offset as usize + p.size as usize)
                .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
            // SAFETY: the parameter's bytes, per the caller.
            unsafe { std::ptr::copy_nonoverlapping(src.cast::<u8>(), dst.as_mut_ptr(), dst.len()) };
        }
        return Ok(buf);
    }
    if !extra.is_null() {
        let (mut ptr, mut size) = (std::ptr::null::<u8>(), None::<usize>);
        let mut i = 0;
        loop {
            if i > 64 {
                return Err(Error::quiet(
                    CUDA_ERROR_INVALID_VALUE,
                    "`extra` is not terminated by CU_LAUNCH_PARAM_END",
                ));
            }
            // SAFETY: a CU_LAUNCH_PARAM list, per the caller.
            let key = unsafe { *extra.add(i) } as usize;
            match key {
                CU_LAUNCH_PARAM_END => break,
                CU_LAUNCH_PARAM_BUFFER_POINTER => {
                    // SAFETY: the value follows the key.
                    ptr = unsafe { *extra.add(i + 1) }.cast();
                }
                CU_LAUNCH_PARAM_BUFFER_SIZE => {
                    // SAFETY: a pointer to a size_t follows the key.
                    let sp = unsafe { *extra.add(i + 1) }.cast::<usize>();
                    if sp.is_null() {
                        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
                    }
                    // SAFETY: as above.
                    size = Some(unsafe { *sp });
                }
                _ => {
                    return Err(Error::quiet(
                        CUDA_ERROR_INVALID_VALUE,
                        format!("unknown `extra` key {key}"),
                    ));
                }
            }
            i += 2;
        }
        let size = size.ok_or(Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            "`extra` has no CU_LAUNCH_PARAM_BUFFER_SIZE",
        ))?;
        if ptr.is_null() || size > buf.len() {
            return Err(Error::quiet(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "the `extra` parameter buffer has {size} bytes; kernel `{}` takes {}",
                    f.kernel.name(),
                    buf.len()
                ),
            ));
        }
        // SAFETY: `size` bytes from the client.
        unsafe { std::ptr::copy_nonoverlapping(ptr, buf.as_mut_ptr(), size) };
        return Ok(buf);
    }
    if f.params.is_empty() {
        Ok(buf)
    } else {
        Err(Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "kernel `{}` takes {} parameters and neither kernelParams nor extra was given",
                f.kernel.name(),
                f.params.len()
            ),
        ))
    }
}

struct Launch {
    f: Handle,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    stream: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    cluster: Option<[u32; 3]>,
}

fn launch(m: DefaultStream, l: Launch) -> R {
    let d = drv()?;
    let t = target(l.stream, m)?;
    t.ctx.check()?;
    let f = resolve_function(d, l.f)?;
    if f.dev != t.ctx.dev {
        return Err(Error::quiet(
            CUDA_ERROR_INVALID_HANDLE,
            "the function belongs to another device's context",
        ));
    }
    let max_dyn = f.max_dyn_shared.load(Ordering::Relaxed);
    if l.shared > max_dyn {
        return Err(Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "{} bytes of dynamic shared memory requested for `{}`, {max_dyn} allowed (raise it with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)",
                l.shared,
                f.kernel.name()
            ),
        ));
    }
    let dev = d.dev(f.dev)?;
    let cfg = LaunchConfig {
        grid: l.grid,
        block: l.block,
        shared_mem: l.shared,
        max_steps: d.config.max_steps,
        threads: d.config.threads,
        printf_fifo: t.ctx.limits.lock().map_or(1 << 20, |l| l.printf_fifo),
        engine: d.config.engine,
        cluster: l.cluster.or_else(|| f.set_cluster()),
        non_portable_cluster: f.non_portable_cluster.load(Ordering::Relaxed) != 0,
    };
    // A block the device cannot hold is CUDA_ERROR_INVALID_VALUE, as the driver documents
    // and as clients of the driver API expect (numba-cuda's tests; cuda-bindings accepts only
    // codes cuda.h names). NVIDIA's runtime reports it as cudaErrorInvalidValue then, where a
    // GPU's runtime says cudaErrorInvalidConfiguration: a known difference (README).
    let p = &dev.vm.props;
    let threads = l.block.iter().map(|&x| x as u64).product::<u64>();
    if threads > p.max_threads_per_block as u64
        || l.block.contains(&0)
        || (0..3).any(|i| l.block[i] > p.max_block_dim[i])
    {
        return Err(Error::quiet(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "a block of {:?} threads exceeds the device's limits",
                l.block
            ),
        ));
    }
    // A cluster shape the device or the kernel cannot take is CUDA's cluster misconfiguration.
    dev.vm
        .cluster_shape(&f.kernel, &cfg)
        .map_err(|e| Error::quiet(CUDA_ERROR_INVALID_CLUSTER_SIZE, e.to_string()))?;
    dev.vm
        .check_launch(&f.kernel, &cfg)
        .map_err(|e| Error::quiet(CUDA_ERROR_INVALID_VALUE, e.to_string()))?;
    // SAFETY: the client's parameter pointers.
    let params = unsafe { param_buffer(&f, l.params, l.extra)? };
    // A launch is a flush point for earlier kernels' printf output.
    t.ctx.flush_printf();
    let vm = dev.vm.clone();
    let ctx = t.ctx.clone();
    let kernel = f.kernel.clone();
    t.enqueue(move || {
        let mut stats = ptxvm_vm::Stats::default();
        let r = vm.launch_kernel(&kernel, &cfg, params, &mut stats);
        ctx.add_printf(&stats.printf);
        match r {
            Ok(()) => {}
            Err(VmError::Fault(fault)) => {
                let code = fault_code(&fault.kind, &fault.message);
                let name = error_name(code)
                    .and_then(|c| c.to_str().ok())
                    .unwrap_or("?");
                crate::diag::say(&format!(
                    "kernel fault ({name}; the context is now unusable): {fault}"
                ));
                ctx.fail(code);
            }
            Err(e) => {
                crate::diag::say(&format!("launch of `{}` failed: {e}", kernel.name()));
                ctx.fail(CUDA_ERROR_LAUNCH_FAILED);
            }
        }
    });
    Ok(())
}

stream_pair!(
    cuLaunchKernel,
    cuLaunchKernel_ptsz,
    (f: Handle, gx: u32, gy: u32, gz: u32, bx: u32, by: u32, bz: u32, shared: u32, stream: Handle, params: *mut *mut c_void, extra: *mut *mut c_void),
    |m, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra| launch(m, Launch {
        f, grid: [gx, gy, gz], block: [bx, by, bz], shared, stream, params, extra, cluster: None,
    })
);

stream_pair!(
    cuLaunchCooperativeKernel,
    cuLaunchCooperativeKernel_ptsz,
    (f: Handle, gx: u32, gy: u32, gz: u32, bx: u32, by: u32, bz: u32, shared: u32, stream: Handle, params: *mut *mut c_void),
    |m, f, gx, gy, gz, bx, by, bz, shared, stream, params| launch(m, Launch {
        f, grid: [gx, gy, gz], block: [bx, by, bz], shared, stream, params, extra: std::ptr::null_mut(), cluster: None,
    })
);

fn launch_ex(
    m: DefaultStream,
    cfg: *const CUlaunchConfig,
    f: Handle,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> R {
    if cfg.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: the client's configuration.
    let c = unsafe { &*cfg };
    let mut cluster = None;
    if c.num_attrs > 0 {
        if c.attrs.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        for i in 0..c.num_attrs as usize {
            // SAFETY: `num_attrs` attributes.
            let a = unsafe { *c.attrs.add(i) };
            let word = |k: usize| {
                u32::from_le_bytes([
                    a.value.bytes[4 * k],
                    a.value.bytes[4 * k + 1],
                    a.value.bytes[4 * k + 2],
                    a.value.bytes[4 * k + 3],
                ])
            };
            match a.id {
                CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION => {
                    cluster = Some([word(0), word(1), word(2)])
                }
                CU_LAUNCH_ATTRIBUTE_IGNORE
                | CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
                | CU_LAUNCH_ATTRIBUTE_COOPERATIVE
                | CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY
                | CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE
                | CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
                | CU_LAUNCH_ATTRIBUTE_PRIORITY
                | CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP
                | CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN
                | CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION
                | CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => {}
                other => {
                    return Err(Error::loud(
                        CUDA_ERROR_NOT_SUPPORTED,
                        format!("launch attribute {other} is not supported"),
                    ));
                }
            }
        }
    }
    launch(
        m,
        Launch {
            f,
            grid: [c.grid_dim_x, c.grid_dim_y, c.grid_dim_z],
            block: [c.block_dim_x, c.block_dim_y, c.block_dim_z],
            shared: c.shared_mem_bytes,
            stream: c.h_stream,
            params,
            extra,
            cluster,
        },
    )
}

stream_pair!(
    cuLaunchKernelEx,
    cuLaunchKernelEx_ptsz,
    (cfg: *const CUlaunchConfig, f: Handle, params: *mut *mut c_void, extra: *mut *mut c_void),
    launch_ex
);

// ---------------------------------------------------------------------------------------
// Function attributes.

fn func(h: Handle) -> R<(&'static Driver, Arc<Function>)> {
    let d = drv()?;
    Ok((d, resolve_function(d, h)?))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetAttribute(p: *mut i32, attr: i32, f: Handle) -> CUresult {
    api("cuFuncGetAttribute", || {
        let (d, f) = func(f)?;
        let v = f.attribute(attr, d)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, v) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetAttribute(f: Handle, attr: i32, v: i32) -> CUresult {
    api("cuFuncSetAttribute", || {
        let (d, f) = func(f)?;
        f.set_attribute(attr, v, d)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetCacheConfig(f: Handle, cfg: u32) -> CUresult {
    api("cuFuncSetCacheConfig", || func(f)?.1.set_cache_config(cfg))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetSharedMemConfig(f: Handle, cfg: u32) -> CUresult {
    api("cuFuncSetSharedMemConfig", || {
        func(f)?;
        if cfg > 2 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncSetBlockShape(_f: Handle, _x: i32, _y: i32, _z: i32) -> CUresult {
    api("cuFuncSetBlockShape", || {
        Err(Error::loud(
            CUDA_ERROR_NOT_SUPPORTED,
            "the pre-CUDA-4 launch API is not supported; use cuLaunchKernel",
        ))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetModule(m: *mut Handle, f: Handle) -> CUresult {
    api("cuFuncGetModule", || {
        let (_, f) = func(f)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(m, f.module as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetName(name: *mut *const c_char, f: Handle) -> CUresult {
    api("cuFuncGetName", || {
        let (_, f) = func(f)?;
        // SAFETY: the client's out-pointer; the name lives as long as the function.
        unsafe { out(name, f.c_name.as_ptr()) }
    })
}

/// `cuFuncGetParamInfo`/`cuKernelGetParamInfo`.
/// # Safety
/// `offset` and `size` are NULL or valid for writes.
pub unsafe fn param_info(
    d: &Driver,
    f: usize,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> R {
    let f = d
        .functions
        .get(f)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    let p = f
        .params
        .get(index)
        .ok_or(Error::code(CUDA_ERROR_INVALID_VALUE))?;
    // SAFETY: the client's out-pointers (either may be NULL).
    unsafe {
        if !offset.is_null() {
            out(offset, p.offset as usize)?;
        }
        if !size.is_null() {
            out(size, p.size as usize)?;
        }
    }
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetParamInfo(
    f: Handle,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    api("cuFuncGetParamInfo", || {
        let d = drv()?;
        let fh = resolve_function(d, f)?;
        let h = d
            .functions
            .all()
            .into_iter()
            .find(|(_, x)| Arc::ptr_eq(x, &fh))
            .map(|(h, _)| h)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        // SAFETY: the client's out-pointers.
        unsafe { param_info(d, h, index, offset, size) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncGetParamCount(f: Handle, n: *mut usize) -> CUresult {
    api("cuFuncGetParamCount", || {
        let (_, f) = func(f)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(n, f.params.len()) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncIsLoaded(state: *mut u32, f: Handle) -> CUresult {
    api("cuFuncIsLoaded", || {
        func(f)?;
        // SAFETY: the client's out-pointer (CU_FUNCTION_LOADING_STATE_LOADED = 1).
        unsafe { out(state, 1) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuFuncLoad(f: Handle) -> CUresult {
    api("cuFuncLoad", || func(f).map(|_| ()))
}

// ---------------------------------------------------------------------------------------
// Occupancy.

/// Blocks of `block` threads with `dyn_shared` bytes that fit on one SM of the model.
pub fn blocks_per_sm(m: &GpuModel, a: &KernelAttrs, block: u32, dyn_shared: u32) -> u32 {
    if block == 0 || block > a.max_threads {
        return 0;
    }
    let warps = block.div_ceil(32);
    let by_warps = m.max_warps_per_sm / warps;
    let regs_per_warp = (a.regs * 32).div_ceil(m.reg_alloc_unit) * m.reg_alloc_unit;
    let by_regs = m
        .regs_per_sm
        .checked_div(regs_per_warp)
        .map_or(u32::MAX, |w| w / warps);
    let smem = a.shared_static as u64 + dyn_shared as u64 + m.shared_reserved_per_block as u64;
    let by_smem = (m.shared_per_sm as u64)
        .checked_div(smem)
        .map_or(u32::MAX, |n| n.min(u32::MAX as u64) as u32);
    if a.shared_static as u64 + dyn_shared as u64 > m.shared_per_block_optin as u64 {
        return 0;
    }
    by_warps.min(by_regs).min(by_smem).min(m.max_blocks_per_sm)
}

fn occupancy(n: *mut i32, f: Handle, block: i32, dyn_shared: usize) -> R {
    let (d, f) = func(f)?;
    let m = f.model(d)?;
    let v = blocks_per_sm(
        m,
        &f.attrs,
        block.max(0) as u32,
        dyn_shared.min(u32::MAX as usize) as u32,
    );
    // SAFETY: the client's out-pointer.
    unsafe { out(n, v as i32) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessor(
    n: *mut i32,
    f: Handle,
    block: i32,
    dyn_shared: usize,
) -> CUresult {
    api("cuOccupancyMaxActiveBlocksPerMultiprocessor", || {
        occupancy(n, f, block, dyn_shared)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    n: *mut i32,
    f: Handle,
    block: i32,
    dyn_shared: usize,
    _flags: u32,
) -> CUresult {
    api(
        "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        || occupancy(n, f, block, dyn_shared),
    )
}

fn potential(
    min_grid: *mut i32,
    block_out: *mut i32,
    f: Handle,
    smem_fn: CUoccupancyB2DSize,
    dyn_shared: usize,
    limit: i32,
) -> R {
    let (d, f) = func(f)?;
    let m = f.model(d)?;
    let mut max = f.attrs.max_threads;
    if limit > 0 {
        max = max.min(limit as u32);
    }
    let mut best = (0u32, 0u32, 0u32); // (threads per SM, block, blocks per SM)
    let mut b = max / 32 * 32;
    while b >= 32 {
        let smem = match smem_fn {
            // SAFETY: the client's callback.
            Some(cb) => unsafe { cb(b as i32) },
            None => dyn_shared,
        };
        let n = blocks_per_sm(m, &f.attrs, b, smem.min(u32::MAX as usize) as u32);
        if n * b > best.0 {
            best = (n * b, b, n);
        }
        b -= 32;
    }
    if best.1 == 0 {
        best = (0, max.clamp(1, 32), 0);
    }
    // SAFETY: the client's out-pointers.
    unsafe {
        out(min_grid, (best.2 * m.sm_count) as i32)?;
        out(block_out, best.1 as i32)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSize(
    min_grid: *mut i32,
    block: *mut i32,
    f: Handle,
    smem_fn: CUoccupancyB2DSize,
    dyn_shared: usize,
    limit: i32,
) -> CUresult {
    api("cuOccupancyMaxPotentialBlockSize", || {
        potential(min_grid, block, f, smem_fn, dyn_shared, limit)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxPotentialBlockSizeWithFlags(
    min_grid: *mut i32,
    block: *mut i32,
    f: Handle,
    smem_fn: CUoccupancyB2DSize,
    dyn_shared: usize,
    limit: i32,
    _flags: u32,
) -> CUresult {
    api("cuOccupancyMaxPotentialBlockSizeWithFlags", || {
        potential(min_grid, block, f, smem_fn, dyn_shared, limit)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyAvailableDynamicSMemPerBlock(
    p: *mut usize,
    f: Handle,
    blocks: i32,
    block: i32,
) -> CUresult {
    api("cuOccupancyAvailableDynamicSMemPerBlock", || {
        let (d, f) = func(f)?;
        let m = f.model(d)?;
        if blocks <= 0 || block <= 0 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let per_block = m.shared_per_sm / blocks as u32;
        let avail = per_block
            .saturating_sub(m.shared_reserved_per_block)
            .saturating_sub(f.attrs.shared_static)
            .min(
                m.shared_per_block_optin
                    .saturating_sub(f.attrs.shared_static),
            );
        // SAFETY: the client's out-pointer.
        unsafe { out(p, avail as usize) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxPotentialClusterSize(
    p: *mut i32,
    f: Handle,
    _cfg: *const CUlaunchConfig,
) -> CUresult {
    api("cuOccupancyMaxPotentialClusterSize", || {
        func(f)?;
        // Multi-CTA clusters are not supported yet: one CTA per cluster.
        // SAFETY: the client's out-pointer.
        unsafe { out(p, 1) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuOccupancyMaxActiveClusters(
    p: *mut i32,
    f: Handle,
    cfg: *const CUlaunchConfig,
) -> CUresult {
    api("cuOccupancyMaxActiveClusters", || {
        let (d, f) = func(f)?;
        if cfg.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        // SAFETY: the client's configuration.
        let c = unsafe { &*cfg };
        let m = f.model(d)?;
        let b = c.block_dim_x * c.block_dim_y * c.block_dim_z;
        let n = blocks_per_sm(m, &f.attrs, b, c.shared_mem_bytes) * m.sm_count;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, n as i32) }
    })
}
