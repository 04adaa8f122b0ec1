//! Output the driver writes on behalf of the guest and for the user: diagnostics on stderr
//! and device `printf` text on the program's stdout. Nothing here can panic or raise
//! `SIGPIPE` in the host program, whatever state its stdout and stderr are in.

/// Writes `msg` to stderr (fd 2). A closed stderr is ignored; a broken pipe does not raise
/// SIGPIPE in the host process.
pub fn write_stderr(msg: &[u8]) {
    // SAFETY: plain libc calls on locally owned signal sets and a borrowed buffer.
    unsafe {
        let mut pipe: libc::sigset_t = core::mem::zeroed();
        let mut old: libc::sigset_t = core::mem::zeroed();
        let mut pending: libc::sigset_t = core::mem::zeroed();
        libc::sigemptyset(&mut pipe);
        libc::sigaddset(&mut pipe, libc::SIGPIPE);
        let blocked = libc::pthread_sigmask(libc::SIG_BLOCK, &pipe, &mut old) == 0;
        let already_pending = blocked
            && libc::sigpending(&mut pending) == 0
            && libc::sigismember(&pending, libc::SIGPIPE) == 1;
        let mut rest = msg;
        while !rest.is_empty() {
            let n = libc::write(2, rest.as_ptr().cast(), rest.len());
            if n > 0 {
                rest = rest.get(n as usize..).unwrap_or_default();
                continue;
            }
            let interrupted =
                n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR);
            if !interrupted {
                break;
            }
        }
        if blocked {
            if !already_pending {
                // Discard the SIGPIPE our write may have raised.
                let zero = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                while libc::sigtimedwait(&pipe, core::ptr::null_mut(), &zero) == libc::SIGPIPE {}
            }
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, core::ptr::null_mut());
        }
    }
}

/// Writes one line `ptxvm: <msg>` to stderr (and records it in the driver log, `cuLogs*`).
pub fn say(msg: &str) {
    crate::logs::record(0, msg);
    let mut line = String::with_capacity(msg.len() + 8);
    line.push_str("ptxvm: ");
    line.push_str(msg);
    if !line.ends_with('\n') {
        line.push('\n');
    }
    write_stderr(line.as_bytes());
}

unsafe extern "C" {
    /// glibc's `stdout` stream.
    static mut stdout: *mut libc::FILE;
}

/// Appends device `printf` output to the program's C `stdout` stream and flushes it, so it
/// is ordered with what the program itself printed through stdio.
pub fn write_stdout(text: &[u8]) {
    if text.is_empty() {
        return;
    }
    // SAFETY: glibc's stdout is a valid stream for the life of the process; fwrite and
    // fflush lock it. SIGPIPE is blocked around the write as in `write_stderr`.
    unsafe {
        let out = stdout;
        if out.is_null() {
            return;
        }
        let mut pipe: libc::sigset_t = core::mem::zeroed();
        let mut old: libc::sigset_t = core::mem::zeroed();
        libc::sigemptyset(&mut pipe);
        libc::sigaddset(&mut pipe, libc::SIGPIPE);
        let blocked = libc::pthread_sigmask(libc::SIG_BLOCK, &pipe, &mut old) == 0;
        libc::fwrite(text.as_ptr().cast(), 1, text.len(), out);
        libc::fflush(out);
        if blocked {
            let zero = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            while libc::sigtimedwait(&pipe, core::ptr::null_mut(), &zero) == libc::SIGPIPE {}
            libc::pthread_sigmask(libc::SIG_SETMASK, &old, core::ptr::null_mut());
        }
    }
}
