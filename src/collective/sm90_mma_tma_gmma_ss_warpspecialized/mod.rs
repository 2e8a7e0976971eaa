//! [`Sm90TmaGmmaWarpSpecialized`]: the SM90 mainloop (CUTLASS's
//! `CollectiveMma<MainloopSm90TmaGmmaWarpSpecialized, ...>`,
//! `sm90_mma_tma_gmma_ss_warpspecialized.hpp`).
//!
//! A ring of `stages` shared-memory stages ([`PipelineTmaAsync`]) holds
//! tiles of A (`BM x BK`) and B (`BN x BK`) in 128-byte-swizzled layouts
//! ([`operand`]). One producer thread fills them with TMA: per k-tile it
//! waits until the stage is empty, announces the stage's bytes on its
//! `full` barrier and issues the boxes. In a cluster the CTAs that share a
//! tile of A (same M, the cluster's row) or of B (same N) each load a share
//! of it and multicast it to all of them. The last tile along M (or N) of
//! a K-major operand that no peer shares loads through a second tensor map
//! whose box stops at the operand's rows, and its stages count that many
//! bytes (`clips_rows`): the TMA would fill the rest of a whole box with
//! zeros, row by row, slower than it reads rows. The rows of the stage past
//! the box keep what they held; the accumulator rows they feed lie past M
//! (N) and are never stored. Consumer warpgroups wait on the `full`
//! barrier, issue `wgmma` with both operands read through
//! shared-memory descriptors, keep one k-tile of wgmma in flight, and
//! release each stage (to every CTA whose loads filled it) once the wgmma
//! that read it has completed.
//!
//! How the wgmmas read A is the one part the SS and RS mainloops do not
//! share ([`AOperand`], `a_operand.rs`): here through a shared-memory
//! descriptor ([`DescriptorA`]); a tf32 A that is M-major passes through
//! registers instead, in the RS mainloop of the next folder
//! (`sm90_mma_tma_gmma_rs_warpspecialized/`,
//! [`Sm90TmaGmmaRsWarpSpecialized`](crate::collective::Sm90TmaGmmaRsWarpSpecialized)),
//! which runs this mainloop with its own reader.
//!
//! The cooperative consumers zero their accumulators before each work
//! tile and run one k-tile body for every k-tile (every wgmma adds); the
//! ping-pong consumers issue the first k-tile apart, with scale-d 0, which
//! keeps their turn at the tensor cores short (`peels_first_k_tile` has the
//! figures).
//!
//! With the FP8 policy
//! ([`MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8`]) the consumers'
//! wgmmas write a second accumulator set, promoted into the accumulators
//! at intervals (`sm90_mma_tma_gmma_ss_warpspecialized_fp8/`).
//!
//! Under the [`Mainloop`](super::Mainloop) contract this mainloop is
//! warp-specialized: [`emit_prologue`](super::Mainloop::emit_prologue) runs
//! once at kernel entry, on every thread, before the roles split (it
//! initializes the barriers and allocates the walk's registers; the work
//! tile's registers of the [`BlockContext`] it is given are the ones the
//! kernel sets before each tile); `emit_producer` and `emit_consumer` emit
//! one work tile's loads and MMAs.

mod a_operand;
mod contract;
mod operand;
mod promotion_in_turns;
mod rules;

pub(crate) use a_operand::{AOperand, DescriptorA};
pub(crate) use contract::refusal;
pub(crate) use operand::OperandTile;
pub(crate) use rules::{check_sm90_block_scales, check_sm90_mainloop, check_sm90_promotion};
pub use rules::{MAX_ACCUMULATOR_REGISTERS, MAX_TRANSPOSED_BLOCK_SCALE_TILE_N};

use super::{Accumulators, BlockContext, MainloopPolicy, MainloopSpec, TileContext};
use crate::atom::{
    emit_prefetch_tensor_map, emit_tensor_map_address, emit_tma_load, emit_tma_load_multicast,
    emit_wgmma_commit, emit_wgmma_fence, emit_wgmma_wait, gmma_atom, Coord, GmmaDescriptor,
    MmaAtom, MmaSource, ScaleD,
};
use crate::collective::sm90_mma_tma_gmma_ss_warpspecialized_fp8::{
    emit_block_scale_setup, BlockScaleIo, Promotion, TileScales,
};
use crate::collective::Sm90TiledMma;
use crate::gemm::{ClusterShape, GemmOperand, OperandMajor, ParamRole, ProblemDim};
use crate::numeric::ElementType;
use crate::pipeline::{
    Pipeline, PipelineTmaAsync, Release, RemoteArrival, TmaAsyncConfig, TmaAsyncState,
};
use crate::ptx::{Kernel, Param, PtxError, Reg, RegClass};
use crate::tiled::RegisterTensor;

/// Whether the SM90 mainloop reads an A of `element` and `major` from
/// registers (the `_RS` wgmma): a 32-bit (tf32) A that is M-major, which
/// wgmma cannot transpose.
pub(crate) const fn reads_a_from_registers(element: ElementType, major: OperandMajor) -> bool {
    element.size_bytes() == 4 && matches!(major, OperandMajor::MN)
}

/// Alignment of a stage (the 128-byte swizzle repeats every 1024 bytes).
pub const STAGE_ALIGN: u32 = 1024;

/// The SM90 TMA + wgmma mainloop of one kernel.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sm90TmaGmmaWarpSpecialized {
    pub(crate) ctx: TileContext,
    pub(crate) stages: u32,
    pub(crate) cluster: ClusterShape,
    pub(crate) consumers: u32,
    pub(crate) wg_rows: u32,
    /// wgmma k-steps between promotions of the partial sums (the FP8
    /// mainloop); `None`: every wgmma adds into the accumulators.
    pub(crate) promotion_interval: Option<u32>,
    /// Whether the promotions apply A's and B's block scales
    /// ([`ScaleGranularity::Block`](crate::gemm::ScaleGranularity::Block)).
    pub(crate) block_scales: bool,
    /// Whether those are swap-AB's: A's per-row scales along the kernel's
    /// N ([`Epilogue::block_scales_transposed`](crate::gemm::Epilogue::block_scales_transposed)).
    pub(crate) block_scales_transposed: bool,
}

/// The extent an operand's rows run along: M for A, N for B.
pub(crate) const fn edge_extent(op: GemmOperand) -> ProblemDim {
    match op {
        GemmOperand::A => ProblemDim::M,
        _ => ProblemDim::N,
    }
}

/// An operand's tensor map for its last tile along M (A) or N (B), whose
/// box stops at the operand's rows
/// ([`TensorMapRequest::edge_rows`](crate::gemm::TensorMapRequest::edge_rows)):
/// the parameters the producer reads for each tile (not registers held
/// through the kernel, which the consumers' allocation would pay for).
#[derive(Clone, Debug)]
pub struct EdgeMap {
    /// The map's parameter ([`ParamRole::EdgeTensorMap`]).
    pub map: Param,
    /// The operand's rows: M for A, N for B ([`ParamRole::Extent`]).
    pub extent: Param,
}

/// What the prologue hands the producer and consumer parts.
#[derive(Clone, Debug)]
pub struct Sm90MainloopIo {
    /// The ring.
    pub pipeline: PipelineTmaAsync,
    /// Generic addresses of A's and B's tensor maps (`.b64`).
    pub tensor_maps: [Reg; 2],
    /// The producer's walk.
    pub producer: TmaAsyncState,
    /// The consumer's walk.
    pub consumer: TmaAsyncState,
    /// The work tile's first row, first column and batch (`.b32`), set by
    /// the kernel before each tile's producer part; before its consumer
    /// part only where the mainloop reads them there
    /// ([`consumer_reads_tile`](crate::collective::WarpSpecializedMainloop::consumer_reads_tile):
    /// the cooperative kernel otherwise sets them while the tile's last
    /// wgmmas run).
    pub tile: [Reg; 3],
    /// The k-tiles of the current work unit (`.b32`): `ceil(K / BK)`, or
    /// the unit's count where a scheduler splits K
    /// ([`WarpSpecializedMainloop::emit_k_range`](crate::collective::WarpSpecializedMainloop::emit_k_range)).
    pub k_tiles: Reg,
    /// Where a scheduler splits K: the problem's k-tiles (`.b32`, kept)
    /// and the current unit's first k-tile (`.b32`); `None` otherwise.
    pub k_split: Option<[Reg; 2]>,
    /// This CTA's position in its cluster, (M, N) (`.b32`).
    pub cta: [Reg; 2],
    /// A's and B's maps of their last tiles, whose boxes stop at the
    /// operand's rows ([`TensorMapRequest::clip_rows`](crate::gemm::TensorMapRequest));
    /// `None` for an operand whose every tile loads whole boxes.
    pub edges: [Option<EdgeMap>; 2],
    /// Byte offset of this consumer warpgroup's rows in a stage's A tile (`.b32`).
    pub a_rows_offset: Reg,
    /// Whether this thread releases stages (one per consumer warpgroup and
    /// destination CTA; `.pred`).
    pub signal: Reg,
    /// This thread's place in its warpgroup, `tid & 127` (`.b32`).
    pub wg_thread: Reg,
    /// A consumer warpgroup's accumulators (registers; the consumer sets
    /// them in each work tile).
    pub acc: Accumulators,
    /// What block scales need, where the mainloop applies them.
    pub block_scales: Option<BlockScaleIo>,
}

impl Sm90TmaGmmaWarpSpecialized {
    /// The mainloop of `ctx` and `spec` in a cluster of `cluster` CTAs, read
    /// by `consumers` warpgroups that each multiply `wg_rows` rows of the
    /// tile (2 x BM/2 for the cooperative kernel, 1 x BM for ping-pong).
    pub fn new(
        ctx: &TileContext,
        spec: &MainloopSpec,
        cluster: ClusterShape,
        consumers: u32,
        wg_rows: u32,
    ) -> Self {
        Sm90TmaGmmaWarpSpecialized {
            ctx: *ctx,
            stages: spec.stages(),
            cluster,
            consumers,
            wg_rows,
            promotion_interval: match spec.policy {
                MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 {
                    promotion_interval, ..
                } => Some(promotion_interval),
                _ => None,
            },
            block_scales: false,
            block_scales_transposed: false,
        }
    }

    /// This mainloop applying A's and B's block scales at each promotion
    /// where `block_scales` is set
    /// ([`ScaleGranularity::Block`](crate::gemm::ScaleGranularity::Block);
    /// the FP8 mainloop with one promotion per 128 of K), A's per-row
    /// scales along the kernel's N where `transposed` is (swap-AB's
    /// kernel).
    pub fn with_block_scales(mut self, block_scales: bool, transposed: bool) -> Self {
        self.block_scales = block_scales;
        self.block_scales_transposed = block_scales && transposed;
        self
    }

    /// Elements of K one wgmma takes: 16 for 16-bit types, 8 for tf32.
    pub(crate) fn instr_k(&self) -> u32 {
        32 / self.ctx.types.a.size_bytes()
    }

    /// The FP8 mainloop's promotion of its partial sums, where it has one.
    fn promotion(&self) -> Option<Promotion> {
        self.promotion_interval
            .map(|interval| Promotion::new(interval, self.ctx.tile[2] / self.instr_k()))
    }

    /// The shared-memory tile of A or B in a stage.
    pub(crate) fn operand(&self, op: GemmOperand) -> OperandTile {
        let [bm, bn, bk] = self.ctx.tile;
        let size = self.ctx.types.a.size_bytes();
        match op {
            GemmOperand::A => OperandTile {
                major: self.ctx.majors.a,
                mn: bm,
                bk,
                size,
                offset: 0,
                slice_rows: 64,
            },
            _ => OperandTile {
                major: self.ctx.majors.b,
                mn: bn,
                bk,
                size,
                offset: bm * bk * size,
                slice_rows: bn,
            },
        }
    }

    /// Bytes of one stage: A's tile, then B's.
    pub fn stage_bytes(&self) -> u32 {
        self.operand(GemmOperand::A).bytes() + self.operand(GemmOperand::B).bytes()
    }

    /// The ring's configuration: every byte of a stage lands in this CTA
    /// (its own boxes and its peers' multicasts); a stage is empty again
    /// after every consumer warpgroup of every CTA that loads into it
    /// released it.
    pub fn pipeline_config(&self) -> TmaAsyncConfig {
        let [cm, cn] = self.cluster.mn();
        TmaAsyncConfig {
            stages: self.stages,
            stage_bytes: self.stage_bytes(),
            tx_bytes: self.stage_bytes(),
            release: Release::EmptyBarrier {
                arrivals: TmaAsyncConfig::multicast_arrivals(self.consumers, [cm, cn]),
            },
            cluster_ctas: cm * cn,
        }
    }

    fn cluster_size(&self) -> u32 {
        self.cluster.ctas()
    }

    /// Where the wgmma reads A: through a descriptor, or from registers
    /// where A is 32-bit (tf32) and M-major, which wgmma cannot transpose.
    pub(crate) fn a_source(&self) -> MmaSource {
        if reads_a_from_registers(self.ctx.types.a, self.ctx.majors.a) {
            MmaSource::RegisterShared
        } else {
            MmaSource::SharedShared
        }
    }

    /// The wgmma atom: 64 x BN x K, B through a descriptor, A as
    /// [`a_source`](Self::a_source) says.
    pub(crate) fn atom(&self) -> Option<MmaAtom> {
        let t = self.ctx.types;
        gmma_atom(t.a, t.b, t.acc, self.ctx.tile[1], self.a_source())
    }

    /// The tensor maps of A and B: the box each TMA copy loads; then, for
    /// each operand whose last tile loads a box of its own rows
    /// (`clips_rows`), that tile's map.
    pub fn tensor_map_requests(&self) -> Vec<crate::gemm::TensorMapRequest> {
        let [cm, cn] = self.cluster.mn();
        let whole = [(GemmOperand::A, cn), (GemmOperand::B, cm)].map(|(op, peers)| {
            let tile = self.operand(op);
            crate::gemm::TensorMapRequest {
                operand: op,
                dims: crate::gemm::TensorMapRequest::operand_dims(op, tile.major),
                box_dims: tile.box_dims(peers),
                swizzle_bytes: tile.swizzle_bytes(),
                whole_chunks: false,
                clip_rows: false,
            }
        });
        let edges = whole
            .into_iter()
            .filter(|request| self.clips_rows(request.operand))
            .map(|request| crate::gemm::TensorMapRequest {
                clip_rows: true,
                ..request
            });
        whole.into_iter().chain(edges).collect()
    }

    /// Whether the operand's last tile along M (A) or N (B) loads its
    /// rows through a map of their own, whose box stops at the operand's
    /// rows ([`TensorMapRequest::clip_rows`](crate::gemm::TensorMapRequest)):
    /// a K-major operand that no other CTA of the cluster loads a share of
    /// (its rows are contiguous 128- or 64-byte lines, so the first rows
    /// of the box land where a whole box puts them). The TMA fills the rows
    /// of a box past the operand's with zeros one by one, which costs more
    /// than reading rows. H200, 2026-11-28: one kernel (128x64 tiles, 4
    /// splits, N = 1024, K = 16384) ran 21.3 µs at M = 128 and 23.3 at
    /// M = 80, 25.7 at M = 65, with fewer bytes read; 2026-11-29, ping-pong
    /// 128x128 tiles over N = 8192, K = 4096: 41.6 µs at M = 160, 34.1 at
    /// 192, 27.4 at 224 and 256.
    pub(crate) fn clips_rows(&self, op: GemmOperand) -> bool {
        match op {
            GemmOperand::A => self.ctx.majors.a == OperandMajor::K && self.cluster.n == 1,
            _ => self.ctx.majors.b == OperandMajor::K && self.cluster.m == 1,
        }
    }

    /// Emits the prologue (see the module docs): tensor-map addresses and
    /// prefetch, the ring's barriers, the walks, K tiles, the cluster
    /// position and the consumer's release role.
    pub(crate) fn emit_setup(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
    ) -> Result<Sm90MainloopIo, PtxError> {
        let err = |e: crate::Error| PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::from("sm90 mainloop"),
            reason: e.to_string(),
        };
        let mut maps = [block.tid; 2];
        for (i, op) in [GemmOperand::A, GemmOperand::B].into_iter().enumerate() {
            let param = block.params.get(ParamRole::TensorMap(op))?.clone();
            maps[i] = emit_tensor_map_address(k, &param).map_err(err)?;
        }
        let cm = self.cluster.m;
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (cta_m, cta_n) = (r(k), r(k));
        let wg_thread = r(k);
        k.push(format!("and.b32 {wg_thread}, {}, 127;", block.tid));
        let signal = k.reg(RegClass::Pred);
        let remote = if self.cluster_size() > 1 {
            let (rank, dst, dst_m, dst_n) = (r(k), r(k), r(k), r(k));
            k.push(format!("mov.u32 {rank}, %cluster_ctarank;"));
            k.rem_u32_by(cta_m, rank, cm);
            k.div_u32_by(cta_n, rank, cm);
            // Thread t < cluster size of each consumer warpgroup releases the
            // stage to CTA t, where CTA t's loads land here (same row or column).
            k.push(format!("mov.u32 {dst}, {wg_thread};"));
            k.rem_u32_by(dst_m, dst, cm);
            k.div_u32_by(dst_n, dst, cm);
            let (p, q) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
            k.push(format!("setp.eq.u32 {p}, {dst_m}, {cta_m};"));
            k.push(format!("setp.eq.u32 {q}, {dst_n}, {cta_n};"));
            k.push(format!("or.pred {p}, {p}, {q};"));
            k.push(format!(
                "setp.lt.u32 {q}, {wg_thread}, {};",
                self.cluster_size()
            ));
            k.push(format!("and.pred {signal}, {p}, {q};"));
            Some(RemoteArrival { cta: dst, signal })
        } else {
            k.push(format!("mov.u32 {cta_m}, 0;"));
            k.push(format!("mov.u32 {cta_n}, 0;"));
            k.push(format!("setp.eq.u32 {signal}, {wg_thread}, 0;"));
            None
        };
        let pipeline =
            PipelineTmaAsync::new(k, self.pipeline_config(), block.smem, "mainloop", remote)
                .map_err(err)?;
        let leader = k.reg(RegClass::Pred);
        k.push(format!("setp.eq.u32 {leader}, {}, 0;", block.tid));
        // The last tiles' maps, for the producer to read at each tile.
        let mut edges = [None, None];
        for (i, op) in [GemmOperand::A, GemmOperand::B].into_iter().enumerate() {
            if self.clips_rows(op) {
                edges[i] = Some(EdgeMap {
                    map: block.params.get(ParamRole::EdgeTensorMap(op))?.clone(),
                    extent: block
                        .params
                        .get(ParamRole::Extent(edge_extent(op)))?
                        .clone(),
                });
            }
        }
        // Thread 0, the producer thread, prefetches the tensor maps before
        // the barriers' setup, so that the descriptors are fetched while
        // the block initializes rather than in front of its first load.
        let prefetched = k.new_label("tensor_maps_prefetched")?;
        k.push(format!("@!{leader} bra {};", prefetched.name()));
        for map in maps {
            emit_prefetch_tensor_map(k, map).map_err(pipeline_error)?;
        }
        for edge in edges.iter().flatten() {
            let map = emit_tensor_map_address(k, &edge.map).map_err(err)?;
            emit_prefetch_tensor_map(k, map).map_err(pipeline_error)?;
        }
        k.place_label(&prefetched);
        pipeline.init(k, leader).map_err(err)?;
        let producer = pipeline.producer_start(k);
        let consumer = pipeline.consumer_start(k);
        let k_tiles = r(k);
        let bk = self.ctx.tile[2];
        k.push(format!("add.u32 {k_tiles}, {}, {};", block.k, bk - 1));
        // It stays a run-time division: a shift here moved the assembler's
        // allocation of the 168-register cooperative kernels with fused
        // epilogues into spills (256x128 in 1x2 clusters: 32 bytes; tried
        // again with the tile walk's launch-time divisors, the same).
        k.push(format!("div.u32 {k_tiles}, {k_tiles}, {bk};"));
        // Consumer warpgroup c (threads 128 (c + 1) ..) multiplies rows
        // c * wg_rows .. of the tile: its A slices start that many rows in.
        let a_rows_offset = r(k);
        if self.consumers > 1 {
            let a = self.operand(GemmOperand::A);
            let per_wg = a
                .slice_offset(self.ctx.types.a, self.wg_rows / 64, 0)
                .map_err(err)?;
            // Warp-uniform, so that the descriptors built from it stay in
            // uniform registers.
            let warpgroup = k.warpgroup_index(block.tid);
            k.push(format!("max.u32 {a_rows_offset}, {warpgroup}, 1;"));
            k.push(format!("sub.u32 {a_rows_offset}, {a_rows_offset}, 1;"));
            k.push(format!(
                "mul.lo.u32 {a_rows_offset}, {a_rows_offset}, {per_wg};"
            ));
        } else {
            k.push(format!("mov.u32 {a_rows_offset}, 0;"));
        }
        let block_scales = match self.block_scales {
            true => {
                let mma = self.tiled_mma().map_err(err)?;
                Some(emit_block_scale_setup(
                    k,
                    block.params,
                    &mma,
                    block.tid,
                    block.k,
                    self.block_scales_transposed,
                )?)
            }
            false => None,
        };
        Ok(Sm90MainloopIo {
            pipeline,
            tensor_maps: maps,
            producer,
            consumer,
            tile: [block.m0, block.n0, block.batch],
            k_tiles,
            k_split: None,
            cta: [cta_m, cta_n],
            edges,
            a_rows_offset,
            signal,
            wg_thread,
            acc: self.allocate_accumulators(k)?,
            block_scales,
        })
    }

    /// Emits one work tile's loads, by the producer thread alone.
    pub(crate) fn emit_loads(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        let err = pipeline_error;
        let [cm, cn] = self.cluster.mn();
        let bk = self.ctx.tile[2];
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (kt, kc) = (r(k), r(k));
        // Per operand: its loads' slice base (stage offset, first row) and mask.
        struct Plan {
            tile: OperandTile,
            map: Reg,
            mn0: Reg,
            dst: Reg,
            mask: Option<Reg>,
            boxes: u32,
        }
        let mut plans = Vec::new();
        for (i, op) in [GemmOperand::A, GemmOperand::B].into_iter().enumerate() {
            let tile = self.operand(op);
            // A is shared by the cluster's row (cn CTAs), B by its column.
            let (peers, slice) = match op {
                GemmOperand::A => (cn, io.cta[1]),
                _ => (cm, io.cta[0]),
            };
            let boxes0 = tile.boxes(0, peers);
            let boxes1 = tile.boxes(1.min(peers - 1), peers);
            let (dst_step, mn_step) = if peers > 1 {
                (boxes1[0].dst - boxes0[0].dst, boxes1[0].mn - boxes0[0].mn)
            } else {
                (0, 0)
            };
            let (mn0, dst) = (r(k), r(k));
            k.push(format!("mul.lo.u32 {dst}, {slice}, {dst_step};"));
            k.push(format!("add.u32 {dst}, {dst}, {};", boxes0[0].dst));
            k.push(format!(
                "mad.lo.u32 {mn0}, {slice}, {mn_step}, {};",
                io.tile[i]
            ));
            let mask = (peers > 1).then(|| {
                let m = k.reg(RegClass::B16);
                let wide = r(k);
                let (pattern, shift) = match op {
                    GemmOperand::A => {
                        let pattern: u32 = (0..cn).map(|j| 1u32 << (cm * j)).sum();
                        (pattern, io.cta[0])
                    }
                    _ => {
                        let s = r(k);
                        k.push(format!("mul.lo.u32 {s}, {}, {cm};", io.cta[1]));
                        ((1u32 << cm) - 1, s)
                    }
                };
                k.push(format!("shl.b32 {wide}, {pattern}, {shift};"));
                k.push(format!("cvt.u16.u32 {m}, {wide};"));
                m
            });
            plans.push(Plan {
                tile,
                map: io.tensor_maps[i],
                mn0,
                dst,
                mask,
                boxes: boxes0.len() as u32,
            });
        }
        // A stage of a last tile lacks the rows past the operand's: its
        // loads go through the edge map, and the stage counts fewer bytes.
        let tx = io.edges.iter().any(Option::is_some).then(|| {
            let tx = r(k);
            k.push(format!("mov.u32 {tx}, {};", self.stage_bytes()));
            tx
        });
        for (plan, edge) in plans.iter_mut().zip(&io.edges) {
            let (Some(edge), Some(tx)) = (edge, tx) else {
                continue;
            };
            let edge_map = emit_tensor_map_address(k, &edge.map).map_err(pipeline_error)?;
            let extent = k.load_param(&edge.extent)?;
            // The last tile's rows, `(extent - 1) % rows + 1`, rounded up to 8
            // and at most the tile's, as the launcher encodes its box
            // (`TensorMapRequest::edge_rows`); its stages lack the rest.
            let (rows, lack, end) = (r(k), r(k), r(k));
            let mn = plan.tile.mn;
            k.push(format!("max.u32 {rows}, {extent}, 1;"));
            k.push(format!("sub.u32 {rows}, {rows}, 1;"));
            k.rem_u32_by(rows, rows, mn);
            k.push(format!("add.u32 {rows}, {rows}, 8;"));
            k.push(format!("and.b32 {rows}, {rows}, -8;"));
            k.push(format!("min.u32 {rows}, {rows}, {mn};"));
            k.push(format!("mov.u32 {lack}, {mn};"));
            k.push(format!("sub.u32 {lack}, {lack}, {rows};"));
            let row_bytes = plan.tile.bk * plan.tile.size;
            k.push(format!("mul.lo.u32 {lack}, {lack}, {row_bytes};"));
            let last = k.reg(RegClass::Pred);
            let map = k.reg(RegClass::B64);
            k.push(format!("add.u32 {end}, {}, {mn};", plan.mn0));
            k.push(format!("setp.gt.u32 {last}, {end}, {extent};"));
            k.push(format!("selp.b64 {map}, {edge_map}, {}, {last};", plan.map));
            k.push(format!("selp.b32 {lack}, {lack}, 0, {last};"));
            k.push(format!("sub.u32 {tx}, {tx}, {lack};"));
            plan.map = map;
        }
        k.push(format!("mov.u32 {kt}, 0;"));
        match io.k_split {
            // The unit's first k-tile's K coordinate.
            Some([_, first]) => k.push(format!("mul.lo.u32 {kc}, {first}, {bk};")),
            None => k.push(format!("mov.u32 {kc}, 0;")),
        }
        let top = k.new_label("producer_k")?;
        let done = k.new_label("producer_k_done")?;
        let p = k.reg(RegClass::Pred);
        k.place_label(&top);
        k.push(format!("setp.ge.u32 {p}, {kt}, {};", io.k_tiles));
        k.push(format!("@{p} bra {};", done.name()));
        match tx {
            Some(bytes) => io
                .pipeline
                .producer_acquire_counted(k, &io.producer, bytes)
                .map_err(err)?,
            None => io.pipeline.producer_acquire(k, &io.producer).map_err(err)?,
        }
        for plan in &plans {
            for j in 0..plan.boxes {
                let (dst, mn) = (r(k), r(k));
                let (dst_imm, mn_imm) = match plan.tile.major {
                    OperandMajor::K => (0, 0),
                    OperandMajor::MN => (
                        j * plan.tile.bk * operand::SWIZZLE_BYTES,
                        j * plan.tile.row_elems(),
                    ),
                };
                k.push(format!(
                    "add.u32 {dst}, {}, {};",
                    io.producer.stage, plan.dst
                ));
                if dst_imm > 0 {
                    k.push(format!("add.u32 {dst}, {dst}, {dst_imm};"));
                }
                k.push(format!("add.u32 {mn}, {}, {mn_imm};", plan.mn0));
                let coords: [Coord; 3] = match plan.tile.major {
                    OperandMajor::K => [kc.into(), mn.into(), io.tile[2].into()],
                    OperandMajor::MN => [mn.into(), kc.into(), io.tile[2].into()],
                };
                let bar = io.producer.full;
                match plan.mask {
                    None => emit_tma_load(k, dst, plan.map, &coords, bar).map_err(err)?,
                    Some(mask) => emit_tma_load_multicast(k, dst, plan.map, &coords, bar, mask)
                        .map_err(err)?,
                }
            }
        }
        io.pipeline.producer_commit(k, &io.producer).map_err(err)?;
        io.pipeline.advance(k, &io.producer).map_err(err)?;
        k.push(format!("add.u32 {kt}, {kt}, 1;"));
        k.push(format!("add.u32 {kc}, {kc}, {bk};"));
        k.push(format!("bra.uni {};", top.name()));
        k.place_label(&done);
        Ok(())
    }

    /// Emits the producer's end in a cluster: it waits until every stage
    /// was released, so that no peer still arrives on this CTA's barriers
    /// after it exits.
    pub(crate) fn emit_ring_drain(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
    ) -> Result<(), PtxError> {
        if self.cluster_size() > 1 {
            io.pipeline
                .producer_tail(k, &io.producer)
                .map_err(pipeline_error)?;
        }
        Ok(())
    }

    /// Emits the consumer's skip over `tiles` work tiles of the ring (the
    /// ping-pong consumers take turns: each skips the stages of the other's
    /// tiles).
    pub(crate) fn emit_skip(&self, k: &mut Kernel, io: &Sm90MainloopIo) {
        // index' = index + k_tiles; phase flips once per wrap.
        let c = &io.consumer;
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (index, total, wraps) = (r(k), r(k), r(k));
        let sb = self.stage_bytes();
        let base = io.pipeline.base();
        k.push(format!("sub.u32 {index}, {}, {base};", c.stage));
        k.div_u32_by(index, index, sb);
        k.push(format!("add.u32 {total}, {index}, {};", io.k_tiles));
        k.div_u32_by(wraps, total, self.stages);
        k.rem_u32_by(index, total, self.stages);
        k.push(format!("mad.lo.u32 {}, {index}, {sb}, {base};", c.stage));
        k.push(format!(
            "mad.lo.u32 {}, {index}, {}, {};",
            c.full,
            crate::pipeline::MBARRIER_BYTES,
            io.pipeline.barriers()
        ));
        k.push(format!("and.b32 {wraps}, {wraps}, 1;"));
        k.push(format!("xor.b32 {}, {}, {wraps};", c.phase, c.phase));
    }

    /// Whether the consumer peels the first k-tile off its loop, issuing it
    /// with scale-d 0 (the ping-pong kernel). Otherwise (the cooperative
    /// kernel) one k-tile body serves every k-tile, the scale-d of its first
    /// k-step a predicate that is false on the tile's first k-tile, so the
    /// accumulators are never zeroed (as CUTLASS's `ScaleOut::Zero`; 64
    /// fewer instructions a tile and thread than zeroing them, 0.2-0.4%
    /// faster on an H100: BENCHMARKS.md). The single body cuts the driver's JIT of a
    /// cooperative 128x256 kernel by about a quarter (H100: 246-368 ms
    /// against 416-452 ms) at the same speed, but costs ping-pong about 1%
    /// (f16 8192x8192x1024: 0.992 of cuBLASLt against 1.004; BENCHMARKS.md).
    fn peels_first_k_tile(&self) -> bool {
        self.consumers == 1
    }

    /// The consumers' tiled MMA: the wgmma atom over the consumer
    /// warpgroups along M, each of `wg_rows` rows. The accumulators are
    /// allocated with its fragment layout and the epilogues read them
    /// through its C partition.
    pub fn tiled_mma(&self) -> crate::Result<Sm90TiledMma> {
        let atom = self.atom().ok_or_else(|| {
            crate::Error::invalid_argument(
                "wgmma atom",
                format!("{:?}", self.ctx.types),
                "types with a wgmma instruction",
            )
        })?;
        Sm90TiledMma::new(atom, self.consumers, self.wg_rows)
    }

    /// The accumulator registers of a consumer warpgroup: the tiled MMA's
    /// C fragment `(FrgV, RestM, RestN)` = `(N/2, wg_rows/64, 1)`, one
    /// wgmma D fragment (CuTe's `CLayout_64xN`) per 64-row block, f32
    /// registers, f16 pairs or s32 values (in `.b32` registers, which
    /// integer wgmmas take).
    fn allocate_accumulators(&self, k: &mut Kernel) -> Result<Accumulators, PtxError> {
        let layout = self.tiled_mma().map_err(pipeline_error)?.fragment_layout();
        let (class, element) = match self.ctx.types.acc {
            ElementType::F16 => (RegClass::B32, ElementType::F16),
            ElementType::I32 => (RegClass::B32, ElementType::I32),
            _ => (RegClass::F32, ElementType::F32),
        };
        RegisterTensor::allocate(k, class, layout, element).map_err(pipeline_error)
    }

    /// Emits the zeroing of the accumulators.
    fn emit_zero_accumulators(&self, k: &mut Kernel, io: &Sm90MainloopIo) {
        for reg in io.acc.regs() {
            match self.ctx.types.acc {
                ElementType::F16 | ElementType::I32 => k.push(format!("mov.b32 {reg}, 0;")),
                _ => k.push(format!("mov.f32 {reg}, 0f00000000;")),
            }
        }
    }

    /// Emits one work tile's MMAs by a consumer warpgroup and returns its
    /// accumulators (`io.acc`), with `overlap` emitted once on every path:
    /// where the consumer waits for its last k-tile's wgmmas (the
    /// cooperative kernel's single k-tile body), else after the MMAs.
    pub(crate) fn emit_mma<R: AOperand>(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        reader: &R,
        mut overlap: Option<&mut crate::collective::ConsumerOverlap<'_>>,
    ) -> Result<Accumulators, PtxError> {
        if self.promotes_in_turns(io, reader) {
            return self.emit_mma_promoting_in_turns(k, io, reader, overlap);
        }
        let err = pipeline_error;
        let acc = io.acc.clone();
        // With promotion the wgmmas write a second set of registers, added
        // into the accumulators (zeroed here) at each promotion (two sets
        // taking turns where it promotes every k-tile: `promotion_in_turns.rs`).
        let promotion = self.promotion();
        let partial = match promotion {
            Some(_) => {
                self.emit_zero_accumulators(k, io);
                self.allocate_accumulators(k)?
            }
            None => acc.clone(),
        };
        let a_tile = reader.emit_tile_setup(self, k, io)?;
        // Block scales: each k-tile loads the next one's before it waits
        // for the stage.
        let scales = self.emit_tile_scales(k, io)?;
        let emit_scale_load = |k: &mut Kernel, kt: Reg| {
            if let Some((scales, first)) = &scales {
                let kb = k.reg(RegClass::B32);
                k.push(format!("add.u32 {kb}, {kt}, {first};"));
                scales.emit_step(k, kt, kb, io.k_tiles);
            }
        };
        let scales = scales.as_ref().map(|(scales, _)| scales);
        let c = io.consumer;
        let prev = TmaAsyncState {
            stage: k.reg(RegClass::B32),
            full: k.reg(RegClass::B32),
            phase: c.phase,
        };
        let kt = k.reg(RegClass::B32);
        let p = k.reg(RegClass::Pred);
        let done = k.new_label("consumer_k_done")?;
        let top = k.new_label("consumer_k")?;
        let tail = k.new_label("consumer_tail")?;
        let peeled = self.peels_first_k_tile();
        let empty = if peeled {
            let empty = k.new_label("consumer_k_empty")?;
            let p_zero = k.reg(RegClass::Pred);
            k.push(format!("setp.ne.u32 {p_zero}, 0, 0;"));
            k.push(format!("setp.eq.u32 {p}, {}, 0;", io.k_tiles));
            k.push(format!("@{p} bra {};", empty.name()));
            // The first k-tile overwrites the accumulators (scale-d 0 at k-step 0).
            let zero = |k: &mut Kernel| {
                let first = k.reg(RegClass::B32);
                k.push(format!("mov.u32 {first}, 0;"));
                first
            };
            let scaled_first = scales.map(|_| {
                let first = zero(k);
                emit_scale_load(k, first);
                first
            });
            io.pipeline.consumer_wait(k, &c).map_err(err)?;
            self.emit_k_tile(
                k,
                io,
                &partial,
                reader,
                &a_tile,
                0,
                KTileScale::ZeroFirst(p_zero),
            )?;
            if let Some(promotion) = promotion {
                let first = scaled_first.unwrap_or_else(|| zero(k));
                promotion.emit_promote(k, first, io.k_tiles, &acc, &partial, scales)?;
            }
            k.push(format!("mov.u32 {}, {};", prev.stage, c.stage));
            k.push(format!("mov.u32 {}, {};", prev.full, c.full));
            io.pipeline.advance(k, &c).map_err(err)?;
            k.push(format!("mov.u32 {kt}, 1;"));
            Some(empty)
        } else {
            k.push(format!("mov.u32 {kt}, 0;"));
            None
        };
        k.place_label(&top);
        // Where A passes through registers, the loop is unrolled twice: the
        // k-tiles take turns with the two register sets, so that a k-tile's
        // loads overwrite the set of the k-tile before the previous one,
        // which the wait below has completed.
        let sets: &[usize] = match (reader.sets() > 1, peeled) {
            (false, _) => &[0],
            (true, true) => &[1, 0],
            (true, false) => &[0, 1],
        };
        for &set in sets {
            k.push(format!("setp.ge.u32 {p}, {kt}, {};", io.k_tiles));
            k.push(format!("@{p} bra {};", tail.name()));
            emit_scale_load(k, kt);
            io.pipeline.consumer_wait(k, &c).map_err(err)?;
            let scale = match (promotion, peeled) {
                // An interval's first k-tile overwrites the partial sums.
                (Some(promotion), _) => KTileScale::ZeroFirst(promotion.emit_adds(k, kt)),
                (None, true) => KTileScale::AddPred,
                (None, false) => {
                    // The tile's first k-tile overwrites the accumulators.
                    let later = k.reg(RegClass::Pred);
                    k.push(format!("setp.ne.u32 {later}, {kt}, 0;"));
                    KTileScale::ZeroFirst(later)
                }
            };
            self.emit_k_tile(k, io, &partial, reader, &a_tile, set, scale)?;
            if let Some(promotion) = promotion {
                promotion.emit_promote(k, kt, io.k_tiles, &acc, &partial, scales)?;
            }
            // At most this k-tile in flight: the previous one's stage (if
            // any) is read.
            emit_wgmma_wait(k, 1).map_err(err)?;
            if peeled {
                self.emit_release(k, io, &prev)?;
            } else {
                let first = k.new_label("consumer_first_k")?;
                k.push(format!("setp.eq.u32 {p}, {kt}, 0;"));
                k.push(format!("@{p} bra {};", first.name()));
                self.emit_release(k, io, &prev)?;
                k.place_label(&first);
            }
            k.push(format!("mov.u32 {}, {};", prev.stage, c.stage));
            k.push(format!("mov.u32 {}, {};", prev.full, c.full));
            io.pipeline.advance(k, &c).map_err(err)?;
            k.push(format!("add.u32 {kt}, {kt}, 1;"));
        }
        k.push(format!("bra.uni {};", top.name()));
        k.place_label(&tail);
        match empty {
            Some(empty) => {
                emit_wgmma_wait(k, 0).map_err(err)?;
                self.emit_release(k, io, &prev)?;
                k.push(format!("bra.uni {};", done.name()));
                // K = 0: D = epilogue(0, C).
                k.place_label(&empty);
                self.emit_zero_accumulators(k, io);
            }
            None => {
                // Reached from the loop (the last k-tile's wgmmas in flight)
                // and for K = 0: the kernel's overlapping work runs here.
                if let Some(overlap) = overlap.take() {
                    overlap(k)?;
                }
                // No wgmma in flight past here, so that zeroing the
                // accumulators (K = 0: D = epilogue(0, C)) is no wgmma's
                // neighbour: ptxas serializes every wgmma of a kernel where
                // other instructions define their accumulators inside a
                // wgmma pipeline stage (C7515).
                emit_wgmma_wait(k, 0).map_err(err)?;
                let some = k.new_label("consumer_k_some")?;
                k.push(format!("setp.ne.u32 {p}, {}, 0;", io.k_tiles));
                k.push(format!("@{p} bra {};", some.name()));
                self.emit_zero_accumulators(k, io);
                k.push(format!("bra.uni {};", done.name()));
                k.place_label(&some);
                self.emit_release(k, io, &prev)?;
            }
        }
        k.place_label(&done);
        if let Some(overlap) = overlap {
            overlap(k)?;
        }
        Ok(acc)
    }

    /// Emits a work tile's block scales where the mainloop has them: the
    /// tile's scale pointers and the loads of its first k-tile's scales,
    /// with the unit's first k-tile (`.b32`). K-tile kt's block of K is kt,
    /// past the unit's first where a scheduler splits K.
    fn emit_tile_scales(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
    ) -> Result<Option<(TileScales, Reg)>, PtxError> {
        let Some(block) = &io.block_scales else {
            return Ok(None);
        };
        let mma = self.tiled_mma().map_err(pipeline_error)?;
        let scales = block.emit_tile(k, &mma, io.tile);
        let first = match io.k_split {
            Some([_, first]) => first,
            None => {
                let zero = k.reg(RegClass::B32);
                k.push(format!("mov.u32 {zero}, 0;"));
                zero
            }
        };
        scales.emit_first(k, first, io.k_tiles);
        Ok(Some((scales, first)))
    }

    /// Emits one work tile's MMAs by consumer warpgroup `slice` (`.b32`, 0
    /// or 1) of the sliced-K schedule and returns its partial accumulators
    /// (`io.acc`): the warpgroup multiplies k-tiles `slice`, `slice + 2`,
    /// ... (passing the other's stages over without waiting on them),
    /// releases each stage once its wgmmas completed, and leaves the ring's
    /// state past all of the tile's k-tiles, where the other warpgroup's
    /// is. A warpgroup without a k-tile (K of at most one k-tile) returns
    /// zeros. The mainloop has no promotion and A is read from shared
    /// memory (the schedule's rules).
    pub(crate) fn emit_mma_sliced(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        slice: Reg,
    ) -> Result<Accumulators, PtxError> {
        let err = pipeline_error;
        if self.promotion().is_some() || self.block_scales {
            return Err(err(crate::Error::invalid_argument(
                "sliced-K mainloop",
                "promotion or block scales",
                "fast accumulation without block scales",
            )));
        }
        let acc = io.acc.clone();
        let reader = &DescriptorA;
        // A's descriptors need no per-tile setup (DescriptorA's is `()`).
        reader.emit_tile_setup(self, k, io)?;
        let c = io.consumer;
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        // The tile's first stage, where both warpgroups start.
        let start = [r(k), r(k), r(k)];
        let now = [c.stage.to_string(), c.full.to_string(), c.phase.to_string()];
        for (saved, now) in start.iter().zip(&now) {
            k.push(format!("mov.b32 {saved}, {now};"));
        }
        let prev = TmaAsyncState {
            stage: r(k),
            full: r(k),
            phase: c.phase,
        };
        let (kt, p, later) = (r(k), k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        let first = k.new_label("sliced_first")?;
        k.push(format!("setp.eq.u32 {p}, {slice}, 0;"));
        k.push(format!("@{p} bra {};", first.name()));
        io.pipeline.advance(k, &c).map_err(err)?;
        k.place_label(&first);
        k.push(format!("mov.u32 {kt}, {slice};"));
        let (top, tail, none, done) = (
            k.new_label("sliced_k")?,
            k.new_label("sliced_tail")?,
            k.new_label("sliced_none")?,
            k.new_label("sliced_done")?,
        );
        k.place_label(&top);
        k.push(format!("setp.ge.u32 {p}, {kt}, {};", io.k_tiles));
        k.push(format!("@{p} bra {};", tail.name()));
        io.pipeline.consumer_wait(k, &c).map_err(err)?;
        // The warpgroup's first k-tile overwrites the accumulators.
        k.push(format!("setp.ne.u32 {later}, {kt}, {slice};"));
        self.emit_k_tile(k, io, &acc, reader, &(), 0, KTileScale::ZeroFirst(later))?;
        // At most this k-tile in flight: the warpgroup's previous one (if
        // any) is read.
        emit_wgmma_wait(k, 1).map_err(err)?;
        let skip = k.new_label("sliced_first_k")?;
        k.push(format!("@!{later} bra {};", skip.name()));
        self.emit_release(k, io, &prev)?;
        k.place_label(&skip);
        k.push(format!("mov.u32 {}, {};", prev.stage, c.stage));
        k.push(format!("mov.u32 {}, {};", prev.full, c.full));
        // Past this k-tile and the other warpgroup's next one.
        io.pipeline.advance(k, &c).map_err(err)?;
        io.pipeline.advance(k, &c).map_err(err)?;
        k.push(format!("add.u32 {kt}, {kt}, 2;"));
        k.push(format!("bra.uni {};", top.name()));
        k.place_label(&tail);
        emit_wgmma_wait(k, 0).map_err(err)?;
        k.push(format!("setp.eq.u32 {p}, {kt}, {slice};"));
        k.push(format!("@{p} bra {};", none.name()));
        self.emit_release(k, io, &prev)?;
        k.push(format!("bra.uni {};", done.name()));
        k.place_label(&none);
        self.emit_zero_accumulators(k, io);
        k.place_label(&done);
        // Both warpgroups leave the tile past all of its k-tiles.
        for (now, saved) in now.iter().zip(start) {
            k.push(format!("mov.b32 {now}, {saved};"));
        }
        self.emit_skip(k, io);
        Ok(acc)
    }

    /// Releases the stage of `state` (after the wgmma that read it
    /// completed): the signalling threads arrive on its `empty` barrier,
    /// here or in the peer CTA they stand for.
    fn emit_release(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        state: &TmaAsyncState,
    ) -> Result<(), PtxError> {
        if self.cluster_size() > 1 {
            io.pipeline
                .consumer_release(k, state)
                .map_err(pipeline_error)?;
        } else {
            let empty = format!(
                "{}+{}",
                state.full,
                self.stages * crate::pipeline::MBARRIER_BYTES
            );
            k.push(format!(
                "@{} mbarrier.arrive.shared::cta.b64 _, [{empty}];",
                io.signal
            ));
        }
        Ok(())
    }

    /// Emits the descriptor words of `tile` (of `element`s) at shared
    /// address `stage + offset` (`offset` a register or an immediate).
    pub(crate) fn emit_stage_descriptor(
        &self,
        k: &mut Kernel,
        tile: &OperandTile,
        element: ElementType,
        stage: Reg,
        offset: impl std::fmt::Display,
    ) -> Result<[Reg; 2], PtxError> {
        let address = k.reg(RegClass::B32);
        k.push(format!("add.u32 {address}, {stage}, {offset};"));
        tile.descriptor(element)
            .map_err(pipeline_error)?
            .emit_words(k, address)
            .map_err(pipeline_error)
    }

    /// Emits the wgmma of one k-tile in the stage of the consumer's state:
    /// `BK / K` k-steps over the warpgroup's 64-row blocks, then commit,
    /// with scale-d as `scale` says, A read as `reader` reads it (with
    /// register set `set` of its work-tile setup `a_tile`: a reader of A
    /// through registers first loads the k-tile's fragments into the set,
    /// whose last reader, the k-tile before the previous one, has
    /// completed).
    #[allow(clippy::too_many_arguments)]
    fn emit_k_tile<R: AOperand>(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        acc: &Accumulators,
        reader: &R,
        a_tile: &R::Tile,
        set: usize,
        scale: KTileScale,
    ) -> Result<(), PtxError> {
        let err = pipeline_error;
        let atom = self.atom().ok_or_else(|| {
            pipeline_error(crate::Error::invalid_argument(
                "wgmma atom",
                format!("{:?}", self.ctx.types),
                "types with a wgmma instruction",
            ))
        })?;
        let instr_k = self.instr_k();
        let steps = self.ctx.tile[2] / instr_k;
        let blocks = self.wg_rows / 64;
        let b = self.operand(GemmOperand::B);
        let stage = io.consumer.stage;
        let ktile = reader.emit_k_tile(self, k, io, a_tile, stage, set)?;
        let desc_b = self.emit_stage_descriptor(k, &b, self.ctx.types.b, stage, b.offset)?;
        // scale-d through a predicate, as CUTLASS passes it (where the first
        // k-tile is peeled), or the immediate 1.
        let one = k.reg(RegClass::Pred);
        k.push(format!("setp.eq.u32 {one}, 0, 0;"));
        emit_wgmma_fence(k).map_err(err)?;
        let trans_a = reader.transposes(self);
        for kk in 0..steps {
            for mb in 0..blocks {
                let a_operand = reader.operand(self, k, &ktile, kk, mb)?;
                let b_off = b.slice_offset(self.ctx.types.b, 0, kk).map_err(err)?;
                let db = GmmaDescriptor::emit_at(k, desc_b, b_off).map_err(err)?;
                let regs = acc.atom_regs(&[i64::from(mb), 0]);
                let scale = match scale {
                    KTileScale::ZeroFirst(zero) if kk == 0 => ScaleD::Pred(zero),
                    _ => ScaleD::Pred(one),
                };
                atom.emit_wgmma(
                    k,
                    &regs,
                    a_operand,
                    db,
                    scale,
                    trans_a,
                    b.major == OperandMajor::MN,
                )
                .map_err(err)?;
            }
        }
        emit_wgmma_commit(k).map_err(err)?;
        Ok(())
    }
}

/// The scale-d of one k-tile's wgmmas.
#[derive(Clone, Copy)]
enum KTileScale {
    /// The tile's first k-tile: its first k-step overwrites the
    /// accumulators where the predicate is false (scale-d through a
    /// predicate register); the rest add.
    ZeroFirst(Reg),
    /// Every wgmma adds, scale-d through a predicate register.
    AddPred,
}

pub(crate) fn pipeline_error(e: crate::Error) -> PtxError {
    PtxError::UnsupportedSpec {
        kernel: "gemm",
        name: String::from("sm90 mainloop"),
        reason: e.to_string(),
    }
}
