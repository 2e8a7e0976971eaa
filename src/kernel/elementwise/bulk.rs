//! [`BulkCopy`]: the opt-in sm_90a schedule that streams contiguous inputs
//! through the copy engine (`cp.async.bulk`) into a shared-memory ring, and
//! [`BulkLayout`], the ring's shape that the generator and the launcher share.
//!
//! The unit of work is a *chunk*: `tiles_per_stage` consecutive tiles of the
//! tiling, `tiles_per_stage * TM * TN` consecutive elements of the launcher's
//! 1-D view. One stage of the ring holds one chunk of every input (and of
//! the output, when it leaves through a bulk store); an mbarrier per stage
//! counts the bytes the copy engine delivers.

use super::spec::{Access, ElementwiseSpec};
use super::tiling::TvPlan;
use crate::arch::ArchKind;
use crate::pipeline::{Release, TmaAsyncConfig, MBARRIER_BYTES};
use crate::{Error, Result};

/// How the output of a [`BulkCopy`] schedule goes back to global memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BulkStore {
    /// Each thread stores its 16-byte groups from registers with
    /// `st.global` and the schedule's [`StoreHint`](super::StoreHint)
    /// (`st.global.cs` by default).
    #[default]
    Registers,
    /// Each thread writes its groups to a shared-memory stage
    /// (`st.shared.v4`), then one thread copies the whole chunk out with
    /// `cp.async.bulk.global.shared::cta.bulk_group`.
    Bulk,
}

/// The bulk-copy schedule (sm_90a, contiguous operands only): one thread
/// loads each chunk of every input with one
/// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes`
/// into a ring of `stages` shared-memory stages; every thread waits on the
/// stage's mbarrier (`try_wait.parity`), reads its values with
/// `ld.shared.v4` at the TV layout's positions, applies the expression and
/// stores as [`BulkStore`] says. Ragged tails (the last, partial chunk) take
/// the predicated path of the default schedule.
///
/// With [`Schedule::persistent`](super::Schedule::persistent) `k > 0`, a
/// grid of `k` blocks per SM walks the chunks grid-stride and refills each
/// stage with the chunk `stages` steps ahead as soon as it is consumed
/// (needs `stages >= 2`). With `persistent == 0`, block `b` takes chunks
/// `b * stages .. b * stages + stages`, all loads issued at once.
///
/// The launcher uses it only where it fits (sm_90a, every tensor contiguous
/// and 16-byte aligned in the 1-D view, see [`ElementwiseSpec::bulk_layout`])
/// and runs the default path otherwise.
///
/// ```
/// use cutlet::kernel::elementwise::{BulkCopy, BulkStore, Schedule};
/// let s = Schedule { persistent: 1, bulk: Some(BulkCopy { stages: 4, ..BulkCopy::default() }), ..Schedule::default() };
/// assert_eq!(s.bulk.unwrap().store, BulkStore::Registers);
/// assert!(BulkCopy { stages: 9, ..BulkCopy::default() }.validate(true).is_err());
/// assert!(BulkCopy { stages: 1, ..BulkCopy::default() }.validate(true).is_err()); // a ring needs 2
/// assert!(BulkCopy { stages: 1, ..BulkCopy::default() }.validate(false).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BulkCopy {
    /// Shared-memory stages (1 to 8; at least 2 for a persistent grid).
    pub stages: u32,
    /// Tiles of the tiling per stage (1 to 16): the chunk one bulk copy moves.
    pub tiles_per_stage: u32,
    /// How the output is written.
    pub store: BulkStore,
}

impl Default for BulkCopy {
    /// Three stages of two tiles (16 KiB per f16 input with the default
    /// tiling), stores from registers.
    fn default() -> BulkCopy {
        BulkCopy {
            stages: 3,
            tiles_per_stage: 2,
            store: BulkStore::Registers,
        }
    }
}

/// Most stages of a ring.
const MAX_STAGES: u32 = 8;
/// Most tiles per stage.
const MAX_TILES_PER_STAGE: u32 = 16;
/// An mbarrier phase counts at most 2^20 - 1 transaction bytes.
const MAX_TX_BYTES: u64 = (1 << 20) - 1;
/// Alignment of every buffer in a stage.
const BUFFER_ALIGN: u64 = 128;

impl BulkCopy {
    /// Checks the ranges: `stages` 1 to 8 (2 to 8 when `persistent`),
    /// `tiles_per_stage` 1 to 16.
    ///
    /// Errors: [`Error::InvalidArgument`] naming the value and the range.
    pub fn validate(&self, persistent: bool) -> Result<()> {
        let min_stages = if persistent { 2 } else { 1 };
        if !(min_stages..=MAX_STAGES).contains(&self.stages) {
            return Err(Error::invalid_argument(
                "bulk copy stages",
                self.stages,
                format!(
                    "{min_stages} to {MAX_STAGES}{}",
                    if persistent {
                        " (a persistent ring refills one stage while the others are in flight)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        if !(1..=MAX_TILES_PER_STAGE).contains(&self.tiles_per_stage) {
            return Err(Error::invalid_argument(
                "bulk copy tiles per stage",
                self.tiles_per_stage,
                format!("1 to {MAX_TILES_PER_STAGE}"),
            ));
        }
        Ok(())
    }
}

/// The shared-memory ring of a [`BulkCopy`] kernel. Byte offsets are from
/// the dynamic shared-memory base; every buffer is 128-byte aligned.
///
/// Stage `s` starts at `s * stage_bytes`; input `i`'s chunk lies at
/// `input_offsets[i]` within it, the output's (bulk store only) at
/// `output_offset`; the `stages` mbarriers (8 bytes each) follow the ring
/// at `barrier_offset`: the layout of the [`PipelineTmaAsync`](crate::pipeline::PipelineTmaAsync) ring that
/// [`pipeline`](Self::pipeline) describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BulkLayout {
    /// Stages of the ring.
    pub stages: u32,
    /// Tiles per chunk.
    pub chunk_tiles: u32,
    /// Elements per chunk (`chunk_tiles * TM * TN`).
    pub chunk_elements: u64,
    /// Bytes of one chunk of each tensor, output first (multiples of 16).
    pub chunk_bytes: Vec<u32>,
    /// Offset of each input's chunk within a stage.
    pub input_offsets: Vec<u32>,
    /// Offset of the output's chunk within a stage (bulk store only).
    pub output_offset: Option<u32>,
    /// Bytes of one stage (a multiple of 128).
    pub stage_bytes: u32,
    /// Offset of the first mbarrier.
    pub barrier_offset: u32,
    /// Dynamic shared memory the launch needs.
    pub shared_bytes: u32,
    /// Bytes the copy engine delivers per stage (every input's chunk).
    pub tx_bytes: u32,
    /// Whether the grid is persistent (a ring refilled grid-stride).
    pub persistent: bool,
}

impl BulkLayout {
    /// The ring as a [`PipelineTmaAsync`](crate::pipeline::PipelineTmaAsync): these stages, `tx_bytes` per
    /// stage, released by the block's `bar.sync` (thread 0 is the
    /// producer and one of the consumers), no cluster.
    pub fn pipeline(&self) -> TmaAsyncConfig {
        TmaAsyncConfig {
            stages: self.stages,
            stage_bytes: self.stage_bytes,
            tx_bytes: self.tx_bytes,
            release: Release::BlockBarrier,
            cluster_ctas: 1,
        }
    }

    /// The grid for `tiles` tiles: `persistent_per_sm * sm_count` blocks
    /// (never more than the chunks) for a persistent walk, else one block
    /// per `stages` chunks.
    ///
    /// ```
    /// # use cutlet::kernel::elementwise::BulkLayout;
    /// # let mut l = BulkLayout { stages: 3, chunk_tiles: 2, chunk_elements: 8192, chunk_bytes: vec![], input_offsets: vec![],
    /// #   output_offset: None, stage_bytes: 0, barrier_offset: 0, shared_bytes: 0, tx_bytes: 0, persistent: false };
    /// assert_eq!(l.grid(13, 1, 132), 3); // 7 chunks (the last partial) in blocks of 3
    /// l.persistent = true;
    /// assert_eq!(l.grid(13, 1, 4), 4);
    /// assert_eq!(l.grid(13, 2, 132), 7);
    /// ```
    pub fn grid(&self, tiles: u32, persistent_per_sm: u32, sm_count: u32) -> u32 {
        let chunks = tiles.div_ceil(self.chunk_tiles).max(1);
        if self.persistent {
            chunks.min(persistent_per_sm.saturating_mul(sm_count).max(1))
        } else {
            chunks.div_ceil(self.stages)
        }
    }
}

/// Why a problem cannot take the bulk-copy ring: `what` it has, and what
/// bulk copies need instead.
fn unfit(what: impl std::fmt::Display, needed: &str) -> Error {
    Error::invalid_argument("bulk copy schedule", what, needed)
}

fn round_up(x: u64, align: u64) -> u64 {
    x.div_ceil(align) * align
}

impl ElementwiseSpec {
    /// The bulk-copy ring of this spec's [`BulkCopy`] schedule: `Ok(Ok(layout))`
    /// where it fits, `Ok(Err(why))` where this problem cannot take it (an
    /// [`Error::InvalidArgument`] named `bulk copy schedule` that names what
    /// does not fit; the launcher then runs the default path), `Err` for a
    /// configuration that no problem can run.
    ///
    /// It fits when the arch is sm_90a, the spec is the launcher's 1-D view
    /// (`flat`), every tensor is contiguous with 16-byte accesses (so every
    /// address and chunk is 16-byte aligned), a tile row is a multiple of 16
    /// bytes of every tensor, the TV layout gives every thread the same
    /// value offsets, and the ring of these inputs fits: a stage carries at
    /// most 2^20 - 1 bytes and the ring sm_90's 227 KiB of shared memory.
    ///
    /// Errors: [`Error::InvalidArgument`] when the schedule has no bulk copy,
    /// its ranges are wrong ([`BulkCopy::validate`]) or the expression has
    /// no input; the tiling's errors.
    pub fn bulk_layout(&self) -> Result<Result<BulkLayout>> {
        self.bulk_layout_for(&self.tiling.plan()?)
    }

    /// [`bulk_layout`](Self::bulk_layout) with `plan`, the plan of this
    /// spec's tiling, computed already (the launcher's cached plan: a cached
    /// call stays cheap).
    pub fn bulk_layout_for(&self, plan: &TvPlan) -> Result<Result<BulkLayout>> {
        let Some(bulk) = self.schedule.bulk else {
            return Err(Error::invalid_argument(
                "schedule",
                format!("{:?}", self.schedule),
                "a schedule with a bulk copy",
            ));
        };
        let persistent = self.schedule.persistent > 0;
        bulk.validate(persistent)?;
        if self.inputs.is_empty() {
            return Err(Error::invalid_argument(
                "bulk copy inputs",
                "0 inputs",
                "at least one input to stream",
            ));
        }
        if self.arch != ArchKind::Sm90 {
            return Ok(Err(unfit(
                format!("arch {:?}", self.arch),
                "sm_90a (bulk copies need it)",
            )));
        }
        if !self.flat {
            return Ok(Err(unfit(
                "a 2-D view",
                "every tensor contiguous (the launcher's 1-D view)",
            )));
        }
        for (i, op) in std::iter::once(&self.output)
            .chain(&self.inputs)
            .enumerate()
        {
            let size = u64::from(op.element.size_bytes());
            let vector =
                matches!(op.access, Access::Contiguous { width } if u64::from(width) * size == 16);
            if !vector || !(plan.tile_n as u64 * size).is_multiple_of(16) {
                return Ok(Err(unfit(
                    format!(
                        "tensor {i} ({}, {:?}, tile rows of {} elements)",
                        op.element, op.access, plan.tile_n
                    ),
                    "16-byte aligned contiguous tensors and tile rows",
                )));
            }
        }
        if plan.deltas.is_none() {
            return Ok(Err(unfit(
                format!("TV layout {}", plan.layout_tv),
                "a TV layout that gives every thread its values at the same offsets",
            )));
        }
        let chunk_elements = u64::from(bulk.tiles_per_stage) * (plan.tile_m * plan.tile_n) as u64;
        let bytes = |size: u32| chunk_elements * u64::from(size);
        let mut offset = 0u64;
        let mut input_offsets = Vec::with_capacity(self.inputs.len());
        let mut tx = 0u64;
        for op in &self.inputs {
            input_offsets.push(offset);
            offset = round_up(offset + bytes(op.element.size_bytes()), BUFFER_ALIGN);
            tx += bytes(op.element.size_bytes());
        }
        let output_offset = (bulk.store == BulkStore::Bulk).then_some(offset);
        if output_offset.is_some() {
            offset = round_up(
                offset + bytes(self.output.element.size_bytes()),
                BUFFER_ALIGN,
            );
        }
        let stage_bytes = offset;
        // The pipeline's layout (stages, then a `full` mbarrier each),
        // checked against the limits before it is counted in u32.
        let barrier_offset = stage_bytes * u64::from(bulk.stages);
        let shared = barrier_offset + u64::from(MBARRIER_BYTES) * u64::from(bulk.stages);
        let limit = u64::from(ArchKind::Sm90.max_dynamic_shared_bytes());
        // The ring's size follows from this problem's inputs (their count
        // and element sizes): a ring too big for them is a problem that
        // does not fit, and the launcher runs the default path.
        if tx > MAX_TX_BYTES || shared > limit {
            return Ok(Err(unfit(
                format!(
                    "{} stages of {} tiles ({tx} bytes of inputs per stage, {shared} bytes of shared memory)",
                    bulk.stages, bulk.tiles_per_stage
                ),
                &format!("at most {MAX_TX_BYTES} bytes per stage and {limit} bytes of shared memory"),
            )));
        }
        let to_u32 = |x: u64| u32::try_from(x).unwrap_or(u32::MAX);
        let mut layout = BulkLayout {
            stages: bulk.stages,
            chunk_tiles: bulk.tiles_per_stage,
            chunk_elements,
            chunk_bytes: std::iter::once(&self.output)
                .chain(&self.inputs)
                .map(|op| to_u32(bytes(op.element.size_bytes())))
                .collect(),
            input_offsets: input_offsets.into_iter().map(to_u32).collect(),
            output_offset: output_offset.map(to_u32),
            stage_bytes: to_u32(stage_bytes),
            barrier_offset: 0,
            shared_bytes: 0,
            tx_bytes: to_u32(tx),
            persistent,
        };
        let pipeline = layout.pipeline();
        pipeline.validate()?;
        layout.barrier_offset = pipeline.barrier_offset();
        layout.shared_bytes = pipeline.shared_bytes();
        Ok(Ok(layout))
    }
}
