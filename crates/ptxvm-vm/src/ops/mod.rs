//! Pure per-thread operations of the less common instructions (integer bit manipulation,
//! packed and extended-precision arithmetic, half precision through `ptxvm-fp`), and the
//! `vprintf` formatter. Nothing here touches scheduler state; every function is total on
//! arbitrary guest bits (no panics, no unchecked indexing).

pub mod alu;
pub mod half;
pub mod int;
pub mod mbarrier;
pub mod printf;
pub mod sparse;
pub mod tcgen05;
pub mod tensor;
pub mod texture;
pub mod tma;
pub mod video;
pub mod wgmma;
