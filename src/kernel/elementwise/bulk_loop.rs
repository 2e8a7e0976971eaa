//! The chunk loop of the [`BulkCopy`](super::BulkCopy) walk (the order of
//! its steps is in `bulk_emit.rs`), one chunk read from its stage, and the
//! ragged tail on the predicated edge path.

use super::bulk::BulkLayout;
use super::bulk_emit::Walk;
use super::emit_ctx::{Ctx, TileSet};
use super::spec::ElementwiseSpec;
use crate::pipeline::Pipeline;
use crate::ptx::{Kernel, Label, Reg, RegClass};
use crate::{Error, Result};

impl ElementwiseSpec {
    /// The chunk loop: see the module doc for the order of each step.
    pub(super) fn bulk_loop(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        set: &TileSet,
        walk: &Walk<'_>,
        (chunk, stride, end): (Reg, Reg, Reg),
        done: &Label,
    ) -> Result<()> {
        let layout = walk.layout;
        let state = walk.pipe.consumer_start(k);
        let stage = state.stage;
        let top = k.new_label("bulk_chunk")?;
        let pred = k.reg(RegClass::Pred);
        k.place_label(&top);
        k.push(format!("setp.ge.u32 {pred}, {chunk}, {end};"));
        k.push(format!("@{pred} bra {};", done.name()));
        walk.pipe.consumer_wait(k, &state)?;
        self.bulk_chunk(k, ctx, set, walk, stage, chunk)?;
        if let Some(store) = &walk.store {
            store.producer_fence(k)?;
            // The next chunk's stage, before the barrier that precedes this
            // chunk's store.
            store.producer_acquire(k)?;
        }
        // Every thread has read the stage and written its output.
        walk.pipe.consumer_release(k, &state)?;
        let skip_issue = k.new_label("bulk_issue_done")?;
        k.push(format!("@!{} bra {};", walk.leader, skip_issue.name()));
        if let (Some(store), Some(out_offset)) = (&walk.store, layout.output_offset) {
            let dst = k.reg(RegClass::B64);
            let bytes = layout.chunk_bytes[0];
            k.push(format!("mul.wide.u32 {dst}, {chunk}, {bytes};"));
            k.push(format!("add.u64 {dst}, {dst}, {};", ctx.tensors[0].ptr));
            store.issue_store(k, dst, (stage, out_offset), bytes)?;
            store.producer_commit(k)?;
        }
        if layout.persistent {
            let next = k.reg(RegClass::B32);
            k.push(format!(
                "mad.lo.u32 {next}, {stride}, {}, {chunk};",
                layout.stages
            ));
            k.push(format!("setp.ge.u32 {pred}, {next}, {end};"));
            k.push(format!("@{pred} bra {};", skip_issue.name()));
            // The stage just released takes the chunk `stages` steps on.
            self.arm_and_load(k, ctx, walk, &state, next)?;
        }
        k.place_label(&skip_issue);
        k.push(format!("add.u32 {chunk}, {chunk}, {stride};"));
        walk.pipe.advance_looping(k, &state, pred, &top)
    }

    /// One chunk in the stage at `stage`: per tile, every input group read
    /// from shared memory, the expression, the output groups stored.
    fn bulk_chunk(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        set: &TileSet,
        walk: &Walk<'_>,
        stage: Reg,
        chunk: Reg,
    ) -> Result<()> {
        let layout = walk.layout;
        let tile_elements = ctx.plan.tile_m * ctx.plan.tile_n;
        let deltas = ctx.deltas.as_ref().ok_or_else(|| {
            Error::invalid_argument(
                "bulk copy tiling",
                ctx.plan.layout_tv.to_string(),
                "a TV layout whose value offsets are the same for every thread",
            )
        })?;
        // Per tensor: this thread's address in the chunk's first tile, and
        // the immediate that adds the buffer's offset within the stage.
        let mut addrs = Vec::with_capacity(ctx.tensors.len());
        let out = &ctx.tensors[0];
        match layout.output_offset {
            Some(offset) => {
                let a = k.reg(RegClass::B32);
                k.push(format!("add.u32 {a}, {stage}, {};", walk.thread_offsets[0]));
                addrs.push((a, i64::from(offset)));
            }
            None => {
                let (a, t) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
                k.push(format!(
                    "mul.wide.u32 {a}, {chunk}, {};",
                    layout.chunk_bytes[0]
                ));
                k.push(format!("add.u64 {a}, {a}, {};", out.ptr));
                k.push(format!("cvt.u64.u32 {t}, {};", walk.thread_offsets[0]));
                k.push(format!("add.u64 {a}, {a}, {t};"));
                addrs.push((a, 0));
            }
        }
        for (i, offset) in layout.input_offsets.iter().enumerate() {
            let a = k.reg(RegClass::B32);
            k.push(format!(
                "add.u32 {a}, {stage}, {};",
                walk.thread_offsets[i + 1]
            ));
            addrs.push((a, i64::from(*offset)));
        }
        let tiles = layout.chunk_tiles;
        let (q, more) = (k.reg(RegClass::B32), k.reg(RegClass::Pred));
        let next_tile = k.new_label("bulk_tile")?;
        if tiles > 1 {
            k.push(format!("mov.u32 {q}, 0;"));
            k.place_label(&next_tile);
        }
        let tile_flat = Some(ctx.plan.tile_n);
        let group_address = |k: &mut Kernel, t: usize, g: usize| {
            let v = usize::try_from(g as i64 * ctx.group).unwrap_or(0);
            let (reg, extra) = addrs[t];
            let (reg, imm) = ctx.tensors[t].offset_address(k, reg, deltas[v], tile_flat);
            (reg, imm + extra)
        };
        for (g, per_input) in set.loaded.iter().enumerate() {
            for (i, dst) in per_input.iter().enumerate() {
                let addr = group_address(k, i + 1, g);
                ctx.tensors[i + 1].load_shared_group(k, addr, dst);
            }
        }
        let store_op = match layout.output_offset {
            Some(_) => "st.shared".to_string(),
            None => format!("st.global{}", ctx.store_hints),
        };
        for (g, per_input) in set.loaded.iter().enumerate() {
            let results = self.compute_group(k, ctx, per_input)?;
            let addr = group_address(k, 0, g);
            out.store_group_with(k, addr, &results, &store_op);
        }
        if tiles > 1 {
            for (t, (reg, _)) in ctx.tensors.iter().zip(&addrs) {
                let step = tile_elements * i64::from(t.op.element.size_bytes());
                let ty = if reg.class() == RegClass::B64 {
                    "u64"
                } else {
                    "u32"
                };
                k.push(format!("add.{ty} {reg}, {reg}, {step};"));
            }
            k.push(format!("add.u32 {q}, {q}, 1;"));
            k.push(format!("setp.lt.u32 {more}, {q}, {tiles};"));
            k.push(format!("@{more} bra {};", next_tile.name()));
        }
        Ok(())
    }

    /// The partial chunk (`full` is its index), if any: its tiles take the
    /// predicated edge path, in the block whose walk it would be on.
    pub(super) fn bulk_tail(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        set: &TileSet,
        (full, ctaid, nctaid): (Reg, Reg, Reg),
        layout: &BulkLayout,
        exit: &Label,
    ) -> Result<()> {
        let (owner, tile, pred) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::Pred),
        );
        if layout.persistent {
            k.push(format!("rem.u32 {owner}, {full}, {nctaid};"));
        } else {
            k.div_u32_by(owner, full, layout.stages);
        }
        k.push(format!("setp.ne.u32 {pred}, {owner}, {ctaid};"));
        k.push(format!("@{pred} bra {};", exit.name()));
        k.push(format!(
            "mul.lo.u32 {tile}, {full}, {};",
            layout.chunk_tiles
        ));
        let top = k.new_label("bulk_tail_tile")?;
        k.place_label(&top);
        k.push(format!("setp.ge.u32 {pred}, {tile}, {};", ctx.tiles));
        k.push(format!("@{pred} bra {};", exit.name()));
        ctx.origin(k, tile, set, false);
        self.edge_tile(k, ctx, set)?;
        k.push(format!("add.u32 {tile}, {tile}, 1;"));
        k.push(format!("bra.uni {};", top.name()));
        Ok(())
    }
}
