//! [`EpilogueSm90NoSmem`]: the SM90 warp-specialized epilogue that stores
//! from registers (CUTLASS's `NoSmemWarpSpecialized` epilogue): each
//! consumer thread applies the fusion expression to its own accumulators
//! and writes them to D, while the producer warp already loads the next
//! work tile into the shared memory the mainloop owns.
//!
//! Where each accumulator lies comes from the consumers' tiled MMA
//! ([`Sm90TiledMma`]): its C partition gives every thread's first row and
//! column and every value's offset from them (for the wgmma D fragment,
//! rows `16w + g` and `16w + g + 8` of each 64-row block, column pairs
//! `8j + 2t`, `8j + 2t + 1`). Row-major D takes each pair of columns as
//! one 32-bit (16-bit types), 64-bit (f32, i32) or 16-bit (FP8) store;
//! column-major D one element at a time. An output scale and the amax of
//! D ([`OutputQuantization`](crate::gemm::OutputQuantization)) are applied
//! here too (`output.rs`). C is read at the same places by the same thread,
//! only where beta is not 0, so D may alias C; a row's (column-major D: a
//! column's) C values are loaded 16 at a time ahead of their stores, so
//! that the loads are in flight together. Rows and columns past M and N
//! are skipped.

mod contract;
mod output;
mod tma_store;

pub use tma_store::{
    CLoad, EpilogueSm90TmaStore, Sm90TmaEpilogueInputs, TmaEpilogueParams, VectorReads,
    MAX_HELD_COLUMN_VALUES,
};

use super::epilogue_fusion::{apply, apply_without_source, load_f32};
use super::epilogue_sm80::EpilogueFacts;
use super::{EpilogueSpec, Sm90TiledMma, SourceRead, TileContext};
use crate::atom::{CopyValue, UniversalCopy};
use crate::gemm::{BiasAxis, GemmTypes, OutputMajor};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::RegisterTensor;

/// C values a thread loads before the stores they feed: enough loads in
/// flight at once without spilling the accumulators of a 128x256 tile
/// (64 spilled FP8's). Even, so that a column pair of row-major D lies in
/// one group.
const C_LOADS_AHEAD: usize = 16;

/// The SM90 epilogue that stores D from the wgmma accumulators.
#[derive(Clone, Debug)]
pub struct EpilogueSm90NoSmem {
    pub(crate) spec: EpilogueFacts,
    /// Rows of the tile each consumer warpgroup holds.
    pub(crate) wg_rows: u32,
    /// Consumer warpgroups that share a tile, warpgroup `c` holding rows
    /// `c * wg_rows ..` (2, the cooperative kernel), or 1 (ping-pong, each
    /// warpgroup whole tiles).
    pub(crate) warpgroups: u32,
    /// When C is read ([`SourceRead::Tested`] unless generated for one case).
    pub(crate) source: SourceRead,
}

/// Registers the kernel hands the store for one tile.
#[derive(Clone, Debug)]
pub struct Sm90EpilogueInputs {
    /// `%tid.x`.
    pub tid: Reg,
    /// Global address of D's element (m0, n0) in this batch.
    pub d_tile: Reg,
    /// Global address of C's element (m0, n0) in this batch.
    pub c_tile: Reg,
    /// D's leading dimension in bytes (`.b64`).
    pub ldd_bytes: Reg,
    /// C's leading dimension in bytes (`.b64`).
    pub ldc_bytes: Reg,
    /// `M - m0` (`.b32`, may be negative for a cluster's idle CTA).
    pub m_rem: Reg,
    /// `N - n0` (`.b32`, may be negative).
    pub n_rem: Reg,
    /// alpha (`.f32`).
    pub alpha: Reg,
    /// beta (`.f32`).
    pub beta: Reg,
    /// Per bias vector: its global address at the tile's origin along its axis.
    pub biases: Vec<Reg>,
    /// The extra scalars s2, s3, ... (`.f32`).
    pub scalars: Vec<Reg>,
    /// D's output scale (`.f32`), where the fusion has one.
    pub d_scale: Option<Reg>,
    /// The global address of D's amax (`.b64`), where the fusion writes one.
    pub d_amax: Option<Reg>,
}

impl EpilogueSm90TmaStore {
    /// The epilogue of `ctx` and `spec` for consumer warpgroups of
    /// `wg_rows` rows, `warpgroups` of them sharing each tile (2
    /// cooperative, 1 ping-pong:
    /// [`KernelSchedule::tile_warpgroups`](crate::kernel::gemm::KernelSchedule::tile_warpgroups)).
    pub fn new(ctx: &TileContext, spec: &EpilogueSpec, wg_rows: u32, warpgroups: u32) -> Self {
        let register = EpilogueSm90NoSmem::new(ctx, spec, wg_rows, warpgroups);
        EpilogueSm90TmaStore {
            spec: register.spec,
            wg_rows,
            warpgroups,
            c_staging: super::CStaging::Global,
            source: SourceRead::Tested,
            vector_reads: tma_store::VectorReads::Prologue {
                columns: tma_store::MAX_HELD_COLUMN_VALUES,
            },
        }
    }

    /// The consumers' tiled MMA, whose C partition places the accumulators
    /// `acc` (checked to be laid out as its fragment).
    pub(crate) fn tiled_mma(&self, acc: &RegisterTensor) -> Result<Sm90TiledMma, PtxError> {
        epilogue_tiled_mma(&self.spec, self.wg_rows, self.warpgroups, Some(acc))
    }
}

/// Emits a tile's store for `source`: `store(k, true, zero)` reads C (beta
/// not 0), `store(k, false, zero)` neither loads C nor tests bounds for it
/// (beta = 0, the usual case): D = alpha · acc for the default linear
/// combination, `zero` (a register holding +0) as C in any other
/// expression. Every kernel runs the second for beta = 0, so all give the
/// same bits for it. [`SourceRead::Tested`]
/// emits both behind one uniform branch on `beta` (`.f32`), the other
/// cases the one body they need. Both SM90 epilogues store this way.
fn emit_for_source(
    k: &mut Kernel,
    source: SourceRead,
    beta: Reg,
    mut store: impl FnMut(&mut Kernel, bool, Reg) -> Result<(), PtxError>,
) -> Result<(), PtxError> {
    let zero = k.reg(RegClass::F32);
    k.push(format!("mov.f32 {zero}, 0f00000000;"));
    match source {
        SourceRead::Never => return store(k, false, zero),
        SourceRead::Always => return store(k, true, zero),
        SourceRead::Tested => {}
    }
    let p_beta = emit_beta_nonzero(k, beta);
    let without_c = k.new_label("epi_without_c")?;
    let done = k.new_label("epi_done")?;
    k.push(format!("@!{p_beta} bra {};", without_c.name()));
    store(k, true, zero)?;
    k.push(format!("bra.uni {};", done.name()));
    k.place_label(&without_c);
    store(k, false, zero)?;
    k.place_label(&done);
    Ok(())
}

/// Emits the predicate "`beta` (`.f32`) is not 0".
fn emit_beta_nonzero(k: &mut Kernel, beta: Reg) -> Reg {
    let p_beta = k.reg(RegClass::Pred);
    k.push(format!("setp.neu.f32 {p_beta}, {beta}, 0f00000000;"));
    p_beta
}

/// Accumulator value `v` (the fragment's logical index, as the tiled MMA's
/// C partition numbers a thread's values) in the epilogue's compute type:
/// an f32 register (f16 accumulators converted; s32 ones rounded to the
/// nearest f32), or, for an i32 D, the s32 value itself (the integer
/// epilogue of [`apply`]).
fn acc_value(k: &mut Kernel, types: GemmTypes, acc: &RegisterTensor, v: i64) -> Reg {
    let (reg, half) = acc.value(v);
    match types.acc {
        ElementType::F16 => {
            let (lo, hi) = (k.reg(RegClass::B16), k.reg(RegClass::B16));
            let out = k.reg(RegClass::F32);
            k.push(format!("mov.b32 {{{lo}, {hi}}}, {reg};"));
            let h = if half == 0 { lo } else { hi };
            k.push(format!("cvt.f32.f16 {out}, {h};"));
            out
        }
        ElementType::I32 if types.d != ElementType::I32 => {
            let out = k.reg(RegClass::F32);
            k.push(format!("cvt.rn.f32.s32 {out}, {reg};"));
            out
        }
        _ => reg,
    }
}

/// A generator error of the SM90 epilogues, naming them.
fn epilogue_error(e: crate::Error) -> PtxError {
    PtxError::UnsupportedSpec {
        kernel: "gemm",
        name: String::from("sm90 epilogue"),
        reason: e.to_string(),
    }
}

/// The consumers' tiled MMA of an SM90 epilogue of `spec`: `warpgroups`
/// warpgroups of `wg_rows` rows along M (the C
/// partition does not depend on where A is read from, so the `_SS` atom
/// stands for both mainloops), checked against the accumulators `acc` the
/// mainloop allocated where given.
fn epilogue_tiled_mma(
    spec: &EpilogueFacts,
    wg_rows: u32,
    warpgroups: u32,
    acc: Option<&RegisterTensor>,
) -> Result<Sm90TiledMma, PtxError> {
    let t = spec.types;
    let err = epilogue_error;
    let atom = crate::atom::gmma_atom(
        t.a,
        t.b,
        t.acc,
        spec.tile[1],
        crate::atom::MmaSource::SharedShared,
    )
    .ok_or_else(|| {
        err(crate::Error::invalid_argument(
            "wgmma atom",
            format!("{:?}", t),
            "types with a wgmma instruction",
        ))
    })?;
    let mma = Sm90TiledMma::new(atom, warpgroups, wg_rows).map_err(err)?;
    if let Some(acc) = acc {
        mma.check_accumulators(acc).map_err(err)?;
    }
    Ok(mma)
}

/// Emits consumer thread `tid`'s index among the tiled MMA's threads: its
/// place after the producer warpgroup, modulo the consumers of one tile
/// (`(tid - 128) mod threads`; ping-pong's second warpgroup holds a tile
/// of its own).
fn emit_consumer_index(k: &mut Kernel, tid: Reg, mma: &Sm90TiledMma) -> Reg {
    let index = k.reg(RegClass::B32);
    k.push(format!("sub.u32 {index}, {tid}, 128;"));
    k.push(format!("and.b32 {index}, {index}, {};", mma.threads() - 1));
    index
}

impl EpilogueSm90NoSmem {
    /// The epilogue of `ctx` and `spec` for consumer warpgroups of
    /// `wg_rows` rows, `warpgroups` of them sharing each tile (2
    /// cooperative, 1 ping-pong).
    pub fn new(ctx: &TileContext, spec: &EpilogueSpec, wg_rows: u32, warpgroups: u32) -> Self {
        EpilogueSm90NoSmem {
            spec: EpilogueFacts {
                arch: ctx.arch,
                types: ctx.types,
                majors: ctx.majors,
                tile: ctx.tile,
                warps: ctx.warps,
                epilogue: spec.fusion.clone(),
            },
            wg_rows,
            warpgroups,
            source: SourceRead::Tested,
        }
    }

    /// Emits the store of one tile's accumulators.
    ///
    /// The elements are walked in groups that share one address register
    /// per operand, the rest of each address an immediate: a row (64-row
    /// block and half) of row-major D, its column pairs at offsets; a
    /// column of column-major D, its rows at offsets. So few 64-bit
    /// registers live at a time beside the accumulators.
    pub(crate) fn emit(
        &self,
        k: &mut Kernel,
        io: &Sm90EpilogueInputs,
        acc: &RegisterTensor,
    ) -> Result<(), PtxError> {
        let types = self.spec.types;
        let major = self.spec.majors.d;
        let r32 = |k: &mut Kernel| k.reg(RegClass::B32);
        let mma = self.tiled_mma(acc)?;
        let err = epilogue_error;
        // The thread's first row and column in the tile: the C partition's
        // thread layouts.
        let index = emit_consumer_index(k, io.tid, &mma);
        let (row0, col0) = mma.emit_origin(k, index).map_err(err)?;
        // The edges relative to the thread's first element.
        let (m_left, n_left) = (r32(k), r32(k));
        k.push(format!("sub.s32 {m_left}, {}, {row0};", io.m_rem));
        k.push(format!("sub.s32 {n_left}, {}, {col0};", io.n_rem));
        let (dsize, csize) = (types.d.size_bytes(), types.c.size_bytes());
        // Base addresses of the thread's first element in D and C.
        let base = |k: &mut Kernel, tile: Reg, ld: Reg, size: u32| {
            let addr = k.reg(RegClass::B64);
            let wide = k.reg(RegClass::B64);
            let (outer, inner) = match major {
                OutputMajor::N => (row0, col0),
                OutputMajor::M => (col0, row0),
            };
            k.push(format!("cvt.u64.u32 {wide}, {outer};"));
            k.push(format!("mad.lo.u64 {addr}, {wide}, {ld}, {tile};"));
            k.push(format!("mad.wide.u32 {addr}, {inner}, {size}, {addr};"));
            addr
        };
        let d_base = base(k, io.d_tile, io.ldd_bytes, dsize);
        let c_base = base(k, io.c_tile, io.ldc_bytes, csize);
        let biases = self.spec.epilogue.biases();
        // Row and column offsets (from row0, col0) of the thread's values;
        // row-major D stores column pairs (c, c + 1) together.
        let rows = mma.row_offsets();
        let cols = mma.col_offsets();
        if major == OutputMajor::N && cols.chunks(2).any(|p| p.len() != 2 || p[1] != p[0] + 1) {
            return Err(err(crate::Error::invalid_argument(
                "accumulator columns",
                format!("{cols:?}"),
                "pairs of adjacent columns",
            )));
        }
        // Predicates of every row and column offset.
        let inside = |k: &mut Kernel, left: Reg, offset: u32| {
            let p = k.reg(RegClass::Pred);
            k.push(format!("setp.gt.s32 {p}, {left}, {offset};"));
            p
        };
        let row_ok: Vec<Reg> = rows.iter().map(|&o| inside(k, m_left, o)).collect();
        // The outer walk: rows of row-major D, columns of column-major D.
        let (outer_list, inner_list) = match major {
            OutputMajor::N => (&rows, &cols),
            OutputMajor::M => (&cols, &rows),
        };
        let fusion = &self.spec.epilogue;
        let amax = fusion.output().d_amax.then(|| output::emit_amax_start(k));
        let bias_value = |k: &mut Kernel, i: usize, offset: u32, origin: Reg, p: Reg| {
            let element = fusion.bias_element(i, types.c);
            if biases[i] == BiasAxis::Scalar {
                return load_f32(k, element, p, io.biases[i], 0);
            }
            let index = r32(k);
            k.push(format!("add.u32 {index}, {origin}, {offset};"));
            let addr = k.reg(RegClass::B64);
            k.push(format!(
                "mad.wide.u32 {addr}, {index}, {}, {};",
                element.size_bytes(),
                io.biases[i]
            ));
            load_f32(k, element, p, addr, 0)
        };
        let walk = |k: &mut Kernel, with_c: bool, zero: Reg| -> Result<(), PtxError> {
            for (oi, &outer) in outer_list.iter().enumerate() {
                let (d_ptr, c_ptr) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
                let (d_step, c_step) = (io.ldd_bytes, io.ldc_bytes);
                let wide = k.reg(RegClass::B64);
                k.push(format!("cvt.u64.u32 {wide}, {outer};"));
                k.push(format!("mad.lo.u64 {d_ptr}, {wide}, {d_step}, {d_base};"));
                if with_c {
                    k.push(format!("mad.lo.u64 {c_ptr}, {wide}, {c_step}, {c_base};"));
                }
                let p_outer = match major {
                    OutputMajor::N => row_ok[oi],
                    OutputMajor::M => inside(k, n_left, outer),
                };
                // Biases along the outer walk: one value per group.
                let mut outer_bias = vec![None; biases.len()];
                for (i, axis) in biases.iter().enumerate() {
                    match (axis, major) {
                        (BiasAxis::Row, OutputMajor::N) => {
                            outer_bias[i] = Some(bias_value(k, i, outer, row0, p_outer)?)
                        }
                        (BiasAxis::Column, OutputMajor::M) => {
                            outer_bias[i] = Some(bias_value(k, i, outer, col0, p_outer)?)
                        }
                        (BiasAxis::Scalar, _) => {
                            outer_bias[i] = Some(bias_value(k, i, 0, row0, p_outer)?)
                        }
                        _ => {}
                    }
                }
                // The predicates and C values of up to C_LOADS_AHEAD
                // places, loaded before any of their stores: ptxas does not
                // move a load above a store that may alias it, so a load
                // between the stores would wait out its own round trip to
                // memory before the next could issue (an i32 D at 4096³
                // with a C ran 2.7x slower so).
                let mut values = Vec::new();
                let mut preds = Vec::new();
                for start in (0..inner_list.len()).step_by(C_LOADS_AHEAD) {
                    let end = (start + C_LOADS_AHEAD).min(inner_list.len());
                    let mut group = Vec::with_capacity(end - start);
                    for (ii, &inner) in inner_list.iter().enumerate().take(end).skip(start) {
                        let p_inner = match major {
                            OutputMajor::N => inside(k, n_left, inner),
                            OutputMajor::M => row_ok[ii],
                        };
                        let p = k.reg(RegClass::Pred);
                        k.push(format!("and.pred {p}, {p_outer}, {p_inner};"));
                        let c = if with_c {
                            load_f32(k, types.c, p, c_ptr, inner * csize)?
                        } else {
                            zero
                        };
                        group.push((p, c));
                    }
                    for ((ii, &inner), &(p, c)) in
                        inner_list.iter().enumerate().skip(start).zip(&group)
                    {
                        let (row, col) = match major {
                            OutputMajor::N => (rows[oi], cols[ii]),
                            OutputMajor::M => (rows[ii], cols[oi]),
                        };
                        let v = mma.held_value(row, col).map_err(err)?;
                        let a = acc_value(k, types, acc, v);
                        let mut bias = Vec::new();
                        for (i, axis) in biases.iter().enumerate() {
                            bias.push(match outer_bias[i] {
                                Some(v) => v,
                                None => match axis {
                                    BiasAxis::Row => bias_value(k, i, row, row0, p)?,
                                    BiasAxis::Column | BiasAxis::Scalar => {
                                        bias_value(k, i, col, col0, p)?
                                    }
                                },
                            });
                        }
                        let value = if with_c {
                            apply(k, &self.spec, a, c, &bias, io.alpha, io.beta, &io.scalars)?
                        } else {
                            apply_without_source(
                                k,
                                &self.spec,
                                a,
                                c,
                                &bias,
                                io.alpha,
                                io.beta,
                                &io.scalars,
                            )?
                        };
                        values.push(output::emit_output_value(k, value, p, amax, io.d_scale));
                        preds.push(p);
                        // Row-major D stores each column pair together.
                        if major == OutputMajor::M || ii % 2 == 1 {
                            let offset = match major {
                                OutputMajor::N => (inner - 1) * dsize,
                                OutputMajor::M => inner * dsize,
                            };
                            self.store(k, major, d_ptr, offset, &preds, &values)?;
                            values.clear();
                            preds.clear();
                        }
                    }
                }
            }
            Ok(())
        };
        emit_for_source(k, self.source, io.beta, walk)?;
        match (amax, io.d_amax) {
            (Some(amax), Some(address)) => output::emit_amax_flush(k, amax, address, io.tid),
            (None, None) => Ok(()),
            _ => Err(err(crate::Error::invalid_argument(
                "epilogue amax",
                "a running amax without its address, or the other way round",
                "both where the fusion writes an amax",
            ))),
        }
    }

    /// The consumers' tiled MMA, whose C partition places the accumulators
    /// `acc` (checked to be laid out as its fragment).
    pub(crate) fn tiled_mma(&self, acc: &RegisterTensor) -> Result<Sm90TiledMma, PtxError> {
        epilogue_tiled_mma(&self.spec, self.wg_rows, self.warpgroups, Some(acc))
    }

    /// Stores the values of one group at `[ptr + offset]`: a column pair of
    /// row-major D as one word where both lie inside N (else the first
    /// alone), or one element of column-major D.
    fn store(
        &self,
        k: &mut Kernel,
        major: OutputMajor,
        ptr: Reg,
        offset: u32,
        preds: &[Reg],
        values: &[Reg],
    ) -> Result<(), PtxError> {
        let d = self.spec.types.d;
        let atom = epilogue_error;
        if d.size_bits() == 8 {
            return output::emit_store_fp8(k, d, major, &format!("{ptr}+{offset}"), preds, values);
        }
        // A 32-bit D's values: f32 registers, or the s32 results (`.b32`) of
        // an i32 D's integer epilogue.
        let word = if d == ElementType::I32 {
            CopyValue::B32
        } else {
            CopyValue::F32
        };
        let converted: Vec<Reg> = values
            .iter()
            .map(|&v| match d {
                ElementType::F32 | ElementType::I32 => v,
                other => {
                    let h = k.reg(RegClass::B16);
                    let ty = if other == ElementType::BF16 {
                        "bf16"
                    } else {
                        "f16"
                    };
                    k.push(format!("cvt.rn.{ty}.f32 {h}, {v};"));
                    h
                }
            })
            .collect();
        let at = format!("{ptr}+{offset}");
        if major == OutputMajor::M {
            return match d {
                ElementType::F32 | ElementType::I32 => {
                    UniversalCopy::<32>::emit_store_predicated_typed(
                        k,
                        word,
                        preds[0],
                        &at,
                        &converted[..1],
                    )
                }
                _ => UniversalCopy::<16>::emit_store_predicated_typed(
                    k,
                    CopyValue::B16,
                    preds[0],
                    &at,
                    &converted[..1],
                ),
            }
            .map_err(atom);
        }
        // Both columns inside: one store of the pair; else the first alone.
        let (both, single) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
        k.push(format!("and.pred {both}, {}, {};", preds[0], preds[1]));
        k.push(format!("not.pred {single}, {both};"));
        k.push(format!("and.pred {single}, {single}, {};", preds[0]));
        match d {
            ElementType::F32 | ElementType::I32 => {
                UniversalCopy::<64>::emit_store_predicated_typed(k, word, both, &at, &converted)
                    .map_err(atom)?;
                UniversalCopy::<32>::emit_store_predicated_typed(
                    k,
                    word,
                    single,
                    &at,
                    &converted[..1],
                )
                .map_err(atom)?;
            }
            _ => {
                let word = k.reg(RegClass::B32);
                k.push(format!(
                    "mov.b32 {word}, {{{}, {}}};",
                    converted[0], converted[1]
                ));
                UniversalCopy::<32>::emit_store_predicated_typed(
                    k,
                    CopyValue::B32,
                    both,
                    &at,
                    &[word],
                )
                .map_err(atom)?;
                UniversalCopy::<16>::emit_store_predicated_typed(
                    k,
                    CopyValue::B16,
                    single,
                    &at,
                    &converted[..1],
                )
                .map_err(atom)?;
            }
        }
        Ok(())
    }
}
