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
//! Nothing lives here yet: the SM80 GEMM issue adds the first collectives.
