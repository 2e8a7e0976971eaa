//! Elementwise kernels: `output = f(inputs..., scalars...)` over 1-D and 2-D
//! tensors, partitioned with a TV layout exactly as in the CuTe DSL
//! elementwise tutorial.
//!
//! What: one kernel per [`ElementwiseSpec`] (expression, element types,
//! per-tensor access, tiling, arch); the device layer
//! ([`device::elementwise`](crate::device::elementwise)) builds the spec
//! from the tensors at launch, so a cached call only launches.
//!
//! How (every step evaluated on the host at generation time):
//! 1. **Tiling.** A thread layout `(8,32):(32,1)` and a value layout
//!    `(4,V):(V,1)` with `V` elements = 16 bytes of the narrowest type;
//!    `make_layout_tv(thr, val)` gives the tile `(32, 32*V)` and the TV layout
//!    `(thread, value) -> tile index`; [`Tiling::plan`] checks that it covers
//!    the tile exactly once and finds the widest run of values each thread
//!    holds along `N` ([`TvPlan::vector_group`]).
//! 2. **zipped_divide and the block remap.** The `(M, N)` problem divided by
//!    the tile is `((TM,TN),(M/TM,N/TN))`: block `b` takes rest coordinate
//!    `(b / tiles_n, b % tiles_n)`, so its origin is `(row0, col0)`; the
//!    thread mode of the TV layout is evaluated on `%tid.x` with immediates,
//!    the value mode is an immediate per value.
//! 3. **Predication from the identity tensor.** A tile whose last coordinate
//!    exists takes the unpredicated path: all loads of all value groups are
//!    issued first (`ld.global.nc.v4.b32` for 16-byte contiguous accesses,
//!    narrower where alignment or the leading dimension forbids), then the
//!    expression per element, then streaming stores (`st.global.cs`). Edge
//!    tiles take a per-element path predicated on `col < n && row*n + col < len`.
//!
//! A contiguous problem is flattened by the launcher to `len` elements viewed
//! as rows of `TN`, so any ragged length keeps the vector path except in
//! its last tile.
//!
//! | item | file |
//! |---|---|
//! | [`ElementwiseSpec`], [`Operand`], [`Access`], the params | `spec.rs` |
//! | [`Tiling`], [`TvPlan`] | `tiling.rs` |
//! | PTX generation | `emit.rs` |

mod emit;
mod spec;
mod tiling;

pub use spec::{Access, ElementwiseSpec, Operand, SUPPORTED_ELEMENTS};
pub use tiling::{Tiling, TvPlan};
