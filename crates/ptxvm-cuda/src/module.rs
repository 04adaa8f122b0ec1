//! Modules, libraries and the linker: images (PTX text, fatbins, the runtime's fatbin
//! wrappers) are turned into checked PTX (`image.rs` picks the entry), checked once per
//! content (the driver's module cache), and loaded into the current context's device;
//! kernels and module variables are found by name. JIT options receive ptxvm's own
//! diagnostics in their log buffers.

use crate::abi::*;
use crate::driver::{Driver, Error, R, api, cstr, current, drv, out};
use crate::image::{self, Image, ImageError};
use crate::launch::Function;
use crate::types::*;
use ptxvm_vm::container::Container;
use ptxvm_vm::{CheckedModule, ModuleId};
use std::collections::HashMap;
use std::ffi::{c_char, c_void};
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// A module loaded in a context.
pub struct Module {
    pub ctx: usize,
    pub dev: i32,
    pub id: ModuleId,
    pub checked: Arc<CheckedModule>,
    /// Function handles by kernel name (one handle per kernel, as the real driver).
    pub functions: Mutex<HashMap<String, usize>>,
}

/// A library (`cuLibraryLoad*`): context-independent; loaded into a context's module on
/// first use there.
pub struct Library {
    /// The checked PTX, or why the image cannot run here. A fatbin with SASS only is
    /// accepted at load (NVIDIA's runtime registers every fatbin of a program at start-up,
    /// and the real driver loads libraries lazily): the error comes when a kernel or variable
    /// of it is first used, as `cudaErrorNoKernelImageForDevice` does on a GPU.
    pub image: Result<Arc<CheckedModule>, Deferred>,
    pub modules: Mutex<HashMap<usize, usize>>,
    pub kernels: Mutex<HashMap<String, usize>>,
}

/// A library image ptxvm cannot run, kept to report when the library is used.
pub struct Deferred {
    pub code: CUresult,
    pub message: String,
    reported: std::sync::atomic::AtomicBool,
}

impl Library {
    /// The checked PTX, or the deferred load error (said once on stderr).
    pub fn checked(&self, what: &str) -> R<&Arc<CheckedModule>> {
        match &self.image {
            Ok(c) => Ok(c),
            Err(d) => {
                let first = !d.reported.swap(true, std::sync::atomic::Ordering::Relaxed);
                let msg = format!("{what}: {}", d.message);
                Err(if first {
                    Error::loud(d.code, msg)
                } else {
                    Error::quiet(d.code, msg)
                })
            }
        }
    }
}

/// A kernel of a library (`CUkernel`).
pub struct KernelObj {
    pub library: usize,
    pub name: String,
    /// Attributes set with `cuKernelSetAttribute`, applied to its functions.
    pub attrs: Mutex<Vec<(i32, i32)>>,
}

/// A link in progress (`cuLinkCreate`).
pub struct Link {
    pub inputs: Mutex<Vec<ptxvm_vm::link::LinkInput>>,
    pub logs: Mutex<JitLogs>,
    /// The linked image, valid until `cuLinkDestroy`.
    pub output: Mutex<Option<Vec<u8>>>,
}

/// The log buffers and outputs of JIT options.
#[derive(Default)]
pub struct JitLogs {
    info: Option<(*mut c_char, *mut c_void)>,
    error: Option<(*mut c_char, *mut c_void)>,
    wall: Option<*mut c_void>,
}

// SAFETY: the buffers belong to the client, which keeps them valid while the link lives;
// they are written only from the calling thread of a link entry point.
unsafe impl Send for JitLogs {}

impl JitLogs {
    /// Reads `cuModuleLoadDataEx`/`cuLinkCreate` options.
    ///
    /// # Safety
    /// `opts` and `vals` hold `n` entries (or `n` is 0).
    pub unsafe fn parse(n: u32, opts: *const i32, vals: *mut *mut c_void) -> R<JitLogs> {
        let mut logs = JitLogs::default();
        if n == 0 {
            return Ok(logs);
        }
        if opts.is_null() || vals.is_null() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let mut info_buf = None;
        let mut info_size = None;
        let mut err_buf = None;
        let mut err_size = None;
        for i in 0..n as usize {
            // SAFETY: `n` entries, per the caller.
            let (o, v) = unsafe { (*opts.add(i), vals.add(i)) };
            match o {
                CU_JIT_INFO_LOG_BUFFER => info_buf = Some(unsafe { *v } as *mut c_char),
                CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES => info_size = Some(v.cast::<c_void>()),
                CU_JIT_ERROR_LOG_BUFFER => err_buf = Some(unsafe { *v } as *mut c_char),
                CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES => err_size = Some(v.cast::<c_void>()),
                CU_JIT_WALL_TIME => logs.wall = Some(v.cast::<c_void>()),
                _ => {}
            }
        }
        if let (Some(b), Some(s)) = (info_buf, info_size) {
            logs.info = Some((b, s));
        }
        if let (Some(b), Some(s)) = (err_buf, err_size) {
            logs.error = Some((b, s));
        }
        Ok(logs)
    }

    /// Writes a log into a client buffer: the size option holds the capacity on input and
    /// the bytes written (without the NUL) on output.
    fn put(slot: Option<(*mut c_char, *mut c_void)>, text: &str) {
        let Some((buf, size)) = slot else { return };
        if buf.is_null() || size.is_null() {
            return;
        }
        // SAFETY: the option value slot holds the capacity as a pointer-sized integer, and
        // `buf` has that many bytes (the client's promise).
        unsafe {
            let cap = *(size as *mut usize);
            if cap == 0 {
                return;
            }
            let n = text.len().min(cap - 1);
            std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), n);
            *buf.add(n) = 0;
            *(size as *mut usize) = n;
        }
    }

    pub fn info(&self, text: &str) {
        Self::put(self.info, text);
    }

    pub fn error(&self, text: &str) {
        Self::put(self.error, text);
    }

    pub fn wall(&self, ms: f32) {
        if let Some(p) = self.wall
            && !p.is_null()
        {
            // SAFETY: the option's value slot; CU_JIT_WALL_TIME returns a float in it.
            unsafe { *(p as *mut f32) = ms };
        }
    }
}

fn cache_key(text: &str, sm: u32, arch_specific: bool) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    sm.hash(&mut h);
    arch_specific.hash(&mut h);
    h.finish()
}

/// Checks PTX for a device, through the module cache.
pub fn check_cached(d: &Driver, dev: i32, name: &str, text: &str) -> R<Arc<CheckedModule>> {
    let m = d.dev(dev)?.model();
    let key = cache_key(text, m.sm(), m.arch_specific);
    if let Some(c) = d
        .module_cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        && c.source.text == text
    {
        return Ok(c.clone());
    }
    let opts = ptxvm_vm::CheckOptions {
        arch: Some((m.sm(), m.arch_specific)),
    };
    let c = ptxvm_vm::check_ptx_with(name, text, &opts).map_err(|e| {
        Error::loud(
            CUDA_ERROR_INVALID_PTX,
            format!(
                "the PTX module `{name}` does not compile for {}:\n{}",
                m.arch,
                ptxas_log(&e)
            ),
        )
    })?;
    let c = Arc::new(c);
    d.module_cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, c.clone());
    Ok(c)
}

/// A check failure in ptxas's log format (`ptxas <file>, line N; error   : message`), which
/// is what JIT error logs hold and what tools parse.
pub fn ptxas_log(e: &ptxvm_vm::VmError) -> String {
    match e {
        ptxvm_vm::VmError::Invalid(ds) => ds
            .iter()
            .map(|d| format!("ptxas {}, line {}; error   : {}", d.file, d.line, d.message))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

fn image_error(e: ImageError) -> Error {
    match e {
        ImageError::NoPtx { .. } => Error::loud(CUDA_ERROR_NO_BINARY_FOR_GPU, e.to_string()),
        ImageError::NullPointer { .. } => Error::code(CUDA_ERROR_INVALID_VALUE),
        _ => Error::loud(CUDA_ERROR_INVALID_IMAGE, e.to_string()),
    }
}

/// The PTX text of an image for a device, and a name for diagnostics.
///
/// # Safety
/// `p` points to a module image (or is NULL).
pub unsafe fn image_ptx(d: &Driver, dev: i32, p: *const c_void) -> R<(String, String)> {
    let sm = d.dev(dev)?.model().sm();
    // SAFETY: per the caller.
    let img = unsafe { image::read_image(p.cast()) }.map_err(image_error)?;
    match img {
        Image::Ptx(t) => Ok(("application ptx input".into(), t.to_string())),
        Image::Fatbins(list) => {
            let mut entries = Vec::new();
            for f in list {
                let (e, _) = image::parse_fatbin(f).map_err(image_error)?;
                entries.extend(e);
            }
            // ptxvm containers among the ELF entries (a fatbin made from ptxas drop-in output)
            // come first; then the PTX entries.
            let model = d.dev(dev)?.model();
            for e in &entries {
                if e.kind == image::EntryKind::Elf
                    && let Some(c) = Container::from_elf(&e.payload)
                    && model.runs_target(&c.target)
                {
                    let name = e
                        .identifier
                        .clone()
                        .unwrap_or_else(|| "<fatbin container>".into());
                    return Ok((name, c.ptx));
                }
            }
            let e = image::select_ptx(&entries, sm).map_err(image_error)?;
            let name = e
                .identifier
                .clone()
                .unwrap_or_else(|| format!("<fatbin {}>", e.arch_name()));
            let text = e.ptx_text().map_err(image_error)?.to_string();
            Ok((name, text))
        }
        Image::Elf(bytes) => match Container::from_elf(bytes) {
            Some(c) => Ok(("<ptxvm container>".into(), c.ptx)),
            None => Err(Error::loud(
                CUDA_ERROR_NO_BINARY_FOR_GPU,
                "the image is a cubin (SASS machine code); ptxvm runs PTX, not SASS: build with `-gencode arch=compute_XX,code=compute_XX` (or pass PTX); under `ptxvm exec`, toolchains that run ptxas or nvJitLink get ptxvm's drop-ins, which make containers ptxvm can run",
            )),
        },
        Image::Archive => Err(Error::loud(
            CUDA_ERROR_NO_BINARY_FOR_GPU,
            "the image is a device-code library archive; ptxvm loads PTX and fatbins with PTX",
        )),
    }
}

/// Loads checked PTX into a context.
pub fn load_into(d: &Driver, ctx: usize, dev: i32, checked: Arc<CheckedModule>) -> R<usize> {
    let vm = &d.dev(dev)?.vm;
    let id = vm
        .load_checked(checked.clone())
        .map_err(|e| Error::loud(CUDA_ERROR_INVALID_IMAGE, e.to_string()))?;
    Ok(d.modules.insert(Arc::new(Module {
        ctx,
        dev,
        id,
        checked,
        functions: Mutex::new(HashMap::new()),
    })))
}

/// Loads an image into the current context, reporting to the JIT logs.
///
/// # Safety
/// `image` points to a module image.
unsafe fn load_module(image: *const c_void, logs: &JitLogs) -> R<usize> {
    let d = drv()?;
    let (ch, ctx) = current()?;
    ctx.check()?;
    let t0 = std::time::Instant::now();
    // SAFETY: per the caller.
    let r = unsafe { image_ptx(d, ctx.dev, image) }
        .and_then(|(name, text)| check_cached(d, ctx.dev, &name, &text))
        .and_then(|c| load_into(d, ch, ctx.dev, c));
    logs.wall(t0.elapsed().as_secs_f32() * 1e3);
    match &r {
        Ok(_) => logs.info("ptxvm: module checked and loaded"),
        Err(e) => logs.error(
            e.msg
                .as_deref()
                .unwrap_or("ptxvm: the module could not be loaded"),
        ),
    }
    // The flush of a module load (a synchronisation point for device printf).
    ctx.flush_printf();
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadData(m: *mut Handle, image: *const c_void) -> CUresult {
    api("cuModuleLoadData", || {
        // SAFETY: the client's image.
        let h = unsafe { load_module(image, &JitLogs::default())? };
        // SAFETY: the client's out-pointer.
        unsafe { out(m, h as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    m: *mut Handle,
    image: *const c_void,
    n: u32,
    opts: *const i32,
    vals: *mut *mut c_void,
) -> CUresult {
    api("cuModuleLoadDataEx", || {
        // SAFETY: the client's option arrays.
        let logs = unsafe { JitLogs::parse(n, opts, vals)? };
        // SAFETY: the client's image.
        let h = unsafe { load_module(image, &logs)? };
        // SAFETY: the client's out-pointer.
        unsafe { out(m, h as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoadFatBinary(m: *mut Handle, image: *const c_void) -> CUresult {
    api("cuModuleLoadFatBinary", || {
        // SAFETY: the client's image.
        let h = unsafe { load_module(image, &JitLogs::default())? };
        // SAFETY: the client's out-pointer.
        unsafe { out(m, h as Handle) }
    })
}

/// Reads a module file into memory with a terminating NUL (so a PTX text is delimited).
fn read_file(path: *const c_char) -> R<Vec<u8>> {
    // SAFETY: the client's C string.
    let path = unsafe { cstr(path)? };
    let mut bytes = std::fs::read(path).map_err(|e| {
        Error::loud(
            CUDA_ERROR_FILE_NOT_FOUND,
            format!("cannot read `{path}`: {e}"),
        )
    })?;
    bytes.push(0);
    Ok(bytes)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleLoad(m: *mut Handle, path: *const c_char) -> CUresult {
    api("cuModuleLoad", || {
        let bytes = read_file(path)?;
        // SAFETY: a NUL-terminated buffer we own.
        let h = unsafe { load_module(bytes.as_ptr().cast(), &JitLogs::default())? };
        // SAFETY: the client's out-pointer.
        unsafe { out(m, h as Handle) }
    })
}

fn unload(d: &Driver, h: usize) -> R {
    let m = d
        .modules
        .remove(h)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    for (_, f) in m
        .functions
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .drain()
    {
        d.functions.remove(f);
    }
    if let Ok(dev) = d.dev(m.dev) {
        let _ = dev.vm.unload(m.id);
    }
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleUnload(h: Handle) -> CUresult {
    api("cuModuleUnload", || {
        let d = drv()?;
        let m = d
            .modules
            .get(h as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        if let Ok((_, ctx)) = crate::driver::context(m.ctx as Handle) {
            // Kernels still running may use the module's variables.
            let _ = ctx.synchronize();
        }
        unload(d, h as usize)
    })
}

/// Unloads every module of a context (teardown).
pub fn drop_context(d: &Driver, ctx: usize) {
    for (h, m) in d.modules.all() {
        if m.ctx == ctx {
            let _ = unload(d, h);
        }
    }
    for (_, l) in d.libraries.all() {
        l.modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&ctx);
    }
}

/// The function handle of a kernel of a module (created on first request).
pub fn function(d: &Driver, mh: usize, name: &str) -> R<usize> {
    let m = d
        .modules
        .get(mh)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    let mut fs = m.functions.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&f) = fs.get(name) {
        return Ok(f);
    }
    let dev = d.dev(m.dev)?;
    let k = dev
        .vm
        .kernel(m.id, name)
        .map_err(|e| Error::quiet(CUDA_ERROR_NOT_FOUND, e.to_string()))?;
    let f = d
        .functions
        .insert(Arc::new(Function::new(mh, m.ctx, m.dev, k, dev.model())));
    fs.insert(name.to_string(), f);
    Ok(f)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetFunction(
    f: *mut Handle,
    m: Handle,
    name: *const c_char,
) -> CUresult {
    api("cuModuleGetFunction", || {
        let d = drv()?;
        // SAFETY: the client's C string.
        let name = unsafe { cstr(name)? };
        let h = function(d, m as usize, name)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(f, h as Handle) }
    })
}

fn module_global(
    d: &Driver,
    mh: usize,
    name: &str,
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
) -> R {
    let m = d
        .modules
        .get(mh)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    let (a, size) = d
        .dev(m.dev)?
        .vm
        .global(m.id, name)
        .map_err(|e| Error::quiet(CUDA_ERROR_NOT_FOUND, e.to_string()))?;
    // SAFETY: the client's out-pointers (either may be NULL).
    unsafe {
        if !dptr.is_null() {
            out(dptr, a)?;
        }
        if !bytes.is_null() {
            out(bytes, size as usize)?;
        }
    }
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetGlobal_v2(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    m: Handle,
    name: *const c_char,
) -> CUresult {
    api("cuModuleGetGlobal_v2", || {
        let d = drv()?;
        // SAFETY: the client's C string.
        let name = unsafe { cstr(name)? };
        module_global(d, m as usize, name, dptr, bytes)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetLoadingMode(mode: *mut u32) -> CUresult {
    api("cuModuleGetLoadingMode", || {
        drv()?;
        // CU_MODULE_EAGER_LOADING: a module is checked and decoded when it is loaded.
        // SAFETY: the client's out-pointer.
        unsafe { out(mode, 1) }
    })
}

fn module_kernels(d: &Driver, mh: usize) -> R<Vec<String>> {
    let m = d
        .modules
        .get(mh)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    d.dev(m.dev)?
        .vm
        .kernels(m.id)
        .map_err(|e| Error::quiet(CUDA_ERROR_INVALID_HANDLE, e.to_string()))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleGetFunctionCount(n: *mut u32, m: Handle) -> CUresult {
    api("cuModuleGetFunctionCount", || {
        let k = module_kernels(drv()?, m as usize)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(n, k.len() as u32) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuModuleEnumerateFunctions(
    fs: *mut Handle,
    n: u32,
    m: Handle,
) -> CUresult {
    api("cuModuleEnumerateFunctions", || {
        let d = drv()?;
        let k = module_kernels(d, m as usize)?;
        if fs.is_null() || (n as usize) < k.len() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        for (i, name) in k.iter().enumerate() {
            let h = function(d, m as usize, name)?;
            // SAFETY: the client's array of `n` entries.
            unsafe { *fs.add(i) = h as Handle };
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------
// Libraries.

/// The checked PTX of an image, for a library (checked for device 0's model).
///
/// # Safety
/// `code` points to a module image.
unsafe fn library_image(
    code: *const c_void,
    logs: &JitLogs,
) -> R<Result<Arc<CheckedModule>, Deferred>> {
    let d = drv()?;
    let dev = crate::driver::current().map_or(0, |(_, c)| c.dev);
    // SAFETY: per the caller.
    let r = unsafe { image_ptx(d, dev, code) }
        .and_then(|(name, text)| check_cached(d, dev, &name, &text));
    match r {
        Ok(c) => {
            logs.info("ptxvm: library checked");
            Ok(Ok(c))
        }
        Err(e) if e.code == CUDA_ERROR_NO_BINARY_FOR_GPU => {
            let message = e.msg.unwrap_or_default();
            logs.error(&message);
            Ok(Err(Deferred {
                code: e.code,
                message,
                reported: std::sync::atomic::AtomicBool::new(false),
            }))
        }
        Err(e) => {
            logs.error(
                e.msg
                    .as_deref()
                    .unwrap_or("ptxvm: the library could not be loaded"),
            );
            Err(e)
        }
    }
}

fn new_library(p: *mut Handle, image: Result<Arc<CheckedModule>, Deferred>) -> R {
    let d = drv()?;
    let h = d.libraries.insert(Arc::new(Library {
        image,
        modules: Mutex::new(HashMap::new()),
        kernels: Mutex::new(HashMap::new()),
    }));
    // SAFETY: the client's out-pointer.
    unsafe { out(p, h as Handle) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryLoadData(
    lib: *mut Handle,
    code: *const c_void,
    jit_opts: *const i32,
    jit_vals: *mut *mut c_void,
    n_jit: u32,
    _lib_opts: *const u32,
    _lib_vals: *mut *mut c_void,
    _n_lib: u32,
) -> CUresult {
    api("cuLibraryLoadData", || {
        // SAFETY: the client's option arrays.
        let logs = unsafe { JitLogs::parse(n_jit, jit_opts, jit_vals)? };
        // SAFETY: the client's image.
        let c = unsafe { library_image(code, &logs)? };
        new_library(lib, c)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryLoadFromFile(
    lib: *mut Handle,
    path: *const c_char,
    jit_opts: *const i32,
    jit_vals: *mut *mut c_void,
    n_jit: u32,
    _lib_opts: *const u32,
    _lib_vals: *mut *mut c_void,
    _n_lib: u32,
) -> CUresult {
    api("cuLibraryLoadFromFile", || {
        let bytes = read_file(path)?;
        // SAFETY: the client's option arrays.
        let logs = unsafe { JitLogs::parse(n_jit, jit_opts, jit_vals)? };
        // SAFETY: a NUL-terminated buffer we own.
        let c = unsafe { library_image(bytes.as_ptr().cast(), &logs)? };
        new_library(lib, c)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryUnload(lib: Handle) -> CUresult {
    api("cuLibraryUnload", || {
        let d = drv()?;
        let l = d
            .libraries
            .remove(lib as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        for (_, k) in l.kernels.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            d.kernels.remove(k);
        }
        for (ctx, m) in l.modules.lock().unwrap_or_else(|e| e.into_inner()).drain() {
            if let Ok((_, c)) = crate::driver::context(ctx as Handle) {
                let _ = c.synchronize();
            }
            let _ = unload(d, m);
        }
        Ok(())
    })
}

/// The library's module in the current context (loaded on first use).
pub fn library_module(d: &Driver, lib: usize) -> R<usize> {
    let l = d
        .libraries
        .get(lib)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    // Libraries are context-independent: with no current context (the runtime asks for
    // `__managed__` variables before it makes one current) the library goes into device 0's
    // primary context, where the runtime will use it.
    let (ch, dev) = match current() {
        Ok((h, c)) => (h, c.dev),
        Err(_) => (crate::context::primary_handle(d.dev(0)?)?, 0),
    };
    let mut mods = l.modules.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&m) = mods.get(&ch)
        && d.modules.get(m).is_some()
    {
        return Ok(m);
    }
    let m = load_into(d, ch, dev, l.checked("loading the library")?.clone())?;
    mods.insert(ch, m);
    Ok(m)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetModule(m: *mut Handle, lib: Handle) -> CUresult {
    api("cuLibraryGetModule", || {
        let h = library_module(drv()?, lib as usize)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(m, h as Handle) }
    })
}

fn library_kernel(d: &Driver, lib: usize, name: &str) -> R<usize> {
    let l = d
        .libraries
        .get(lib)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    let mut ks = l.kernels.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&k) = ks.get(name) {
        return Ok(k);
    }
    // A library whose image cannot run here hands out kernel handles all the same (the
    // runtime asks for every kernel at start-up); using one reports the error.
    let exists = match &l.image {
        Ok(c) => c.kernel_names().iter().any(|k| k == name),
        Err(_) => true,
    };
    if !exists {
        return Err(Error::quiet(
            CUDA_ERROR_NOT_FOUND,
            format!("the library has no kernel `{name}`"),
        ));
    }
    let k = d.kernels.insert(Arc::new(KernelObj {
        library: lib,
        name: name.to_string(),
        attrs: Mutex::new(Vec::new()),
    }));
    ks.insert(name.to_string(), k);
    Ok(k)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetKernel(
    k: *mut Handle,
    lib: Handle,
    name: *const c_char,
) -> CUresult {
    api("cuLibraryGetKernel", || {
        let d = drv()?;
        // SAFETY: the client's C string.
        let name = unsafe { cstr(name)? };
        let h = library_kernel(d, lib as usize, name)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(k, h as Handle) }
    })
}

fn library_kernel_names(d: &Driver, lib: usize) -> R<Vec<String>> {
    let l = d
        .libraries
        .get(lib)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    Ok(l.checked("enumerating the library's kernels")?
        .kernel_names())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetKernelCount(n: *mut u32, lib: Handle) -> CUresult {
    api("cuLibraryGetKernelCount", || {
        let k = library_kernel_names(drv()?, lib as usize)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(n, k.len() as u32) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryEnumerateKernels(
    ks: *mut Handle,
    n: u32,
    lib: Handle,
) -> CUresult {
    api("cuLibraryEnumerateKernels", || {
        let d = drv()?;
        let names = library_kernel_names(d, lib as usize)?;
        if ks.is_null() || (n as usize) < names.len() {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        for (i, name) in names.iter().enumerate() {
            let h = library_kernel(d, lib as usize, name)?;
            // SAFETY: the client's array of `n` entries.
            unsafe { *ks.add(i) = h as Handle };
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetGlobal(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    lib: Handle,
    name: *const c_char,
) -> CUresult {
    api("cuLibraryGetGlobal", || {
        let d = drv()?;
        // SAFETY: the client's C string.
        let name = unsafe { cstr(name)? };
        let m = library_module(d, lib as usize)?;
        module_global(d, m, name, dptr, bytes)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetManaged(
    dptr: *mut CUdeviceptr,
    bytes: *mut usize,
    lib: Handle,
    name: *const c_char,
) -> CUresult {
    api("cuLibraryGetManaged", || {
        let d = drv()?;
        // SAFETY: the client's C string.
        let name = unsafe { cstr(name)? };
        let m = library_module(d, lib as usize)?;
        module_global(d, m, name, dptr, bytes)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLibraryGetUnifiedFunction(
    _f: *mut *mut c_void,
    _lib: Handle,
    _name: *const c_char,
) -> CUresult {
    api("cuLibraryGetUnifiedFunction", || {
        drv()?;
        Err(Error::code(CUDA_ERROR_NOT_FOUND))
    })
}

/// The function of a library kernel in the current context.
pub fn kernel_function(d: &Driver, kh: usize) -> R<usize> {
    let k = d
        .kernels
        .get(kh)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    let m = library_module(d, k.library)?;
    let f = function(d, m, &k.name)?;
    if let Some(func) = d.functions.get(f) {
        for &(attr, v) in k.attrs.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let _ = func.set_attribute(attr, v, d);
        }
    }
    Ok(f)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetFunction(f: *mut Handle, k: Handle) -> CUresult {
    api("cuKernelGetFunction", || {
        let h = kernel_function(drv()?, k as usize)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(f, h as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetLibrary(lib: *mut Handle, k: Handle) -> CUresult {
    api("cuKernelGetLibrary", || {
        let k = drv()?
            .kernels
            .get(k as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        // SAFETY: the client's out-pointer.
        unsafe { out(lib, k.library as Handle) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetName(name: *mut *const c_char, k: Handle) -> CUresult {
    api("cuKernelGetName", || {
        let d = drv()?;
        let f = kernel_function(d, k as usize)?;
        let func = d
            .functions
            .get(f)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        // SAFETY: the client's out-pointer; the name lives as long as the function.
        unsafe { out(name, func.c_name.as_ptr()) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetAttribute(
    p: *mut i32,
    attr: i32,
    k: Handle,
    _dev: CUdevice,
) -> CUresult {
    api("cuKernelGetAttribute", || {
        let d = drv()?;
        let f = kernel_function(d, k as usize)?;
        let func = d
            .functions
            .get(f)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        let v = func.attribute(attr, d)?;
        // SAFETY: the client's out-pointer.
        unsafe { out(p, v) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelSetAttribute(
    attr: i32,
    v: i32,
    k: Handle,
    _dev: CUdevice,
) -> CUresult {
    api("cuKernelSetAttribute", || {
        let d = drv()?;
        let ko = d
            .kernels
            .get(k as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        // Apply to the functions that exist; remember for those made later.
        let f = kernel_function(d, k as usize)?;
        if let Some(func) = d.functions.get(f) {
            func.set_attribute(attr, v, d)?;
        }
        ko.attrs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((attr, v));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelSetCacheConfig(k: Handle, cfg: u32, _dev: CUdevice) -> CUresult {
    api("cuKernelSetCacheConfig", || {
        let d = drv()?;
        let f = kernel_function(d, k as usize)?;
        let func = d
            .functions
            .get(f)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        func.set_cache_config(cfg)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetParamInfo(
    k: Handle,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    api("cuKernelGetParamInfo", || {
        let d = drv()?;
        let f = kernel_function(d, k as usize)?;
        // SAFETY: the client's out-pointers.
        unsafe { crate::launch::param_info(d, f, index, offset, size) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuKernelGetParamCount(k: Handle, n: *mut usize) -> CUresult {
    api("cuKernelGetParamCount", || {
        let d = drv()?;
        let f = kernel_function(d, k as usize)?;
        let func = d
            .functions
            .get(f)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        // SAFETY: the client's out-pointer.
        unsafe { out(n, func.params.len()) }
    })
}

// ---------------------------------------------------------------------------------------
// The linker.

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkCreate_v2(
    n: u32,
    opts: *const i32,
    vals: *mut *mut c_void,
    state: *mut Handle,
) -> CUresult {
    api("cuLinkCreate_v2", || {
        let d = drv()?;
        current()?;
        // SAFETY: the client's option arrays.
        let logs = unsafe { JitLogs::parse(n, opts, vals)? };
        let h = d.links.insert(Arc::new(Link {
            inputs: Mutex::new(Vec::new()),
            logs: Mutex::new(logs),
            output: Mutex::new(None),
        }));
        // SAFETY: the client's out-pointer.
        unsafe { out(state, h as Handle) }
    })
}

/// Adds one input: PTX text, or a fatbin/image holding PTX.
fn add_input(state: Handle, kind: u32, data: &[u8], name: &str) -> R {
    let d = drv()?;
    let l = d
        .links
        .get(state as usize)
        .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
    let (_, ctx) = current()?;
    let text = match kind {
        CU_JIT_INPUT_PTX => {
            let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            String::from_utf8(data[..end].to_vec()).map_err(|_| {
                Error::loud(
                    CUDA_ERROR_INVALID_PTX,
                    format!("link input `{name}` is not UTF-8 text"),
                )
            })?
        }
        CU_JIT_INPUT_FATBINARY | CU_JIT_INPUT_CUBIN => {
            let mut owned = data.to_vec();
            owned.push(0);
            // SAFETY: a buffer we own, NUL-terminated.
            unsafe { image_ptx(d, ctx.dev, owned.as_ptr().cast()) }?.1
        }
        _ => {
            return Err(Error::loud(
                CUDA_ERROR_NOT_SUPPORTED,
                format!(
                    "link input `{name}` is of type {kind} (object, library or NVVM IR); ptxvm links PTX and fatbins holding PTX"
                ),
            ));
        }
    };
    l.inputs
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(ptxvm_vm::link::LinkInput {
            name: name.to_string(),
            text,
        });
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkAddData_v2(
    state: Handle,
    kind: u32,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    _n: u32,
    _opts: *const i32,
    _vals: *mut *mut c_void,
) -> CUresult {
    api("cuLinkAddData_v2", || {
        if data.is_null() || size == 0 {
            return Err(Error::code(CUDA_ERROR_INVALID_VALUE));
        }
        let name = if name.is_null() {
            "<link input>".to_string()
        } else {
            // SAFETY: the client's C string.
            unsafe { cstr(name)? }.to_string()
        };
        // SAFETY: `size` bytes from the client.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size) };
        add_input(state, kind, bytes, &name)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkAddFile_v2(
    state: Handle,
    kind: u32,
    path: *const c_char,
    _n: u32,
    _opts: *const i32,
    _vals: *mut *mut c_void,
) -> CUresult {
    api("cuLinkAddFile_v2", || {
        let bytes = read_file(path)?;
        // SAFETY: the client's C string (read above).
        let name = unsafe { cstr(path)? };
        add_input(state, kind, &bytes, name)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkComplete(
    state: Handle,
    cubin: *mut *mut c_void,
    size: *mut usize,
) -> CUresult {
    api("cuLinkComplete", || {
        let d = drv()?;
        let (_, ctx) = current()?;
        let l = d
            .links
            .get(state as usize)
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))?;
        let inputs = l.inputs.lock().unwrap_or_else(|e| e.into_inner());
        let logs = l.logs.lock().unwrap_or_else(|e| e.into_inner());
        let t0 = std::time::Instant::now();
        let linked = match ptxvm_vm::link::link_ptx(&inputs) {
            Ok(t) => t,
            Err(e) => {
                logs.error(&e);
                return Err(Error::loud(
                    CUDA_ERROR_INVALID_IMAGE,
                    format!("link failed: {e}"),
                ));
            }
        };
        // Check it now, so errors reach the link's log (the load will hit the cache).
        let checked = match check_cached(d, ctx.dev, "<linked>", &linked) {
            Ok(c) => c,
            Err(e) => {
                logs.error(e.msg.as_deref().unwrap_or("link failed"));
                return Err(e);
            }
        };
        logs.wall(t0.elapsed().as_secs_f32() * 1e3);
        logs.info(&format!("ptxvm: linked {} PTX module(s)", inputs.len()));
        // The linked "cubin" is a ptxvm container (what a cubin's consumers read, and the PTX).
        let model = d.dev(ctx.dev)?.model();
        let img = Container::describe(&linked, model.arch, &checked, model)
            .map_err(|e| Error::loud(CUDA_ERROR_INVALID_IMAGE, e))?
            .to_elf();
        let mut o = l.output.lock().unwrap_or_else(|e| e.into_inner());
        let img = o.insert(img);
        // SAFETY: the client's out-pointers; the image lives until cuLinkDestroy.
        unsafe {
            out(cubin, img.as_mut_ptr().cast())?;
            if !size.is_null() {
                out(size, img.len())?;
            }
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cuLinkDestroy(state: Handle) -> CUresult {
    api("cuLinkDestroy", || {
        drv()?
            .links
            .remove(state as usize)
            .map(|_| ())
            .ok_or(Error::code(CUDA_ERROR_INVALID_HANDLE))
    })
}
