//! PTX generation of the [`BulkCopy`](super::BulkCopy) walk: mbarrier
//! setup, the prologue that fills the ring, the chunk loop (wait, read the
//! stage with `ld.shared`, compute, store, refill) and the ragged tail.
//!
//! Ordering, per chunk `j` in stage `s = j % S` (`S` stages):
//! 1. every thread waits on `full[s]` for parity `(j / S) & 1`;
//! 2. reads the stage (generic proxy) and stores its results: from
//!    registers, or to the stage's output buffer followed by
//!    `fence.proxy.async.shared::cta` (generic writes before the copy
//!    engine reads them);
//! 3. in a persistent ring with bulk stores, thread 0 first waits until at
//!    most `S - 2` of its bulk stores still read shared memory: the store of
//!    chunk `j + 1 - S`, whose buffer chunk `j + 1` writes next, is done;
//! 4. `bar.sync`: every thread has read stage `s` and written its output;
//! 5. thread 0 issues the chunk's bulk store (and commits it), then re-arms
//!    `full[s]` (`arrive.expect_tx`, one arrival per phase) and refills the
//!    stage with chunk `j + S` of its walk.
//!
//! Before exiting, thread 0 waits for all its bulk stores.

use super::bulk::{BulkLayout, BulkStore};
use super::emit::{Ctx, TileSet};
use super::spec::ElementwiseSpec;
use crate::ptx::{Kernel, Label, Reg, RegClass, SpecialReg};
use crate::{Error, Result};

/// The registers of the walk that every part reads.
struct Walk<'a> {
    layout: &'a BulkLayout,
    /// Shared-window address of the ring and of the first mbarrier (u32).
    base: Reg,
    barriers: Reg,
    /// `%tid.x == 0`: the thread that arms barriers and issues bulk copies.
    leader: Reg,
    /// Per tensor (output first), this thread's byte offset in a tile (u32).
    thread_offsets: Vec<Reg>,
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
        let layout = self.bulk_layout_for(ctx.plan)?.map_err(|reason| {
            Error::invalid_argument(
                "bulk copy schedule",
                reason,
                "sm_90a, the launcher's 1-D view and 16-byte aligned contiguous tensors",
            )
        })?;
        let ring = k.shared_dynamic("bulk_ring", 128)?;
        let base = k.shared_address(&ring);
        let barriers = k.reg(RegClass::B32);
        k.push(format!(
            "add.u32 {barriers}, {base}, {};",
            layout.barrier_offset
        ));
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
        let walk = Walk {
            layout: &layout,
            base,
            barriers,
            leader,
            thread_offsets,
        };

        let skip_init = k.new_label("bulk_init_done")?;
        k.push(format!("@!{leader} bra {};", skip_init.name()));
        for s in 0..layout.stages {
            let bar = format!("{barriers}+{}", 8 * s);
            k.snippet(
                "sm90/mbarrier",
                "mbarrier_init",
                &[("bar", &bar), ("count", &1)],
            )?;
        }
        k.snippet("sm90/mbarrier", "fence_mbarrier_init", &[])?;
        k.place_label(&skip_init);
        k.push("bar.sync 0;");

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
        if self.schedule.bulk.map(|b| b.store) == Some(BulkStore::Bulk) {
            let skip = k.new_label("bulk_stores_done")?;
            k.push(format!("@!{leader} bra {};", skip.name()));
            k.snippet("sm90/bulk_copy", "bulk_wait_group", &[("pending", &0)])?;
            k.place_label(&skip);
        }
        self.bulk_tail(k, ctx, set, (full, ctaid, nctaid), &layout, exit)
    }

    /// Thread 0 arms stage `s` for chunks `chunk + s * stride` below `end`.
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
        for s in 0..walk.layout.stages {
            k.push(format!("mad.lo.u32 {c}, {stride}, {s}, {chunk};"));
            k.push(format!("setp.ge.u32 {past}, {c}, {end};"));
            k.push(format!("@{past} bra {};", skip.name()));
            k.push(format!(
                "add.u32 {stage}, {}, {};",
                walk.base,
                s * walk.layout.stage_bytes
            ));
            k.push(format!("add.u32 {bar}, {}, {};", walk.barriers, 8 * s));
            self.arm_and_load(k, ctx, walk, stage, bar, c)?;
        }
        k.place_label(&skip);
        Ok(())
    }

    /// One arrival with the stage's byte count on `bar`, then one bulk copy
    /// of chunk `chunk` per input into the stage at `stage`.
    fn arm_and_load(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        walk: &Walk<'_>,
        stage: Reg,
        bar: Reg,
        chunk: Reg,
    ) -> Result<()> {
        let layout = walk.layout;
        k.snippet(
            "sm90/mbarrier",
            "mbarrier_arrive_expect_tx",
            &[("bar", &bar), ("bytes", &layout.tx_bytes)],
        )?;
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
        Ok(())
    }

    /// The chunk loop: see the module doc for the order of each step.
    fn bulk_loop(
        &self,
        k: &mut Kernel,
        ctx: &Ctx<'_>,
        set: &TileSet,
        walk: &Walk<'_>,
        (chunk, stride, end): (Reg, Reg, Reg),
        done: &Label,
    ) -> Result<()> {
        let layout = walk.layout;
        let bulk_store = layout.output_offset.is_some();
        let (stage, bar, parity) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.push(format!("mov.u32 {stage}, {};", walk.base));
        k.push(format!("mov.u32 {bar}, {};", walk.barriers));
        k.push(format!("mov.u32 {parity}, 0;"));
        let top = k.new_label("bulk_chunk")?;
        let pred = k.reg(RegClass::Pred);
        k.place_label(&top);
        k.push(format!("setp.ge.u32 {pred}, {chunk}, {end};"));
        k.push(format!("@{pred} bra {};", done.name()));
        k.snippet(
            "sm90/mbarrier",
            "mbarrier_wait_parity",
            &[("bar", &bar), ("phase", &parity)],
        )?;
        self.bulk_chunk(k, ctx, set, walk, stage, chunk)?;
        if bulk_store {
            k.snippet("sm90/bulk_copy", "fence_proxy_async_shared", &[])?;
            if layout.persistent {
                let skip = k.new_label("bulk_read_wait_done")?;
                k.push(format!("@!{} bra {};", walk.leader, skip.name()));
                k.snippet(
                    "sm90/bulk_copy",
                    "bulk_wait_group_read",
                    &[("pending", &layout.stages.saturating_sub(2))],
                )?;
                k.place_label(&skip);
            }
        }
        k.push("bar.sync 0;");
        let skip_issue = k.new_label("bulk_issue_done")?;
        k.push(format!("@!{} bra {};", walk.leader, skip_issue.name()));
        if let Some(out_offset) = layout.output_offset {
            let dst = k.reg(RegClass::B64);
            let bytes = layout.chunk_bytes[0];
            k.push(format!("mul.wide.u32 {dst}, {chunk}, {bytes};"));
            k.push(format!("add.u64 {dst}, {dst}, {};", ctx.tensors[0].ptr));
            let src = format!("{stage}+{out_offset}");
            k.snippet(
                "sm90/bulk_copy",
                "bulk_store_s2g",
                &[("dst", &dst), ("src", &src), ("bytes", &bytes)],
            )?;
            k.snippet("sm90/bulk_copy", "bulk_commit_group", &[])?;
        }
        if layout.persistent {
            let next = k.reg(RegClass::B32);
            k.push(format!(
                "mad.lo.u32 {next}, {stride}, {}, {chunk};",
                layout.stages
            ));
            k.push(format!("setp.ge.u32 {pred}, {next}, {end};"));
            k.push(format!("@{pred} bra {};", skip_issue.name()));
            self.arm_and_load(k, ctx, walk, stage, bar, next)?;
        }
        k.place_label(&skip_issue);
        k.push(format!("add.u32 {chunk}, {chunk}, {stride};"));
        k.push(format!("add.u32 {stage}, {stage}, {};", layout.stage_bytes));
        k.push(format!("add.u32 {bar}, {bar}, 8;"));
        // The barriers follow the last stage: reaching them wraps the ring.
        k.push(format!("setp.ne.u32 {pred}, {stage}, {};", walk.barriers));
        k.push(format!("@{pred} bra {};", top.name()));
        k.push(format!("mov.u32 {stage}, {};", walk.base));
        k.push(format!("mov.u32 {bar}, {};", walk.barriers));
        k.push(format!("xor.b32 {parity}, {parity}, 1;"));
        k.push(format!("bra.uni {};", top.name()));
        Ok(())
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
    fn bulk_tail(
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
            k.push(format!("div.u32 {owner}, {full}, {};", layout.stages));
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
