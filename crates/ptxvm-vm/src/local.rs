//! A thread's local memory: a logical extent (the bytes its frames and `alloca`s have
//! reserved, up to the per-thread limit — 512 KiB by default, as CUDA) backed by pages that
//! are allocated only when first written. Reading a byte that was never written gives 0.
//! So a kernel that declares a 512 KiB local array and touches a few entries costs a few
//! pages per thread, not 512 KiB × threads.

use crate::memory::AccessError;

/// Bytes per backing page.
pub const PAGE: usize = 4096;

/// One thread's local memory.
#[derive(Debug, Default)]
pub struct LocalMem {
    /// Logical size in bytes: accesses below it are valid.
    len: u32,
    pages: Vec<Option<Box<[u8]>>>,
}

impl LocalMem {
    /// Local memory of `len` bytes, nothing backed yet.
    pub fn new(len: u32) -> LocalMem {
        LocalMem {
            len,
            pages: Vec::new(),
        }
    }

    /// The logical size.
    /// Whether this is `LocalMem::new(len)`: nothing written, nothing reserved beyond it.
    pub fn is_fresh(&self, len: u32) -> bool {
        self.len == len && self.pages.is_empty()
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Grows the logical size (never shrinks: a returned frame's bytes stay addressable, as
    /// on a GPU, where the stack's memory stays mapped).
    pub fn reserve(&mut self, len: u32) {
        self.len = self.len.max(len);
    }

    /// Bytes of backing pages in use.
    pub fn backed_bytes(&self) -> u64 {
        self.pages.iter().filter(|p| p.is_some()).count() as u64 * PAGE as u64
    }

    fn check(&self, addr: u64, n: usize) -> Result<(), AccessError> {
        if addr
            .checked_add(n as u64)
            .is_some_and(|e| e <= self.len as u64)
        {
            Ok(())
        } else {
            Err(AccessError::OutOfBounds(format!(
                "{n}-byte access at offset {addr:#x} is outside local memory ({} bytes)",
                self.len
            )))
        }
    }

    /// Reads `buf.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), AccessError> {
        self.check(addr, buf.len())?;
        let mut a = addr as usize;
        let mut done = 0;
        while done < buf.len() {
            let (page, off) = (a / PAGE, a % PAGE);
            let n = (PAGE - off).min(buf.len() - done);
            match self.pages.get(page).and_then(|p| p.as_deref()) {
                Some(p) => buf[done..done + n].copy_from_slice(&p[off..off + n]),
                None => buf[done..done + n].fill(0),
            }
            done += n;
            a += n;
        }
        Ok(())
    }

    /// Writes `data` at `addr`; `charge` is called with [`PAGE`] for every page that has to
    /// be allocated and may refuse it (the launch's memory budget).
    pub fn write(
        &mut self,
        addr: u64,
        data: &[u8],
        charge: &mut dyn FnMut(u64) -> Result<(), AccessError>,
    ) -> Result<(), AccessError> {
        self.check(addr, data.len())?;
        let mut a = addr as usize;
        let mut done = 0;
        while done < data.len() {
            let (page, off) = (a / PAGE, a % PAGE);
            let n = (PAGE - off).min(data.len() - done);
            if self.pages.len() <= page {
                self.pages.resize_with(page + 1, || None);
            }
            let slot = &mut self.pages[page];
            if slot.is_none() {
                if data[done..done + n].iter().all(|&b| b == 0) {
                    // Zeros into an unbacked page: nothing to store.
                    done += n;
                    a += n;
                    continue;
                }
                charge(PAGE as u64)?;
                *slot = Some(vec![0u8; PAGE].into_boxed_slice());
            }
            if let Some(p) = slot.as_deref_mut() {
                p[off..off + n].copy_from_slice(&data[done..done + n]);
            }
            done += n;
            a += n;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_backed_on_first_write() {
        let mut m = LocalMem::new(512 * 1024);
        let mut charged = 0u64;
        let mut charge = |n: u64| {
            charged += n;
            Ok(())
        };
        let mut b = [7u8; 8];
        m.read(500 * 1024, &mut b).unwrap();
        assert_eq!(b, [0; 8]);
        m.write(4090, &[1, 2, 3, 4, 5, 6, 7, 8], &mut charge)
            .unwrap();
        m.write(100_000, &[0; 16], &mut charge).unwrap();
        assert_eq!(m.backed_bytes(), 2 * PAGE as u64);
        m.read(4090, &mut b).unwrap();
        assert_eq!(b, [1, 2, 3, 4, 5, 6, 7, 8]);
        assert!(m.read(512 * 1024 - 4, &mut b).is_err());
        assert!(m.write(u64::MAX - 2, &[1; 4], &mut charge).is_err());
        assert_eq!(charged, 2 * PAGE as u64);
        let mut refuse = |_| Err(AccessError::OutOfBounds("budget".into()));
        assert!(m.write(300_000, &[1], &mut refuse).is_err());
    }
}
