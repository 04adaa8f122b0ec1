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
//! let mut dev = Device::new();
//! let m = dev.load_ptx("twice.ptx", ptx).unwrap();
//! let out = dev.malloc(8 * 4).unwrap();
//! let cfg = LaunchConfig { grid: [1, 1, 1], block: [8, 1, 1], ..LaunchConfig::default() };
//! dev.launch(m, "twice", &cfg, &[&out.to_le_bytes(), &8u32.to_le_bytes()]).unwrap();
//! let bytes = dev.read(out, 32).unwrap();
//! let vals: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
//! assert_eq!(vals, [0, 2, 4, 6, 8, 10, 12, 14]);
//! ```

use crate::error::VmError;
use crate::exec::{self, Launch, Stats};
use crate::memory::GlobalMemory;
use crate::program::{self, Program};
use ptxvm_syntax::Source;

/// Documented properties of the virtual device.
#[derive(Debug, Clone)]
pub struct DeviceProps {
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    pub max_block_dim: [u32; 3],
    pub max_grid_dim: [u32; 3],
    /// Shared memory per CTA (static + dynamic), bytes.
    pub max_shared_per_block: u32,
    /// Registers per CTA (32-bit registers).
    pub max_registers_per_block: u32,
    /// Global memory the device may allocate, bytes.
    pub global_memory: u64,
    /// Local memory per thread, bytes.
    pub local_per_thread: u32,
}

impl Default for DeviceProps {
    fn default() -> Self {
        DeviceProps {
            warp_size: 32,
            max_threads_per_block: 1024,
            max_block_dim: [1024, 1024, 64],
            max_grid_dim: [i32::MAX as u32, 65535, 65535],
            max_shared_per_block: 227 * 1024,
            max_registers_per_block: 65536,
            global_memory: 4 << 30,
            local_per_thread: 64 * 1024,
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
    /// Warp-instruction budget (a runaway loop faults when it is used up).
    pub max_steps: u64,
    /// Host threads that run CTAs in parallel; 0 means one per available core.
    pub threads: usize,
}

/// Default warp-instruction budget of a launch: 10^8 warp instructions (up to 3.2·10^9
/// thread instructions), about a minute and a half of the interpreter at full warps on one
/// core. Larger real workloads raise it (`LaunchConfig::max_steps`, `--max-steps`); a runaway
/// loop is reported within that time instead of after half an hour.
pub const DEFAULT_MAX_STEPS: u64 = 100_000_000;

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            shared_mem: 0,
            max_steps: DEFAULT_MAX_STEPS,
            threads: 0,
        }
    }
}

/// A loaded module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

struct Loaded {
    ir: ptxvm_ir::ir::Module,
    prog: Program,
}

/// The virtual device.
pub struct Device {
    pub props: DeviceProps,
    pub mem: GlobalMemory,
    modules: Vec<Loaded>,
    /// `printf` output of the last launch, kept also when it faulted (what a kernel
    /// printed before an assertion is often the point).
    pub last_printf: Vec<u8>,
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
            mem: GlobalMemory::new(props.global_memory),
            props,
            modules: Vec::new(),
            last_printf: Vec::new(),
        }
    }

    /// Checks and loads a PTX module; allocates its `.global`/`.const` variables.
    pub fn load_ptx(&mut self, name: &str, text: &str) -> Result<ModuleId, VmError> {
        let (src, pre) = Source::new(name, text.to_string(), None);
        self.load_source(&src, pre)
    }

    /// Loads an already-read source (with its preprocessing diagnostics).
    pub fn load_source(
        &mut self,
        src: &Source,
        pre: Vec<ptxvm_syntax::Diagnostic>,
    ) -> Result<ModuleId, VmError> {
        let checked = ptxvm_ir::check(src);
        let errors: Vec<String> = pre
            .iter()
            .chain(&checked.diags)
            .filter(|d| d.is_error())
            .map(|d| {
                let l = src.locate(d.span);
                format!("{}:{}:{}: {}", l.file, l.line, l.col, d.message)
            })
            .collect();
        if !errors.is_empty() {
            return Err(VmError::Invalid(errors.join("\n")));
        }
        let lines = |s: ptxvm_syntax::Span| src.locate(s).line;
        let prog =
            program::decode(&checked.module, &lines, &mut self.mem).map_err(VmError::Usage)?;
        self.modules.push(Loaded {
            ir: checked.module,
            prog,
        });
        Ok(ModuleId(self.modules.len() as u32 - 1))
    }

    /// Allocates zeroed device memory (aligned to 256 bytes).
    pub fn malloc(&mut self, bytes: u64) -> Result<u64, VmError> {
        self.mem
            .alloc(bytes, "device allocation")
            .ok_or_else(|| VmError::usage(format!("out of device memory allocating {bytes} bytes")))
    }

    /// Frees device memory.
    pub fn free(&mut self, addr: u64) -> Result<(), VmError> {
        self.mem.free(addr).map_err(VmError::Usage)
    }

    /// Host → device copy.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), VmError> {
        self.mem
            .write(addr, data)
            .map_err(|e| VmError::usage(format!("copy to device: {e:?}")))
    }

    /// Device → host copy.
    pub fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>, VmError> {
        let mut v = vec![0; len as usize];
        self.mem
            .read(addr, &mut v)
            .map_err(|e| VmError::usage(format!("copy from device: {e:?}")))?;
        Ok(v)
    }

    /// Fills device memory.
    pub fn memset(&mut self, addr: u64, byte: u8, len: u64) -> Result<(), VmError> {
        self.mem
            .fill(addr, len, byte)
            .map_err(|e| VmError::usage(format!("memset: {e:?}")))
    }

    /// The kernels (`.entry` functions with bodies) of a module.
    /// The device address and size of a module-scope `.global` or `.const` variable
    /// (as `cuModuleGetGlobal`): write it before a launch (`cudaMemcpyToSymbol`), read it after.
    pub fn global(&self, m: ModuleId, name: &str) -> Result<(u64, u64), VmError> {
        let l = self
            .modules
            .get(m.0 as usize)
            .ok_or_else(|| VmError::usage("no such module"))?;
        l.prog.globals.get(name).copied().ok_or_else(|| {
            let mut names: Vec<&str> = l.prog.globals.keys().map(|s| s.as_str()).collect();
            names.sort();
            VmError::usage(format!(
                "the module has no `.global`/`.const` variable `{name}` (it has: {})",
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            ))
        })
    }

    pub fn kernels(&self, m: ModuleId) -> Vec<String> {
        self.modules[m.0 as usize]
            .ir
            .funcs
            .iter()
            .filter(|f| f.defined && f.kind == Some(ptxvm_ir::ir::FuncKind::Entry))
            .map(|f| f.name.clone())
            .collect()
    }

    /// A kernel's parameters with their layout.
    pub fn params(&self, m: ModuleId, kernel: &str) -> Result<Vec<ParamInfo>, VmError> {
        let l = &self.modules[m.0 as usize];
        let fi = self.kernel_index(m, kernel)?;
        let f = &l.ir.funcs[fi as usize];
        let fc = &l.prog.funcs[fi as usize];
        Ok(f.params
            .iter()
            .enumerate()
            .map(|(k, v)| ParamInfo {
                name: v.name.clone(),
                ty: v.ty,
                size: v.size as u32,
                align: v.align,
                offset: fc.param_offsets[k],
                is_array: !v.dims.is_empty(),
            })
            .collect())
    }

    fn kernel_index(&self, m: ModuleId, kernel: &str) -> Result<u32, VmError> {
        let l = self
            .modules
            .get(m.0 as usize)
            .ok_or_else(|| VmError::usage("unknown module"))?;
        match l.prog.by_name.get(kernel) {
            Some(&fi)
                if l.prog.funcs[fi as usize].is_entry && l.prog.funcs[fi as usize].defined =>
            {
                Ok(fi)
            }
            _ => Err(VmError::usage(format!(
                "no kernel `{kernel}` in the module (kernels: {})",
                self.kernels(m).join(", ")
            ))),
        }
    }

    /// Launches a kernel; `args` holds each parameter's bytes, in order.
    pub fn launch(
        &mut self,
        m: ModuleId,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[&[u8]],
    ) -> Result<Stats, VmError> {
        let fi = self.kernel_index(m, kernel)?;
        let params = self.params(m, kernel)?;
        let l = &self.modules[m.0 as usize];
        let fc = &l.prog.funcs[fi as usize];
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
        for k in 0..3 {
            if cfg.block[k] > p.max_block_dim[k] || cfg.grid[k] > p.max_grid_dim[k] {
                return Err(VmError::usage(format!(
                    "dimension {k} of the grid ({}) or block ({}) exceeds the device limits (grid {:?}, block {:?})",
                    cfg.grid[k], cfg.block[k], p.max_grid_dim, p.max_block_dim
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
        if let Some(c) = fc.cluster
            && c != [1, 1, 1]
        {
            return Err(VmError::usage(format!(
                "kernel `{kernel}` requires clusters of {c:?} CTAs (.reqnctapercluster); ptxvm runs every CTA as its own 1x1x1 cluster (multi-CTA clusters are not supported yet)"
            )));
        }
        if let Some(mx) = fc.maxntid
            && threads > mx.iter().map(|&x| x as u64).product::<u64>()
        {
            return Err(VmError::usage(format!(
                "kernel `{kernel}` allows at most {mx:?} threads (.maxntid), launched with {:?}",
                cfg.block
            )));
        }
        let shared = l.prog.shared_size as u64 + cfg.shared_mem as u64;
        if shared > p.max_shared_per_block as u64 {
            return Err(VmError::usage(format!(
                "{shared} bytes of shared memory exceed the limit of {} per CTA",
                p.max_shared_per_block
            )));
        }
        if args.len() != params.len() {
            return Err(VmError::usage(format!(
                "kernel `{kernel}` takes {} parameters, {} given",
                params.len(),
                args.len()
            )));
        }
        let mut buf = vec![0u8; fc.kparam_size as usize];
        for (k, (a, pi)) in args.iter().zip(&params).enumerate() {
            if a.len() != pi.size as usize {
                return Err(VmError::usage(format!(
                    "parameter {k} (`{}`, {} bytes) given {} bytes",
                    pi.name,
                    pi.size,
                    a.len()
                )));
            }
            buf[pi.offset as usize..pi.offset as usize + a.len()].copy_from_slice(a);
        }
        let launch = Launch {
            kernel: fi,
            grid: cfg.grid,
            block: cfg.block,
            dyn_shared: cfg.shared_mem,
            params: buf,
            max_steps: cfg.max_steps,
            local_size: p.local_per_thread,
            threads: if cfg.threads == 0 {
                std::thread::available_parallelism().map_or(1, |n| n.get())
            } else {
                cfg.threads
            },
        };
        let mut stats = Stats::default();
        let shared = crate::memory::SharedMemory::new(std::mem::replace(
            &mut self.mem,
            GlobalMemory::new(0),
        ));
        let r = exec::run(&l.prog, &launch, &shared, &mut stats);
        self.mem = shared.into_inner();
        self.last_printf = stats.printf.clone();
        r.map_err(VmError::Fault)?;
        Ok(stats)
    }
}
