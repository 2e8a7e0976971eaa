//! Tiled MMA and tiled copy: atoms repeated and permuted over threads and values.
//!
//! # Contract
//! A [`TiledMma`] repeats an MMA atom over a layout of warps and over values,
//! with an optional permutation of M, N and K (CuTe's
//! `make_tiled_mma(atom, atom_layout, permutation_mnk)`); a [`TiledCopy`]
//! tiles a copy atom over a thread layout and a value layout (CuTe's
//! `make_tiled_copy(atom, thr_layout, val_layout)`). Both are built with the
//! layout algebra ([`crate::layout`]) and describe a tile with a
//! (thread, value) layout, "TV layout", mapping to the column-major index
//! of the tile's coordinates:
//!
//! | item | meaning | CuTe |
//! |---|---|---|
//! | `TiledMma::layout_{a,b,c}_tv` | (thread, value) -> index of the (M,K), (N,K), (M,N) tile | `get_layoutA/B/C_TV` over a CTA tile |
//! | `TiledMma::partition_{a,b,c}` | a thread's part of a tile in memory, as a [`ThreadPartition`] | `ThrMMA::partition_A/B/C` |
//! | `TiledMma::fragment_{a,b,c}` | the register fragment's (FrgV, Rest0, Rest1) shape | `partition_fragment_A/B/C` |
//! | `TiledMma::ldsm_tv`, `partition_ldsm` | the row addresses each lane gives to `ldmatrix` | `make_tiled_copy_A/B` + `partition_S` |
//! | `TiledCopy::layout_tv` | (thread, value) -> index of its tile | `TiledCopy::get_layoutS_TV` |
//! | `TiledCopy::partition_s/d` | a thread's part of a source/destination tile | `ThrCopy::partition_S/D` |
//! | [`MmaPicture`] | the A, B, C (thread, value) grids as text or one SVG | `print_latex(tiled_mma)` |
//! | [`RegisterTensor`] | a thread's fragment: registers and a layout from its logical coordinate to a value slot | a register `Tensor` from `make_fragment_like` |
//!
//! Kernels are generated on the host with the thread index a run-time
//! register, so a partition is split into a layout of the thread index,
//! emitted once with [`emit_layout_offset`], and per-value offsets computed on
//! the host (immediates); [`ThreadPartition`] says when that split is exact
//! and how a swizzle is applied after it.
//!
//! The invariant every tiled object keeps, and the tests check: each element
//! of a C tile or copy tile is owned by exactly one (thread, value) pair (A
//! and B tiles are shared by the warps along N and M respectively, once per
//! such warp).

mod emit_offset;
mod ldsm;
mod mma_picture;
mod partition;
mod register_tensor;
mod tiled_copy;
mod tiled_mma;

pub use emit_offset::{emit_layout_offset, emit_swizzle};
pub use mma_picture::{MmaPanel, MmaPicture};
pub use partition::ThreadPartition;
pub use register_tensor::RegisterTensor;
pub use tiled_copy::TiledCopy;
pub use tiled_mma::{Operand, TiledMma};
