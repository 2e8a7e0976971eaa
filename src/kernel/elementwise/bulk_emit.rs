//! PTX generation of the [`BulkCopy`](super::BulkCopy) walk: mbarrier
//! setup, the prologue that fills the ring, the chunk loop (wait, read the
//! stage with `ld.shared`, compute, store, refill) and the ragged tail.
//!
//! Two pipelines share the ring's stages: the inputs come in through a
//! [`PipelineTmaAsync`] and, with bulk stores, the output goes out through
//! a [`PipelineTmaStore`] over each stage's output buffer.
//!
//! Ordering, per chunk `j` in stage `s = j % S` (`S` stages):
//! 1. every thread waits on `full[s]` for parity `(j / S) & 1`;
//! 2. reads the stage (generic proxy) and stores its results: from
//!    registers, or to the stage's output buffer followed by the store
//!    ring's `producer_fence` (`fence.proxy.async.shared::cta`: generic
//!    writes before the copy engine reads them);
//! 3. in a persistent ring with bulk stores, thread 0 first acquires the
//!    next chunk's stage ([`StoreAcquire::BeforePreviousStore`]): it waits
//!    until at most `S - 2` of its bulk stores still read shared memory,
//!    so the store of chunk `j + 1 - S`, whose buffer chunk `j + 1` writes
//!    next, is done; a block that writes each stage once does not wait;
//! 4. `bar.sync`: every thread has read stage `s` and written its output;
//! 5. thread 0 issues the chunk's bulk store (and commits it), then re-arms
//!    `full[s]` (`arrive.expect_tx`, one arrival per phase) and refills the
//!    stage with chunk `j + S` of its walk.
//!
//! Before exiting, thread 0 waits for all its bulk stores (the store
//! ring's `producer_tail`).

use super::bulk::BulkLayout;
use super::emit_ctx::{Ctx, TileSet};
use super::spec::ElementwiseSpec;
use crate::pipeline::{
    Pipeline, PipelineState, PipelineTmaAsync, PipelineTmaStore, StoreAcquire, TmaAsyncState,
};
use crate::ptx::{Kernel, Label, Reg, RegClass, SpecialReg};
use crate::Result;

/// The registers of the walk that every part reads.
pub(super) struct Walk<'a> {
    pub(super) layout: &'a BulkLayout,
    /// The ring: its base, its `full` mbarriers (one arrival each, bytes
    /// from the bulk copies), released by the block's `bar.sync`.
    pub(super) pipe: PipelineTmaAsync,
    /// `%tid.x == 0`: the thread that arms barriers and issues bulk copies.
    pub(super) leader: Reg,
    /// The output's ring ([`BulkStore::Bulk`](super::BulkStore::Bulk)
    /// only): the output buffers of the load ring's stages, stored out by
    /// `leader`.
    pub(super) store: Option<PipelineTmaStore>,
    /// Per tensor (output first), this thread's byte offset in a tile (u32).
    pub(super) thread_offsets: Vec<Reg>,
}

impl ElementwiseSpec {
    /// The bulk-copy walk, after the common setup of `kernel()`; `set`
    /// provides the value registers and the edge path's tile registers.
    pub(super) fn bulk_walk(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        set: &TileSet,
        exit: &Label,
    ) -> Result<()> {
        let layout = self.bulk_layout_for(ctx.plan)??;
        let ring = k.shared_dynamic("bulk_ring", 128)?;
        let base = k.shared_address(&ring);
        let pipe = PipelineTmaAsync::new(k, layout.pipeline(), base, "bulk", None)?;
        let tid = k.special(SpecialReg::TidX);
        let leader = k.reg(RegClass::Pred);
        k.push(format!("setp.eq.u32 {leader}, {tid}, 0;"));
        let lin = k.reg(RegClass::B32);
        k.push(format!(
            "mad.lo.u32 {lin}, {}, {}, {};",
            ctx.thread_m0, ctx.plan.tile_n, ctx.thread_n0
        ));
        let thread_offsets = ctx
            .tensors
            .iter()
            .map(|t| {
                let r = k.reg(RegClass::B32);
                k.push(format!(
                    "mul.lo.u32 {r}, {lin}, {};",
                    t.op.element.size_bytes()
                ));
                r
            })
            .collect();
        // A persistent walk writes stage `s` again `stages` chunks on; it
        // acquires the next stage before the `bar.sync` that precedes this
        // stage's store. A block of `stages` chunks writes each stage once.
        let acquire = if layout.persistent {
            StoreAcquire::BeforePreviousStore
        } else {
            StoreAcquire::WriteOnce
        };
        let store = layout
            .output_offset
            .map(|_| PipelineTmaStore::new(layout.stages, acquire, leader, "bulk"))
            .transpose()?;
        let walk = Walk {
            layout: &layout,
            pipe,
            leader,
            store,
            thread_offsets,
        };
        walk.pipe.init(k, leader)?;

        // Chunks: `full` whole ones, then a partial one where `len` is not a multiple.
        let (full, full_wide) = (k.reg(RegClass::B32), k.reg(RegClass::B64));
        k.push(format!(
            "div.u64 {full_wide}, {}, {};",
            ctx.len, layout.chunk_elements
        ));
        k.push(format!("cvt.u32.u64 {full}, {full_wide};"));
        let ctaid = k.special(SpecialReg::CtaidX);
        let nctaid = k.special(SpecialReg::NctaidX);
        let (chunk, stride, end) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        if layout.persistent {
            k.push(format!("mov.u32 {chunk}, {ctaid};"));
            k.push(format!("mov.u32 {stride}, {nctaid};"));
            k.push(format!("mov.u32 {end}, {full};"));
        } else {
            k.push(format!("mul.lo.u32 {chunk}, {ctaid}, {};", layout.stages));
            k.push(format!("mov.u32 {stride}, 1;"));
            k.push(format!("add.u32 {end}, {chunk}, {};", layout.stages));
            k.push(format!("min.u32 {end}, {end}, {full};"));
        }

        self.bulk_prologue(k, ctx, &walk, (chunk, stride, end))?;
        let done = k.new_label("bulk_done")?;
        self.bulk_loop(k, ctx, set, &walk, (chunk, stride, end), &done)?;
        k.place_label(&done);
        if let Some(store) = &walk.store {
            store.producer_tail(k)?;
        }
        self.bulk_tail(k, ctx, set, (full, ctaid, nctaid), &layout, exit)
    }

    /// Thread 0 arms stage `s` for chunks `chunk + s * stride` below `end`:
    /// the producer's first pass over the ring, unrolled.
    fn bulk_prologue(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        walk: &Walk<'_>,
        (chunk, stride, end): (Reg, Reg, Reg),
    ) -> Result<()> {
        let skip = k.new_label("bulk_prologue_done")?;
        let (c, past, stage, bar) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::Pred),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.push(format!("@!{} bra {};", walk.leader, skip.name()));
        let mut at = PipelineState::producer_start(walk.layout.stages);
        for s in 0..walk.layout.stages {
            k.push(format!("mad.lo.u32 {c}, {stride}, {s}, {chunk};"));
            k.push(format!("setp.ge.u32 {past}, {c}, {end};"));
            k.push(format!("@{past} bra {};", skip.name()));
            let state = walk.pipe.state_at(k, (stage, bar), &at)?;
            self.arm_and_load(k, ctx, walk, &state, c)?;
            at.advance();
        }
        k.place_label(&skip);
        Ok(())
    }

    /// The producer's step on the stage of `state`: acquire (one arrival
    /// with the stage's byte count on its `full` barrier), then one bulk
    /// copy of chunk `chunk` per input into the stage, completing there;
    /// the commit is the copies' own.
    pub(super) fn arm_and_load(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        walk: &Walk<'_>,
        state: &TmaAsyncState,
        chunk: Reg,
    ) -> Result<()> {
        let layout = walk.layout;
        let (stage, bar) = (state.stage, state.full);
        walk.pipe.producer_acquire(k, state)?;
        let src = k.reg(RegClass::B64);
        for (i, t) in ctx.tensors[1..].iter().enumerate() {
            let bytes = layout.chunk_bytes[i + 1];
            k.push(format!("mul.wide.u32 {src}, {chunk}, {bytes};"));
            k.push(format!("add.u64 {src}, {src}, {};", t.ptr));
            let dst = format!("{stage}+{}", layout.input_offsets[i]);
            k.snippet(
                "sm90/bulk_copy",
                "bulk_load_g2s",
                &[
                    ("dst", &dst),
                    ("src", &src),
                    ("bytes", &bytes),
                    ("bar", &bar),
                ],
            )?;
        }
        walk.pipe.producer_commit(k, state)
    }
}
