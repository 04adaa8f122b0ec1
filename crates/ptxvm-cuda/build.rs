//! The driver library's SONAME is `libcuda.so.1`, as NVIDIA's: clients load it by that name
//! and reuse an already-loaded library with that SONAME.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
}
