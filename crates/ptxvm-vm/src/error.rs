//! Errors of the runtime. A [`Fault`] is a failure of the guest program (out-of-bounds
//! access, trap, deadlock, ...) and carries where it happened; everything else is a usage
//! error of the API (bad launch configuration, unknown kernel, bad arguments).

use std::fmt;

/// What went wrong in the guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FaultKind {
    /// A memory access outside any live allocation or window.
    OutOfBounds,
    /// A misaligned access.
    Misaligned,
    /// An access to freed memory.
    UseAfterFree,
    /// A write to read-only memory (`.const`, kernel parameters).
    ReadOnly,
    /// `trap` or a failed `__assertfail`.
    Trap,
    /// `brkpt`: execution is suspended at a breakpoint, and with no debugger attached it can
    /// never resume, so the launch stops there.
    Breakpoint,
    /// A barrier that can never complete.
    Deadlock,
    /// A `.sync` instruction whose membermask is violated.
    MemberMask,
    /// The instruction budget (`--max-steps`) ran out.
    StepLimit,
    /// An instruction or form the interpreter does not implement yet.
    Unsupported,
    /// Local stack or call depth exhausted.
    StackOverflow,
    /// Undefined use of a barrier object: an `mbarrier` that is uninitialised, over-arrived
    /// or out of tx-count range, or `barrier.cluster` arrive/wait out of order.
    Barrier,
    /// An access to state an asynchronous operation still owns: a register of a
    /// `wgmma.mma_async` result before the `wgmma.wait_group` that completes it.
    AsyncHazard,
    /// A TMA copy or `tensormap.replace` on an invalid tensor map, or a copy the map does not
    /// allow (rank, alignment of the shared box).
    TensorMap,
}

/// Where in the guest a fault happened.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Site {
    pub kernel: String,
    /// Function the faulting instruction is in (may differ from the kernel).
    pub function: String,
    /// PTX source line (1-based; 0 when unknown).
    pub line: u32,
    /// `.loc` position in force: (file name, line).
    pub loc: Option<(String, u32)>,
    pub cta: [u32; 3],
    pub tid: [u32; 3],
    pub lane: u32,
}

/// A guest failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    pub kind: FaultKind,
    pub message: String,
    pub site: Site,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.site;
        write!(f, "{}\n  in kernel `{}`", self.message, s.kernel)?;
        if !s.function.is_empty() && s.function != s.kernel {
            write!(f, ", function `{}`", s.function)?;
        }
        if s.line > 0 {
            write!(f, ", PTX line {}", s.line)?;
        }
        if let Some((file, line)) = &s.loc {
            write!(f, " (source {file}:{line})")?;
        }
        write!(
            f,
            "\n  CTA ({}, {}, {}), thread ({}, {}, {}), lane {}",
            s.cta[0], s.cta[1], s.cta[2], s.tid[0], s.tid[1], s.tid[2], s.lane
        )
    }
}

/// A diagnostic of a module that did not check, with its position in the original source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for Located {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

/// Any runtime error.
#[derive(Debug, thiserror::Error)]
pub enum VmError {
    /// The guest failed.
    #[error("{0}")]
    Fault(Box<Fault>),
    /// The module did not check: every error diagnostic, located.
    #[error("the module has errors:\n{}", .0.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Located>),
    /// A misuse of the API (launch configuration, parameters, ...).
    #[error("{0}")]
    Usage(String),
    /// A name that is not in the module (kernel, variable).
    #[error("{0}")]
    NotFound(String),
    /// A bug in ptxvm: a panic caught at a library entry point (the panic message). The
    /// operation failed; the device is still usable.
    #[error("internal error in ptxvm (please report it): {0}")]
    Internal(String),
}

/// Runs `f`, turning a panic into [`VmError::Internal`]: library entry points never unwind
/// into their caller (a driver loaded into someone else's program).
pub fn catch<T>(f: impl FnOnce() -> Result<T, VmError>) -> Result<T, VmError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(VmError::Internal(
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_string()),
        )),
    }
}

impl VmError {
    pub fn usage(msg: impl Into<String>) -> VmError {
        VmError::Usage(msg.into())
    }
}

/// Stack of the thread [`front_end`] runs the parser and checker on: nesting up to
/// `ptxvm_syntax::parser::MAX_NESTING` needs about 512 KiB; a caller's thread may have less
/// (a driver runs in someone else's threads).
const FRONT_END_STACK: usize = if cfg!(debug_assertions) {
    // Unoptimised frames are many times larger: the same nesting needs more.
    256 << 20
} else {
    16 << 20
};

/// Runs front-end work (parse, check, link) on a thread of its own with a known stack, and
/// turns a panic into [`VmError::Internal`]. Runs `f` on the calling thread when no thread
/// can be started.
pub fn front_end<T: Send>(f: impl FnOnce() -> Result<T, VmError> + Send) -> Result<T, VmError> {
    let mut f = Some(f);
    let spawned = std::thread::scope(|s| {
        let job = std::thread::Builder::new()
            .name("ptxvm-front-end".into())
            .stack_size(FRONT_END_STACK)
            .spawn_scoped(s, || catch(|| (f.take().expect("job"))()));
        job.ok().map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(VmError::Internal("the front-end thread panicked".into())))
        })
    });
    match (spawned, f) {
        (Some(r), _) => r,
        (None, Some(f)) => catch(f),
        (None, None) => Err(VmError::Internal("the front-end thread did not run".into())),
    }
}
