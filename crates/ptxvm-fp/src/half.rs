//! Half precision (§9.7.4): `.f16`, `.f16x2`, `.bf16`, `.bf16x2` arithmetic.
