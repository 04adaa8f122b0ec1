//! Context-local storage: the map behind the CONTEXT_LOCAL_STORAGE_INTERFACE_V0301 table.
//!
//! The runtime keeps its per-context state here, keyed by (context, key), each value with an
//! optional destructor that the driver calls when the context is destroyed or reset (ZLUDA,
//! `zluda/src/impl/context.rs`, `ContextState::reset`). This module is the data structure
//! only; the table's slots lock it and resolve a NULL context to the current one.
//!
//! Invariants: contexts and keys are opaque addresses, never dereferenced; destructors are never
//! called from here: [`ClsStore::take_context`] hands them back so the caller can run them
//! after releasing its lock (a destructor may call back into the table).

use std::collections::BTreeMap;
use std::ffi::c_void;

/// A value's destructor: `(context, key, value)`.
pub type ClsDtor = unsafe extern "C" fn(ctx: *mut c_void, key: *mut c_void, value: *mut c_void);

/// One stored value, with what its destructor needs.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: usize,
    pub value: usize,
    pub dtor: Option<ClsDtor>,
}

/// Values per context, each context's in insertion order.
#[derive(Debug, Default)]
pub struct ClsStore {
    contexts: BTreeMap<usize, Vec<Entry>>,
}

impl ClsStore {
    pub const fn new() -> Self {
        ClsStore {
            contexts: BTreeMap::new(),
        }
    }

    /// Stores `value` under (ctx, key). An existing entry is replaced in place (keeping its
    /// place in the destruction order) without running its destructor, as ZLUDA does.
    pub fn put(&mut self, ctx: usize, key: usize, value: usize, dtor: Option<ClsDtor>) {
        let entries = self.contexts.entry(ctx).or_default();
        let new = Entry { key, value, dtor };
        match entries.iter_mut().find(|e| e.key == key) {
            Some(e) => *e = new,
            None => entries.push(new),
        }
    }

    /// Removes (ctx, key) without running its destructor; whether it existed.
    pub fn delete(&mut self, ctx: usize, key: usize) -> bool {
        let Some(entries) = self.contexts.get_mut(&ctx) else {
            return false;
        };
        let Some(at) = entries.iter().position(|e| e.key == key) else {
            return false;
        };
        entries.remove(at);
        if entries.is_empty() {
            self.contexts.remove(&ctx);
        }
        true
    }

    pub fn get(&self, ctx: usize, key: usize) -> Option<usize> {
        self.contexts
            .get(&ctx)?
            .iter()
            .find(|e| e.key == key)
            .map(|e| e.value)
    }

    /// Removes every entry of `ctx` and returns them in the order their destructors should run:
    /// the reverse of insertion, so later state (which may refer to earlier state) goes first.
    pub fn take_context(&mut self, ctx: usize) -> Vec<Entry> {
        let mut entries = self.contexts.remove(&ctx).unwrap_or_default();
        entries.reverse();
        entries
    }

    /// How many entries are stored over all contexts.
    pub fn len(&self) -> usize {
        self.contexts.values().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn dtor_a(_: *mut c_void, _: *mut c_void, _: *mut c_void) {}
    unsafe extern "C" fn dtor_b(_: *mut c_void, _: *mut c_void, _: *mut c_void) {}

    #[test]
    fn put_get_delete() {
        let mut s = ClsStore::new();
        assert_eq!(s.get(1, 10), None);
        s.put(1, 10, 100, Some(dtor_a));
        s.put(2, 10, 200, None);
        assert_eq!(s.get(1, 10), Some(100));
        assert_eq!(s.get(2, 10), Some(200));
        assert_eq!(s.get(1, 11), None);
        assert_eq!(s.len(), 2);
        assert!(s.delete(1, 10));
        assert!(!s.delete(1, 10));
        assert!(!s.delete(3, 10));
        assert_eq!(s.get(1, 10), None);
        assert_eq!(s.get(2, 10), Some(200));
        assert!(s.delete(2, 10));
        assert_eq!(s.len(), 0);
    }

    #[test]
    fn put_replaces_in_place() {
        let mut s = ClsStore::new();
        s.put(1, 10, 100, Some(dtor_a));
        s.put(1, 11, 110, None);
        s.put(1, 10, 101, Some(dtor_b));
        assert_eq!(s.get(1, 10), Some(101));
        assert_eq!(s.len(), 2);
        let taken = s.take_context(1);
        let summary: Vec<(usize, usize, bool)> = taken
            .iter()
            .map(|e| (e.key, e.value, e.dtor.is_some()))
            .collect();
        assert_eq!(summary, vec![(11, 110, false), (10, 101, true)]);
    }

    #[test]
    fn take_context_empties_only_that_context() {
        let mut s = ClsStore::new();
        for k in 0..5 {
            s.put(7, k, k * 2, None);
            s.put(8, k, k * 3, None);
        }
        let taken: Vec<usize> = s.take_context(7).iter().map(|e| e.key).collect();
        assert_eq!(taken, vec![4, 3, 2, 1, 0]);
        assert!(s.take_context(7).is_empty());
        assert_eq!(s.len(), 5);
        assert_eq!(s.get(8, 4), Some(12));
    }
}
