//! Tiled MMA and tiled copy: atoms repeated and permuted over threads and values.
//!
//! # Contract
//! A `TiledMma` repeats an MMA atom over a layout of warps (or warpgroups) and
//! over values, with an optional permutation of M, N and K; a `TiledCopy` tiles
//! a copy atom over a thread layout and a value layout. Both partition tensors
//! among threads as CuTe's `ThrMMA::partition_A/B/C` and
//! `ThrCopy::partition_S/D` do, by composing the tensor's layout with the
//! (thread, value) layouts from [`crate::layout`]. The invariant every tiled
//! object keeps, and every test checks: each element of the tile is owned by
//! exactly one (thread, value) pair.
//!
//! Nothing lives here yet: the SM80 GEMM issue adds the first tiled objects.
