//! NVIDIA's nvJitLink, for what ptxvm cannot read: NVVM IR (LTO-IR, and fatbins whose only
//! code for the arch is NVVM IR). A [`Session`] is one NVIDIA link with `-lto -ptx`: its
//! output is PTX, which ptxvm links with the other inputs.
//!
//! Finding the library: under `ptxvm exec` the dynamic loader resolves `libnvJitLink.so.13` to
//! ptxvm's (that is the point), so NVIDIA's is looked for by path, first match wins:
//! 1. `PTXVM_REAL_NVJITLINK`: the path of NVIDIA's library (only that one is tried);
//! 2. a loaded library named `libnvJitLink.so*` that is not ptxvm's;
//! 3. `libnvJitLink.so.N` beside any loaded library (NVIDIA's wheels put NVVM, NVRTC and
//!    nvJitLink in one directory, `nvidia/cu13/lib`, and numba-cuda loads NVVM before it links);
//! 4. `nvidia/cu13/lib/libnvJitLink.so.13` and `nvidia/nvjitlink/lib/libnvJitLink.so.12` in
//!    every `site-packages`/`dist-packages` directory above a loaded library (the Python
//!    environment's own: cuda-python's and numpy's extension modules live there), and in
//!    `$VIRTUAL_ENV` and `$CONDA_PREFIX`;
//! 5. `$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda` (`lib64`, `lib`), the system library
//!    directory.
//!
//! Same-major libraries are preferred (LTO-IR must not be newer than the library reading it).
//! Each candidate is opened with `RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND` (its own symbol
//! references bind inside it, never to ptxvm's exports of the same names) and skipped if it
//! exports `ptxvm_nvjitlink_abi` (a copy of this library) or lacks an entry point.

use crate::api::NVJITLINK_SUCCESS;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

type CreateFn = unsafe extern "C" fn(*mut *mut c_void, u32, *const *const c_char) -> u32;
type DestroyFn = unsafe extern "C" fn(*mut *mut c_void) -> u32;
type AddDataFn = unsafe extern "C" fn(*mut c_void, u32, *const c_void, usize, *const c_char) -> u32;
type CompleteFn = unsafe extern "C" fn(*mut c_void) -> u32;
type SizeFn = unsafe extern "C" fn(*mut c_void, *mut usize) -> u32;
type BufFn = unsafe extern "C" fn(*mut c_void, *mut c_char) -> u32;
type VersionFn = unsafe extern "C" fn(*mut u32, *mut u32) -> u32;

/// NVIDIA's library, loaded.
pub struct Lib {
    pub path: PathBuf,
    pub version: (u32, u32),
    create: CreateFn,
    destroy: DestroyFn,
    add_data: AddDataFn,
    complete: CompleteFn,
    ptx_size: SizeFn,
    ptx: BufFn,
    error_log_size: SizeFn,
    error_log: BufFn,
    info_log_size: SizeFn,
    info_log: BufFn,
}

/// The library, found and loaded once per process; `Err` says where it was looked for.
pub fn lib() -> Result<&'static Lib, String> {
    static LIB: OnceLock<Result<Lib, String>> = OnceLock::new();
    LIB.get_or_init(find).as_ref().map_err(Clone::clone)
}

/// Paths of the objects loaded in this process.
fn loaded_objects() -> Vec<PathBuf> {
    unsafe extern "C" fn cb(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: `data` is the Vec passed below; `info` is valid during the callback.
        unsafe {
            let v = &mut *data.cast::<Vec<PathBuf>>();
            let name = (*info).dlpi_name;
            if !name.is_null() {
                let s = CStr::from_ptr(name).to_string_lossy();
                if s.starts_with('/') {
                    v.push(PathBuf::from(s.into_owned()));
                }
            }
        }
        0
    }
    let mut v: Vec<PathBuf> = Vec::new();
    // SAFETY: the callback only reads `info` and pushes to the Vec it is given.
    unsafe { libc::dl_iterate_phdr(Some(cb), (&mut v as *mut Vec<PathBuf>).cast()) };
    v
}

/// Library file names to look for, the preferred major version first.
fn sonames() -> [&'static str; 2] {
    if crate::ABI.0 == 12 {
        ["libnvJitLink.so.12", "libnvJitLink.so.13"]
    } else {
        ["libnvJitLink.so.13", "libnvJitLink.so.12"]
    }
}

/// Where NVIDIA's wheels put each: (soname, path below site-packages).
const WHEEL_DIRS: [(&str, &str); 2] = [
    ("libnvJitLink.so.13", "nvidia/cu13/lib"),
    ("libnvJitLink.so.12", "nvidia/nvjitlink/lib"),
];

fn site_packages_of(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for lib in ["lib", "lib64"] {
        if let Ok(rd) = std::fs::read_dir(root.join(lib)) {
            for e in rd.flatten() {
                if e.file_name().to_string_lossy().starts_with("python") {
                    out.push(e.path().join("site-packages"));
                }
            }
        }
    }
    out
}

/// The candidates, in order (see the module docs), without duplicates.
pub fn candidates() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("PTXVM_REAL_NVJITLINK").filter(|p| !p.is_empty()) {
        return vec![PathBuf::from(p)];
    }
    let loaded = loaded_objects();
    let names = sonames();
    let mut c: Vec<PathBuf> = Vec::new();
    // 2. Loaded under its own name.
    for p in &loaded {
        if p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("libnvJitLink.so"))
        {
            c.push(p.clone());
        }
    }
    // 3. Beside a loaded library; 4. in the site-packages above one.
    let mut sites: Vec<PathBuf> = Vec::new();
    for p in &loaded {
        for a in p.ancestors().skip(1).take(12) {
            let n = a.file_name().map(|n| n.to_string_lossy().into_owned());
            if matches!(n.as_deref(), Some("site-packages") | Some("dist-packages"))
                && !sites.contains(&a.to_path_buf())
            {
                sites.push(a.to_path_buf());
            }
        }
    }
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(root) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            sites.extend(site_packages_of(Path::new(&root)));
        }
    }
    let mut roots: Vec<PathBuf> = Vec::new();
    for var in ["CONDA_PREFIX", "CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            roots.push(PathBuf::from(root));
        }
    }
    roots.push(PathBuf::from("/usr/local/cuda"));
    for name in names {
        for p in &loaded {
            if let Some(d) = p.parent() {
                c.push(d.join(name));
            }
        }
        for s in &sites {
            for (so, dir) in WHEEL_DIRS {
                if so == name {
                    c.push(s.join(dir).join(name));
                }
            }
        }
        for r in &roots {
            c.push(r.join("lib64").join(name));
            c.push(r.join("lib").join(name));
        }
        c.push(PathBuf::from("/usr/lib/x86_64-linux-gnu").join(name));
    }
    let mut seen = Vec::new();
    c.retain(|p| {
        if !p.is_file() {
            return false;
        }
        let key = p.canonicalize().unwrap_or_else(|_| p.clone());
        if seen.contains(&key) {
            false
        } else {
            seen.push(key);
            true
        }
    });
    c
}

fn dlerror() -> String {
    // SAFETY: dlerror returns NULL or a C string valid until the next dl call.
    unsafe {
        let e = libc::dlerror();
        if e.is_null() {
            "unknown error".into()
        } else {
            CStr::from_ptr(e).to_string_lossy().into_owned()
        }
    }
}

/// Why [`open`] skips a copy of this library.
const PTXVM_S: &str = "it is ptxvm's nvJitLink";

/// Opens one candidate: `Err` says why it is not NVIDIA's library.
fn open(path: &Path) -> Result<Lib, String> {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: dlopen of a file path; NVIDIA's library has no constructors that need more.
    let h = unsafe {
        libc::dlopen(
            c.as_ptr(),
            libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND,
        )
    };
    if h.is_null() {
        return Err(dlerror());
    }
    let sym = |name: &CStr| -> Option<*mut c_void> {
        // SAFETY: a live handle and a C string.
        let p = unsafe { libc::dlsym(h, name.as_ptr()) };
        (!p.is_null()).then_some(p)
    };
    if sym(c"ptxvm_nvjitlink_abi").is_some() {
        // SAFETY: our own handle.
        unsafe { libc::dlclose(h) };
        return Err(PTXVM_S.into());
    }
    macro_rules! get {
        ($name:literal, $t:ty) => {
            match sym($name) {
                // SAFETY: NVIDIA's entry point of this name has this signature (nvJitLink.h).
                Some(p) => unsafe { std::mem::transmute::<*mut c_void, $t>(p) },
                None => return Err(format!("it has no {}", $name.to_string_lossy())),
            }
        };
    }
    let version: VersionFn = get!(c"nvJitLinkVersion", VersionFn);
    let lib = Lib {
        path: path.to_path_buf(),
        version: (0, 0),
        create: get!(c"nvJitLinkCreate", CreateFn),
        destroy: get!(c"nvJitLinkDestroy", DestroyFn),
        add_data: get!(c"nvJitLinkAddData", AddDataFn),
        complete: get!(c"nvJitLinkComplete", CompleteFn),
        ptx_size: get!(c"nvJitLinkGetLinkedPtxSize", SizeFn),
        ptx: get!(c"nvJitLinkGetLinkedPtx", BufFn),
        error_log_size: get!(c"nvJitLinkGetErrorLogSize", SizeFn),
        error_log: get!(c"nvJitLinkGetErrorLog", BufFn),
        info_log_size: get!(c"nvJitLinkGetInfoLogSize", SizeFn),
        info_log: get!(c"nvJitLinkGetInfoLog", BufFn),
    };
    let (mut major, mut minor) = (0u32, 0u32);
    // SAFETY: two valid out-pointers.
    if unsafe { version(&mut major, &mut minor) } != NVJITLINK_SUCCESS {
        return Err("nvJitLinkVersion failed".into());
    }
    // The handle stays open for the process's lifetime (the library is used until exit).
    Ok(Lib {
        version: (major, minor),
        ..lib
    })
}

fn find() -> Result<Lib, String> {
    if let Some(p) = std::env::var_os("PTXVM_REAL_NVJITLINK").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return open(&p).map_err(|e| {
            format!(
                "PTXVM_REAL_NVJITLINK={} is not NVIDIA's nvJitLink, which ptxvm needs to turn LTO-IR into PTX: {e}",
                p.display()
            )
        });
    }
    let mut tried = Vec::new();
    for p in candidates() {
        match open(&p) {
            Ok(l) => return Ok(l),
            Err(e) if e == PTXVM_S => {}
            Err(e) => tried.push(format!("{}: {e}", p.display())),
        }
    }
    let mut msg = String::from(
        "NVIDIA's nvJitLink (libnvJitLink.so.13 or .12), which ptxvm needs to turn LTO-IR into PTX, was not found",
    );
    if tried.is_empty() {
        msg.push_str(" (looked beside the loaded libraries, in the Python environment's nvidia/cu13/lib and nvidia/nvjitlink/lib, $CUDA_HOME, $CUDA_PATH and /usr/local/cuda)");
    } else {
        msg.push_str(&format!(" (unusable: {})", tried.join("; ")));
    }
    msg.push_str(
        ": install it (`pip install nvidia-nvjitlink`) or set PTXVM_REAL_NVJITLINK to its path",
    );
    Err(msg)
}

/// One link in NVIDIA's library, `-lto -ptx`.
pub struct Session {
    lib: &'static Lib,
    h: *mut c_void,
    error_seen: usize,
    info_seen: usize,
}

// SAFETY: an nvJitLink handle may be used from any thread, one call at a time (the Link that
// owns the Session is behind a Mutex).
unsafe impl Send for Session {}

/// A failed call of NVIDIA's library: its code and the new part of its error log.
pub type Failed = (u32, String);

impl Session {
    /// A link with `options` (given as is, plus `-lto -ptx`).
    pub fn new(options: &[String]) -> Result<Session, Failed> {
        let lib = lib().map_err(|e| (crate::api::NVJITLINK_ERROR_UNRECOGNIZED_INPUT, e))?;
        let mut opts: Vec<CString> = options
            .iter()
            .filter_map(|o| CString::new(o.as_str()).ok())
            .collect();
        opts.push(c"-lto".into());
        opts.push(c"-ptx".into());
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        let mut h: *mut c_void = std::ptr::null_mut();
        // SAFETY: valid out-pointer and option array.
        let r = unsafe { (lib.create)(&mut h, ptrs.len() as u32, ptrs.as_ptr()) };
        let mut s = Session {
            lib,
            h,
            error_seen: 0,
            info_seen: 0,
        };
        if r != NVJITLINK_SUCCESS {
            return Err((r, s.new_error_log()));
        }
        Ok(s)
    }

    pub fn lib(&self) -> &'static Lib {
        self.lib
    }

    fn log(&self, size: SizeFn, get: BufFn) -> String {
        if self.h.is_null() {
            return String::new();
        }
        let mut n = 0usize;
        // SAFETY: a live handle, a valid out-pointer.
        if unsafe { size(self.h, &mut n) } != NVJITLINK_SUCCESS || n == 0 {
            return String::new();
        }
        let mut buf = vec![0u8; n + 1];
        // SAFETY: a buffer of the size the library asked for (plus one).
        if unsafe { get(self.h, buf.as_mut_ptr().cast()) } != NVJITLINK_SUCCESS {
            return String::new();
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    }

    /// What the error log gained since the last call.
    pub fn new_error_log(&mut self) -> String {
        let all = self.log(self.lib.error_log_size, self.lib.error_log);
        let new = all.get(self.error_seen..).unwrap_or("").to_string();
        self.error_seen = all.len();
        new
    }

    /// What the info log gained since the last call.
    pub fn new_info_log(&mut self) -> String {
        let all = self.log(self.lib.info_log_size, self.lib.info_log);
        let new = all.get(self.info_seen..).unwrap_or("").to_string();
        self.info_seen = all.len();
        new
    }

    pub fn add(&mut self, input_type: u32, bytes: &[u8], name: &str) -> Result<(), Failed> {
        let name = CString::new(name.replace('\0', "")).unwrap_or_default();
        // SAFETY: a live handle, `bytes.len()` readable bytes, a C string.
        let r = unsafe {
            (self.lib.add_data)(
                self.h,
                input_type,
                bytes.as_ptr().cast(),
                bytes.len(),
                name.as_ptr(),
            )
        };
        if r != NVJITLINK_SUCCESS {
            return Err((r, self.new_error_log()));
        }
        Ok(())
    }

    /// Completes the link: the PTX.
    pub fn complete(&mut self) -> Result<String, Failed> {
        // SAFETY: a live handle.
        let r = unsafe { (self.lib.complete)(self.h) };
        if r != NVJITLINK_SUCCESS {
            return Err((r, self.new_error_log()));
        }
        let mut n = 0usize;
        // SAFETY: a live handle, a valid out-pointer.
        let r = unsafe { (self.lib.ptx_size)(self.h, &mut n) };
        if r != NVJITLINK_SUCCESS {
            return Err((r, self.new_error_log()));
        }
        let mut buf = vec![0u8; n + 1];
        // SAFETY: a buffer of the size reported (plus one).
        let r = unsafe { (self.lib.ptx)(self.h, buf.as_mut_ptr().cast()) };
        if r != NVJITLINK_SUCCESS {
            return Err((r, self.new_error_log()));
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        Ok(String::from_utf8_lossy(&buf[..end]).into_owned())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.h.is_null() {
            // SAFETY: our live handle, destroyed once.
            unsafe { (self.lib.destroy)(&mut self.h) };
        }
    }
}

// ---------------------------------------------------------------------------------------
// NVIDIA's NVRTC, beside NVIDIA's nvJitLink: compiles the stub that keeps LTO-IR symbols which
// PTX inputs use (see `link.rs`).

type NvrtcCreateFn = unsafe extern "C" fn(
    *mut *mut c_void,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> c_int;
type NvrtcCompileFn = unsafe extern "C" fn(*mut c_void, c_int, *const *const c_char) -> c_int;
type NvrtcSizeFn = unsafe extern "C" fn(*mut c_void, *mut usize) -> c_int;
type NvrtcBufFn = unsafe extern "C" fn(*mut c_void, *mut c_char) -> c_int;
type NvrtcDestroyFn = unsafe extern "C" fn(*mut *mut c_void) -> c_int;

struct Nvrtc {
    create: NvrtcCreateFn,
    compile: NvrtcCompileFn,
    ltoir_size: NvrtcSizeFn,
    ltoir: NvrtcBufFn,
    log_size: NvrtcSizeFn,
    log: NvrtcBufFn,
    destroy: NvrtcDestroyFn,
}

fn nvrtc() -> Result<&'static Nvrtc, String> {
    static N: OnceLock<Result<Nvrtc, String>> = OnceLock::new();
    N.get_or_init(|| {
        // NVRTC of the nvJitLink's major version (LTO-IR is not read across majors): beside
        // it (CUDA 13's wheel, toolkits), in NVIDIA's 12.x wheel layout
        // (nvidia/nvjitlink/lib and nvidia/cuda_nvrtc/lib), or already loaded.
        let real = lib()?;
        let name = format!("libnvrtc.so.{}", real.version.0);
        let dir = real
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut cands = vec![
            dir.join(&name),
            dir.join("../../cuda_nvrtc/lib").join(&name),
        ];
        cands.extend(
            loaded_objects()
                .into_iter()
                .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy() == name)),
        );
        let Some(so) = cands.into_iter().find(|p| p.is_file()) else {
            return Err(format!(
                "NVIDIA's NVRTC ({name}) was not found beside nvJitLink in {}",
                dir.display()
            ));
        };
        let dir = so.parent().map(Path::to_path_buf).unwrap_or_default();
        // NVRTC opens its builtins by SONAME; an already-loaded copy is found that way.
        if let Ok(rd) = std::fs::read_dir(&dir) {
            for e in rd.flatten() {
                if e.file_name()
                    .to_string_lossy()
                    .starts_with("libnvrtc-builtins.so.")
                    && let Ok(c) = CString::new(e.path().as_os_str().as_encoded_bytes())
                {
                    // SAFETY: dlopen of a file path.
                    unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
                }
            }
        }
        let c = CString::new(so.as_os_str().as_encoded_bytes()).map_err(|e| e.to_string())?;
        // SAFETY: dlopen of a file path.
        let h = unsafe {
            libc::dlopen(
                c.as_ptr(),
                libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND,
            )
        };
        if h.is_null() {
            return Err(dlerror());
        }
        macro_rules! get {
            ($name:literal, $t:ty) => {{
                // SAFETY: a live handle and a C string.
                let p = unsafe { libc::dlsym(h, $name.as_ptr()) };
                if p.is_null() {
                    return Err(format!("NVRTC has no {}", $name.to_string_lossy()));
                }
                // SAFETY: NVRTC's entry point of this name has this signature (nvrtc.h).
                unsafe { std::mem::transmute::<*mut c_void, $t>(p) }
            }};
        }
        Ok(Nvrtc {
            create: get!(c"nvrtcCreateProgram", NvrtcCreateFn),
            compile: get!(c"nvrtcCompileProgram", NvrtcCompileFn),
            ltoir_size: get!(c"nvrtcGetLTOIRSize", NvrtcSizeFn),
            ltoir: get!(c"nvrtcGetLTOIR", NvrtcBufFn),
            log_size: get!(c"nvrtcGetProgramLogSize", NvrtcSizeFn),
            log: get!(c"nvrtcGetProgramLog", NvrtcBufFn),
            destroy: get!(c"nvrtcDestroyProgram", NvrtcDestroyFn),
        })
    })
    .as_ref()
    .map_err(Clone::clone)
}

/// Compiles CUDA C++ `src` to LTO-IR for `arch` (`compute_80`) with NVIDIA's NVRTC.
pub fn nvrtc_ltoir(src: &str, arch: &str) -> Result<Vec<u8>, String> {
    let n = nvrtc()?;
    let src = CString::new(src).map_err(|e| e.to_string())?;
    let name = c"ptxvm_keep.cu";
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: valid out-pointer and C strings; no headers.
    let r = unsafe {
        (n.create)(
            &mut p,
            src.as_ptr(),
            name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if r != 0 {
        return Err(format!("nvrtcCreateProgram failed ({r})"));
    }
    let opts: Vec<CString> = [format!("-arch={arch}"), "-rdc=true".into(), "-dlto".into()]
        .into_iter()
        .filter_map(|o| CString::new(o).ok())
        .collect();
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let buf = |size: NvrtcSizeFn, get: NvrtcBufFn| -> Option<Vec<u8>> {
        let mut len = 0usize;
        // SAFETY: a live program, valid out-pointer, a buffer of the size reported.
        unsafe {
            if size(p, &mut len) != 0 {
                return None;
            }
            let mut b = vec![0u8; len + 1];
            (get(p, b.as_mut_ptr().cast()) == 0).then(|| {
                b.truncate(len);
                b
            })
        }
    };
    // SAFETY: a live program and an option array.
    let r = unsafe { (n.compile)(p, ptrs.len() as c_int, ptrs.as_ptr()) };
    let out = if r == 0 {
        buf(n.ltoir_size, n.ltoir).ok_or_else(|| "nvrtcGetLTOIR failed".to_string())
    } else {
        let log = buf(n.log_size, n.log).unwrap_or_default();
        Err(format!(
            "NVRTC: {}",
            String::from_utf8_lossy(&log).trim_end_matches('\0').trim()
        ))
    };
    // SAFETY: our program, destroyed once.
    unsafe { (n.destroy)(&mut p) };
    out
}
