//! The opening the hand-written ptxas test kernels share: 16 bytes per thread
//! between two global buffers and a static shared tile.

use cutlet::arch::ArchKind;
use cutlet::ptx::{Kernel, Module, ParamType, Reg, RegClass, SpecialReg};

/// Kernel `name` of at most `threads` threads, with `u64` parameters `src`
/// and `dst` and a static shared `tile` of `tile_bytes` bytes aligned to
/// `tile_align`, and the registers `[src, dst, smem]`: this thread's global
/// addresses in `src` and `dst` and its shared-window address in the tile,
/// each offset by 16 bytes times the thread index.
pub fn probe_kernel(
    name: &str,
    threads: u32,
    tile_align: u32,
    tile_bytes: u32,
) -> (Kernel, [Reg; 3]) {
    let mut k = Kernel::new(name).unwrap();
    k.max_threads(threads, 1, 1);
    let src_param = k.param("src", ParamType::U64).unwrap();
    let dst_param = k.param("dst", ParamType::U64).unwrap();
    let tile = k.shared_static("tile", tile_align, tile_bytes).unwrap();
    let src = k.load_param(&src_param).unwrap();
    let dst = k.load_param(&dst_param).unwrap();
    k.cvta_to_global(src, src);
    k.cvta_to_global(dst, dst);
    let tid = k.special(SpecialReg::TidX);
    let offset = k.reg(RegClass::B32);
    k.push(format!("shl.b32 {offset}, {tid}, 4;"));
    let wide = k.reg(RegClass::B64);
    k.push(format!("cvt.u64.u32 {wide}, {offset};"));
    k.push(format!("add.s64 {src}, {src}, {wide};"));
    k.push(format!("add.s64 {dst}, {dst}, {wide};"));
    let smem = k.shared_address(&tile);
    k.push(format!("add.s32 {smem}, {smem}, {offset};"));
    (k, [src, dst, smem])
}

/// The PTX of a module for `arch` holding only `kernel`.
pub fn module_ptx(arch: ArchKind, kernel: Kernel) -> String {
    let mut module = Module::new(arch);
    module.add_kernel(kernel).unwrap();
    module.emit().unwrap()
}
