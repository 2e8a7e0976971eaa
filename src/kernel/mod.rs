//! Kernels: grid mapping and tile scheduling around a mainloop and an epilogue.
//!
//! # Contract
//! A kernel (`GemmUniversal`, elementwise, reduction) owns the whole grid: it
//! maps thread blocks to output tiles through a tile scheduler (data-parallel,
//! persistent, split-K, stream-K), runs its collectives on each tile, and
//! lowers to one PTX `.entry` with typed parameters. It is generated from a
//! small hashable *kernel spec*, the value every static fact of a configuration
//! type lowers to, so that the device layer can cache the compiled module by
//! spec and device.

pub mod elementwise;
pub mod gemm;
pub mod peer_all_reduce;
pub mod quantize;
pub mod reduce;
pub mod transpose;
pub mod vector_add;

/// Blocks of `block_threads` threads for a kernel that gives each thread
/// one of `vectors` vectors: as many as cover them, at least one, at most
/// `blocks_per_sm` on each of `sm_count` SMs (at least one SM); a
/// grid-stride loop covers the rest.
pub(crate) fn vector_blocks(
    vectors: u64,
    block_threads: u32,
    blocks_per_sm: u64,
    sm_count: u32,
) -> u32 {
    let wanted = vectors.div_ceil(u64::from(block_threads.max(1)));
    let cap = blocks_per_sm * u64::from(sm_count.max(1));
    u32::try_from(wanted.clamp(1, cap)).unwrap_or(u32::MAX)
}
