//! [`Sm80MmaMultistage`]: the SM80 multistage mainloop (CUTLASS's
//! `MainloopSm80CpAsync`): `cp.async` 16-byte copies into swizzled shared
//! memory `stages` deep, `ldmatrix` x4 into double-buffered fragments,
//! `mma.sync` on a warp tile.
//!
//! Per k-tile `t` (of `ceil(K/BK)`), every thread runs `BK*size/32` k-steps;
//! at k-step 0 it issues the copies of tile `t + stages - 1`, at the last
//! k-step it waits for tile `t + 1` (`cp.async.wait_group stages-2`,
//! `bar.sync`) and loads its first fragments, so the tensor cores always
//! have the next k-step's operands. The loop runs twice: first over the
//! tiles whose copies lie wholly inside K (no K predicate, M/N row
//! predicates only), then over the rest with the K predicate (partial K
//! tile zero-filled, tiles past K copied as zeros from a safe address).

use super::smem_layout::{emit_swizzled_offset, LINE_BYTES};
use super::{MmaKind, OperandSmem};
use crate::kernel::gemm::{GemmSpec, OperandMajor};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// Registers the kernel hands to the mainloop.
#[derive(Clone, Copy, Debug)]
pub struct MainloopInputs {
    /// `%tid.x` (`.b32`).
    pub tid: Reg,
    /// Shared-window address of the dynamic shared memory (`.b32`).
    pub smem: Reg,
    /// Global address of A's element (m0, 0) of this tile's batch (`.b64`).
    pub a_tile: Reg,
    /// Global address of B's element (n0, 0) of this tile's batch (`.b64`).
    pub b_tile: Reg,
    /// A valid global address of A, read (zero bytes) by zero-filling copies.
    pub a_safe: Reg,
    /// A valid global address of B.
    pub b_safe: Reg,
    /// A's leading dimension in bytes (`.b64`).
    pub lda_bytes: Reg,
    /// B's leading dimension in bytes (`.b64`).
    pub ldb_bytes: Reg,
    /// `M - m0` (`.b32`, positive).
    pub m_rem: Reg,
    /// `N - n0` (`.b32`, positive).
    pub n_rem: Reg,
    /// K (`.b32`, positive).
    pub k: Reg,
}

/// The accumulators of one thread: the warp tile's m16n8 MMA tiles, each 4
/// `.f32` registers (f32 accumulation) or 2 `.b32` registers holding f16x2.
#[derive(Clone, Debug)]
pub struct Accumulators {
    /// All registers, tile (mi, ni) at `(mi * n_tiles + ni) * per_tile`.
    pub regs: Vec<Reg>,
    /// m16 tiles of the warp tile.
    pub m_tiles: u32,
    /// n8 tiles of the warp tile.
    pub n_tiles: u32,
    /// Whether registers are f32 (else packed f16x2).
    pub f32: bool,
}

impl Accumulators {
    /// Registers of MMA tile (mi, ni): c0..c3 (f32) or {c0c1, c2c3} (f16x2).
    pub fn tile(&self, mi: u32, ni: u32) -> &[Reg] {
        let per = if self.f32 { 4 } else { 2 };
        let start = ((mi * self.n_tiles + ni) * per) as usize;
        &self.regs[start..start + per as usize]
    }
}

/// The SM80 multistage mainloop of one [`GemmSpec`].
#[derive(Clone, Debug)]
pub struct Sm80MmaMultistage {
    spec: GemmSpec,
    mma: MmaKind,
    a: OperandSmem,
    b: OperandSmem,
}

/// Per-operand copy state kept across the loop.
struct CopyState {
    smem: OperandSmem,
    gptr: Reg,
    pass_stride: Reg,
    tile_advance: Option<Reg>,
    smem_off: Reg,
    row_rem: Reg,
    mn_bytes: Reg,
    k_rem: Reg,
    safe: Reg,
}

/// Per-operand fragment state: ldmatrix bases and the fragment buffers.
struct FragState {
    smem: OperandSmem,
    bases: Vec<Reg>,
    frags: [Vec<Reg>; 2],
    blocks: u32,
}

impl Sm80MmaMultistage {
    /// The mainloop of `spec`; `None` if its element types have no MMA.
    pub fn new(spec: &GemmSpec) -> Option<Self> {
        let mma = MmaKind::for_types(spec.a, spec.b, spec.acc)?;
        let threads = spec.block_threads();
        let operand = |major, extent, element: crate::numeric::ElementType| OperandSmem {
            major,
            extent,
            bk: spec.tile[2],
            element_bytes: element.size_bytes(),
            threads,
        };
        Some(Sm80MmaMultistage {
            spec: spec.clone(),
            mma,
            a: operand(spec.a_major, spec.tile[0], spec.a),
            b: operand(spec.b_major, spec.tile[1], spec.b),
        })
    }

    /// The A tile of one stage.
    pub fn a_smem(&self) -> OperandSmem {
        self.a
    }

    /// The B tile of one stage (placed after A in each stage).
    pub fn b_smem(&self) -> OperandSmem {
        self.b
    }

    fn warp_tile(&self) -> (u32, u32) {
        (
            self.spec.tile[0] / self.spec.warps[0],
            self.spec.tile[1] / self.spec.warps[1],
        )
    }

    fn k_steps(&self) -> u32 {
        self.spec.tile[2] / self.mma.k()
    }

    /// Emits the mainloop and returns the accumulators.
    pub fn emit(&self, k: &mut Kernel, inp: &MainloopInputs) -> Result<Accumulators, PtxError> {
        let (wtm, wtn) = self.warp_tile();
        let acc = Accumulators {
            m_tiles: wtm / 16,
            n_tiles: wtn / 8,
            f32: self.mma.f32_accumulators(),
            regs: Vec::new(),
        };
        let count = (acc.m_tiles * acc.n_tiles * if acc.f32 { 4 } else { 2 }) as usize;
        let class = if acc.f32 {
            RegClass::F32
        } else {
            RegClass::B32
        };
        let regs = k.regs(class, count);
        for r in &regs {
            if acc.f32 {
                k.push(format!("mov.f32 {r}, 0f00000000;"));
            } else {
                k.push(format!("mov.b32 {r}, 0;"));
            }
        }
        let acc = Accumulators { regs, ..acc };

        let stages = self.spec.stages;
        let stage_bytes = self.spec.stage_bytes();
        let bk = self.spec.tile[2];
        let mut ca = self.copy_setup(
            k,
            inp,
            self.a,
            inp.a_tile,
            inp.lda_bytes,
            inp.m_rem,
            inp.a_safe,
            0,
        );
        let mut cb = self.copy_setup(
            k,
            inp,
            self.b,
            inp.b_tile,
            inp.ldb_bytes,
            inp.n_rem,
            inp.b_safe,
            self.a.bytes(),
        );
        let warp = k.reg(RegClass::B32);
        let lane = k.reg(RegClass::B32);
        k.push(format!("shr.u32 {warp}, {}, 5;", inp.tid));
        k.push(format!("and.b32 {lane}, {}, 31;", inp.tid));
        let (warp_m, warp_n) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("rem.u32 {warp_m}, {warp}, {};", self.spec.warps[0]));
        k.push(format!("div.u32 {warp_n}, {warp}, {};", self.spec.warps[0]));
        let mut fa = self.frag_setup(k, self.a, true, lane, warp_m, wtm, 0);
        let mut fb = self.frag_setup(k, self.b, false, lane, warp_n, wtn, self.a.bytes());

        // Stage pointers (absolute shared-window addresses) and loop bounds.
        let (stage_r, stage_w, stage_end) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.mov(stage_r, inp.smem);
        k.mov(stage_w, inp.smem);
        k.push(format!(
            "add.u32 {stage_end}, {}, {};",
            inp.smem,
            stages * stage_bytes
        ));
        let (tiles, full_tiles, limit_a, t, kload) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.push(format!("add.u32 {tiles}, {}, {};", inp.k, bk - 1));
        k.push(format!("div.u32 {tiles}, {tiles}, {bk};"));
        k.push(format!("div.u32 {full_tiles}, {}, {bk};", inp.k));
        k.push(format!("sub.s32 {limit_a}, {full_tiles}, {};", stages - 1));
        k.mov(kload, 0);

        // Prologue: tiles 0 .. stages-2, K-predicated.
        for _ in 0..stages - 1 {
            for c in [&mut ca, &mut cb] {
                self.load_tile(k, c, stage_w, kload, true);
            }
            k.push("cp.async.commit_group;");
            self.advance_stage(k, stage_w, stage_end, stages * stage_bytes);
            k.push(format!("add.u32 {kload}, {kload}, {bk};"));
        }
        k.push(format!("cp.async.wait_group {};", stages - 2));
        k.push("bar.sync 0;");
        self.load_frags(k, &mut fa, 0, 0, stage_r);
        self.load_frags(k, &mut fb, 0, 0, stage_r);

        k.mov(t, 0);
        let p = k.reg(RegClass::Pred);
        let (loop_a, loop_b, done) = (
            k.new_label("mainloop_full")?,
            k.new_label("mainloop_residue")?,
            k.new_label("mainloop_done")?,
        );
        for (label, limit, predicated, next) in [
            (&loop_a, limit_a, false, &loop_b),
            (&loop_b, tiles, true, &done),
        ] {
            k.place_label(label);
            k.push(format!("setp.ge.s32 {p}, {t}, {limit};"));
            k.push(format!("@{p} bra {next};"));
            let steps = self.k_steps();
            for kk in 0..steps {
                if kk == steps - 1 {
                    k.push(format!("cp.async.wait_group {};", stages - 2));
                    k.push("bar.sync 0;");
                    self.advance_stage(k, stage_r, stage_end, stages * stage_bytes);
                }
                let next_kk = (kk + 1) % steps;
                let buf = ((kk + 1) % 2) as usize;
                self.load_frags(k, &mut fa, next_kk, buf, stage_r);
                self.load_frags(k, &mut fb, next_kk, buf, stage_r);
                if kk == 0 {
                    for c in [&mut ca, &mut cb] {
                        self.load_tile(k, c, stage_w, kload, predicated);
                    }
                    k.push("cp.async.commit_group;");
                    self.advance_stage(k, stage_w, stage_end, stages * stage_bytes);
                    k.push(format!("add.u32 {kload}, {kload}, {bk};"));
                }
                self.mmas(k, &acc, &fa, &fb, (kk % 2) as usize);
            }
            k.push(format!("add.s32 {t}, {t}, 1;"));
            k.push(format!("bra {label};"));
        }
        k.place_label(&done);
        k.push("cp.async.wait_group 0;");
        k.push("bar.sync 0;");
        Ok(acc)
    }

    fn advance_stage(&self, k: &mut Kernel, stage: Reg, end: Reg, total: u32) {
        let p = k.reg(RegClass::Pred);
        k.push(format!(
            "add.u32 {stage}, {stage}, {};",
            self.spec.stage_bytes()
        ));
        k.push(format!("setp.ge.u32 {p}, {stage}, {end};"));
        k.push(format!("@{p} sub.u32 {stage}, {stage}, {total};"));
    }

    #[allow(clippy::too_many_arguments)]
    fn copy_setup(
        &self,
        k: &mut Kernel,
        inp: &MainloopInputs,
        smem: OperandSmem,
        tile: Reg,
        ld_bytes: Reg,
        mn_rem: Reg,
        safe: Reg,
        stage_offset: u32,
    ) -> CopyState {
        let cpr = smem.chunks_per_row();
        let (row, chunk) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("div.u32 {row}, {}, {cpr};", inp.tid));
        k.push(format!("rem.u32 {chunk}, {}, {cpr};", inp.tid));
        // Global: tile + row * ld + chunk * 16, for both majors.
        let gptr = k.reg(RegClass::B64);
        let wide = k.reg(RegClass::B64);
        k.push(format!("cvt.u64.u32 {wide}, {row};"));
        k.push(format!("mul.lo.u64 {gptr}, {wide}, {ld_bytes};"));
        k.push(format!("add.u64 {gptr}, {gptr}, {tile};"));
        k.push(format!("mul.wide.u32 {wide}, {chunk}, 16;"));
        k.push(format!("add.u64 {gptr}, {gptr}, {wide};"));
        let pass_stride = k.reg(RegClass::B64);
        k.push(format!(
            "mul.lo.u64 {pass_stride}, {ld_bytes}, {};",
            smem.rows_per_pass()
        ));
        let tile_advance = match smem.major {
            OperandMajor::K => None,
            OperandMajor::MN => {
                let r = k.reg(RegClass::B64);
                k.push(format!("mul.lo.u64 {r}, {ld_bytes}, {};", smem.bk));
                Some(r)
            }
        };
        // Shared: the swizzled offset of the thread's first chunk.
        let (line, c16) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        match smem.major {
            OperandMajor::K => {
                k.mov(line, row);
                k.mov(c16, chunk);
            }
            OperandMajor::MN => {
                k.push(format!("shr.u32 {line}, {chunk}, 3;"));
                k.push(format!("mul.lo.u32 {line}, {line}, {};", smem.bk));
                k.push(format!("add.u32 {line}, {line}, {row};"));
                k.push(format!("and.b32 {c16}, {chunk}, 7;"));
            }
        }
        let smem_off = k.reg(RegClass::B32);
        emit_swizzled_offset(k, smem_off, line, c16);
        if stage_offset != 0 {
            k.push(format!("add.u32 {smem_off}, {smem_off}, {stage_offset};"));
        }
        // Predicates' inputs.
        let (row_rem, mn_bytes, k_rem) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        let esize = smem.element_bytes;
        match smem.major {
            OperandMajor::K => {
                k.push(format!("sub.s32 {row_rem}, {mn_rem}, {row};"));
                k.push(format!(
                    "mul.lo.u32 {k_rem}, {chunk}, {};",
                    smem.chunk_elements()
                ));
                k.push(format!("sub.s32 {k_rem}, {}, {k_rem};", inp.k));
                k.mov(mn_bytes, 16);
            }
            OperandMajor::MN => {
                k.push(format!(
                    "mul.lo.u32 {mn_bytes}, {chunk}, {};",
                    smem.chunk_elements()
                ));
                k.push(format!("sub.s32 {mn_bytes}, {mn_rem}, {mn_bytes};"));
                k.push(format!("mul.lo.s32 {mn_bytes}, {mn_bytes}, {esize};"));
                k.push(format!("max.s32 {mn_bytes}, {mn_bytes}, 0;"));
                k.push(format!("min.s32 {mn_bytes}, {mn_bytes}, 16;"));
                k.push(format!("sub.s32 {k_rem}, {}, {row};", inp.k));
                k.mov(row_rem, 0);
            }
        }
        CopyState {
            smem,
            gptr,
            pass_stride,
            tile_advance,
            smem_off,
            row_rem,
            mn_bytes,
            k_rem,
            safe,
        }
    }

    /// Issues one stage's copies of one operand; `predicated` adds the K
    /// predicate (zero-fill beyond K).
    fn load_tile(
        &self,
        k: &mut Kernel,
        c: &mut CopyState,
        stage_w: Reg,
        kload: Reg,
        predicated: bool,
    ) {
        let smem = c.smem;
        let rpp = smem.rows_per_pass();
        let esize = smem.element_bytes;
        let dst = k.reg(RegClass::B32);
        k.push(format!("add.u32 {dst}, {stage_w}, {};", c.smem_off));
        let src = k.reg(RegClass::B64);
        let addr = k.reg(RegClass::B64);
        let bytes = k.reg(RegClass::B32);
        let kr = k.reg(RegClass::B32);
        let (p_row, p_k) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        if predicated {
            k.push(format!("sub.s32 {kr}, {}, {kload};", c.k_rem));
        }
        if predicated && smem.major == OperandMajor::K {
            // K - k of this thread's chunk, as bytes clamped to 0..16.
            k.push(format!("mul.lo.s32 {bytes}, {kr}, {esize};"));
            k.push(format!("max.s32 {bytes}, {bytes}, 0;"));
            k.push(format!("min.s32 {bytes}, {bytes}, 16;"));
            k.push(format!("setp.ne.s32 {p_k}, {bytes}, 0;"));
        }
        if smem.major == OperandMajor::MN {
            k.push(format!("setp.ne.s32 {p_row}, {}, 0;", c.mn_bytes));
        }
        k.mov(src, c.gptr);
        for pass in 0..smem.passes() {
            if pass > 0 {
                k.push(format!("add.u64 {src}, {src}, {};", c.pass_stride));
            }
            let imm = pass * rpp * LINE_BYTES;
            match smem.major {
                OperandMajor::K => {
                    k.push(format!(
                        "setp.gt.s32 {p_row}, {}, {};",
                        c.row_rem,
                        pass * rpp
                    ));
                    if predicated {
                        k.push(format!("selp.b64 {addr}, {src}, {}, {p_k};", c.safe));
                        k.push(format!(
                            "@{p_row} cp.async.cg.shared.global [{dst}+{imm}], [{addr}], 16, {bytes};"
                        ));
                    } else {
                        k.push(format!(
                            "@{p_row} cp.async.cg.shared.global [{dst}+{imm}], [{src}], 16;"
                        ));
                    }
                }
                OperandMajor::MN => {
                    if predicated {
                        k.push(format!("setp.gt.s32 {p_k}, {kr}, {};", pass * rpp));
                        k.push(format!("selp.b32 {bytes}, {}, 0, {p_k};", c.mn_bytes));
                        k.push(format!("selp.b64 {addr}, {src}, {}, {p_k};", c.safe));
                        k.push(format!(
                            "@{p_row} cp.async.cg.shared.global [{dst}+{imm}], [{addr}], 16, {bytes};"
                        ));
                    } else {
                        k.push(format!(
                            "@{p_row} cp.async.cg.shared.global [{dst}+{imm}], [{src}], 16, {};",
                            c.mn_bytes
                        ));
                    }
                }
            }
        }
        match c.tile_advance {
            Some(adv) => k.push(format!("add.u64 {}, {}, {adv};", c.gptr, c.gptr)),
            None => k.push(format!(
                "add.u64 {}, {}, {};",
                c.gptr,
                c.gptr,
                smem.bk * esize
            )),
        }
    }

    /// ldmatrix bases: per k-step (K-major) or per 16-wide MN block
    /// (MN-major), the offset of this lane's row address in a stage.
    #[allow(clippy::too_many_arguments)]
    fn frag_setup(
        &self,
        k: &mut Kernel,
        smem: OperandSmem,
        is_a: bool,
        lane: Reg,
        warp_mn: Reg,
        warp_extent: u32,
        stage_offset: u32,
    ) -> FragState {
        let blocks = warp_extent / 16;
        let (mn_l, k_l) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        let t = k.reg(RegClass::B32);
        // Lane part of the (mn, k) coordinate, in elements (K-major: k in chunks).
        match (smem.major, is_a) {
            (OperandMajor::K, true) => {
                k.push(format!("and.b32 {mn_l}, {lane}, 15;"));
                k.push(format!("shr.u32 {k_l}, {lane}, 4;"));
            }
            (OperandMajor::K, false) => {
                k.push(format!("and.b32 {mn_l}, {lane}, 7;"));
                k.push(format!("shr.u32 {t}, {lane}, 4;"));
                k.push(format!("shl.b32 {t}, {t}, 3;"));
                k.push(format!("add.u32 {mn_l}, {mn_l}, {t};"));
                k.push(format!("bfe.u32 {k_l}, {lane}, 3, 1;"));
            }
            (OperandMajor::MN, true) => {
                k.push(format!("and.b32 {k_l}, {lane}, 7;"));
                k.push(format!("shr.u32 {t}, {lane}, 4;"));
                k.push(format!("shl.b32 {t}, {t}, 3;"));
                k.push(format!("add.u32 {k_l}, {k_l}, {t};"));
                k.push(format!("bfe.u32 {mn_l}, {lane}, 3, 1;"));
                k.push(format!("shl.b32 {mn_l}, {mn_l}, 3;"));
            }
            (OperandMajor::MN, false) => {
                k.push(format!("and.b32 {k_l}, {lane}, 7;"));
                k.push(format!("bfe.u32 {t}, {lane}, 3, 1;"));
                k.push(format!("shl.b32 {t}, {t}, 3;"));
                k.push(format!("add.u32 {k_l}, {k_l}, {t};"));
                k.push(format!("shr.u32 {mn_l}, {lane}, 4;"));
                k.push(format!("shl.b32 {mn_l}, {mn_l}, 3;"));
            }
        }
        let mn = k.reg(RegClass::B32);
        k.push(format!(
            "mad.lo.u32 {mn}, {warp_mn}, {warp_extent}, {mn_l};"
        ));
        // One base whose chunk bits the other k-steps (K-major) or 16-wide
        // blocks (MN-major, warp tile a multiple of a 128-byte line) reach by
        // XOR with 2j chunks; otherwise one base per block.
        let xor_steps =
            smem.major == OperandMajor::K || warp_extent.is_multiple_of(smem.line_elements());
        let nbases = if xor_steps { 1 } else { blocks };
        let mut bases = Vec::new();
        for j in 0..nbases {
            let (line, chunk) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
            match smem.major {
                OperandMajor::K => {
                    k.mov(line, mn);
                    k.mov(chunk, k_l);
                }
                OperandMajor::MN => {
                    let r = smem.line_elements();
                    let m = k.reg(RegClass::B32);
                    k.push(format!("add.u32 {m}, {mn}, {};", 16 * j));
                    k.push(format!("div.u32 {line}, {m}, {r};"));
                    k.push(format!("mad.lo.u32 {line}, {line}, {}, {k_l};", smem.bk));
                    k.push(format!("rem.u32 {chunk}, {m}, {r};"));
                    k.push(format!("shr.u32 {chunk}, {chunk}, 3;"));
                }
            }
            let base = k.reg(RegClass::B32);
            emit_swizzled_offset(k, base, line, chunk);
            if stage_offset != 0 {
                k.push(format!("add.u32 {base}, {base}, {stage_offset};"));
            }
            bases.push(base);
        }
        let frags = [
            k.regs(RegClass::B32, (blocks * 4) as usize),
            k.regs(RegClass::B32, (blocks * 4) as usize),
        ];
        FragState {
            smem,
            bases,
            frags,
            blocks,
        }
    }

    /// ldmatrix x4 of every 16-wide block of k-step `kk` into buffer `buf`.
    fn load_frags(&self, k: &mut Kernel, f: &mut FragState, kk: u32, buf: usize, stage_r: Reg) {
        let trans = if f.smem.major == OperandMajor::MN {
            ".trans"
        } else {
            ""
        };
        let (stage_base, addr) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        let single = f.bases.len() == 1;
        if single {
            k.push(format!("add.u32 {stage_base}, {stage_r}, {};", f.bases[0]));
        }
        for blk in 0..f.blocks {
            // (which 2-chunk step to XOR in, immediate line offset)
            let (step, imm) = match f.smem.major {
                OperandMajor::K => (kk, blk * 16 * LINE_BYTES),
                OperandMajor::MN => (blk, kk * 16 * LINE_BYTES),
            };
            if single {
                if blk == 0 || f.smem.major == OperandMajor::MN {
                    k.push(format!("xor.b32 {addr}, {stage_base}, {};", step * 32));
                }
            } else {
                k.push(format!(
                    "add.u32 {addr}, {stage_r}, {};",
                    f.bases[blk as usize]
                ));
            }
            let r = &f.frags[buf][(blk * 4) as usize..(blk * 4 + 4) as usize];
            k.push(format!(
                "ldmatrix.sync.aligned.m8n8.x4{trans}.shared.b16 {{{}, {}, {}, {}}}, [{addr}+{imm}];",
                r[0], r[1], r[2], r[3]
            ));
            if self.mma == MmaKind::Tf32 {
                for reg in r {
                    k.push(format!("cvt.rna.tf32.f32 {reg}, {reg};"));
                }
            }
        }
    }

    /// The MMAs of one k-step: every (m16, n8) tile of the warp tile.
    fn mmas(&self, k: &mut Kernel, acc: &Accumulators, fa: &FragState, fb: &FragState, buf: usize) {
        let op = self.mma.opcode();
        for mi in 0..acc.m_tiles {
            for step in 0..acc.n_tiles {
                // Serpentine over n so consecutive MMAs share an operand.
                let ni = if mi % 2 == 0 {
                    step
                } else {
                    acc.n_tiles - 1 - step
                };
                let a = &fa.frags[buf][(mi * 4) as usize..(mi * 4 + 4) as usize];
                let b0 = ((ni / 2) * 4 + (ni % 2) * 2) as usize;
                let b = &fb.frags[buf][b0..b0 + 2];
                let d = acc.tile(mi, ni);
                let list = |regs: &[Reg]| {
                    regs.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let (d, a, b) = (list(d), list(a), list(b));
                k.push(format!("{op} {{{d}}}, {{{a}}}, {{{b}}}, {{{d}}};"));
            }
        }
    }
}
