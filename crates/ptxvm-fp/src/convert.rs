//! `cvt` (§9.7.8.x): every conversion between integer and floating-point types, with
//! rounding, saturation, `.ftz`, `.relu`, `.satfinite`, and the packed narrow formats.
