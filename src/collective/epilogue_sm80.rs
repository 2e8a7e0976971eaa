//! [`EpilogueSm80`]: D = alpha * acc + beta * C, staged through shared
//! memory so that C is read and D written in coalesced 16-byte vectors.
//!
//! 1. Every thread writes its accumulators (as f32) into a staging tile of
//!    the whole CTA tile in shared memory, laid out with D's contiguous
//!    dimension innermost and rows padded against bank conflicts; where
//!    each accumulator goes is the tiled MMA's C partition of that tile.
//! 2. After `bar.sync`, each thread takes 16-byte vectors of D: a fixed
//!    column of vectors, rows `rows_per_pass` apart. For each it reads the
//!    staged accumulators, reads C's vector at the same place (only when
//!    beta is not 0), computes `alpha * acc + beta * c` in f32, converts and
//!    stores. Each element of C is read by the thread that then writes the
//!    same element of D, so D may alias C.
//! 3. Ragged edges: rows past the edge are skipped; a vector that straddles
//!    the contiguous edge is read and written element by element.
//!
//! Step 1 is unrolled (the accumulators are registers); step 2 is a loop
//! over the passes, unrolled up to 2 passes per iteration, and the threads
//! whose vector the contiguous edge cuts run their own pass loop around a
//! rolled loop over the vector's elements inside the edge, so the driver's
//! assembler schedules short bodies (it spends its time on the mainloop;
//! every epilogue instruction adds to a new configuration's first run).
//!
//! A fused [`Epilogue`](crate::kernel::gemm::Epilogue) replaces
//! `alpha * acc + beta * c` by its expression over (acc, c, bias...), with
//! the bias vectors read as `epilogue_fusion.rs` says.

use super::epilogue_fusion::{
    advance_outer_biases, apply, element_bias_values, load_f32, load_outer_biases, setup_biases,
    BiasRegs,
};
use super::sm80_mma_multistage::{tiled_mma_of, Accumulators};
use super::MmaKind;
use crate::kernel::gemm::spec::{epilogue_pad, VECTOR_BYTES};
use crate::kernel::gemm::{GemmSpec, OutputMajor};
use crate::layout::{IntTuple, Layout};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::{emit_layout_offset, Operand, ThreadPartition};

/// Registers the kernel hands to the epilogue.
#[derive(Clone, Debug)]
pub struct EpilogueInputs {
    /// `%tid.x`.
    pub tid: Reg,
    /// Shared-window address of the dynamic shared memory.
    pub smem: Reg,
    /// Global address of D's element (m0, n0) in this batch.
    pub d_tile: Reg,
    /// Global address of C's element (m0, n0) in this batch.
    pub c_tile: Reg,
    /// D's leading dimension in bytes (`.b64`).
    pub ldd_bytes: Reg,
    /// C's leading dimension in bytes (`.b64`).
    pub ldc_bytes: Reg,
    /// `M - m0` (`.b32`).
    pub m_rem: Reg,
    /// `N - n0` (`.b32`).
    pub n_rem: Reg,
    /// alpha (`.f32`).
    pub alpha: Reg,
    /// beta (`.f32`).
    pub beta: Reg,
    /// Per bias vector of the spec's epilogue: the global address (`.b64`)
    /// of its element at the tile's origin along its axis (m0 for a row
    /// bias, n0 for a column bias).
    pub biases: Vec<Reg>,
    /// The epilogue's extra scalars s2, s3, ... (`.f32`).
    pub scalars: Vec<Reg>,
}

/// The linear-combination epilogue of one [`GemmSpec`].
#[derive(Clone, Debug)]
pub struct EpilogueSm80 {
    spec: GemmSpec,
}

impl EpilogueSm80 {
    /// The epilogue of `spec`.
    pub fn new(spec: &GemmSpec) -> Self {
        EpilogueSm80 { spec: spec.clone() }
    }

    /// Elements of D in one 16-byte vector.
    pub fn vector_elements(&self) -> u32 {
        VECTOR_BYTES / self.spec.d.size_bytes()
    }

    /// (rows, row length) of the staging tile: rows along D's strided
    /// dimension, each row D's contiguous dimension.
    fn staging_shape(&self) -> (u32, u32) {
        let [bm, bn, _] = self.spec.tile;
        match self.spec.d_major {
            OutputMajor::N => (bm, bn),
            OutputMajor::M => (bn, bm),
        }
    }

    /// Threads per row of vectors, and rows per pass; `None` when the
    /// vectors do not tile over the block's threads.
    pub fn vector_mapping(&self) -> Option<(u32, u32)> {
        let (rows, len) = self.staging_shape();
        let vpr = len / self.vector_elements();
        let threads = self.spec.block_threads();
        if vpr == 0 || !threads.is_multiple_of(vpr) || rows % (threads / vpr) != 0 {
            return None;
        }
        Some((vpr, threads / vpr))
    }

    /// Emits the epilogue.
    pub fn emit(
        &self,
        k: &mut Kernel,
        inp: &EpilogueInputs,
        acc: &Accumulators,
    ) -> Result<(), PtxError> {
        self.stage_accumulators(k, inp, acc)?;
        k.push("bar.sync 0;");
        self.store_vectors(k, inp)
    }

    /// The staging tile's layout: (m, n) of the CTA tile -> f32 element
    /// offset, D's contiguous dimension innermost, rows padded.
    pub fn staging_layout(&self) -> Layout {
        let (_, len) = self.staging_shape();
        let pitch = i64::from(len + epilogue_pad(self.spec.d_major));
        let [bm, bn, _] = self.spec.tile.map(i64::from);
        let stride = match self.spec.d_major {
            OutputMajor::N => [pitch, 1],
            OutputMajor::M => [1, pitch],
        };
        Layout::from_parts(IntTuple::ints(&[bm, bn]), IntTuple::ints(&stride))
    }

    /// Each thread's accumulators in the staging tile: the tiled MMA's C
    /// partition ([`Sm80MmaMultistage::tiled_mma`](super::Sm80MmaMultistage::tiled_mma)).
    /// Value `c + 4 * (mi + m_tiles * ni)` is register `c` of MMA tile
    /// (mi, ni), [`Accumulators::tile`]'s order.
    pub fn acc_partition(&self) -> crate::Result<ThreadPartition> {
        let mma = MmaKind::for_types(self.spec.a, self.spec.b, self.spec.acc).ok_or_else(|| {
            crate::Error::invalid_argument(
                "element types",
                format!("{}/{}/{}", self.spec.a, self.spec.b, self.spec.acc),
                "types with an mma",
            )
        })?;
        let [bm, bn, _] = self.spec.tile.map(i64::from);
        tiled_mma_of(&self.spec, mma)?.partition(Operand::C, [bm, bn], &self.staging_layout())
    }

    fn stage_accumulators(
        &self,
        k: &mut Kernel,
        inp: &EpilogueInputs,
        acc: &Accumulators,
    ) -> Result<(), PtxError> {
        let err = |e: crate::Error| PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: self.spec.kernel_name(),
            reason: e.to_string(),
        };
        let p = self.acc_partition().map_err(err)?;
        let base = emit_layout_offset(k, p.thr(), inp.tid).map_err(err)?;
        k.push(format!("shl.b32 {base}, {base}, 2;"));
        k.push(format!("add.u32 {base}, {base}, {};", inp.smem));
        // A pair of values stored as one 8-byte vector when adjacent and
        // 8-byte aligned for every thread.
        let threads_even = (0..p.threads()).all(|t| p.thr().at(t) % 2 == 0);
        let vals = k.regs(RegClass::F32, 4);
        let halves = k.regs(RegClass::B16, 2);
        for mi in 0..acc.m_tiles {
            for ni in 0..acc.n_tiles {
                let regs = acc.tile(mi, ni);
                let v: Vec<Reg> = if acc.f32 {
                    regs.to_vec()
                } else {
                    for (j, r) in regs.iter().enumerate() {
                        k.push(format!("mov.b32 {{{}, {}}}, {r};", halves[0], halves[1]));
                        k.push(format!("cvt.f32.f16 {}, {};", vals[2 * j], halves[0]));
                        k.push(format!("cvt.f32.f16 {}, {};", vals[2 * j + 1], halves[1]));
                    }
                    vals.clone()
                };
                let first = (4 * (mi + acc.m_tiles * ni)) as usize;
                for half in 0..2usize {
                    let (x, y) = (v[2 * half], v[2 * half + 1]);
                    let (ox, oy) = (p.val()[first + 2 * half], p.val()[first + 2 * half + 1]);
                    if oy == ox + 1 && ox % 2 == 0 && threads_even {
                        k.push(format!(
                            "st.shared.v2.f32 [{base}+{}], {{{x}, {y}}};",
                            4 * ox
                        ));
                    } else {
                        k.push(format!("st.shared.f32 [{base}+{}], {x};", 4 * ox));
                        k.push(format!("st.shared.f32 [{base}+{}], {y};", 4 * oy));
                    }
                }
            }
        }
        Ok(())
    }

    fn store_vectors(&self, k: &mut Kernel, inp: &EpilogueInputs) -> Result<(), PtxError> {
        let (rows, len) = self.staging_shape();
        let (vpr, rpp) = self
            .vector_mapping()
            .ok_or_else(|| PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: self.spec.kernel_name(),
                reason: format!(
                "the {rows}x{len} output tile does not split into 16-byte vectors over {} threads",
                self.spec.block_threads()
            ),
            })?;
        let vec = self.vector_elements();
        let dsize = self.spec.d.size_bytes();
        let pitch = (len + epilogue_pad(self.spec.d_major)) * 4;
        let (outer_rem, inner_rem) = match self.spec.d_major {
            OutputMajor::N => (inp.m_rem, inp.n_rem),
            OutputMajor::M => (inp.n_rem, inp.m_rem),
        };
        let (row, colv) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("div.u32 {row}, {}, {vpr};", inp.tid));
        k.push(format!("rem.u32 {colv}, {}, {vpr};", inp.tid));
        let col = k.reg(RegClass::B32);
        k.push(format!("mul.lo.u32 {col}, {colv}, {vec};"));
        // Shared read address of the thread's first vector.
        let sread = k.reg(RegClass::B32);
        let tmp = k.reg(RegClass::B32);
        k.push(format!("mul.lo.u32 {sread}, {row}, {pitch};"));
        k.push(format!("shl.b32 {tmp}, {col}, 2;"));
        k.push(format!("add.u32 {sread}, {sread}, {tmp};"));
        k.push(format!("add.u32 {sread}, {sread}, {};", inp.smem));
        // Global addresses of the thread's first vector of D and C.
        let (dptr, cptr, wide, dstride, cstride) = (
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
        );
        for (ptr, tile, ld, stride) in [
            (dptr, inp.d_tile, inp.ldd_bytes, dstride),
            (cptr, inp.c_tile, inp.ldc_bytes, cstride),
        ] {
            k.push(format!("cvt.u64.u32 {wide}, {row};"));
            k.push(format!("mul.lo.u64 {ptr}, {wide}, {ld};"));
            k.push(format!("add.u64 {ptr}, {ptr}, {tile};"));
            k.push(format!("mul.wide.u32 {wide}, {col}, {dsize};"));
            k.push(format!("add.u64 {ptr}, {ptr}, {wide};"));
            k.push(format!("mul.lo.u64 {stride}, {ld}, {rpp};"));
        }
        // Predicates: rows left, whole / partial vector, beta != 0.
        let (rrem, irem) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("sub.s32 {rrem}, {outer_rem}, {row};"));
        k.push(format!("sub.s32 {irem}, {inner_rem}, {col};"));
        let (p_full, p_part, p_beta, p_row, p_st, p_ld) = (
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
            k.reg(RegClass::Pred),
        );
        k.push(format!("setp.ge.s32 {p_full}, {irem}, {vec};"));
        k.push(format!("setp.gt.s32 {p_part}, {irem}, 0;"));
        k.push(format!("and.pred {p_part}, {p_part}, !{p_full};"));
        k.push(format!("setp.neu.f32 {p_beta}, {}, 0f00000000;", inp.beta));
        let biases = setup_biases(k, &self.spec, &inp.biases, row, col, irem, vec);
        let acc = k.regs(RegClass::F32, vec as usize);
        let passes = rows / rpp;
        let unroll = [2, 1]
            .into_iter()
            .find(|u| passes.is_multiple_of(*u))
            .unwrap_or(1);
        let (p_loop, left) = (k.reg(RegClass::Pred), k.reg(RegClass::B32));
        let (whole, partial, end) = (
            k.new_label("epilogue_vectors")?,
            k.new_label("epilogue_partial_vectors")?,
            k.new_label("epilogue_end")?,
        );
        k.mov(left, passes);
        // A thread whose vector the contiguous edge cuts stores element by
        // element in every pass: its own loop, out of the whole-vector one.
        k.push(format!("@{p_part} bra {partial};"));
        k.place_label(&whole);
        k.push(".pragma \"nounroll\";");
        for u in 0..unroll {
            if u > 0 {
                k.push(format!("add.u64 {dptr}, {dptr}, {dstride};"));
                k.push(format!("add.u64 {cptr}, {cptr}, {cstride};"));
            }
            let simm = u * rpp * pitch;
            self.load_staged(k, &acc, sread, simm);
            k.push(format!("setp.gt.s32 {p_row}, {rrem}, {};", u * rpp));
            load_outer_biases(k, &self.spec, &biases, u * rpp, p_row);
            k.push(format!("and.pred {p_st}, {p_row}, {p_full};"));
            k.push(format!("and.pred {p_ld}, {p_st}, {p_beta};"));
            self.store_whole(k, &acc, &biases, inp, dptr, cptr, p_ld, p_st)?;
        }
        k.push(format!("add.u64 {dptr}, {dptr}, {dstride};"));
        k.push(format!("add.u64 {cptr}, {cptr}, {cstride};"));
        self.next_rows(k, (sread, rrem), &biases, unroll * rpp, pitch);
        k.push(format!("sub.s32 {left}, {left}, {unroll};"));
        k.push(format!("setp.gt.s32 {p_loop}, {left}, 0;"));
        k.push(format!("setp.gt.and.s32 {p_loop}, {rrem}, 0, {p_loop};"));
        k.push(format!("@{p_loop} bra {whole};"));
        k.push(format!("bra {end};"));
        k.place_label(&partial);
        k.push(".pragma \"nounroll\";");
        // Rows run out together: leave at the first row past the edge.
        k.push(format!("setp.le.s32 {p_loop}, {rrem}, 0;"));
        k.push(format!("@{p_loop} bra {end};"));
        load_outer_biases(k, &self.spec, &biases, 0, p_part);
        self.store_partial(k, &biases, inp, (sread, dptr, cptr), irem, (p_beta, p_part))?;
        k.push(format!("add.u64 {dptr}, {dptr}, {dstride};"));
        k.push(format!("add.u64 {cptr}, {cptr}, {cstride};"));
        self.next_rows(k, (sread, rrem), &biases, rpp, pitch);
        k.push(format!("sub.s32 {left}, {left}, 1;"));
        k.push(format!("setp.gt.s32 {p_loop}, {left}, 0;"));
        k.push(format!("@{p_loop} bra {partial};"));
        k.place_label(&end);
        Ok(())
    }

    /// Reads one vector of staged accumulators at `[sread + imm]`.
    fn load_staged(&self, k: &mut Kernel, acc: &[Reg], sread: Reg, imm: u32) {
        for (q, a) in acc.chunks(4).enumerate() {
            k.push(format!(
                "ld.shared.v4.f32 {{{}, {}, {}, {}}}, [{sread}+{}];",
                a[0],
                a[1],
                a[2],
                a[3],
                imm + 16 * q as u32
            ));
        }
    }

    /// Moves the shared read address, the rows left and the outer biases
    /// `rows` rows on.
    fn next_rows(
        &self,
        k: &mut Kernel,
        (sread, rrem): (Reg, Reg),
        biases: &[BiasRegs],
        rows: u32,
        pitch: u32,
    ) {
        k.push(format!("add.u32 {sread}, {sread}, {};", rows * pitch));
        k.push(format!("sub.s32 {rrem}, {rrem}, {rows};"));
        advance_outer_biases(k, &self.spec, biases, rows);
    }

    /// The whole 16-byte vector of one pass: C read where `p_ld`, the
    /// epilogue, D written where `p_st`.
    #[allow(clippy::too_many_arguments)]
    fn store_whole(
        &self,
        k: &mut Kernel,
        acc: &[Reg],
        biases: &[BiasRegs],
        inp: &EpilogueInputs,
        dptr: Reg,
        cptr: Reg,
        p_ld: Reg,
        p_st: Reg,
    ) -> Result<(), PtxError> {
        let packed = k.regs(RegClass::B32, 4);
        let cval = k.regs(RegClass::F32, acc.len());
        for r in &packed {
            k.push(format!("mov.b32 {r}, 0;"));
        }
        let words = (acc.len() as u32 * self.spec.d.size_bytes() / 4) as usize;
        let w = &packed[..words];
        k.push(format!(
            "@{p_ld} ld.global.v4.b32 {{{}, {}, {}, {}}}, [{cptr}];",
            w[0], w[1], w[2], w[3]
        ));
        self.unpack(k, w, &cval);
        let res = self.combine(k, acc, &cval, biases, inp)?;
        self.pack(k, &res, w);
        k.push(format!(
            "@{p_st} st.global.v4.b32 [{dptr}], {{{}, {}, {}, {}}};",
            w[0], w[1], w[2], w[3]
        ));
        Ok(())
    }

    /// f32 values of C from packed words (16-bit types: two per word).
    fn unpack(&self, k: &mut Kernel, words: &[Reg], out: &[Reg]) {
        match self.spec.c {
            ElementType::F32 => {
                for (w, o) in words.iter().zip(out) {
                    k.push(format!("mov.b32 {o}, {w};"));
                }
            }
            ElementType::BF16 => {
                for (j, w) in words.iter().enumerate() {
                    k.push(format!("shl.b32 {}, {w}, 16;", out[2 * j]));
                    k.push(format!("and.b32 {}, {w}, -65536;", out[2 * j + 1]));
                }
            }
            _ => {
                let h = k.regs(RegClass::B16, 2);
                for (j, w) in words.iter().enumerate() {
                    k.push(format!("mov.b32 {{{}, {}}}, {w};", h[0], h[1]));
                    k.push(format!("cvt.f32.f16 {}, {};", out[2 * j], h[0]));
                    k.push(format!("cvt.f32.f16 {}, {};", out[2 * j + 1], h[1]));
                }
            }
        }
    }

    /// The epilogue at each element of a vector: f32 results.
    fn combine(
        &self,
        k: &mut Kernel,
        acc: &[Reg],
        c: &[Reg],
        biases: &[BiasRegs],
        inp: &EpilogueInputs,
    ) -> Result<Vec<Reg>, PtxError> {
        (0..acc.len())
            .map(|e| {
                let bias: Vec<Reg> = biases.iter().map(|b| b.value(e)).collect();
                apply(
                    k,
                    &self.spec,
                    acc[e],
                    c[e],
                    &bias,
                    inp.alpha,
                    inp.beta,
                    &inp.scalars,
                )
            })
            .collect()
    }

    /// Packs f32 values into D's words.
    fn pack(&self, k: &mut Kernel, vals: &[Reg], words: &[Reg]) {
        match self.spec.d {
            ElementType::F32 => {
                for (v, w) in vals.iter().zip(words) {
                    k.push(format!("mov.b32 {w}, {v};"));
                }
            }
            d => {
                let ty = if d == ElementType::BF16 {
                    "bf16x2"
                } else {
                    "f16x2"
                };
                for (j, w) in words.iter().enumerate() {
                    k.push(format!(
                        "cvt.rn.{ty}.f32 {w}, {}, {};",
                        vals[2 * j + 1],
                        vals[2 * j]
                    ));
                }
            }
        }
    }

    /// Element-by-element C read and D write of a vector with `irem`
    /// (0 < `irem` < vec) elements inside the edge, as a rolled loop over
    /// those elements: each reads its staged accumulator at `sread + 4e`,
    /// C's element where `p_beta`, the biases' values, and writes D's
    /// element. `p_part` holds for the threads that run it.
    fn store_partial(
        &self,
        k: &mut Kernel,
        biases: &[BiasRegs],
        inp: &EpilogueInputs,
        (sread, dptr, cptr): (Reg, Reg, Reg),
        irem: Reg,
        (p_beta, p_part): (Reg, Reg),
    ) -> Result<(), PtxError> {
        let dsize = self.spec.d.size_bytes();
        let (e, es) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        let (off, caddr, daddr) = (
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
        );
        let (acc, p_next) = (k.reg(RegClass::F32), k.reg(RegClass::Pred));
        let element = k.new_label("epilogue_partial_element")?;
        k.mov(e, 0);
        k.mov(es, sread);
        k.push(format!("mov.b64 {off}, 0;"));
        k.place_label(&element);
        k.push(".pragma \"nounroll\";");
        k.push(format!("ld.shared.f32 {acc}, [{es}];"));
        k.push(format!("add.u64 {caddr}, {cptr}, {off};"));
        k.push(format!("add.u64 {daddr}, {dptr}, {off};"));
        let cv = load_f32(k, self.spec.c, p_beta, caddr, 0);
        let bias = element_bias_values(k, &self.spec, biases, off, p_part);
        let v = apply(
            k,
            &self.spec,
            acc,
            cv,
            &bias,
            inp.alpha,
            inp.beta,
            &inp.scalars,
        )?;
        match self.spec.d {
            ElementType::F32 => k.push(format!("st.global.f32 [{daddr}], {v};")),
            d => {
                let ty = if d == ElementType::BF16 {
                    "bf16"
                } else {
                    "f16"
                };
                let h = k.reg(RegClass::B16);
                k.push(format!("cvt.rn.{ty}.f32 {h}, {v};"));
                k.push(format!("st.global.b16 [{daddr}], {h};"));
            }
        }
        k.push(format!("add.u32 {es}, {es}, 4;"));
        k.push(format!("add.u64 {off}, {off}, {dsize};"));
        k.push(format!("add.u32 {e}, {e}, 1;"));
        k.push(format!("setp.lt.s32 {p_next}, {e}, {irem};"));
        k.push(format!("@{p_next} bra {element};"));
        Ok(())
    }
}
