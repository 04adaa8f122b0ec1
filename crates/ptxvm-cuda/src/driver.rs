//! The driver's state: configuration from the environment, the emulated devices, the handle
//! tables, each host thread's context stack, and [`api`], the wrapper every exported entry
//! point runs its body in (panics caught, errors reported, calls traced).

use crate::abi::Handle;
use crate::context::Context;
use crate::diag;
use crate::handle::{Kind, Table};
use crate::launch::Function;
use crate::memory::Pool;
use crate::module::{KernelObj, Library, Link, Module};
use crate::stream::{Event, Stream};
use crate::types::*;
use ptxvm_vm::arch::GpuModel;
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The driver version reported by `cuDriverGetVersion`: CUDA 13.5 (NVIDIA's 13.x runtimes
/// refuse a driver older than 13.0; 12.x runtimes accept any newer driver).
pub const DRIVER_VERSION: i32 = 13050;

/// An error of an entry point: the code returned, and a message. Loud messages always go to
/// stderr (the user needs them: a module that does not compile, an unsupported feature);
/// quiet ones only with `PTXVM_LOG` (probes that are expected to fail).
#[derive(Debug)]
pub struct Error {
    pub code: CUresult,
    pub msg: Option<String>,
    pub loud: bool,
}

pub type R<T = ()> = Result<T, Error>;

impl Error {
    pub fn code(code: CUresult) -> Error {
        Error {
            code,
            msg: None,
            loud: false,
        }
    }
    pub fn quiet(code: CUresult, msg: impl Into<String>) -> Error {
        Error {
            code,
            msg: Some(msg.into()),
            loud: false,
        }
    }
    pub fn loud(code: CUresult, msg: impl Into<String>) -> Error {
        Error {
            code,
            msg: Some(msg.into()),
            loud: true,
        }
    }
}

impl From<CUresult> for Error {
    fn from(code: CUresult) -> Error {
        Error::code(code)
    }
}

/// How much the driver says on stderr (`PTXVM_LOG`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Log {
    /// Loud errors and kernel faults only (the default).
    Errors,
    /// Also every failed call (`PTXVM_LOG=1`/`errors`).
    Failures,
    /// Also every call (`PTXVM_LOG=api`).
    Calls,
}

/// Settings read from the environment at `cuInit`.
#[derive(Debug, Clone)]
pub struct Config {
    /// `PTXVM_ARCH`: the emulated GPU (default sm_80).
    pub model: &'static GpuModel,
    /// `PTXVM_ENGINE`: the execution engine (default auto).
    pub engine: ptxvm_vm::Engine,
    /// `PTXVM_DEVICES`: how many devices (default 1, at most 16).
    pub devices: usize,
    /// `PTXVM_THREADS`: host threads per launch (0 = all cores).
    pub threads: usize,
    /// `PTXVM_MAX_STEPS`: warp-instruction budget per launch.
    pub max_steps: u64,
    /// `PTXVM_DEVICE_MEMORY`: bytes of device memory per device.
    pub memory: u64,
    pub log: Log,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|s| !s.trim().is_empty())
}

/// Parses a byte count with an optional K/M/G/T suffix.
pub fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, mult) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&s[..i], 1 << 20),
        (i, 'g' | 'G') => (&s[..i], 1 << 30),
        (i, 't' | 'T') => (&s[..i], 1 << 40),
        _ => (s, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(mult)
}

impl Config {
    fn from_env() -> Result<Config, String> {
        let model = match env("PTXVM_ARCH") {
            Some(a) => ptxvm_vm::arch::model(&a).ok_or_else(|| {
                format!(
                    "PTXVM_ARCH={a} is not an emulated GPU (known: {})",
                    ptxvm_vm::arch::names().join(", ")
                )
            })?,
            None => ptxvm_vm::arch::default_model(),
        };
        let num = |name: &str, default: u64, max: u64| -> Result<u64, String> {
            match env(name) {
                Some(v) => match v.trim().parse::<u64>() {
                    Ok(n) if n <= max => Ok(n),
                    _ => Err(format!("{name}={v} is not a number from 0 to {max}")),
                },
                None => Ok(default),
            }
        };
        let devices = num("PTXVM_DEVICES", 1, 16)?.max(1) as usize;
        let threads = num("PTXVM_THREADS", 0, 1024)? as usize;
        let max_steps = num("PTXVM_MAX_STEPS", ptxvm_vm::DEFAULT_MAX_STEPS, u64::MAX / 2)?;
        let memory = match env("PTXVM_DEVICE_MEMORY") {
            Some(v) => parse_bytes(&v)
                .filter(|&b| b > 0)
                .ok_or_else(|| format!("PTXVM_DEVICE_MEMORY={v} is not a byte count"))?,
            None => ptxvm_vm::device::DEFAULT_GLOBAL_MEMORY,
        };
        let engine = match env("PTXVM_ENGINE") {
            None => ptxvm_vm::Engine::Auto,
            Some(e) => {
                let engine = ptxvm_vm::Engine::parse(&e).ok_or_else(|| {
                    format!(
                        "PTXVM_ENGINE={e} is not an engine (engines: {})",
                        ptxvm_vm::Engine::NAMES.join(", ")
                    )
                })?;
                engine
                    .resolve()
                    .map_err(|why| format!("PTXVM_ENGINE={e}: {why}"))?;
                engine
            }
        };
        let log = match env("PTXVM_LOG").as_deref() {
            None | Some("0") | Some("off") => Log::Errors,
            Some("api") | Some("calls") | Some("2") => Log::Calls,
            Some(_) => Log::Failures,
        };
        Ok(Config {
            engine,
            model,
            devices,
            threads,
            max_steps,
            memory,
            log,
        })
    }
}

/// The primary context of a device: one handle for the life of the process, retained and
/// released by count; at zero it is reset (its memory, modules and streams are gone).
#[derive(Debug, Default)]
pub struct Primary {
    pub handle: usize,
    pub refs: u32,
    pub flags: u32,
}

/// Who owns an allocation (for `cuPointerGetAttribute` and for freeing on context reset).
#[derive(Debug, Clone, Copy)]
pub struct Owner {
    pub ctx: usize,
    /// `cuMemHostAlloc` flags, or 0.
    pub flags: u32,
    /// The pool it came from (`cuMemAllocAsync`).
    pub pool: usize,
}

/// One emulated device.
pub struct Dev {
    pub ordinal: i32,
    pub vm: Arc<ptxvm_vm::Device>,
    pub primary: Mutex<Primary>,
    pub uuid: [u8; 16],
    pub owners: Mutex<HashMap<u64, Owner>>,
    /// The device's default memory pool and the one `cuDeviceSetMemPool` chose.
    pub default_pool: usize,
    pub current_pool: AtomicUsize,
}

impl Dev {
    pub fn model(&self) -> &'static GpuModel {
        self.vm.props.model
    }
}

/// The whole driver.
pub struct Driver {
    pub config: Config,
    pub devices: Vec<Dev>,
    pub contexts: Table<Context>,
    pub modules: Table<Module>,
    pub functions: Table<Function>,
    pub streams: Table<Stream>,
    pub events: Table<Event>,
    pub libraries: Table<Library>,
    pub kernels: Table<KernelObj>,
    pub links: Table<Link>,
    pub pools: Table<Pool>,
    pub phys: Table<crate::vmm::PhysMem>,
    pub arrays: Table<crate::texture::CuArray>,
    pub mipmaps: Table<crate::texture::CuMipmap>,
    pub multicast: Table<crate::multicast::Multicast>,
    /// Checked modules by content hash: a program that loads the same PTX many times
    /// parses and checks it once.
    pub module_cache: Mutex<HashMap<u64, Arc<ptxvm_vm::CheckedModule>>>,
}

static DRIVER: OnceLock<Result<Driver, String>> = OnceLock::new();
static INIT_CALLED: AtomicBool = AtomicBool::new(false);

fn build() -> Result<Driver, String> {
    let config = Config::from_env()?;
    let pools = Table::new(Kind::Pool);
    let devices = (0..config.devices)
        .map(|i| {
            let mut props = ptxvm_vm::DeviceProps::for_model(config.model);
            props.global_memory = config.memory;
            let mut uuid = *b"ptxvm-device-\0\0\0";
            uuid[13] = i as u8;
            uuid[14] = config.model.major as u8;
            uuid[15] = config.model.minor as u8;
            let default_pool = pools.insert(Arc::new(Pool::new(i as i32)));
            Dev {
                ordinal: i as i32,
                vm: Arc::new(ptxvm_vm::Device::with_props(props)),
                primary: Mutex::new(Primary::default()),
                uuid,
                owners: Mutex::new(HashMap::new()),
                default_pool,
                current_pool: AtomicUsize::new(default_pool),
            }
        })
        .collect();
    Ok(Driver {
        config,
        devices,
        contexts: Table::new(Kind::Context),
        modules: Table::new(Kind::Module),
        functions: Table::new(Kind::Function),
        streams: Table::new(Kind::Stream),
        events: Table::new(Kind::Event),
        libraries: Table::new(Kind::Library),
        kernels: Table::new(Kind::Kernel),
        links: Table::new(Kind::Link),
        pools,
        phys: Table::new(Kind::PhysMem),
        arrays: Table::new(Kind::Array),
        mipmaps: Table::new(Kind::Mipmap),
        multicast: Table::new(Kind::Multicast),
        module_cache: Mutex::new(HashMap::new()),
    })
}

/// Initialises the driver (`cuInit`): reads the configuration; idempotent.
pub fn init() -> R {
    INIT_CALLED.store(true, Ordering::Release);
    match DRIVER.get_or_init(|| {
        let d = build();
        if let Ok(d) = &d {
            crate::dark::set_hooks(crate::entry::dark_hooks());
            if d.config.log >= Log::Calls {
                diag::say(&format!(
                    "driver initialised: {} device(s) of {} ({}), {} bytes each",
                    d.devices.len(),
                    d.config.model.arch,
                    d.config.model.board,
                    d.config.memory
                ));
            }
        }
        d
    }) {
        Ok(_) => Ok(()),
        Err(e) => Err(Error::loud(CUDA_ERROR_INVALID_VALUE, e.clone())),
    }
}

/// The driver, once `cuInit` succeeded.
pub fn drv() -> R<&'static Driver> {
    if !INIT_CALLED.load(Ordering::Acquire) {
        return Err(Error::code(CUDA_ERROR_NOT_INITIALIZED));
    }
    match DRIVER.get() {
        Some(Ok(d)) => Ok(d),
        _ => Err(Error::code(CUDA_ERROR_NOT_INITIALIZED)),
    }
}

/// The driver if it is initialised, without an error (for logging and hooks).
pub fn try_drv() -> Option<&'static Driver> {
    match DRIVER.get() {
        Some(Ok(d)) => Some(d),
        _ => None,
    }
}

impl Driver {
    pub fn dev(&self, ordinal: i32) -> R<&Dev> {
        usize::try_from(ordinal)
            .ok()
            .and_then(|i| self.devices.get(i))
            .ok_or(Error::code(CUDA_ERROR_INVALID_DEVICE))
    }

    /// The device whose address space holds `addr`, with the allocation.
    pub fn find_alloc(&self, addr: u64) -> Option<(&Dev, ptxvm_vm::memory::AllocInfo)> {
        self.devices
            .iter()
            .find_map(|d| d.vm.mem.lookup(addr).map(|a| (d, a)))
    }
}

thread_local! {
    /// This host thread's context stack (handles); the top is the current context.
    static STACK: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The current context's handle, if any.
pub fn current_handle() -> Option<usize> {
    STACK
        .try_with(|s| s.borrow().last().copied())
        .ok()
        .flatten()
}

/// Runs `f` on this thread's context stack.
pub fn with_stack<T>(f: impl FnOnce(&mut Vec<usize>) -> T) -> Option<T> {
    STACK.try_with(|s| f(&mut s.borrow_mut())).ok()
}

/// The current context (`CUDA_ERROR_INVALID_CONTEXT` when there is none).
pub fn current() -> R<(usize, Arc<Context>)> {
    let d = drv()?;
    let h = current_handle().ok_or(Error::code(CUDA_ERROR_INVALID_CONTEXT))?;
    let c = d
        .contexts
        .get(h)
        .ok_or(Error::code(CUDA_ERROR_INVALID_CONTEXT))?;
    if !c.is_active() {
        return Err(Error::code(CUDA_ERROR_CONTEXT_IS_DESTROYED));
    }
    Ok((h, c))
}

/// A context by handle; NULL means the current one.
pub fn context(h: Handle) -> R<(usize, Arc<Context>)> {
    if h.is_null() {
        return current();
    }
    let d = drv()?;
    let c = d
        .contexts
        .get(h as usize)
        .ok_or(Error::code(CUDA_ERROR_INVALID_CONTEXT))?;
    if !c.is_active() {
        return Err(Error::code(CUDA_ERROR_CONTEXT_IS_DESTROYED));
    }
    Ok((h as usize, c))
}

/// Runs an entry point's body: catches panics (an internal error becomes
/// `CUDA_ERROR_UNKNOWN` with a message, never an unwind into C), reports errors and traces.
pub fn api(name: &'static str, f: impl FnOnce() -> R) -> CUresult {
    let log = try_drv().map_or(Log::Errors, |d| d.config.log);
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => {
            if log >= Log::Calls {
                diag::say(&format!("{name} -> CUDA_SUCCESS"));
            }
            CUDA_SUCCESS
        }
        Ok(Err(e)) => {
            let ename = error_name(e.code)
                .and_then(|c| c.to_str().ok())
                .unwrap_or("?");
            match &e.msg {
                Some(m) if e.loud || log >= Log::Failures => {
                    diag::say(&format!("{name}: {ename}: {m}"))
                }
                None if log >= Log::Failures => diag::say(&format!("{name} -> {ename}")),
                _ => {}
            }
            e.code
        }
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            diag::say(&format!(
                "{name}: internal error ({what}); returning CUDA_ERROR_UNKNOWN. Please report this."
            ));
            CUDA_ERROR_UNKNOWN
        }
    }
}

/// Writes `v` through an out-pointer (`CUDA_ERROR_INVALID_VALUE` for NULL).
///
/// # Safety
/// `p` is NULL or valid for a write of `T` (the client's promise).
pub unsafe fn out<T>(p: *mut T, v: T) -> R {
    if p.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: non-null and valid per the caller.
    unsafe { p.write_unaligned(v) };
    Ok(())
}

/// Reads a C string argument (`CUDA_ERROR_INVALID_VALUE` for NULL or non-UTF-8).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
pub unsafe fn cstr<'a>(p: *const std::ffi::c_char) -> R<&'a str> {
    if p.is_null() {
        return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
    }
    // SAFETY: NUL-terminated per the caller.
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| Error::quiet(CUDA_ERROR_INVALID_VALUE, "a name is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts() {
        assert_eq!(parse_bytes("16G"), Some(16 << 30));
        assert_eq!(parse_bytes("512"), Some(512));
        assert_eq!(parse_bytes("3 m"), Some(3 << 20));
        assert_eq!(parse_bytes("x"), None);
        assert_eq!(parse_bytes("99999999999999999999T"), None);
    }
}
