//! cuGetProcAddress resolution: placeholder.
