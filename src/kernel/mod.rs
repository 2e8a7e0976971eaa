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
