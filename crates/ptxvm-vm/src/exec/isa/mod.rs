//! The instructions by family, as the PTX manual groups them: each file holds its family's
//! decoding (from the checked IR into [`crate::program::Exec`]) and its execution by the
//! reference engine, so one family's decode and semantics are read together. The pure
//! per-thread operations they call, shared with the fast engines, are in [`crate::ops`].

mod arith;
mod compare;
mod control;
mod convert;
mod matrix;
mod memory;
mod sync;
mod texture;
mod video;
pub(in crate::exec) mod warp;
