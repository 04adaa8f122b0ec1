//! `.f32`/`.f64` arithmetic (§9.7.3): add, sub, mul, fma, mad, div, rcp, sqrt with every
//! rounding mode, `.ftz` and `.sat`; abs, neg, min, max, copysign, testp and comparisons.
