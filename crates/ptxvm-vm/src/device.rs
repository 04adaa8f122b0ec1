//! The library API: a virtual device with memory, loaded modules and kernel launches.
//!
//! ```
//! use ptxvm_vm::{Device, LaunchConfig};
//! let ptx = r#"
//! .version 8.0
//! .target sm_80
//! .address_size 64
//! .visible .entry twice(.param .u64 out, .param .u32 n)
//! {
//!     .reg .pred %p<2>;
//!     .reg .b32 %r<4>;
//!     .reg .b64 %rd<4>;
//!     ld.param.u64 %rd1, [out];
//!     ld.param.u32 %r1, [n];
//!     mov.u32 %r2, %tid.x;
//!     setp.ge.u32 %p1, %r2, %r1;
//!     @%p1 bra DONE;
//!     shl.b32 %r3, %r2, 1;
//!     mul.wide.u32 %rd2, %r2, 4;
//!     add.s64 %rd3, %rd1, %rd2;
//!     st.global.u32 [%rd3], %r3;
//! DONE:
//!     ret;
//! }
//! "#;
//! let dev = Device::new();
//! let m = dev.load_ptx("twice.ptx", ptx).unwrap();
//! let out = dev.malloc(8 * 4).unwrap();
//! let cfg = LaunchConfig { grid: [1, 1, 1], block: [8, 1, 1], ..LaunchConfig::default() };
//! let mut stats = ptxvm_vm::Stats::default();
//! dev.launch(m, "twice", &cfg, &[&out.to_le_bytes(), &8u32.to_le_bytes()], &mut stats).unwrap();
//! let bytes = dev.read(out, 32).unwrap();
//! let vals: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
//! assert_eq!(vals, [0, 2, 4, 6, 8, 10, 12, 14]);
//! ```

use crate::arch::GpuModel;
use crate::error::VmError;
use crate::exec::{self, Engine, Launch, Stats};
use crate::memory::{AddressSpace, AllocKind};
use crate::program::{self, Program};
use ptxvm_syntax::Source;
use std::sync::{Arc, RwLock};

/// Documented properties of the virtual device: its GPU model and the limits ptxvm enforces.
#[derive(Debug, Clone)]
pub struct DeviceProps {
    /// The emulated GPU (compute capability and per-SM resources).
    pub model: &'static GpuModel,
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_block_dim: [u32; 3],
    pub max_grid_dim: [u32; 3],
    /// Shared memory per CTA (static + dynamic) a launch may use, bytes: the model's opt-in
    /// maximum (the driver applies the 48 KiB default unless a kernel opts in).
    pub max_shared_per_block: u32,
    /// Registers per CTA (32-bit registers).
    pub max_registers_per_block: u32,
    /// Global memory the device may allocate, bytes.
    pub global_memory: u64,
    /// Local memory per thread, bytes: local variables, `alloca`, and the call stack
    /// (frames' saved registers and parameters). CUDA's maximum is 512 KiB.
    pub local_per_thread: u32,
    /// Host memory a launch may use for the state of the CTAs it has in flight (registers,
    /// parameter areas, shared memory, local memory pages as they are written), bytes.
    pub launch_memory: u64,
}

/// Local memory per thread: 512 KiB, CUDA's maximum (backed lazily, page by page).
pub const DEFAULT_LOCAL_PER_THREAD: u32 = 512 << 10;
/// Host memory for the CTAs a launch has in flight: 1 GiB.
pub const DEFAULT_LAUNCH_MEMORY: u64 = 1 << 30;
/// Device `printf` FIFO per launch: 1 MiB, CUDA's default (`cudaLimitPrintfFifoSize`).
pub const DEFAULT_PRINTF_FIFO: u64 = 1 << 20;

/// Default global memory of a device: 16 GiB of address space, used on demand (only
/// touched pages take host memory).
pub const DEFAULT_GLOBAL_MEMORY: u64 = 16 << 30;

impl DeviceProps {
    /// The properties of a device of the given model.
    pub fn for_model(model: &'static GpuModel) -> DeviceProps {
        DeviceProps {
            model,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [i32::MAX as u32, 65535, 65535],
            max_shared_per_block: model.shared_per_block_optin,
            max_registers_per_block: model.regs_per_block,
            global_memory: DEFAULT_GLOBAL_MEMORY,
            local_per_thread: DEFAULT_LOCAL_PER_THREAD,
            launch_memory: DEFAULT_LAUNCH_MEMORY,
        }
    }
}

impl Default for DeviceProps {
    fn default() -> Self {
        DeviceProps {
            // ptxvm run's historical limit: the largest opt-in of any model.
            max_shared_per_block: 227 * 1024,
            ..DeviceProps::for_model(
                crate::arch::model("sm_90a").unwrap_or(crate::arch::default_model()),
            )
        }
    }
}

/// A kernel launch configuration.
#[derive(Debug, Clone)]
pub struct LaunchConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory, bytes.
    pub shared_mem: u32,
    /// Step budget (a runaway loop faults when it is used up): warp instructions, plus bytes
    /// copied in bulk or printed (see [`DEFAULT_MAX_STEPS`]).
    pub max_steps: u64,
    /// Host threads that run CTAs in parallel; 0 means one per available core.
    pub threads: usize,
    /// Device `printf` output the launch keeps (CUDA's printf FIFO); output beyond it is
    /// dropped and counted in [`Stats::printf_dropped`].
    pub printf_fifo: u64,
    /// The engine that runs the launch (every engine gives the same results).
    pub engine: Engine,
    /// The cluster shape in CTAs (`cudaLaunchAttributeClusterDimension`); `None`: the
    /// kernel's `.reqnctapercluster`, or 1×1×1. See [`Device::cluster_shape`].
    pub cluster: Option<[u32; 3]>,
    /// Allows clusters of more than the portable 8 CTAs, up to 16
    /// (`cudaFuncAttributeNonPortableClusterSizeAllowed`).
    pub non_portable_cluster: bool,
}

/// The most CTAs of a cluster CUDA calls portable, and the most with the non-portable
/// opt-in (sm_90).
pub const MAX_CLUSTER_PORTABLE: u32 = 8;
pub const MAX_CLUSTER_NON_PORTABLE: u32 = 16;

/// Default step budget of a launch: 10^8 steps — warp instructions (up to 3.2·10^9 thread
/// instructions), plus one step per 16 bytes a bulk copy moves or a device `printf` handles
/// and 16 per device `malloc`/`free` — about a minute and a half of the interpreter at full
/// warps on one core. Larger real workloads raise it (`LaunchConfig::max_steps`,
/// `--max-steps`); a runaway loop is reported within that time instead of after half an
/// hour.
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_mem: 0,
            max_steps: DEFAULT_MAX_STEPS,
            threads: 0,
            printf_fifo: DEFAULT_PRINTF_FIFO,
            engine: Engine::Auto,
            cluster: None,
            non_portable_cluster: false,
        }
    }
}

/// A loaded module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModuleId(pub u32);

/// A kernel parameter, for marshalling.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamInfo {
    pub name: String,
    pub ty: ptxvm_ir::types::Type,
    pub size: u32,
    pub align: u32,
    pub offset: u32,
    /// Whether it is a byte array (a struct passed by value).
    pub is_array: bool,
}

/// A parsed and checked module: what loading it again needs, so a driver can cache it by
/// content and decode it for every load (each load gets its own variables).
pub struct CheckedModule {
    pub source: Source,
    pub module: ptxvm_ir::ir::Module,
}

impl CheckedModule {
    /// The kernels (`.entry` functions with bodies).
    pub fn kernel_names(&self) -> Vec<String> {
        self.module
            .funcs
            .iter()
            .filter(|f| f.defined && f.kind == Some(ptxvm_ir::ir::FuncKind::Entry))
            .map(|f| f.name.clone())
            .collect()
    }
}

/// Parses and checks PTX text; the error lists every diagnostic as `file:line:col: message`.
pub fn check_ptx(name: &str, text: &str) -> Result<CheckedModule, VmError> {
    check_ptx_with(name, text, &ptxvm_ir::CheckOptions::default())
}

/// Checks an already-read source (with its preprocessing diagnostics), as
/// [`Device::load_source`] does before loading it.
pub fn check_read_source(
    src: Source,
    pre: Vec<ptxvm_syntax::Diagnostic>,
) -> Result<CheckedModule, VmError> {
    crate::error::front_end(|| check_source(src, pre, &ptxvm_ir::CheckOptions::default()))
}

/// [`check_ptx`] with checker options (e.g. the architecture to compile for, as the
/// driver's JIT does: a module whose `.target` the device cannot run is refused).
pub fn check_ptx_with(
    name: &str,
    text: &str,
    opts: &ptxvm_ir::CheckOptions,
) -> Result<CheckedModule, VmError> {
    crate::error::front_end(|| {
        let (src, pre) = Source::new(name, text.to_string(), None);
        check_source(src, pre, opts)
    })
}

fn check_source(
    src: Source,
    pre: Vec<ptxvm_syntax::Diagnostic>,
    opts: &ptxvm_ir::CheckOptions,
) -> Result<CheckedModule, VmError> {
    let checked = ptxvm_ir::check_with(&src, opts);
    let errors: Vec<crate::error::Located> = pre
        .iter()
        .chain(&checked.diags)
        .filter(|d| d.is_error())
        .map(|d| {
            let l = src.locate(d.span);
            crate::error::Located {
                file: l.file.to_string(),
                line: l.line,
                col: l.col,
                message: d.message.clone(),
            }
        })
        .collect();
    if !errors.is_empty() {
        return Err(VmError::Invalid(errors));
    }
    Ok(CheckedModule {
        source: src,
        module: checked.module,
    })
}

/// A module loaded on a device.
pub struct Loaded {
    pub checked: Arc<CheckedModule>,
    pub prog: Program,
}

/// A kernel of a loaded module: cheap to clone, keeps its module alive.
#[derive(Clone)]
pub struct Kernel {
    module: Arc<Loaded>,
    index: u32,
}

/// What `cuFuncGetAttribute` reports of a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelAttrs {
    /// Registers per thread: the kernel's virtual registers in 32-bit units, at most the
    /// model's limit (an upper bound of what ptxas would allocate), and at most what the
    /// kernel's launch bounds leave per thread (see [`register_cap`]).
    pub regs: u32,
    /// Static shared memory, bytes.
    pub shared_static: u32,
    /// Module `.const` memory, bytes.
    pub const_bytes: u64,
    /// Local memory per thread, bytes.
    pub local_bytes: u32,
    /// Kernel parameter bytes.
    pub param_bytes: u32,
    /// The most threads per block a launch may use (`.maxntid`/`.reqntid`, register file).
    pub max_threads: u32,
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
    /// Required cluster shape (`.reqnctapercluster`).
    pub cluster: Option<[u32; 3]>,
    /// The kernel must be launched with a cluster shape (`.explicitcluster`).
    pub explicit_cluster: bool,
    /// The module's `.target` (80 for `sm_80`).
    pub target_sm: u32,
}

/// The most registers per thread ptxas may give a kernel with these tuning directives:
/// `.maxnreg`, and for `.maxntid`/`.reqntid` (times `.minnctapersm` blocks) as many as let
/// that many threads fit the SM's register file at once. ptxas guarantees both, so a
/// kernel is always launchable (and has an occupancy of at least one block) at its
/// declared bounds; counting every virtual register instead would refuse, for example,
/// CUB's kernels at their own block size.
pub fn register_cap(t: &ptxvm_ir::ir::Tuning, model: &GpuModel) -> u32 {
    let mut cap = model.regs_per_thread;
    if let Some(n) = t.maxnreg {
        cap = cap.min(n.max(1));
    }
    let bound = [t.maxntid, t.reqntid]
        .into_iter()
        .flatten()
        .map(|d| d.iter().map(|&x| x as u64).product::<u64>())
        .min();
    if let Some(threads) = bound.filter(|&n| n > 0) {
        let blocks = t.minnctapersm.unwrap_or(1).max(1) as u64;
        let warps = threads.div_ceil(32) * blocks;
        // Registers are allocated per warp in units of `reg_alloc_unit`, i.e. per thread in
        // multiples of reg_alloc_unit / 32.
        let step = (model.reg_alloc_unit / 32).max(1) as u64;
        let by_sm = model.regs_per_sm as u64 / warps / 32;
        let by_block = model.regs_per_block as u64 / (threads.div_ceil(32) * 32);
        let fit = by_sm.min(by_block) / step * step;
        cap = cap.min(fit.max(1) as u32);
    }
    cap
}

impl Kernel {
    pub fn name(&self) -> &str {
        &self.module.prog.funcs[self.index as usize].name
    }

    /// The kernel's parameters with their layout.
    pub fn params(&self) -> Vec<ParamInfo> {
        let f = &self.module.checked.module.funcs[self.index as usize];
        let fc = &self.module.prog.funcs[self.index as usize];
        f.params
            .iter()
            .enumerate()
            .map(|(k, v)| ParamInfo {
                name: v.name.clone(),
                ty: v.ty,
                size: u32::try_from(v.size).unwrap_or(u32::MAX),
                align: v.align,
                offset: fc.param_offsets.get(k).copied().unwrap_or(0),
                is_array: !v.dims.is_empty(),
            })
            .collect()
    }

    /// Compiles the kernel for the JIT engine now, as its first launch with [`Engine::Jit`]
    /// would (the code is kept for later launches). Returns how many of its instructions
    /// compiled (the rest run on the warp engine) and the compile time, or why it has no
    /// native code (then every launch runs on the warp engine, and `--stats` says why).
    pub fn jit_compile(&self) -> Result<(usize, std::time::Duration), String> {
        let f = &self.module.prog.funcs[self.index as usize];
        crate::exec::jit::code_for(f).map(|c| (c.compiled, c.compile_time))
    }

    /// Bytes of the kernel parameter buffer.
    pub fn param_buffer_size(&self) -> u32 {
        self.module.prog.funcs[self.index as usize].kparam_size
    }

    /// Registers per thread on a device of the given model: the estimate of
    /// [`crate::pressure`] (the most 32-bit values live at once in the kernel or a function
    /// it calls), within [`register_cap`] (the model's 255 per thread, `.maxnreg`, and what
    /// the launch bounds leave per thread: ptxas spills to stay within those).
    pub fn regs(&self, model: &GpuModel) -> u32 {
        let fc = &self.module.prog.funcs[self.index as usize];
        let tuning = &self.module.checked.module.funcs[self.index as usize].tuning;
        fc.reg_estimate.clamp(1, register_cap(tuning, model).max(1))
    }

    /// The kernel's attributes on a device of the given model.
    pub fn attrs(&self, model: &GpuModel) -> KernelAttrs {
        let fc = &self.module.prog.funcs[self.index as usize];
        let regs = self.regs(model);
        let const_bytes = self
            .module
            .checked
            .module
            .vars
            .iter()
            .filter(|v| v.space == ptxvm_ir::types::Space::Const)
            .map(|v| v.size)
            .sum();
        let by_regs = (model.regs_per_block / regs.next_multiple_of(8)).min(1024) / 32 * 32;
        let mut max_threads = by_regs.clamp(32, 1024);
        for lim in [fc.maxntid, fc.reqntid].into_iter().flatten() {
            let n = lim.iter().map(|&x| x as u64).product::<u64>();
            max_threads = max_threads.min(u32::try_from(n).unwrap_or(u32::MAX));
        }
        KernelAttrs {
            regs,
            shared_static: fc.shared_static,
            const_bytes,
            local_bytes: fc.local_size,
            param_bytes: fc.kparam_size,
            max_threads,
            reqntid: fc.reqntid,
            maxntid: fc.maxntid,
            cluster: fc.cluster,
            explicit_cluster: fc.explicitcluster,
            target_sm: self.module.checked.module.sm,
        }
    }
}

/// The virtual device. All methods take `&self`: several host threads may allocate, copy,
/// load and launch at once (launches of different streams run concurrently).
pub struct Device {
    pub props: DeviceProps,
    pub mem: AddressSpace,
    modules: RwLock<Vec<Option<Arc<Loaded>>>>,
}

impl Default for Device {
    fn default() -> Self {
        Device::new()
    }
}

impl Device {
    /// A device with the default properties.
    pub fn new() -> Device {
        Device::with_props(DeviceProps::default())
    }

    pub fn with_props(props: DeviceProps) -> Device {
        Device {
            mem: AddressSpace::new(props.global_memory),
            props,
            modules: RwLock::new(Vec::new()),
        }
    }

    /// Checks and loads a PTX module; allocates its `.global`/`.const` variables.
    pub fn load_ptx(&self, name: &str, text: &str) -> Result<ModuleId, VmError> {
        self.load_checked(Arc::new(check_ptx(name, text)?))
    }

    /// Loads an already-read source (with its preprocessing diagnostics).
    pub fn load_source(
        &self,
        src: Source,
        pre: Vec<ptxvm_syntax::Diagnostic>,
    ) -> Result<ModuleId, VmError> {
        let checked =
            crate::error::front_end(|| check_source(src, pre, &ptxvm_ir::CheckOptions::default()))?;
        self.load_checked(Arc::new(checked))
    }

    /// Loads a checked module (decodes it and allocates its variables).
    pub fn load_checked(&self, checked: Arc<CheckedModule>) -> Result<ModuleId, VmError> {
        let lines = |s: ptxvm_syntax::Span| checked.source.locate(s).line;
        let prog = crate::error::catch(|| {
            program::decode(&checked.module, &lines, &self.mem).map_err(VmError::Usage)
        })?;
        let loaded = Arc::new(Loaded { checked, prog });
        let mut mods = self.modules.write().unwrap_or_else(|e| e.into_inner());
        let id = u32::try_from(mods.len()).map_err(|_| VmError::usage("too many modules"))?;
        mods.push(Some(loaded));
        Ok(ModuleId(id))
    }

    /// Unloads a module and frees its variables. Kernels already obtained keep the code
    /// alive; their variables are gone (an access faults as a use after free).
    pub fn unload(&self, m: ModuleId) -> Result<(), VmError> {
        let loaded = {
            let mut mods = self.modules.write().unwrap_or_else(|e| e.into_inner());
            mods.get_mut(m.0 as usize)
                .and_then(Option::take)
                .ok_or_else(|| VmError::usage("no such module"))?
        };
        for &a in &loaded.prog.var_allocs {
            let _ = self.mem.free(a);
        }
        Ok(())
    }

    fn module(&self, m: ModuleId) -> Result<Arc<Loaded>, VmError> {
        let mods = self.modules.read().unwrap_or_else(|e| e.into_inner());
        mods.get(m.0 as usize)
            .and_then(|x| x.clone())
            .ok_or_else(|| VmError::usage("no such module"))
    }

    /// Allocates zeroed device memory (aligned to 256 bytes).
    pub fn malloc(&self, bytes: u64) -> Result<u64, VmError> {
        self.mem
            .alloc(bytes, AllocKind::Device, "device allocation")
            .map_err(|e| VmError::usage(e.to_string()))
    }

    /// Makes `[addr, addr+size)` of device memory the address range of a multicast object
    /// with this one device bound (the `cuMulticast*` API; `ptxvm run --arg multicast:`):
    /// with one device the multicast range aliases the bound memory (the same bytes), and
    /// `multimem.*` instructions accept addresses inside it only. The range must lie in one
    /// live device allocation; freeing it ends the mapping.
    pub fn map_multicast(&self, addr: u64, size: u64) -> Result<(), VmError> {
        self.mem.map_multicast(addr, size).map_err(VmError::Usage)
    }

    /// Ends the multicast mapping starting at `addr` (the memory stays allocated).
    pub fn unmap_multicast(&self, addr: u64) -> Result<(), VmError> {
        self.mem
            .unmap_multicast(addr)
            .map(|_| ())
            .map_err(VmError::Usage)
    }

    /// Allocates zeroed device memory mapped as a multicast object of this one device
    /// ([`Device::malloc`] + [`Device::map_multicast`]); [`Device::free`] releases both.
    pub fn malloc_multicast(&self, bytes: u64) -> Result<u64, VmError> {
        let a = self.malloc(bytes)?;
        if let Err(e) = self.map_multicast(a, bytes) {
            let _ = self.free(a);
            return Err(e);
        }
        Ok(a)
    }

    /// Frees device memory.
    pub fn free(&self, addr: u64) -> Result<(), VmError> {
        self.mem.free(addr).map(|_| ()).map_err(VmError::Usage)
    }

    /// Host → device copy.
    pub fn write(&self, addr: u64, data: &[u8]) -> Result<(), VmError> {
        self.mem
            .write(addr, data)
            .map_err(|e| VmError::usage(format!("copy to device: {e}")))
    }

    /// Device → host copy.
    pub fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>, VmError> {
        let n = usize::try_from(len).map_err(|_| VmError::usage("copy size too large"))?;
        let mut v = Vec::new();
        v.try_reserve_exact(n)
            .map_err(|_| VmError::usage(format!("out of host memory reading {len} bytes")))?;
        v.resize(n, 0);
        self.mem
            .read(addr, &mut v)
            .map_err(|e| VmError::usage(format!("copy from device: {e}")))?;
        Ok(v)
    }

    /// Fills device memory.
    pub fn memset(&self, addr: u64, byte: u8, len: u64) -> Result<(), VmError> {
        self.mem
            .fill(addr, len, byte)
            .map_err(|e| VmError::usage(format!("memset: {e}")))
    }

    /// The device address and size of a module-scope `.global` or `.const` variable
    /// (as `cuModuleGetGlobal`): write it before a launch (`cudaMemcpyToSymbol`), read it after.
    pub fn global(&self, m: ModuleId, name: &str) -> Result<(u64, u64), VmError> {
        let l = self.module(m)?;
        l.prog.globals.get(name).copied().ok_or_else(|| {
            let mut names: Vec<&str> = l.prog.globals.keys().map(|s| s.as_str()).collect();
            names.sort();
            VmError::NotFound(format!(
                "the module has no `.global`/`.const` variable `{name}` (it has: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        })
    }

    /// The kernels (`.entry` functions with bodies) of a module.
    pub fn kernels(&self, m: ModuleId) -> Result<Vec<String>, VmError> {
        let l = self.module(m)?;
        Ok(kernel_names(&l))
    }

    /// A kernel of a module by name.
    pub fn kernel(&self, m: ModuleId, name: &str) -> Result<Kernel, VmError> {
        let l = self.module(m)?;
        match l.prog.by_name.get(name) {
            Some(&fi)
                if l.prog.funcs[fi as usize].is_entry && l.prog.funcs[fi as usize].defined =>
            {
                Ok(Kernel {
                    module: l.clone(),
                    index: fi,
                })
            }
            _ => Err(VmError::NotFound(format!(
                "no kernel `{name}` in the module (kernels: {})",
                kernel_names(&l).join(", ")
            ))),
        }
    }

    /// A kernel's parameters with their layout.
    pub fn params(&self, m: ModuleId, kernel: &str) -> Result<Vec<ParamInfo>, VmError> {
        Ok(self.kernel(m, kernel)?.params())
    }

    /// Launches a kernel; `args` holds each parameter's bytes, in order.
    pub fn launch(
        &self,
        m: ModuleId,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[&[u8]],
        stats: &mut Stats,
    ) -> Result<(), VmError> {
        let k = self.kernel(m, kernel)?;
        let params = k.params();
        if args.len() != params.len() {
            return Err(VmError::usage(format!(
                "kernel `{kernel}` takes {} parameters, {} given",
                params.len(),
                args.len()
            )));
        }
        let mut buf = vec![0u8; k.param_buffer_size() as usize];
        for (n, (a, pi)) in args.iter().zip(&params).enumerate() {
            let dst = (pi.offset as usize)
                .checked_add(a.len())
                .and_then(|end| buf.get_mut(pi.offset as usize..end));
            match dst {
                Some(dst) if a.len() == pi.size as usize => dst.copy_from_slice(a),
                _ => {
                    return Err(VmError::usage(format!(
                        "parameter {n} (`{}`, {} bytes) given {} bytes",
                        pi.name,
                        pi.size,
                        a.len()
                    )));
                }
            }
        }
        self.launch_kernel(&k, cfg, buf, stats)
    }

    /// Checks a launch configuration against the device and the kernel.
    pub fn check_launch(&self, k: &Kernel, cfg: &LaunchConfig) -> Result<(), VmError> {
        let kernel = k.name();
        let fc = &k.module.prog.funcs[k.index as usize];
        let p = &self.props;
        let threads = cfg.block.iter().map(|&x| x as u64).product::<u64>();
        if cfg.block.contains(&0) || cfg.grid.contains(&0) {
            return Err(VmError::usage(
                "grid and block dimensions must be at least 1",
            ));
        }
        if threads > p.max_threads_per_block as u64 {
            return Err(VmError::usage(format!(
                "block of {threads} threads exceeds the limit of {}",
                p.max_threads_per_block
            )));
        }
        for d in 0..3 {
            if cfg.block[d] > p.max_block_dim[d] || cfg.grid[d] > p.max_grid_dim[d] {
                return Err(VmError::usage(format!(
                    "dimension {d} of the grid ({}) or block ({}) exceeds the device limits (grid {:?}, block {:?})",
                    cfg.grid[d], cfg.block[d], p.max_grid_dim, p.max_block_dim
                )));
            }
        }
        if let Some(r) = fc.reqntid
            && r != cfg.block
        {
            return Err(VmError::usage(format!(
                "kernel `{kernel}` requires a block of {r:?} (.reqntid), launched with {:?}",
                cfg.block
            )));
        }
        let (cluster, _) = self.cluster_shape(k, cfg)?;
        if let Some(mx) = fc.maxntid
            && threads > mx.iter().map(|&x| x as u64).product::<u64>()
        {
            return Err(VmError::usage(format!(
                "kernel `{kernel}` allows at most {mx:?} threads (.maxntid), launched with {:?}",
                cfg.block
            )));
        }
        let shared = fc.dyn_base as u64 + cfg.shared_mem as u64;
        // (A CTA's shared memory must also fit its slot of the shared::cluster window.)
        if shared > p.max_shared_per_block as u64
            || shared >= crate::memory::CLUSTER_SHARED_STRIDE - exec::SHARED_ALLOC_UNIT as u64
        {
            return Err(VmError::usage(format!(
                "{shared} bytes of shared memory exceed the limit of {} per CTA",
                p.max_shared_per_block
            )));
        }
        // CUDA's register rule: registers (allocated per warp, in units of 8 per thread)
        // of all the block's warps within the register file of a block.
        let regs = k.regs(p.model);
        let need = regs.next_multiple_of(8) as u64 * 32 * threads.div_ceil(32);
        if need > p.max_registers_per_block as u64 {
            return Err(VmError::usage(format!(
                "too many resources requested for launch: kernel `{kernel}` needs about {regs} registers per thread (estimated from its PTX: the most 32-bit values live at once), {need} for a block of {threads} threads, more than the {} registers of a block; launch fewer threads per block, or bound the kernel with .maxntid or .maxnreg",
                p.max_registers_per_block
            )));
        }
        let stack = fc.local_size as u64 + fc.param_size as u64;
        if stack > p.local_per_thread as u64 {
            return Err(VmError::usage(format!(
                "kernel `{kernel}` needs {stack} bytes of local memory per thread ({} of local variables, {} of call parameters), more than the limit of {} (CUDA's maximum is 512 KiB)",
                fc.local_size, fc.param_size, p.local_per_thread
            )));
        }
        let base = exec::cta_base_memory(
            &k.module.prog,
            &Launch {
                kernel: k.index,
                engine: Engine::Reference,
                model: p.model,
                grid: cfg.grid,
                block: cfg.block,
                cluster: [1, 1, 1],
                explicit_cluster: false,
                dyn_shared: cfg.shared_mem,
                params: Vec::new(),
                max_steps: 0,
                local_size: 0,
                threads: 1,
                jit_wait: false,
                printf_fifo: 0,
                memory: 0,
            },
        );
        if base > p.launch_memory {
            return Err(VmError::usage(format!(
                "a CTA of {threads} threads of kernel `{kernel}` needs {base} bytes of interpreter state ({} registers of 8 bytes per thread), more than the launch memory limit of {} bytes",
                fc.reg_types.len(),
                p.launch_memory
            )));
        }
        // A cluster's CTAs are in flight together.
        let ctas = cluster.iter().map(|&x| x as u64).product::<u64>();
        if base.saturating_mul(ctas) > p.launch_memory {
            return Err(VmError::usage(format!(
                "a cluster of {ctas} CTAs of kernel `{kernel}` needs {} bytes of interpreter state ({base} per CTA), more than the launch memory limit of {} bytes",
                base.saturating_mul(ctas),
                p.launch_memory
            )));
        }
        Ok(())
    }

    /// The cluster shape of a launch and `%is_explicit_cluster`: the launch's shape, else
    /// the kernel's `.reqnctapercluster`, else 1×1×1; checked against the device and the
    /// kernel (`docs/limits.md`): a shape needs a device with clusters (sm_90+), must agree
    /// with `.reqnctapercluster` and be within `.maxclusterrank`, holds at most 8 CTAs (16
    /// with [`LaunchConfig::non_portable_cluster`]), and divides the grid in every
    /// dimension; a kernel with `.explicitcluster` must be given one.
    pub fn cluster_shape(
        &self,
        k: &Kernel,
        cfg: &LaunchConfig,
    ) -> Result<([u32; 3], bool), VmError> {
        let kernel = k.name();
        let fc = &k.module.prog.funcs[k.index as usize];
        let model = self.props.model;
        if let (Some(c), Some(r)) = (cfg.cluster, fc.cluster)
            && c != r
        {
            return Err(VmError::usage(format!(
                "kernel `{kernel}` requires clusters of {r:?} CTAs (.reqnctapercluster), launched with clusters of {c:?}"
            )));
        }
        let Some(c) = cfg.cluster.or(fc.cluster) else {
            if fc.explicitcluster {
                return Err(VmError::usage(format!(
                    "kernel `{kernel}` must be launched with a cluster shape (.explicitcluster): give one (--cluster X[,Y[,Z]])"
                )));
            }
            return Ok(([1, 1, 1], false));
        };
        if c.contains(&0) {
            return Err(VmError::usage(format!(
                "cluster dimensions must be at least 1, got {c:?}"
            )));
        }
        let n = c.iter().fold(1u64, |n, &x| n.saturating_mul(x as u64));
        if !model.clusters {
            return Err(VmError::usage(format!(
                "kernel `{kernel}` is launched with clusters of {c:?} CTAs, but the {} ({}) has no thread block clusters (sm_90 and later)",
                model.board, model.arch
            )));
        }
        if let Some(m) = fc.maxclusterrank
            && n > m as u64
        {
            return Err(VmError::usage(format!(
                "clusters of {c:?} ({n} CTAs) exceed kernel `{kernel}`'s .maxclusterrank {m}"
            )));
        }
        let max = if cfg.non_portable_cluster {
            MAX_CLUSTER_NON_PORTABLE
        } else {
            MAX_CLUSTER_PORTABLE
        };
        if n > max as u64 {
            return Err(VmError::usage(if n <= MAX_CLUSTER_NON_PORTABLE as u64 {
                format!(
                    "clusters of {c:?} ({n} CTAs) exceed the portable cluster size of {MAX_CLUSTER_PORTABLE} CTAs; allow non-portable sizes (up to {MAX_CLUSTER_NON_PORTABLE}) with --non-portable-cluster or CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED"
                )
            } else {
                format!(
                    "clusters of {c:?} ({n} CTAs) exceed the largest cluster of {MAX_CLUSTER_NON_PORTABLE} CTAs"
                )
            }));
        }
        if (0..3).any(|d| !cfg.grid[d].is_multiple_of(c[d])) {
            return Err(VmError::usage(format!(
                "the grid {:?} is not a multiple of the cluster shape {c:?} in every dimension",
                cfg.grid
            )));
        }
        Ok((c, true))
    }

    /// Launches a kernel with a complete parameter buffer (laid out per
    /// [`Kernel::params`]); device `printf` output and counters go to `stats`, also when
    /// the launch faults.
    pub fn launch_kernel(
        &self,
        k: &Kernel,
        cfg: &LaunchConfig,
        mut params: Vec<u8>,
        stats: &mut Stats,
    ) -> Result<(), VmError> {
        self.check_launch(k, cfg)?;
        let (cluster, explicit_cluster) = self.cluster_shape(k, cfg)?;
        params.resize(k.param_buffer_size() as usize, 0);
        let engine = cfg.engine.resolve().map_err(VmError::usage)?;
        // `auto` never waits for the JIT: once the kernel is hot (this launch's estimated
        // work, or what its launches ran so far, reaches `JIT_HOT`), it compiles in the
        // background while launches go on on the warp engine; `jit` compiles first.
        let jit_wait = cfg.engine == Engine::Jit;
        let auto_jit = engine == Engine::Jit && !jit_wait;
        let f = &k.module.prog.funcs[k.index as usize];
        if auto_jit {
            let ctas = cfg.grid.iter().map(|&x| x as u64).product::<u64>();
            let warps = cfg
                .block
                .iter()
                .map(|&x| x as u64)
                .product::<u64>()
                .div_ceil(32);
            let estimate = ctas
                .saturating_mul(warps)
                .saturating_mul(f.code.len() as u64);
            if estimate.saturating_add(f.jit_heat.load(std::sync::atomic::Ordering::Relaxed))
                >= JIT_HOT
            {
                self.compile_soon(k);
            }
        }
        let before = stats.warp_insts;
        let launch = Launch {
            kernel: k.index,
            engine,
            model: self.props.model,
            grid: cfg.grid,
            block: cfg.block,
            cluster,
            explicit_cluster,
            dyn_shared: cfg.shared_mem,
            params,
            max_steps: cfg.max_steps,
            local_size: self.props.local_per_thread,
            threads: if cfg.threads == 0 {
                host_cores()
            } else {
                cfg.threads
            },
            jit_wait,
            printf_fifo: cfg.printf_fifo,
            memory: self.props.launch_memory,
        };
        let r = crate::error::catch(|| {
            exec::run(&k.module.prog, &launch, &self.mem, stats).map_err(VmError::Fault)
        });
        if auto_jit && f.jit.get().is_none() {
            let ran = stats.warp_insts.saturating_sub(before);
            let heat = f
                .jit_heat
                .fetch_add(ran, std::sync::atomic::Ordering::Relaxed)
                .saturating_add(ran);
            if heat >= JIT_HOT {
                self.compile_soon(k);
            }
        }
        r
    }

    /// Queues kernel `k` for the background compiler (once). The job holds the module
    /// weakly: a module dropped before its turn is not compiled.
    fn compile_soon(&self, k: &Kernel) {
        let f = &k.module.prog.funcs[k.index as usize];
        if f.jit.get().is_some() || f.jit_queued.set(()).is_err() {
            return;
        }
        let (module, index) = (Arc::downgrade(&k.module), k.index as usize);
        exec::jit::compile_in_background(Box::new(move || {
            if let Some(m) = module.upgrade()
                && let Some(f) = m.prog.funcs.get(index)
            {
                let _ = exec::jit::code_for(f);
            }
        }));
    }
}

/// Warp instructions after which `auto` compiles a kernel: a launch estimated to run this
/// many (CTAs × warps × the kernel's instruction count), or launches that ran this many
/// between them on the warp engine. About 5–25 ms of the warp engine, the time a typical
/// kernel takes to compile: below it, compiling costs more than it saves.
pub const JIT_HOT: u64 = 256 * 1024;

/// The host's available cores, asked once (the query reads cgroup files: too slow to repeat
/// at every launch).
pub fn host_cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// A tensor map's bytes (`CUtensorMap`, 128 bytes, ptxvm's encoding: `docs/tma.md`).
pub type TensorMapBytes = [u8; crate::ops::tma::TMAP_BYTES];

/// `cuTensorMapEncodeTiled`: encodes a tiled tensor map with the driver's argument rules
/// (`crate::ops::tma::Tiled` holds the arguments as `CUtensorMap*` enum values); a broken rule
/// is a [`VmError::Usage`] naming the argument. The address is not checked against
/// allocations (a map may describe memory allocated later, as with the driver).
pub fn tensor_map_encode_tiled(a: &crate::ops::tma::Tiled) -> Result<TensorMapBytes, VmError> {
    crate::error::catch(|| {
        crate::ops::tma::encode_tiled(a)
            .map_err(|e| VmError::Usage(format!("cuTensorMapEncodeTiled: {e}")))
    })
}

/// `cuTensorMapEncodeIm2col` (see [`tensor_map_encode_tiled`]): a map for `.im2col` loads.
pub fn tensor_map_encode_im2col(a: &crate::ops::tma::Im2col) -> Result<TensorMapBytes, VmError> {
    crate::error::catch(|| {
        crate::ops::tma::encode_im2col(a)
            .map_err(|e| VmError::Usage(format!("cuTensorMapEncodeIm2col: {e}")))
    })
}

/// `cuTensorMapEncodeIm2colWide` (see [`tensor_map_encode_tiled`]): a map for
/// `.im2col::w`/`.im2col::w::128` loads.
pub fn tensor_map_encode_im2col_wide(
    a: &crate::ops::tma::Im2colWide,
) -> Result<TensorMapBytes, VmError> {
    crate::error::catch(|| {
        crate::ops::tma::encode_im2col_wide(a)
            .map_err(|e| VmError::Usage(format!("cuTensorMapEncodeIm2colWide: {e}")))
    })
}

/// `cuTensorMapReplaceAddress`: the map with its global address replaced (the address must
/// keep the map's alignment rule).
pub fn tensor_map_replace_address(map: &mut TensorMapBytes, addr: u64) -> Result<(), VmError> {
    crate::error::catch(|| {
        crate::ops::tma::replace_address(map, addr)
            .map_err(|e| VmError::Usage(format!("cuTensorMapReplaceAddress: {e}")))
    })
}

fn kernel_names(l: &Loaded) -> Vec<String> {
    l.checked.kernel_names()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 300 64-bit values live at once (about 600 32-bit units: the register estimate is the
    /// pressure, not the declarations) and the given tuning directives.
    fn big_kernel(tuning: &str) -> String {
        let loads: String = (2..300)
            .map(|i| format!(" ld.global.u64 %rd{i}, [%rd1+{}];\n", 8 * i))
            .collect();
        let stores: String = (2..300)
            .map(|i| format!(" st.global.u64 [%rd1+{}], %rd{i};\n", 8 * i))
            .collect();
        format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 p) {tuning}\n{{\n\
             .reg .b64 %rd<300>;\n ld.param.u64 %rd1, [p];\n{loads}{stores} ret;\n}}\n"
        )
    }

    fn attrs(tuning: &str) -> KernelAttrs {
        let dev = Device::new();
        let m = dev.load_ptx("k.ptx", &big_kernel(tuning)).unwrap();
        dev.kernel(m, "k")
            .unwrap()
            .attrs(crate::arch::model("sm_80").unwrap())
    }

    #[test]
    fn registers_fit_the_launch_bounds() {
        // No bounds: the register pressure, up to the per-thread limit.
        let a = attrs("");
        assert_eq!(a.regs, 255);
        assert_eq!(a.max_threads, 256);
        // .maxntid 512: a 512-thread block must fit the 64K register file.
        let a = attrs(".maxntid 512, 1, 1");
        assert_eq!((a.regs, a.max_threads), (128, 512));
        let a = attrs(".reqntid 32, 8, 1");
        assert_eq!((a.regs, a.max_threads), (255, 256));
        let a = attrs(".reqntid 1024, 1, 1");
        assert_eq!((a.regs, a.max_threads), (64, 1024));
        // .minnctapersm 2 of 256 threads: 16 warps share the SM.
        let a = attrs(".maxntid 256, 1, 1 .minnctapersm 2");
        assert_eq!((a.regs, a.max_threads), (128, 256));
        let a = attrs(".maxnreg 40");
        assert_eq!(a.regs, 40);
        // An odd block size rounds up to whole warps and down to the allocation unit.
        let a = attrs(".maxntid 96, 1, 1");
        assert_eq!(a.regs, 255);
        let a = attrs(".maxntid 640, 1, 1");
        assert_eq!((a.regs, a.max_threads), (96, 640));
    }
}
