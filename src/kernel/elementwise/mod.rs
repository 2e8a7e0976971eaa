//! Elementwise kernels: `output = f(inputs..., scalars...)` over 1-D and 2-D
//! tensors, partitioned with a TV layout exactly as in the CuTe DSL
//! elementwise tutorial.
//!
//! What: one kernel per [`ElementwiseSpec`] (expression, element types,
//! per-tensor access, tiling, arch); the device layer
//! ([`Elementwise`](crate::device::Elementwise)) builds the spec
//! from the tensors at launch, so a cached call only launches.
//!
//! How (every step evaluated on the host at generation time):
//! 1. **Tiling.** A thread layout `(8,32):(32,1)` and a value layout
//!    `(2,V):(V,1)` with `V` elements = 16 bytes of the narrowest type;
//!    `make_layout_tv(thr, val)` gives the tile `(16, 32*V)` and the TV layout
//!    `(thread, value) -> tile index`; [`Tiling::plan`] checks that it covers
//!    the tile exactly once and finds the widest run of values each thread
//!    holds along `N` ([`TvPlan::vector_group`]).
//! 2. **zipped_divide and the block remap.** The `(M, N)` problem divided by
//!    the tile is `((TM,TN),(M/TM,N/TN))`: block `b` takes rest coordinate
//!    `(b / tiles_n, b % tiles_n)`, so its origin is `(row0, col0)`; the
//!    thread mode of the TV layout is evaluated on `%tid.x` with immediates,
//!    the value mode is an immediate per value: where the thread and value
//!    parts never carry into each other, each tensor gets one base address
//!    per tile and every value group is an immediate offset from it (all
//!    immediates in the launcher's flat view).
//! 3. **Predication from the identity tensor.** A tile whose last coordinate
//!    exists takes the unpredicated path: all loads of all value groups are
//!    issued first (`ld.global.nc.v4.b32` for 16-byte contiguous accesses,
//!    narrower where alignment or the leading dimension forbids), then the
//!    expression per element, then streaming stores (`st.global.cs`). Edge
//!    tiles take a loop over the values, one element per iteration, predicated
//!    on `col < n && row*n + col < len` (a loop keeps the register count of
//!    the whole kernel at the vector path's: 32 for an f16 add).
//! 4. **Schedule.** [`Schedule`] selects a persistent grid-stride walk with
//!    software pipelining, cache hints and `.minnctapersm`; the default (one
//!    tile per block, `ld.global.nc`, `st.global.cs`) measured best. An
//!    opt-in [`BulkCopy`] schedule (sm_90a, contiguous tensors) streams the
//!    inputs through the copy engine into a shared-memory ring instead.
//!
//! A contiguous problem is flattened by the launcher to `len` elements viewed
//! as rows of `TN`, so any ragged length keeps the vector path except in
//! its last tile.
//!
//! | item | file |
//! |---|---|
//! | [`ElementwiseSpec`], [`Operand`], [`Access`], the params | `spec.rs` |
//! | [`Tiling`], [`TvPlan`] | `tiling.rs` |
//! | [`Schedule`] (persistent walk, cache hints) | `schedule.rs` |
//! | PTX generation: tile walk | `emit.rs` |
//! | the kernel's shared context, one tile's registers and loads | `emit_ctx.rs` |
//! | one tile's compute and stores, full and edge tiles | `emit_tile.rs` |
//! | [`BulkCopy`] (sm_90a copy-engine ring), [`BulkLayout`] | `bulk.rs` |
//! | PTX generation of the bulk-copy walk: setup and prologue | `bulk_emit.rs` |
//! | the bulk-copy chunk loop and ragged tail | `bulk_loop.rs` |
//! | one tensor's loads, stores and addresses | `access.rs` |

mod access;
mod bulk;
mod bulk_emit;
mod bulk_loop;
mod emit;
mod emit_ctx;
mod emit_tile;
mod schedule;
mod spec;
mod tiling;

pub use bulk::{BulkCopy, BulkLayout, BulkStore};
pub use schedule::{Prefetch, Schedule, StoreHint};
pub use spec::{Access, ElementwiseSpec, Operand, SUPPORTED_ELEMENTS};
pub use tiling::{Tiling, TvPlan};
