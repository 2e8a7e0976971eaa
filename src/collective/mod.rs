//! Collectives: the mainloops and epilogues that one thread block runs together.
//!
//! # Contract
//! Every collective follows the same host contract, in the same order, as
//! CUTLASS 3.x collectives do:
//!
//! | item | meaning |
//! |---|---|
//! | `Arguments` | what the user gives (pointers, strides, scalars) |
//! | `Params` | what the kernel receives, derived from `Arguments` |
//! | `to_underlying_arguments` | `Arguments` -> `Params` |
//! | `can_implement` | whether these arguments fit this collective, and why not |
//! | shared storage | the shared memory the collective needs, as a layout |
//!
//! Device-side, a mainloop emits PTX that moves tiles of A and B through
//! shared memory (SM70 pipelined loads, SM80 multistage `cp.async`, SM90 TMA
//! with warp specialization) and accumulates with a tiled MMA; an epilogue
//! emits PTX that turns accumulators into output (linear combination, fused
//! expressions). A collective builder picks atoms, shared-memory layouts and
//! stage counts from the element types, majors and tile shape.
//!
//! | item | file |
//! |---|---|
//! | [`OperandSmem`] | an operand's swizzled shared-memory tile and its `cp.async` thread mapping |
//! | [`Sm80MmaMultistage`] | the SM80 multistage `cp.async` + `ldmatrix` + `mma.sync` mainloop |
//! | [`EpilogueSm80`], [`VectorMapping`] | D = alpha * acc + beta * C, staged through shared memory; how threads take its vectors |

/// Bytes of one `cp.async` copy and one epilogue vector.
pub(crate) const VECTOR_BYTES: u32 = 16;

/// Alignment in bytes of the kernel's dynamic shared memory (a multiple of
/// the swizzle period the mainloop's `ldmatrix` XOR immediates rely on).
pub(crate) const SMEM_ALIGN: u32 = 1024;

mod block;
mod dispatch_policy;
mod epilogue;
mod epilogue_fusion;
mod epilogue_sm80;
mod mainloop;
mod shared_storage;
mod sm80_mma_multistage;
mod smem_layout;
mod tile_context;

pub use block::{BlockContext, GlobalOperand};
pub use dispatch_policy::{
    EpiloguePolicy, EpilogueSm80Staged, EpilogueSpec, EpilogueTag, MainloopPolicy,
    MainloopSm80CpAsync, MainloopSpec, MainloopTag,
};
pub use epilogue::Epilogue;
pub(crate) use epilogue_sm80::epilogue_pad;
pub use epilogue_sm80::LinearScalars;
pub use epilogue_sm80::{EpilogueInputs, EpilogueSm80, VectorMapping};
pub use mainloop::Mainloop;
pub use shared_storage::SharedStorage;
pub use sm80_mma_multistage::{Accumulators, G2sMapping, MainloopInputs, Sm80MmaMultistage};
pub use smem_layout::OperandSmem;
pub use tile_context::TileContext;
