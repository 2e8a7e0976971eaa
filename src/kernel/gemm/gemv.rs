//! [`Gemv`]: the GEMM kernel for a few rows of A (decode batches, M up to
//! 16), where every byte of B is read once and the time is the time to
//! stream B from DRAM. CUTLASS keeps a separate `GemvKernel` for these; this
//! one uses the tensor cores so that M up to 16 costs what M = 1 does.
//!
//! The block computes a `BM x BN` tile (BM 8 or 16, BN a multiple of 8)
//! over the whole of K, its `W` warps taking turns along K in runs of
//! `unroll` consecutive k-steps (run `r` to warp `r % W`: sliced-K, each
//! warp reading 64 x `unroll` contiguous bytes of every row and column at
//! a time). A k-step is 64 bytes of each row of A and
//! column of B (32 elements of a 16-bit type, 16 of tf32); lane `4g + t`
//! loads bytes `16t ..` of it, one 16-byte vector, from row `g` of A (and
//! `g + 8` where BM is 16) and column `g` of each 8-column group of B, and
//! the warp multiplies them with two `mma.sync` m16n8k16 (m16n8k8 for tf32)
//! per group. No shared memory holds the operands: the lane's vectors are
//! its fragments, because the sum over K does not care which k each
//! fragment position holds as long as A's and B's agree. Mma 1 takes words
//! 0 and 1 of the vectors (the fragments' k pairs `2t` and `2t + 8`), mma 2
//! words 2 and 3. Each warp loads a run's `unroll` k-steps, then multiplies
//! them; a last k-step that K cuts is loaded element by element, zero past
//! K, by warp 0.
//!
//! Then each warp stores its partial tile in shared memory, the block
//! synchronizes, and thread `e` (and `e + 32W`, ...) adds value `e`'s
//! partials in warp order into the SM80 epilogue's staging tile: one fixed
//! order, the same bits every run. The epilogue
//! ([`EpilogueSm80::emit_staged`]) applies the fusion expression and stores
//! D (rows past M and columns past N skipped).
//!
//! With the [`MmaSyncGemvRing`](MainloopPolicy::MmaSyncGemvRing) mainloop
//! ([`GemmSpec::gemv_ring`]) warp `w` takes k-steps `w, w + W, ...` one at
//! a time instead, and each lane stages its own 16 bytes of each line in its
//! warp's shared-memory ring with `cp.async`, `unroll` k-steps ahead, then
//! reads them back as its fragments: more bytes in flight for fewer
//! registers (H200, bf16: 1 x 1024 x 4096 6.5 µs against 7.9 in registers,
//! 8 in flight; slower with 16 rows of A or K = 1024).
//!
//! Measured (H200, 2026-11-27, bf16, cold L2): 1 x 4096 x 4096 in 13.6 µs
//! (1.05x cuBLASLt; the swap-AB kernel took 15.0). Past 4096 x 4096 of B it
//! gains nothing (8 x 8192 x 4096: 22.8 µs, as swap-AB), and at 134 MB it
//! streams slower than the swap-AB kernels (1 x 8192 x 8192: 38.3 µs
//! against 36.7), which keep more bytes in flight through TMA: the pick
//! takes it up to 4096 x 4096, except where swap-AB's 64-row ping-pong
//! tiles, 16 stages deep, stream B faster (16 rows over a K of 4096 and
//! more on few tiles; from 5 rows a K of at most 2048 over 16.8 MB of B
//! and more: 16 x 8192 x 1024 in 8.8 µs against 9.5).

use super::gemm_universal::emit_tile_block;
use super::{GemmKernel, GemmSpec, KernelSchedule, TileSchedulerPolicy};
use crate::arch::ArchKind;
use crate::atom::{MmaAtom, SM80_CP_ASYNC_CACHEGLOBAL_ZFILL};
use crate::collective::{
    BlockContext, Epilogue, EpiloguePolicy, EpilogueSm80, EpilogueSpec, MainloopPolicy,
    MainloopSpec, SharedStorage,
};
use crate::gemm::{
    ClusterShape, GemmMajors, GemmOperand, GemmShape, GemmTypes, KernelParams, ParamRole,
    ProblemDim,
};
use crate::ptx::{Kernel, Module, PtxError, Reg, RegClass, SpecialReg};

/// Bytes of one row of A or column of B in a k-step: 16 bytes for each of
/// the 4 lanes that share a row.
const STEP_BYTES: u32 = 64;

impl GemmSpec {
    /// The GEMV kernel's spec ([`Gemv`]): `rows` x `cols` tiles (`rows` 8
    /// or 16, `cols` a multiple of 8 up to 64), `warps` warps slicing K,
    /// `unroll` k-steps in flight per warp; A and B K-major, the SM80
    /// epilogue with the default linear combination (set
    /// `spec.epilogue.fusion` for another), PTX for `Sm80` (it runs on
    /// compute capability 8.0 and newer).
    ///
    /// ```
    /// use cutlet::gemm::{GemmMajors, GemmTypes};
    /// use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let types = GemmTypes::new(BF16, BF16, BF16, BF16, F32);
    /// let majors = GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N);
    /// let spec = GemmSpec::gemv(types, majors, [8, 16], 8, 4);
    /// assert!(spec.validate().is_ok());
    /// // A k-step is 32 bf16 of each row; 8 warps of 32 threads.
    /// assert_eq!((spec.tile, spec.block_threads()), ([8, 16, 32], 256));
    /// // 1 x 4096 x 4096: 256 blocks of 16 columns.
    /// assert_eq!(spec.kernel().unwrap().grid(1, 4096, 1), (256, 1, 1));
    /// // Shared memory: 8 warps' 8x16 partial tiles, then the staging tile.
    /// assert_eq!(spec.shared_mem_bytes(), 8 * 8 * 16 * 4 + 8 * (16 + 8) * 4);
    /// // An M-major A is refused, naming both majors.
    /// let m_major = GemmMajors::new(OperandMajor::MN, OperandMajor::K, OutputMajor::N);
    /// let err = GemmSpec::gemv(types, m_major, [8, 16], 8, 4).validate().unwrap_err();
    /// assert!(err.to_string().contains("A is M-major and B is K-major"), "{err}");
    /// ```
    pub fn gemv(
        types: GemmTypes,
        majors: GemmMajors,
        [rows, cols]: [u32; 2],
        warps: u32,
        unroll: u32,
    ) -> GemmSpec {
        let step = STEP_BYTES / types.a.size_bytes().max(1);
        GemmSpec {
            arch: ArchKind::Sm80,
            types,
            majors,
            tile: [rows, cols, step],
            cluster: ClusterShape::ONE,
            mainloop: MainloopSpec {
                policy: MainloopPolicy::MmaSyncGemv { unroll },
                warps: [1, 1, warps],
            },
            epilogue: EpilogueSpec {
                policy: EpiloguePolicy::Sm80Staged,
                fusion: crate::gemm::Epilogue::default(),
            },
            scheduler: TileSchedulerPolicy::DataParallel,
            reduction: super::Reduction::Deterministic,
            schedule: KernelSchedule::Multistage,
        }
    }

    /// [`gemv`](Self::gemv) with its k-steps in flight staged in a
    /// shared-memory ring per warp
    /// ([`MmaSyncGemvRing`](MainloopPolicy::MmaSyncGemvRing)): `unroll` (1
    /// to 16) k-steps ahead, copied with `cp.async` and read back by the
    /// lane that copied them.
    ///
    /// ```
    /// use cutlet::gemm::{GemmMajors, GemmTypes};
    /// use cutlet::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let types = GemmTypes::new(BF16, BF16, BF16, BF16, F32);
    /// let majors = GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N);
    /// let spec = GemmSpec::gemv_ring(types, majors, [8, 16], 8, 8);
    /// assert!(spec.validate().is_ok());
    /// assert!(spec.kernel_name().ends_with("_gemv_ring"));
    /// // The partial tiles and the staging tile, then each warp's ring: 8
    /// // k-steps of 3 lines (a row of A, two 8-column groups of B), 16
    /// // bytes a lane.
    /// let tiles = 8 * 8 * 16 * 4 + 8 * (16 + 8) * 4;
    /// assert_eq!(spec.shared_mem_bytes(), tiles + 8 * 8 * 3 * 32 * 16);
    /// // At most 16 k-steps in flight, in the shared memory a block may use.
    /// let err = GemmSpec::gemv_ring(types, majors, [8, 16], 8, 17).validate().unwrap_err();
    /// assert!(err.to_string().contains("unroll 17"), "{err}");
    /// let err = GemmSpec::gemv_ring(types, majors, [8, 64], 4, 16).validate().unwrap_err();
    /// assert!(err.to_string().contains("the GEMV ring of 16 k-steps of 9 lines over 4 warps"), "{err}");
    /// ```
    pub fn gemv_ring(
        types: GemmTypes,
        majors: GemmMajors,
        tile: [u32; 2],
        warps: u32,
        unroll: u32,
    ) -> GemmSpec {
        let mut spec = GemmSpec::gemv(types, majors, tile, warps, unroll);
        spec.mainloop.policy = MainloopPolicy::MmaSyncGemvRing { unroll };
        spec
    }
}

/// A thread's place, worked out once: its `tid`, `warp`, `g` (lane / 4, its row
/// of A and column of B in each group), `t` (lane % 4), its first byte of
/// a row (`.b64`: `64 * unroll * warp + 16 * t`), and the problem's
/// extents `m` and `n` (read once from the parameters).
struct Lanes {
    tid: Reg,
    warp: Reg,
    g: Reg,
    t: Reg,
    first: Reg,
    m: Reg,
    n: Reg,
}

/// Emits a 16-byte load from `state_space` (`global.nc`, `shared`) at
/// `address` into four new `.b32` registers where both `preds` hold, and
/// zeros where either does not; returns the registers.
fn emit_vector_or_zeros(
    k: &mut Kernel,
    state_space: &str,
    [valid, live]: [Reg; 2],
    address: &str,
) -> Vec<Reg> {
    let (pred, words) = (k.reg(RegClass::Pred), k.regs(RegClass::B32, 4));
    k.push(format!("and.pred {pred}, {valid}, {live};"));
    for word in &words {
        k.push(format!("mov.b32 {word}, 0;"));
    }
    k.push(format!(
        "@{pred} ld.{state_space}.v4.b32 {{{}, {}, {}, {}}}, [{address}];",
        words[0], words[1], words[2], words[3]
    ));
    words
}

/// What [`Gemv::emit_loop_start`] emits for a mainloop: the lane's rows
/// of A and columns of B (address, in-bounds predicate), its accumulators,
/// a zero register, the full k-steps' count and the caller's step register.
struct LoopStart {
    rows: Vec<(Reg, Reg)>,
    cols: Vec<(Reg, Reg)>,
    acc: Vec<Reg>,
    zero: Reg,
    steps: Reg,
    step: Reg,
}

/// The GEMV kernel of a spec whose mainloop is
/// [`MmaSyncGemv`](MainloopPolicy::MmaSyncGemv) (see the module's docs).
#[derive(Clone, Debug)]
pub struct Gemv {
    name: String,
    arch: ArchKind,
    types: GemmTypes,
    tile: [u32; 3],
    warps: u32,
    unroll: u32,
    /// The k-steps in flight staged in a shared-memory ring per warp
    /// ([`MmaSyncGemvRing`](MainloopPolicy::MmaSyncGemvRing)) rather than
    /// held in registers.
    ring: bool,
    atom: MmaAtom,
    epilogue: EpilogueSm80,
    params: KernelParams,
}

impl Gemv {
    /// The kernel of `spec` (validated by the caller); `None` where its
    /// mainloop is not the GEMV one or its types have no mma atom.
    pub fn new(spec: &GemmSpec) -> Option<Gemv> {
        let (unroll, ring) = match spec.mainloop.policy {
            MainloopPolicy::MmaSyncGemv { unroll } => (unroll, false),
            MainloopPolicy::MmaSyncGemvRing { unroll } => (unroll, true),
            _ => return None,
        };
        let atom = MmaAtom::for_types(spec.types.a, spec.types.b, spec.types.acc)?;
        let epilogue = EpilogueSm80::new(&spec.context(), &spec.epilogue);
        let mut params = KernelParams::new();
        params.extend(
            [ProblemDim::M, ProblemDim::N, ProblemDim::K, ProblemDim::L].map(ParamRole::Extent),
        );
        params.extend(crate::collective::pointer_params());
        params.extend(epilogue.params());
        Some(Gemv {
            name: spec.kernel_name(),
            arch: spec.arch,
            types: spec.types,
            tile: spec.tile,
            warps: spec.mainloop.warps[2],
            unroll,
            ring,
            atom,
            epilogue,
            params,
        })
    }

    /// Bytes of the warps' partial tiles, ahead of the staging tile.
    fn partial_bytes(&self) -> u32 {
        let [bm, bn, _] = self.tile;
        self.warps * bm * bn * 4
    }

    fn kernel(&self) -> Result<Kernel, PtxError> {
        let [bm, bn, _] = self.tile;
        let threads = self.warps * 32;
        let mut k = Kernel::new(&self.name)?;
        k.required_threads(threads, 1, 1);
        // Room for 16 warps an SM (2 blocks of the 8-warp default): the
        // loads in flight are what the kernel runs on.
        k.min_blocks_per_sm((512 / threads).max(1));
        let smem_var = k.shared_dynamic("gemv_smem", 16)?;
        let params = self.params.declare(&mut k)?;
        let tid = k.special(SpecialReg::TidX);
        let smem = k.shared_address(&smem_var);
        let m = params.load(&mut k, ParamRole::Extent(ProblemDim::M))?;
        let n = params.load(&mut k, ParamRole::Extent(ProblemDim::N))?;
        let kk = params.load(&mut k, ParamRole::Extent(ProblemDim::K))?;
        let scalars = self.epilogue.emit_params(&mut k, &params)?;
        let (tile_n, tile_m) = (k.special(SpecialReg::CtaidX), k.special(SpecialReg::CtaidY));
        let batch = k.special(SpecialReg::CtaidZ);
        let block = emit_tile_block(
            &mut k,
            &params,
            self.types,
            [tid, smem, kk],
            [tile_m, tile_n],
            [bm, bn],
            [m, n],
            batch,
        )?;
        let mut io = self.epilogue.emit_prologue(&mut k, &block, &scalars)?;
        let lanes = self.emit_lanes(&mut k, tid, [m, n]);
        let acc = if self.ring {
            self.emit_mainloop_ring(&mut k, &block, &lanes, smem)?
        } else {
            self.emit_mainloop(&mut k, &block, &lanes)?
        };
        self.emit_reduction(&mut k, &lanes, smem, &acc)?;
        // The staging tile follows the partial tiles.
        let staging = k.reg(RegClass::B32);
        k.push(format!(
            "add.u32 {staging}, {smem}, {};",
            self.partial_bytes()
        ));
        io.smem = staging;
        self.epilogue.emit_staged(&mut k, &io)?;
        Ok(k)
    }

    /// Emits the thread's place from `tid`, with the extents `[m, n]`.
    fn emit_lanes(&self, k: &mut Kernel, tid: Reg, [m, n]: [Reg; 2]) -> Lanes {
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let (warp, lane, g, t) = (r32(k), r32(k), r32(k), r32(k));
        k.push(format!("shr.u32 {warp}, {tid}, 5;"));
        k.push(format!("and.b32 {lane}, {tid}, 31;"));
        k.push(format!("shr.u32 {g}, {lane}, 2;"));
        k.push(format!("and.b32 {t}, {lane}, 3;"));
        // The lane's first byte of its warp's first run of k-steps (its
        // first k-step, step `warp`, with the ring).
        let first = r32(k);
        let run = if self.ring { 1 } else { self.unroll };
        k.push(format!("mul.lo.u32 {first}, {warp}, {};", run * STEP_BYTES));
        k.push(format!("mad.lo.u32 {first}, {t}, 16, {first};"));
        let first64 = k.reg(RegClass::B64);
        k.push(format!("cvt.u64.u32 {first64}, {first};"));
        Lanes {
            tid,
            warp,
            g,
            t,
            first: first64,
            m,
            n,
        }
    }

    /// Emits what both mainloops start with: the lane's rows of A and
    /// columns of B, its accumulators (zeros), a zero register, and the
    /// count of full k-steps (K / step); `step` is allocated for the caller
    /// to set (its first k-step, or the first of its run).
    fn emit_loop_start(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
        lanes: &Lanes,
    ) -> Result<LoopStart, PtxError> {
        let [_, bn, _] = self.tile;
        let col_groups = (bn / 8) as usize;
        let rows = self.emit_lines(k, block, GemmOperand::A, lanes)?;
        let cols = self.emit_lines(k, block, GemmOperand::B, lanes)?;
        let acc: Vec<Reg> = (0..4 * col_groups).map(|_| k.reg(RegClass::F32)).collect();
        for reg in &acc {
            k.push(format!("mov.f32 {reg}, 0f00000000;"));
        }
        let zero = k.reg(RegClass::B32);
        k.push(format!("mov.b32 {zero}, 0;"));
        let (steps, step) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        let step_elems = STEP_BYTES / self.types.a.size_bytes();
        k.div_u32_by(steps, block.k, step_elems);
        Ok(LoopStart {
            rows,
            cols,
            acc,
            zero,
            steps,
            step,
        })
    }

    /// Emits the sliced-K loop; returns the lane's accumulators, four per
    /// 8-column group (`.f32`: rows `g` and `g + 8`, columns `2t, 2t + 1`).
    fn emit_mainloop(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
        lanes: &Lanes,
    ) -> Result<Vec<Reg>, PtxError> {
        let (w, u) = (self.warps, self.unroll);
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let warp = lanes.warp;
        // In runs of `unroll` full k-steps, run `r` to warp `r % W`; this
        // warp's next run starts at step `first_step`.
        let LoopStart {
            rows,
            cols,
            acc,
            zero,
            steps,
            step: first_step,
        } = self.emit_loop_start(k, block, lanes)?;
        k.push(format!("mul.lo.u32 {first_step}, {warp}, {u};"));
        let (top, end) = (k.new_label("gemv_k")?, k.new_label("gemv_k_end")?);
        k.place_label(&top);
        let done = k.reg(RegClass::Pred);
        k.push(format!("setp.ge.u32 {done}, {first_step}, {steps};"));
        k.push(format!("@{done} bra {};", end.name()));
        // The loads of `unroll` k-steps, then their mmas.
        let mut a_frags = Vec::new();
        let mut b_frags = Vec::new();
        for step in 0..u {
            let live = k.reg(RegClass::Pred);
            let next = r32(k);
            k.push(format!("add.u32 {next}, {first_step}, {step};"));
            k.push(format!("setp.lt.u32 {live}, {next}, {steps};"));
            let offset = step * STEP_BYTES;
            let load = |k: &mut Kernel, (ptr, valid): (Reg, Reg)| {
                emit_vector_or_zeros(k, "global.nc", [valid, live], &format!("{ptr}+{offset}"))
            };
            a_frags.push(rows.iter().map(|&row| load(k, row)).collect::<Vec<_>>());
            b_frags.push(cols.iter().map(|&col| load(k, col)).collect::<Vec<_>>());
        }
        for step in 0..u as usize {
            self.emit_mmas(k, &acc, &a_frags[step], &b_frags[step], zero)?;
        }
        let advance = u * w * STEP_BYTES;
        for (ptr, _) in rows.iter().chain(&cols) {
            k.push(format!("add.u64 {ptr}, {ptr}, {advance};"));
        }
        k.push(format!("add.u32 {first_step}, {first_step}, {};", u * w));
        k.push(format!("bra.uni {};", top.name()));
        k.place_label(&end);
        self.emit_tail(k, block, steps, lanes, (&acc, zero))?;
        Ok(acc)
    }

    /// Emits the sliced-K loop of the ring mainloop
    /// ([`MmaSyncGemvRing`](MainloopPolicy::MmaSyncGemvRing)); returns the
    /// lane's accumulators as [`emit_mainloop`](Self::emit_mainloop) does.
    ///
    /// Warp `w` takes k-steps `w, w + W, w + 2W, ...`. Each lane copies its
    /// own 16 bytes of each line (row of A, column of B) of a k-step into
    /// its warp's ring in shared memory with `cp.async`, `unroll` k-steps
    /// ahead, and reads them back into its fragments once they have
    /// landed: the lane reads only what it copied, so no barrier is needed.
    /// A copy is issued only for a line inside M (N) and a k-step before
    /// the last full one; the fragments of any other are zeros.
    fn emit_mainloop_ring(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
        lanes: &Lanes,
        smem: Reg,
    ) -> Result<Vec<Reg>, PtxError> {
        let (w, slots) = (self.warps, self.unroll);
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        // `step` is this warp's k-step at the top of the loop's body.
        let LoopStart {
            rows,
            cols,
            acc,
            zero,
            steps,
            step,
        } = self.emit_loop_start(k, block, lanes)?;
        let lines: Vec<(Reg, Reg)> = rows.iter().chain(&cols).copied().collect();
        k.push(format!("mov.u32 {step}, {};", lanes.warp));
        // The lane's place in its warp's ring: slot s, line i at
        // ((s * lines + i) * 32) * 16 bytes from its first.
        let (lane, ring) = (r32(k), r32(k));
        k.push(format!("and.b32 {lane}, {}, 31;", lanes.tid));
        k.push(format!(
            "mad.lo.u32 {ring}, {}, {}, {lane};",
            lanes.warp,
            slots * self.lines() * 32
        ));
        k.push(format!("mad.lo.u32 {ring}, {ring}, 16, {smem};"));
        k.push(format!("add.u32 {ring}, {ring}, {};", self.ring_offset()));
        let slot_at = |slot: u32, line: usize| (slot * self.lines() + line as u32) * 32 * 16;
        // Issues the copies of k-step `step + ahead * W` (`ahead` steps of
        // the warp past the body's first) into `slot`, and closes the group.
        let issue = |k: &mut Kernel, ahead: u32, slot: u32| -> Result<(), PtxError> {
            let (next, live) = (r32(k), k.reg(RegClass::Pred));
            k.push(format!("add.u32 {next}, {step}, {};", ahead * w));
            k.push(format!("setp.lt.u32 {live}, {next}, {steps};"));
            for (i, &(ptr, valid)) in lines.iter().enumerate() {
                let pred = k.reg(RegClass::Pred);
                k.push(format!("and.pred {pred}, {valid}, {live};"));
                let dst = format!("{ring}+{}", slot_at(slot, i));
                SM80_CP_ASYNC_CACHEGLOBAL_ZFILL::emit_predicated_at(
                    k,
                    pred,
                    &dst,
                    (ptr, ahead * w * STEP_BYTES),
                    &16,
                )
                .map_err(|e| self.unsupported(e))?;
            }
            SM80_CP_ASYNC_CACHEGLOBAL_ZFILL::emit_commit(k).map_err(|e| self.unsupported(e))
        };
        // The first `slots - 1` k-steps in flight before the loop.
        for ahead in 0..slots - 1 {
            issue(k, ahead, ahead)?;
        }
        let (top, end) = (k.new_label("gemv_k")?, k.new_label("gemv_k_end")?);
        k.place_label(&top);
        let done = k.reg(RegClass::Pred);
        k.push(format!("setp.ge.u32 {done}, {step}, {steps};"));
        k.push(format!("@{done} bra {};", end.name()));
        // `slots` k-steps a body, so that each one's slot is a constant:
        // copy the one `slots - 1` ahead into the slot the last one read,
        // wait for this one, read it back and multiply.
        for s in 0..slots {
            issue(k, s + slots - 1, (s + slots - 1) % slots)?;
            SM80_CP_ASYNC_CACHEGLOBAL_ZFILL::emit_wait(k, slots - 1)
                .map_err(|e| self.unsupported(e))?;
            let (here, live) = (r32(k), k.reg(RegClass::Pred));
            k.push(format!("add.u32 {here}, {step}, {};", s * w));
            k.push(format!("setp.lt.u32 {live}, {here}, {steps};"));
            let frags: Vec<Vec<Reg>> = lines
                .iter()
                .enumerate()
                .map(|(i, &(_, valid))| {
                    let at = format!("{ring}+{}", slot_at(s, i));
                    emit_vector_or_zeros(k, "shared", [valid, live], &at)
                })
                .collect();
            let (a, b) = frags.split_at(rows.len());
            self.emit_mmas(k, &acc, a, b, zero)?;
        }
        let advance = u64::from(slots * w * STEP_BYTES);
        for &(ptr, _) in &lines {
            k.push(format!("add.u64 {ptr}, {ptr}, {advance};"));
        }
        k.push(format!("add.u32 {step}, {step}, {};", slots * w));
        k.push(format!("bra.uni {};", top.name()));
        k.place_label(&end);
        // Copies past the last k-step are none (their predicates are off),
        // but the groups still count: nothing stays in flight past here.
        SM80_CP_ASYNC_CACHEGLOBAL_ZFILL::emit_wait(k, 0).map_err(|e| self.unsupported(e))?;
        self.emit_tail(k, block, steps, lanes, (&acc, zero))?;
        Ok(acc)
    }

    /// Lines a lane copies per k-step: its rows of A and columns of B.
    fn lines(&self) -> u32 {
        let [bm, bn, _] = self.tile;
        bm / 8 + bn / 8
    }

    /// Where the warps' rings start: after the partial tiles and the
    /// staging tile, 16-byte aligned.
    fn ring_offset(&self) -> u32 {
        (self.partial_bytes() + self.epilogue.staging_bytes()).next_multiple_of(16)
    }

    /// Bytes of the warps' rings: `unroll` k-steps of every line, 16 bytes
    /// a lane.
    fn ring_bytes(&self) -> u32 {
        self.warps * self.unroll * self.lines() * 32 * 16
    }

    /// The error of an instruction the kernel cannot emit, naming it.
    fn unsupported(&self, e: impl std::fmt::Display) -> PtxError {
        PtxError::UnsupportedSpec {
            kernel: "gemv",
            name: self.name.clone(),
            reason: e.to_string(),
        }
    }

    /// Emits this lane's rows of A (`op` A: rows `m0 + g + 8h`) or columns
    /// of B (`op` B: columns `n0 + g + 8j`): each one's address at the
    /// lane's first byte (`lanes.first`) and whether it lies inside M (N).
    fn emit_lines(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
        op: GemmOperand,
        lanes: &Lanes,
    ) -> Result<Vec<(Reg, Reg)>, PtxError> {
        let [bm, bn, _] = self.tile;
        let (origin, groups, extent) = match op {
            GemmOperand::A => (block.m0, bm / 8, lanes.m),
            _ => (block.n0, bn / 8, lanes.n),
        };
        let operand = block.operand(op)?;
        (0..groups)
            .map(|group| {
                let (index, wide, ptr, valid) = (
                    k.reg(RegClass::B32),
                    k.reg(RegClass::B64),
                    k.reg(RegClass::B64),
                    k.reg(RegClass::Pred),
                );
                k.push(format!("add.u32 {index}, {origin}, {};", lanes.g));
                k.push(format!("add.u32 {index}, {index}, {};", 8 * group));
                k.push(format!("setp.lt.u32 {valid}, {index}, {extent};"));
                k.push(format!("cvt.u64.u32 {wide}, {index};"));
                k.push(format!(
                    "mad.lo.u64 {ptr}, {wide}, {}, {};",
                    operand.ld_bytes, operand.base
                ));
                k.push(format!("add.u64 {ptr}, {ptr}, {};", lanes.first));
                Ok((ptr, valid))
            })
            .collect()
    }

    /// Emits the two mmas of each 8-column group for one k-step's
    /// fragments: `a[h]` the vector of row group `h`, `b[j]` of column
    /// group `j` (four words each).
    fn emit_mmas(
        &self,
        k: &mut Kernel,
        acc: &[Reg],
        a: &[Vec<Reg>],
        b: &[Vec<Reg>],
        zero: Reg,
    ) -> Result<(), PtxError> {
        let low = |h: usize, word: usize| a.get(h).map_or(zero, |v| v[word]);
        for (j, b) in b.iter().enumerate() {
            let d = &acc[4 * j..4 * j + 4];
            for half in 0..2 {
                let (w0, w1) = (2 * half, 2 * half + 1);
                let a_regs = [low(0, w0), low(1, w0), low(0, w1), low(1, w1)];
                self.atom
                    .emit(k, d, &a_regs, &[b[w0], b[w1]], d)
                    .map_err(|e| self.unsupported(e))?;
            }
        }
        Ok(())
    }

    /// Emits the k-step K cuts (K not a multiple of the step), run by warp
    /// 0: each element of the lane's vectors loaded alone where it lies
    /// before K, 0 past it.
    fn emit_tail(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
        steps: Reg,
        lanes: &Lanes,
        (acc, zero): (&[Reg], Reg),
    ) -> Result<(), PtxError> {
        let (warp, t) = (lanes.warp, lanes.t);
        let size = self.types.a.size_bytes();
        let step_elems = STEP_BYTES / size;
        let skip = k.new_label("gemv_tail_end")?;
        let (first, cut) = (k.reg(RegClass::B32), k.reg(RegClass::Pred));
        // Nothing to do where K is a multiple of the step, or on warps but 0.
        k.push(format!("mul.lo.u32 {first}, {steps}, {step_elems};"));
        k.push(format!("setp.ge.u32 {cut}, {first}, {};", block.k));
        let not_first = k.reg(RegClass::Pred);
        k.push(format!("setp.ne.u32 {not_first}, {warp}, 0;"));
        k.push(format!("or.pred {cut}, {cut}, {not_first};"));
        k.push(format!("@{cut} bra {};", skip.name()));
        // The lane's first element of the cut step, and the step's bytes
        // from k-step 0 (warp 0's lines start at the lane's 16t bytes).
        k.push(format!("mad.lo.u32 {first}, {t}, {}, {first};", 16 / size));
        let (bytes, offset) = (k.reg(RegClass::B32), k.reg(RegClass::B64));
        k.push(format!("mul.lo.u32 {bytes}, {steps}, {STEP_BYTES};"));
        k.push(format!("cvt.u64.u32 {offset}, {bytes};"));
        let per_word = 4 / size;
        let load = |k: &mut Kernel, (start, valid): (Reg, Reg)| {
            let words = k.regs(RegClass::B32, 4);
            k.push(format!("add.u64 {start}, {start}, {offset};"));
            for (word_index, word) in words.iter().enumerate() {
                k.push(format!("mov.b32 {word}, 0;"));
                for e in 0..per_word {
                    let element = (word_index as u32) * per_word + e;
                    let (index, inside) = (k.reg(RegClass::B32), k.reg(RegClass::Pred));
                    k.push(format!("add.u32 {index}, {first}, {element};"));
                    k.push(format!("setp.lt.u32 {inside}, {index}, {};", block.k));
                    k.push(format!("and.pred {inside}, {inside}, {valid};"));
                    let at = element * size;
                    if size == 4 {
                        k.push(format!(
                            "@{inside} ld.global.nc.b32 {word}, [{start}+{at}];"
                        ));
                    } else {
                        let (half, wide) = (k.reg(RegClass::B16), k.reg(RegClass::B32));
                        k.push(format!("mov.b16 {half}, 0;"));
                        k.push(format!(
                            "@{inside} ld.global.nc.b16 {half}, [{start}+{at}];"
                        ));
                        k.push(format!("cvt.u32.u16 {wide}, {half};"));
                        k.push(format!("shl.b32 {wide}, {wide}, {};", 16 * e));
                        k.push(format!("or.b32 {word}, {word}, {wide};"));
                    }
                }
            }
            words
        };
        let rows = self.emit_lines(k, block, GemmOperand::A, lanes)?;
        let cols = self.emit_lines(k, block, GemmOperand::B, lanes)?;
        let a: Vec<Vec<Reg>> = rows.into_iter().map(|line| load(k, line)).collect();
        let b: Vec<Vec<Reg>> = cols.into_iter().map(|line| load(k, line)).collect();
        self.emit_mmas(k, acc, &a, &b, zero)?;
        k.place_label(&skip);
        Ok(())
    }

    /// Emits the partial tiles' sum into the staging tile: each warp's
    /// accumulators into its partial tile, then value `e` of the tile,
    /// for `e = tid, tid + 32W, ...`, added over the warps in order.
    fn emit_reduction(
        &self,
        k: &mut Kernel,
        lanes: &Lanes,
        smem: Reg,
        acc: &[Reg],
    ) -> Result<(), PtxError> {
        let [bm, bn, _] = self.tile;
        let threads = self.warps * 32;
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let (tid, warp, g, t, at) = (lanes.tid, lanes.warp, lanes.g, lanes.t, r32(k));
        // Warp w's value (r, c) at ((w * BM + r) * BN + c) * 4.
        k.push(format!("mad.lo.u32 {at}, {warp}, {bm}, {g};"));
        k.push(format!("mul.lo.u32 {at}, {at}, {bn};"));
        k.push(format!("mad.lo.u32 {at}, {t}, 2, {at};"));
        k.push(format!("mad.lo.u32 {at}, {at}, 4, {smem};"));
        for j in 0..(bn / 8) as usize {
            let d = &acc[4 * j..4 * j + 4];
            let col = 32 * j as u32;
            k.push(format!(
                "st.shared.v2.f32 [{at}+{col}], {{{}, {}}};",
                d[0], d[1]
            ));
            if bm == 16 {
                let below = col + 8 * bn * 4;
                k.push(format!(
                    "st.shared.v2.f32 [{at}+{below}], {{{}, {}}};",
                    d[2], d[3]
                ));
            }
        }
        k.push("bar.sync 0;");
        let values = bm * bn;
        let staging = self.partial_bytes();
        for round in 0..values.div_ceil(threads) {
            let e = r32(k);
            k.push(format!("add.u32 {e}, {tid}, {};", round * threads));
            let skip = k.new_label("gemv_sum_skip")?;
            let out = k.reg(RegClass::Pred);
            k.push(format!("setp.ge.u32 {out}, {e}, {values};"));
            k.push(format!("@{out} bra {};", skip.name()));
            let (src, sum) = (r32(k), k.reg(RegClass::F32));
            k.push(format!("mad.lo.u32 {src}, {e}, 4, {smem};"));
            k.push(format!("ld.shared.f32 {sum}, [{src}];"));
            for w in 1..self.warps {
                let v = k.reg(RegClass::F32);
                k.push(format!("ld.shared.f32 {v}, [{src}+{}];", w * values * 4));
                k.push(format!("add.f32 {sum}, {sum}, {v};"));
            }
            // Its place in the staging tile: row r = e / BN, column c.
            let (r, c, dst) = (r32(k), r32(k), r32(k));
            k.div_u32_by(r, e, bn);
            k.rem_u32_by(c, e, bn);
            let (row_bytes, col_bytes) = (
                self.epilogue.staging_offset(1, 0),
                self.epilogue.staging_offset(0, 1),
            );
            k.push(format!("mul.lo.u32 {dst}, {r}, {row_bytes};"));
            k.push(format!("mad.lo.u32 {dst}, {c}, {col_bytes}, {dst};"));
            k.push(format!("add.u32 {dst}, {dst}, {smem};"));
            k.push(format!("st.shared.f32 [{dst}+{staging}], {sum};"));
            k.place_label(&skip);
        }
        k.push("bar.sync 0;");
        Ok(())
    }
}

impl GemmKernel for Gemv {
    fn name(&self) -> &str {
        &self.name
    }

    fn params(&self) -> &KernelParams {
        &self.params
    }

    fn scheduler_value(&self, _role: ParamRole) -> Option<u32> {
        None
    }

    fn shared_storage(&self) -> SharedStorage {
        let bytes = if self.ring {
            self.ring_offset() + self.ring_bytes()
        } else {
            self.partial_bytes() + self.epilogue.staging_bytes()
        };
        SharedStorage { bytes, align: 16 }
    }

    fn block_threads(&self) -> u32 {
        self.warps * 32
    }

    fn cluster(&self) -> ClusterShape {
        ClusterShape::ONE
    }

    /// A block per `BM x BN` tile: N's tiles along x, M's along y, the
    /// batches along z.
    fn grid(&self, m: u32, n: u32, l: u32) -> (u32, u32, u32) {
        let [bm, bn, _] = self.tile;
        (n.div_ceil(bn), m.div_ceil(bm), l)
    }

    fn workspace_size(&self, _shape: &GemmShape) -> usize {
        0
    }

    /// 16-byte vectors of A and B (their fragments) and of C and D (the
    /// epilogue's).
    fn alignment(&self) -> [u32; 4] {
        let [c, d] = self.epilogue.alignment();
        let a = 16 / self.types.a.size_bytes();
        [a, a, c, d]
    }

    fn can_implement(&self) -> crate::Result<()> {
        self.epilogue.can_implement()
    }

    fn ptx(&self) -> Result<String, PtxError> {
        let mut module = Module::new(self.arch);
        module.add_kernel(self.kernel()?)?;
        module.emit()
    }
}
