//! Atoms: one hardware instruction each, with its thread/value layouts.
//!
//! # Contract
//! An MMA atom (CuTe's `MMA_Traits`) names one `mma`/`wgmma` instruction and
//! describes it with layouts from [`crate::layout`]:
//!
//! | item | meaning |
//! |---|---|
//! | `ThrID` | the threads that execute it together (32 for a warp, 128 for a warpgroup) |
//! | `Shape_MNK` | the (M,N,K) extent of one instruction |
//! | `ALayout`, `BLayout`, `CLayout` | (thread, value) -> (m,k), (n,k), (m,n) coordinate in the atom's tile |
//! | element types | D, A, B, C types, encoded in the name as `SM80_16x8x16_F32F16F16F32_TN` |
//! | snippet | the `ptx/smXX/*.ptx` file that emits the instruction |
//!
//! A copy atom (CuTe's `Copy_Traits`) names one data-movement instruction
//! (`cp.async`, `ldmatrix`, TMA, a vector load) with its source and
//! destination (thread, value) -> bit layouts.
//!
//! The raw snippet lives in `ptx/`, one file per instruction family per
//! architecture; the Rust metadata lives here, one file per family per
//! architecture (`mma_sm80.rs`, `copy_sm80.rs`, ...). No atom exists yet: the
//! SM80 GEMM issue adds the first ones.
