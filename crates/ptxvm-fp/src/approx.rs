//! Approximate functions (`.approx`): sin, cos, lg2, ex2, tanh, rcp, rsqrt, div.full, each
//! within the spec's stated maximum error.
