//! Tables generated from NVIDIA's `cuda.h`/`cudaTypedefs.h` by `tools/gen_driver_tables.py`
//! (do not edit by hand).

pub mod errors;
