//! [`Sm90GemmWarpSpecialized`]: the SM90 warp-specialized persistent GEMM
//! kernel, the producer/consumer skeleton written once for both schedules
//! (CUTLASS's `sm90_gemm_tma_warpspecialized_cooperative.hpp` and
//! `sm90_gemm_tma_warpspecialized_pingpong.hpp`).
//!
//! 384 threads: warpgroup 0 is the producer, warpgroups 1 and 2 are
//! consumers. After the mainloop's prologue (barriers initialized, the
//! whole block or cluster synchronized), the producer gives registers back
//! (`setmaxnreg.dec` to 40) and one of its threads walks the persistent
//! scheduler's tiles, issuing each tile's TMA loads; the consumers take
//! registers (`setmaxnreg.inc` to 232) and walk the tiles too:
//! - cooperative: both consumer warpgroups take every tile, each
//!   multiplying half of its rows, then storing them;
//! - ping-pong: consumer warpgroup `c` takes every other tile (`c`, `c + 2`,
//!   ...), whole; an ordered barrier makes the two take turns at the
//!   tensor cores and, separately, at the epilogue, so that one's epilogue
//!   runs while the other multiplies. Each skips the other's k-tiles in
//!   the ring;
//! - sliced-K: both consumer warpgroups take every (64-row) tile, whole,
//!   warpgroup `c` multiplying its k-tiles `c`, `c + 2`, ...; the second
//!   writes its partial tile to shared memory (16-byte slots, a warp's
//!   stores 512 consecutive bytes) and goes on to the next tile once the
//!   first, under named barrier 4 (`barrier.sync`, reached from each
//!   warpgroup's own instruction), has added it; the first runs the
//!   epilogue.
//!
//! The grid is the persistent scheduler's (clusters that fit the GPU); a
//! kernel of clusters launches with its cluster shape.

use super::{Fixup, GemmKernel, KernelSchedule, PersistentTileScheduler, TileCoord, WalkLaunch};
use crate::arch::ArchKind;
use crate::collective::{
    Accumulators, BlockContext, Epilogue, SharedStorage, SourceRead, WarpSpecializedMainloop,
    STAGE_ALIGN,
};
use crate::gemm::{ClusterShape, GemmShape, GemmTypes, KernelParams, ParamRole, ProblemDim};
use crate::numeric::ElementType;
use crate::pipeline::OrderedSequenceBarrier;
use crate::ptx::{Kernel, Module, PtxError, Reg, RegClass, SpecialReg};

/// Threads of a warpgroup.
const WARPGROUP: u32 = 128;
/// The named barrier of the consumer threads in a split tile's reduction
/// (0 is the block's, 1 and 2 the TMA-store epilogue's warpgroups').
const FIXUP_BARRIER: u32 = 3;
/// The named barrier of the sliced-K warpgroups' exchange of partial
/// tiles. The two warpgroups reach it from different instructions, so it
/// is the unaligned `barrier.sync` (`bar.sync` is `barrier.sync.aligned`,
/// which requires every participating thread to execute the same
/// instruction: compute-sanitizer's synccheck reported "divergent
/// threads" on an H200 with it).
const SLICED_BARRIER: u32 = 4;
/// Registers a producer thread keeps (CUTLASS's `LoadRegisterRequirement`).
const PRODUCER_REGISTERS: u32 = 40;
/// Registers a consumer thread takes (CUTLASS's `MmaRegisterRequirement`).
const CONSUMER_REGISTERS: u32 = 232;

/// The SM90 warp-specialized kernel composed of a warp-specialized
/// mainloop `M` (its producer and consumer parts), an epilogue `E` and a
/// persistent tile scheduler `S`, as CUTLASS's `GemmUniversal<ProblemShape,
/// CollectiveMainloop, CollectiveEpilogue, TileScheduler>` for the
/// `KernelTmaWarpSpecialized*` schedules. [`GemmSpec::kernel`](super::GemmSpec::kernel)
/// composes the SM90 TMA + wgmma mainloop, the TMA-store or register-store
/// epilogue and [`Persistent`](super::Persistent); a part written outside
/// the crate composes the same way (`tests/gemm_parts.rs`).
///
/// Shared memory, from the dynamic region's start rounded up to 1024
/// bytes: the mainloop's ring ([`WarpSpecializedMainloop::ring_bytes`]),
/// rounded up to 1024; the epilogue's region; the ping-pong kernel's
/// ordered barrier or the sliced-K kernel's exchange
/// ([`KernelSchedule::exchange_bytes`]). Parameters: the extents, then the mainloop's, the
/// epilogue's and the scheduler's roles.
///
/// ```
/// use cutlet::collective::{EpilogueSm90NoSmem, Sm90TmaGmmaWarpSpecialized};
/// use cutlet::device::gemm::{Config, DefaultBf16Sm90};
/// use cutlet::gemm::ClusterShape;
/// use cutlet::kernel::gemm::{GemmKernel, KernelSchedule, Persistent, Sm90GemmWarpSpecialized};
///
/// let spec = DefaultBf16Sm90::spec();
/// let ctx = spec.context();
/// // The cooperative schedule: two consumer warpgroups of 64 rows each.
/// let cluster = ClusterShape::new(2, 1);
/// let mainloop = Sm90TmaGmmaWarpSpecialized::new(&ctx, &spec.mainloop, cluster, 2, 64);
/// let epilogue = EpilogueSm90NoSmem::new(&ctx, &spec.epilogue, 64, 2);
/// let scheduler = Persistent { raster_log: 3, cluster };
/// let kernel = Sm90GemmWarpSpecialized::new(
///     "my_gemm".to_string(), spec.types, spec.tile, cluster,
///     KernelSchedule::TmaWarpSpecializedCooperative, mainloop, epilogue, scheduler,
/// );
/// assert_eq!(kernel.block_threads(), 384);
/// assert!(kernel.ptx().unwrap().contains(".entry my_gemm("));
/// ```
#[derive(Clone, Debug)]
pub struct Sm90GemmWarpSpecialized<M, E, S> {
    name: String,
    types: GemmTypes,
    tile: [u32; 3],
    cluster: ClusterShape,
    schedule: KernelSchedule,
    mainloop: M,
    epilogue: E,
    scheduler: S,
    params: KernelParams,
    reduction: super::Reduction,
}

impl<M, E, S> Sm90GemmWarpSpecialized<M, E, S>
where
    M: WarpSpecializedMainloop,
    E: Epilogue,
    S: PersistentTileScheduler,
{
    /// The kernel `name` of these parts: `tile` (BM, BN, BK) and `cluster`
    /// (CTAs along M and N) as the parts were built for, `schedule` the
    /// filling of the skeleton (cooperative or ping-pong; the multistage
    /// schedule is refused by [`can_implement`](GemmKernel::can_implement)).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        name: String,
        types: GemmTypes,
        tile: [u32; 3],
        cluster: ClusterShape,
        schedule: KernelSchedule,
        mainloop: M,
        epilogue: E,
        scheduler: S,
    ) -> Self {
        let mut params = KernelParams::new();
        params.extend(
            [ProblemDim::M, ProblemDim::N, ProblemDim::K, ProblemDim::L].map(ParamRole::Extent),
        );
        params.extend(mainloop.params());
        params.extend(epilogue.params());
        params.extend(scheduler.params());
        Sm90GemmWarpSpecialized {
            name,
            types,
            tile,
            cluster,
            schedule,
            mainloop,
            epilogue,
            scheduler,
            params,
            reduction: super::Reduction::Deterministic,
        }
    }

    /// This kernel with a K-splitting scheduler's partial tiles added as
    /// `reduction` says (deterministic by default).
    pub fn with_reduction(mut self, reduction: super::Reduction) -> Self {
        self.reduction = reduction;
        self
    }

    /// The epilogue's offset: after the mainloop's ring, 1024-aligned.
    fn epilogue_offset(&self) -> u32 {
        self.mainloop.ring_bytes().next_multiple_of(STAGE_ALIGN)
    }

    /// The ordered barrier's offset: after the epilogue's region.
    fn ordered_offset(&self) -> u32 {
        self.epilogue_offset() + self.epilogue.shared_storage().bytes
    }

    /// The sliced-K exchange's offset: after the epilogue's region (the
    /// schedule has no ordered barrier).
    fn exchange_offset(&self) -> u32 {
        self.ordered_offset()
    }

    /// The regions side by side (the producer fills the ring while the
    /// consumers' epilogue runs), plus 1024 bytes to align the start.
    fn storage(&self) -> SharedStorage {
        let mut bytes = self.ordered_offset();
        if self.schedule == KernelSchedule::TmaWarpSpecializedPingpong {
            bytes += OrderedSequenceBarrier::shared_bytes(2, 2);
        }
        bytes += self.schedule.exchange_bytes(self.tile);
        SharedStorage {
            bytes: bytes + STAGE_ALIGN,
            align: 16,
        }
    }

    /// Emits a work unit's store of its tile by the consumer threads that
    /// hold it. Where the scheduler splits K (`split`: this thread's index
    /// among the tile's `threads` consumer threads, and whether the
    /// warpgroups take turns, as [`Fixup::turns`]), the partial tiles are
    /// added first and only the unit that holds the whole sum stores.
    fn emit_reduce_and_store(
        &self,
        k: &mut Kernel,
        sp: &S::Params,
        io: &E::Io,
        acc: &Accumulators,
        split: Option<(Reg, u32, bool)>,
    ) -> Result<(), PtxError> {
        let stores = match split {
            Some((thread, threads, turns)) => {
                let fixup = Fixup {
                    acc,
                    thread,
                    threads,
                    barrier: FIXUP_BARRIER,
                    reduction: self.reduction,
                    turns,
                };
                self.scheduler.emit_fixup(k, sp, &fixup)?
            }
            None => None,
        };
        let skip = match stores {
            Some(p) => {
                let skip = k.new_label("epilogue_skip")?;
                k.push(format!("@!{p} bra {};", skip.name()));
                Some(skip)
            }
            None => None,
        };
        self.epilogue.emit_store(k, io, acc)?;
        if let Some(skip) = skip {
            k.place_label(&skip);
        }
        Ok(())
    }

    fn kernel(&self) -> Result<Kernel, PtxError> {
        let mut k = Kernel::new(&self.name)?;
        k.max_threads(3 * WARPGROUP, 1, 1);
        k.min_blocks_per_sm(1);
        let smem_var = k.shared_dynamic("gemm_smem", 16)?;
        let params = self.params.declare(&mut k)?;
        let tid = k.special(SpecialReg::TidX);
        // The ring's 128-byte swizzle needs 1024-byte aligned stages.
        let smem = k.shared_address(&smem_var);
        k.push(format!("add.u32 {smem}, {smem}, 1023;"));
        k.push(format!("and.b32 {smem}, {smem}, -1024;"));
        let m = params.load(&mut k, ParamRole::Extent(ProblemDim::M))?;
        let n = params.load(&mut k, ParamRole::Extent(ProblemDim::N))?;
        let kk = params.load(&mut k, ParamRole::Extent(ProblemDim::K))?;
        let sp = self.scheduler.emit_params(&mut k, &params)?;
        let epilogue_params = self.epilogue.emit_params(&mut k, &params)?;
        let [bm, bn, _] = self.tile;
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (tiles_m, tiles_n) = (r(&mut k), r(&mut k));
        k.push(format!("add.u32 {tiles_m}, {m}, {};", bm - 1));
        k.div_u32_by(tiles_m, tiles_m, bm);
        k.push(format!("add.u32 {tiles_n}, {n}, {};", bn - 1));
        k.div_u32_by(tiles_n, tiles_n, bn);
        let (m0, n0, m_rem, n_rem, batch) = (r(&mut k), r(&mut k), r(&mut k), r(&mut k), r(&mut k));
        for reg in [m0, n0, m_rem, n_rem, batch] {
            k.push(format!("mov.u32 {reg}, 0;"));
        }
        let entry = BlockContext {
            tid,
            smem,
            params: &params,
            k: kk,
            m0,
            n0,
            m_rem,
            n_rem,
            batch,
            operands: [None; 4],
        };
        // The epilogue's barriers, before the mainloop's and the block's
        // (or cluster's) synchronization after them.
        let epilogue_smem = r(&mut k);
        k.push(format!(
            "add.u32 {epilogue_smem}, {smem}, {};",
            self.epilogue_offset()
        ));
        self.epilogue.emit_init(
            &mut k,
            &BlockContext {
                smem: epilogue_smem,
                ..entry
            },
        )?;
        // Ping-pong's turn barriers too: the mainloop's setup ends with the
        // block's (or cluster's) barrier that makes all of them visible.
        let ordered = if self.schedule == KernelSchedule::TmaWarpSpecializedPingpong {
            let base = r(&mut k);
            k.push(format!(
                "add.u32 {base}, {smem}, {};",
                self.ordered_offset()
            ));
            let barrier =
                OrderedSequenceBarrier::new(2, 2, WARPGROUP, base).map_err(pipeline_error)?;
            let leader = k.reg(RegClass::Pred);
            k.push(format!("setp.eq.u32 {leader}, {tid}, 0;"));
            barrier
                .init_before_sync(&mut k, leader)
                .map_err(pipeline_error)?;
            Some(barrier)
        } else {
            None
        };
        let mut io = self.mainloop.emit_prologue(&mut k, &entry)?;
        // A scheduler that splits K: each unit runs a range of the k-tiles.
        let k_total = if self.scheduler.splits_k() {
            let runs = match self.schedule {
                KernelSchedule::TmaWarpSpecializedCooperative => true,
                KernelSchedule::TmaWarpSpecializedPingpong => self.scheduler.reduces_in_turns(),
                _ => false,
            };
            if !runs {
                return Err(PtxError::UnsupportedSpec {
                    kernel: "gemm",
                    name: self.name.clone(),
                    reason: format!(
                        "a tile scheduler that splits K with the {} schedule: expected the cooperative schedule, or ping-pong with split-K",
                        self.schedule.name()
                    ),
                });
            }
            Some(self.mainloop.emit_split_k(&mut k, &mut io).ok_or_else(|| {
                PtxError::UnsupportedSpec {
                    kernel: "gemm",
                    name: self.name.clone(),
                    reason: "the mainloop runs whole tiles only: no K-splitting scheduler".into(),
                }
            })?)
        } else {
            None
        };
        let io = io;
        let k_range = |k: &mut Kernel, sp: &S::Params| {
            if let Some(total) = k_total {
                let (first, count) = self.scheduler.emit_walk_k_range(k, sp, total);
                self.mainloop.emit_k_range(k, &io, first, count);
            }
        };
        // Launched as a programmatic dependent launch, the block may start
        // while the kernel ahead on the stream still runs: everything above
        // touched only parameters and shared memory, and every thread waits
        // here for that kernel to complete and its writes to be visible
        // before any global load, store or TMA copy. Without that launch
        // the wait returns at once.
        k.push("griddepcontrol.wait;");
        let warpgroup = k.warpgroup_index(tid);
        let consumer = k.new_label("consumer")?;
        let exit = k.new_label("exit")?;
        let p = k.reg(RegClass::Pred);
        k.push(format!("setp.ne.u32 {p}, {warpgroup}, 0;"));
        k.push(format!("@{p} bra {};", consumer.name()));

        // Producer warpgroup: one thread issues every load.
        k.push(format!(
            "setmaxnreg.dec.sync.aligned.u32 {PRODUCER_REGISTERS};"
        ));
        k.push(format!("setp.ne.u32 {p}, {tid}, 0;"));
        k.push(format!("@{p} bra {};", exit.name()));
        let set_tile = |k: &mut Kernel, coord: &TileCoord| {
            k.push(format!("mul.lo.u32 {m0}, {}, {bm};", coord.tile_m));
            k.push(format!("mul.lo.u32 {n0}, {}, {bn};", coord.tile_n));
            k.push(format!("sub.u32 {m_rem}, {m}, {m0};"));
            k.push(format!("sub.u32 {n_rem}, {n}, {n0};"));
            k.push(format!("mov.u32 {batch}, {};", coord.batch));
        };
        // Each role walks its tiles in one loop whose top maps the linear
        // index to a tile: the scheduler's divisions appear once per role.
        let sp = &sp;
        self.scheduler.emit_walk_start(&mut k, sp);
        let top = k.new_label("producer_tile")?;
        let tail = k.new_label("producer_tail")?;
        k.place_label(&top);
        let (coord, valid) = self
            .scheduler
            .emit_walk_current(&mut k, sp, tiles_m, tiles_n);
        k.push(format!("@!{valid} bra {};", tail.name()));
        set_tile(&mut k, &coord);
        k_range(&mut k, sp);
        self.mainloop.emit_producer(&mut k, &io)?;
        self.scheduler.emit_walk_step(&mut k, sp, 1);
        k.push(format!("bra.uni {};", top.name()));
        k.place_label(&tail);
        // Every load of this block is issued: the kernel behind on the
        // stream, if launched to depend on this one, may start placing its
        // blocks (CUTLASS signals at the last tile too). It waits for this
        // grid to complete before it touches memory, so this only moves
        // its start earlier.
        k.push("griddepcontrol.launch_dependents;");
        self.mainloop.emit_producer_tail(&mut k, &io)?;
        k.push(format!("bra.uni {};", exit.name()));

        // Consumer warpgroups.
        k.place_label(&consumer);
        k.push(format!(
            "setmaxnreg.inc.sync.aligned.u32 {CONSUMER_REGISTERS};"
        ));
        let steps = self.schedule.tiles_in_flight();
        self.scheduler.emit_walk_start(&mut k, sp);
        let order = match &ordered {
            Some(barrier) => {
                // Warpgroup 2 takes the second tile, and skips the first's k-tiles.
                let group = r(&mut k);
                k.push(format!("sub.u32 {group}, {warpgroup}, 1;"));
                let state = barrier.start(&mut k, group);
                let second = k.new_label("pingpong_second")?;
                let q = k.reg(RegClass::Pred);
                k.push(format!("setp.eq.u32 {q}, {group}, 0;"));
                k.push(format!("@{q} bra {};", second.name()));
                // (A split unit's k-tiles are its own: the first unit's
                // range before the step.)
                k_range(&mut k, sp);
                self.scheduler.emit_walk_step(&mut k, sp, 1);
                self.mainloop.emit_consumer_skip(&mut k, &io)?;
                k.place_label(&second);
                // A split tile's reduction: this thread's index among
                // its warpgroup's, the tile's consumer threads.
                let thread = k_total.map(|_| {
                    let thread = r(&mut k);
                    k.push(format!("and.b32 {thread}, {tid}, {};", WARPGROUP - 1));
                    thread
                });
                Some((barrier, state, thread))
            }
            None => None,
        };
        let top = k.new_label("consumer_tile")?;
        let consumer_done = k.new_label("consumer_end")?;
        // A valid tile's operand addresses and epilogue registers from its
        // coordinates (the scheduler's divisions): with those, a few hundred
        // cycles of dependent instructions.
        let tile_prologue = |k: &mut Kernel, coord: &TileCoord| {
            set_tile(k, coord);
            let operands =
                super::gemm_universal::emit_global_operands(k, &params, self.types, batch)?;
            // The epilogue's shared memory follows the mainloop's ring.
            let block = BlockContext {
                operands,
                smem: epilogue_smem,
                ..entry
            };
            self.epilogue.emit_prologue(k, &block, &epilogue_params)
        };
        let sliced = self.schedule == KernelSchedule::TmaWarpSpecializedSlicedK;
        if sliced && k_total.is_some() {
            return Err(PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: self.name.clone(),
                reason: "the sliced-K schedule runs whole tiles: no K-splitting scheduler"
                    .to_string(),
            });
        }
        match &order {
            // Sliced-K: both consumer warpgroups take every tile, each every
            // other k-tile; the second hands its partial tile to the first
            // through shared memory and goes on to the next tile while the
            // first adds it and runs the epilogue.
            None if sliced => {
                let slice = r(&mut k);
                k.push(format!("sub.u32 {slice}, {warpgroup}, 1;"));
                let first_wg = k.reg(RegClass::Pred);
                k.push(format!("setp.eq.u32 {first_wg}, {slice}, 0;"));
                // This thread's 16-byte slots: slot j of thread t at
                // (j * 128 + t) * 16, so that a warp's stores are 512
                // consecutive bytes.
                let slot = r(&mut k);
                k.push(format!("and.b32 {slot}, {tid}, {};", WARPGROUP - 1));
                k.push(format!("shl.b32 {slot}, {slot}, 4;"));
                k.push(format!("add.u32 {slot}, {slot}, {smem};"));
                k.push(format!(
                    "add.u32 {slot}, {slot}, {};",
                    self.exchange_offset()
                ));
                let total = self.scheduler.emit_walk_total(&mut k, sp, tiles_m, tiles_n);
                k.place_label(&top);
                let valid = self.scheduler.emit_walk_valid(&mut k, sp, total);
                k.push(format!("@!{valid} bra {};", consumer_done.name()));
                let acc = self.mainloop.emit_consumer_sliced(&mut k, &io, slice)?;
                let regs = acc.regs();
                let step = WARPGROUP * 16;
                let (first, next) = (k.new_label("sliced_add")?, k.new_label("sliced_next")?);
                k.push(format!("@{first_wg} bra {};", first.name()));
                for (j, four) in regs.chunks(4).enumerate() {
                    let words: Vec<String> = four.iter().map(|r| r.to_string()).collect();
                    k.push(format!(
                        "st.shared.v4.f32 [{slot}+{}], {{{}}};",
                        j as u32 * step,
                        words.join(", ")
                    ));
                }
                // The partial tile is written; then read: the slots are free.
                k.push(format!("barrier.sync {SLICED_BARRIER}, {};", 2 * WARPGROUP));
                k.push(format!("barrier.sync {SLICED_BARRIER}, {};", 2 * WARPGROUP));
                k.push(format!("bra.uni {};", next.name()));
                k.place_label(&first);
                let coord = self
                    .scheduler
                    .emit_walk_current(&mut k, sp, tiles_m, tiles_n)
                    .0;
                let epilogue_io = tile_prologue(&mut k, &coord)?;
                k.push(format!("barrier.sync {SLICED_BARRIER}, {};", 2 * WARPGROUP));
                for (j, four) in regs.chunks(4).enumerate() {
                    let other: Vec<Reg> = (0..four.len()).map(|_| k.reg(RegClass::F32)).collect();
                    let words: Vec<String> = other.iter().map(|r| r.to_string()).collect();
                    k.push(format!(
                        "ld.shared.v4.f32 {{{}}}, [{slot}+{}];",
                        words.join(", "),
                        j as u32 * step
                    ));
                    for (mine, theirs) in four.iter().zip(&other) {
                        k.push(format!("add.f32 {mine}, {mine}, {theirs};"));
                    }
                }
                k.push(format!("barrier.sync {SLICED_BARRIER}, {};", 2 * WARPGROUP));
                self.epilogue.emit_store(&mut k, &epilogue_io, &acc)?;
                k.place_label(&next);
            }
            // The cooperative consumers start each tile's MMAs at once, and
            // work out its prologue while the tile's last wgmmas run (H100,
            // bf16 4096³: BENCHMARKS.md); the loop's test needs no division.
            None => {
                let total = self.scheduler.emit_walk_total(&mut k, sp, tiles_m, tiles_n);
                k.place_label(&top);
                let valid = self.scheduler.emit_walk_valid(&mut k, sp, total);
                k.push(format!("@!{valid} bra {};", consumer_done.name()));
                k_range(&mut k, sp);
                let mut epilogue_io = None;
                // A mainloop that reads the tile's coordinates gets them
                // first; the rest of the prologue still runs beside the
                // tile's last wgmmas.
                let early = match self.mainloop.consumer_reads_tile() {
                    true => {
                        let (coord, _) = self
                            .scheduler
                            .emit_walk_current(&mut k, sp, tiles_m, tiles_n);
                        set_tile(&mut k, &coord);
                        Some(coord)
                    }
                    false => None,
                };
                let acc = self
                    .mainloop
                    .emit_consumer_overlapped(&mut k, &io, &mut |k| {
                        let coord = match &early {
                            Some(coord) => *coord,
                            None => self.scheduler.emit_walk_current(k, sp, tiles_m, tiles_n).0,
                        };
                        epilogue_io = Some(tile_prologue(k, &coord)?);
                        Ok(())
                    })?;
                let epilogue_io = epilogue_io.ok_or_else(|| PtxError::UnsupportedSpec {
                    kernel: "gemm",
                    name: self.name.clone(),
                    reason: "the mainloop did not emit the tile's prologue".to_string(),
                })?;
                // A split tile's partial sums meet here (both consumer
                // warpgroups: their threads numbered from 0).
                let split = k_total.map(|_| {
                    let thread = r(&mut k);
                    k.push(format!("sub.u32 {thread}, {tid}, {WARPGROUP};"));
                    (thread, WARPGROUP * self.schedule.tile_warpgroups(), false)
                });
                self.emit_reduce_and_store(&mut k, sp, &epilogue_io, &acc, split)?;
            }
            // Ping-pong: the prologue runs while the other consumer's tile
            // holds the tensor cores.
            //
            // A split tile's reduction runs in the warpgroup's epilogue
            // turn, over its own 128 threads: a unit waits there only for
            // the units before it, which either ran on other blocks or
            // took this block's turns before it.
            Some((barrier, state, thread)) => {
                k.place_label(&top);
                let (coord, valid) = self
                    .scheduler
                    .emit_walk_current(&mut k, sp, tiles_m, tiles_n);
                k.push(format!("@!{valid} bra {};", consumer_done.name()));
                let epilogue_io = tile_prologue(&mut k, &coord)?;
                k_range(&mut k, sp);
                barrier.wait(&mut k, state).map_err(pipeline_error)?;
                let acc = self.mainloop.emit_consumer(&mut k, &io)?;
                barrier.arrive(&mut k, state).map_err(pipeline_error)?;
                barrier.wait(&mut k, state).map_err(pipeline_error)?;
                // One warpgroup at a time holds the epilogue's turn, so
                // both reduce with the one named barrier.
                let split = thread.map(|thread| (thread, WARPGROUP, true));
                self.emit_reduce_and_store(&mut k, sp, &epilogue_io, &acc, split)?;
                barrier.arrive(&mut k, state).map_err(pipeline_error)?;
                // The other warpgroup's next unit: its k-tiles (a split
                // unit's count is its own) skipped in the ring.
                if k_total.is_some() {
                    self.scheduler.emit_walk_step(&mut k, sp, 1);
                    k_range(&mut k, sp);
                    self.mainloop.emit_consumer_skip(&mut k, &io)?;
                    self.scheduler.emit_walk_step(&mut k, sp, steps - 1);
                } else {
                    self.mainloop.emit_consumer_skip(&mut k, &io)?;
                    self.scheduler.emit_walk_step(&mut k, sp, steps);
                }
            }
        }
        if order.is_none() {
            self.scheduler.emit_walk_step(&mut k, sp, steps);
        }
        k.push(format!("bra.uni {};", top.name()));
        k.place_label(&consumer_done);
        self.epilogue.emit_tail(&mut k, tid)?;
        k.place_label(&exit);
        k.push("ret;");
        Ok(k)
    }
}

fn pipeline_error(e: crate::Error) -> PtxError {
    PtxError::UnsupportedSpec {
        kernel: "gemm",
        name: String::from("sm90 kernel"),
        reason: e.to_string(),
    }
}

impl<M, E, S> GemmKernel for Sm90GemmWarpSpecialized<M, E, S>
where
    M: WarpSpecializedMainloop + Clone + Send + Sync + std::fmt::Debug + 'static,
    E: Epilogue + Clone + Send + Sync + std::fmt::Debug + 'static,
    S: PersistentTileScheduler + Clone + Send + Sync + std::fmt::Debug + 'static,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn params(&self) -> &KernelParams {
        &self.params
    }

    fn scheduler_value(&self, role: ParamRole) -> Option<u32> {
        self.scheduler.param_value(role)
    }

    fn scheduler_launch_value(
        &self,
        role: ParamRole,
        [m, n, k]: [u32; 3],
        raster: [u32; 2],
    ) -> Option<u64> {
        let [bm, bn, bk] = self.tile;
        let walk = WalkLaunch::of([m, n], [bm, bn], raster).with_k(k, bk);
        self.scheduler.launch_value(role, &walk)
    }

    /// The parts' regions side by side (see the type's docs).
    fn shared_storage(&self) -> SharedStorage {
        self.storage()
    }

    fn block_threads(&self) -> u32 {
        3 * WARPGROUP
    }

    fn cluster(&self) -> ClusterShape {
        self.cluster
    }

    fn dependent_launch(&self) -> bool {
        true
    }

    fn grid(&self, m: u32, n: u32, l: u32) -> (u32, u32, u32) {
        let [bm, bn, _] = self.tile;
        self.scheduler.grid(m.div_ceil(bm), n.div_ceil(bn), l)
    }

    fn grid_on_device(&self, m: u32, n: u32, l: u32, sm_count: u32) -> (u32, u32, u32) {
        let [bm, bn, _] = self.tile;
        self.scheduler
            .grid_on_device(m.div_ceil(bm), n.div_ceil(bn), l, sm_count)
    }

    /// The tile scheduler's workspace (the mainloop and the epilogues
    /// keep none).
    fn workspace_size(&self, shape: &GemmShape) -> usize {
        self.scheduler.workspace_size(shape)
    }

    fn workspace_size_on_device(&self, shape: &GemmShape, sm_count: u32) -> usize {
        self.scheduler.workspace_size_on_device(shape, sm_count)
    }

    fn alignment(&self) -> [u32; 4] {
        let [a, b] = self.mainloop.alignment();
        let [c, d] = self.epilogue.alignment();
        [a, b, c, d]
    }

    fn can_implement(&self) -> crate::Result<()> {
        if !self.schedule.warp_specialized() {
            return Err(crate::Error::Config {
                config: self.name.clone(),
                reason: format!(
                    "the {} schedule in the SM90 warp-specialized kernel: expected cooperative or ping-pong",
                    self.schedule.name()
                ),
            });
        }
        self.mainloop.can_implement()?;
        self.epilogue.can_implement()
    }

    fn ptx(&self) -> Result<String, PtxError> {
        let mut module = Module::new(ArchKind::Sm90);
        let t = self.types;
        if t.acc == ElementType::I32 && t.a != t.b {
            // wgmma with one s8 and one u8 operand is PTX 8.4 (CUDA 12.4
            // drivers).
            module = module.with_ptx_version(8, 4)?;
        } else if self.reduction == super::Reduction::Atomic && self.scheduler.splits_k() {
            // `red.global.add.v4.f32` is PTX 8.1 (CUDA 12.1 drivers).
            module = module.with_ptx_version(8, 1)?;
        }
        module.add_kernel(self.kernel()?)?;
        module.emit()
    }

    fn tensor_maps(&self) -> Vec<crate::gemm::TensorMapRequest> {
        let mut maps = self.mainloop.tensor_maps();
        maps.extend(self.epilogue.tensor_maps());
        maps
    }

    /// The kernel with its epilogue generated for `read`: one store body
    /// where the one that tests beta has two.
    fn for_source(&self, read: SourceRead) -> Option<Box<dyn GemmKernel>> {
        let epilogue = self.epilogue.with_source_read(read)?;
        Some(Box::new(Sm90GemmWarpSpecialized {
            name: format!("{}{}", self.name, read.name_suffix()),
            epilogue,
            ..self.clone()
        }))
    }
}
