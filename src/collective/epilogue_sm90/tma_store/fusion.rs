//! One element of a subtile through the fusion expression: its bounds
//! test (for C's and the biases' loads; TMA clips D's store), its C (from
//! C's staged buffer, from global memory, or none), its biases, and the
//! expression (or `alpha * acc` where beta is 0); and the reads of the
//! bias and scale vectors' values ahead of their use ([`VectorReads`]).

use std::collections::HashMap;

use super::store::TileFrame;
use super::{
    atom_error, EpilogueSm90TmaStore, Sm90TmaEpilogueInputs, VectorReads, WarpgroupOrigin,
    SUBTILE_N,
};
use crate::collective::epilogue_fusion::{apply, apply_without_source, load_f32};
use crate::collective::epilogue_sm90::Sm90EpilogueInputs;
use crate::collective::Sm90TiledMma;
use crate::gemm::{BiasAxis, OutputMajor, ScaleGranularity};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// The thread's first row and column in the tile (`.b32`) and the rows
/// and columns of the problem from them (`.b32`, signed), for the reads of
/// bias and scale vectors.
#[derive(Clone, Copy, Debug)]
pub(super) struct VectorPlace {
    pub(super) row0: Reg,
    pub(super) col0: Reg,
    pub(super) m_left: Reg,
    pub(super) n_left: Reg,
}

/// Where an element lies: its row's index among the thread's rows, and its
/// row and column offsets from the thread's first element.
#[derive(Clone, Copy, Debug)]
pub(super) struct ElementAt {
    pub(super) row: usize,
    pub(super) row_off: u32,
    pub(super) col_off: u32,
}

/// An element's C where C is loaded with TMA: one half of a word read back
/// with `ldmatrix` (16-bit C), an f32 value read back from the buffer, or
/// none (the subtile holds no C for it).
#[derive(Clone, Copy, Debug)]
pub(super) enum TmaC {
    Half(Reg, u32),
    Value(Reg),
    Zero,
}

impl EpilogueSm90TmaStore {
    /// Emits one element's value: `a` (the accumulator, f32) through the
    /// fusion expression with C (`with_c`; from `tma` where C is loaded
    /// with TMA, else from global memory at the element's place) or
    /// without it (`zero` stands for C), and the biases at the element's
    /// row or column (from `vectors`, the values the subtile read so far,
    /// by vector and offset; the subtile's code runs straight through, so
    /// a value read for one element serves the next).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn emit_element(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        frame: &TileFrame,
        at: ElementAt,
        a: Reg,
        tma: Option<TmaC>,
        with_c: bool,
        zero: Reg,
        vectors: &mut HashMap<(usize, u32), Reg>,
    ) -> Result<Reg, PtxError> {
        let types = self.spec.types;
        let csize = types.c.size_bytes();
        let biases = self.spec.epilogue.biases();
        let ElementAt {
            row,
            row_off,
            col_off,
        } = at;
        // Whether the element is in the problem, for C's and the biases'
        // loads (TMA clips D's store).
        let mut in_bounds = || {
            let (p_col, p) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
            k.push(format!(
                "setp.gt.s32 {p_col}, {}, {col_off};",
                frame.place.n_left
            ));
            k.push(format!("and.pred {p}, {}, {p_col};", frame.row_ok[row]));
            p
        };
        let p = (with_c && tma.is_none()).then(&mut in_bounds);
        let c = match (p, self.spec.majors.d) {
            _ if tma.is_some() => match tma {
                Some(TmaC::Half(word, half)) => self.c_element(k, word, half),
                Some(TmaC::Value(value)) => value,
                _ => zero,
            },
            (Some(p), OutputMajor::N) if with_c => {
                load_f32(k, types.c, p, frame.c_rows[row], col_off * csize)?
            }
            (Some(p), OutputMajor::M) if with_c => {
                let ptr = k.reg(RegClass::B64);
                let wide = k.reg(RegClass::B64);
                k.push(format!("mov.u64 {wide}, {col_off};"));
                k.push(format!(
                    "mad.lo.u64 {ptr}, {wide}, {}, {};",
                    io.base.ldc_bytes, frame.c_base
                ));
                load_f32(k, types.c, p, ptr, row_off * csize)?
            }
            _ => zero,
        };
        // Each vector's value at the element's row or column: the tile's
        // scalars and row values are read before its first subtile and the
        // subtile's column values before it ([`Self::emit_held_vectors`],
        // [`Self::emit_column_vectors`]); any other is read here, once per
        // subtile (`vectors`).
        let mut bias = Vec::new();
        for (i, axis) in biases.iter().enumerate() {
            let offset = match axis {
                BiasAxis::Row => row_off,
                BiasAxis::Column => col_off,
                BiasAxis::Scalar => 0,
            };
            let value = match vectors.get(&(i, offset)) {
                Some(&value) => value,
                // A folded scale is only ever read in the prologue.
                None if self.folded_scales().is_some() && *axis != BiasAxis::Column => {
                    return Err(atom_error(crate::Error::invalid_argument(
                        "held scale",
                        format!("vector {i} at offset {offset}"),
                        "a value the tile's prologue read",
                    )));
                }
                None => {
                    let value =
                        self.emit_vector_value(k, &io.base.biases, &frame.place, i, offset)?;
                    vectors.insert((i, offset), value);
                    value
                }
            };
            bias.push(value);
        }
        if let Some(granularity) = self.folded_scales() {
            // `acc · (alpha · scale_a · scale_b)` for per-tensor scales (one
            // held factor), `acc · (alpha · held) · column` for row-wise
            // ones, then `beta · c`.
            let out = k.reg(RegClass::F32);
            k.push(format!("mul.rn.f32 {out}, {a}, {};", bias[0]));
            if granularity == ScaleGranularity::RowCol {
                k.push(format!("mul.rn.f32 {out}, {out}, {};", bias[1]));
            }
            if with_c {
                k.push(format!("fma.rn.f32 {out}, {c}, {}, {out};", io.base.beta));
            }
            return Ok(out);
        }
        let apply = if with_c { apply } else { apply_without_source };
        apply(
            k,
            &self.spec,
            a,
            c,
            &bias,
            io.base.alpha,
            io.base.beta,
            &io.base.scalars,
        )
    }

    /// Emits the read of vector `i`'s value at `offset` from the thread's
    /// first row or column along its axis, 0 outside the problem.
    pub(super) fn emit_vector_value(
        &self,
        k: &mut Kernel,
        biases: &[Reg],
        place: &VectorPlace,
        i: usize,
        offset: u32,
    ) -> Result<Reg, PtxError> {
        let axis = self.spec.epilogue.biases()[i];
        let element = self.spec.epilogue.bias_element(i, self.spec.types.c);
        let ok = k.reg(RegClass::Pred);
        let addr = match axis {
            BiasAxis::Scalar => {
                k.push(format!("setp.eq.u32 {ok}, 0, 0;"));
                biases[i]
            }
            BiasAxis::Row | BiasAxis::Column => {
                let (origin, left) = match axis {
                    BiasAxis::Row => (place.row0, place.m_left),
                    _ => (place.col0, place.n_left),
                };
                k.push(format!("setp.gt.s32 {ok}, {left}, {offset};"));
                let index = k.reg(RegClass::B32);
                k.push(format!("add.u32 {index}, {origin}, {offset};"));
                let addr = k.reg(RegClass::B64);
                k.push(format!(
                    "mad.wide.u32 {addr}, {index}, {}, {};",
                    element.size_bytes(),
                    biases[i]
                ));
                addr
            }
        };
        load_f32(k, element, ok, addr, 0)
    }

    /// Emits, in the tile's prologue (beside its last wgmmas), the reads
    /// [`Self::emit_vector_reads`] makes, where [`VectorReads::Prologue`]
    /// asks for them; none otherwise.
    pub(crate) fn emit_vector_prefetch(
        &self,
        k: &mut Kernel,
        io: &Sm90EpilogueInputs,
    ) -> Result<HashMap<(usize, u32), Reg>, PtxError> {
        match self.vector_reads {
            VectorReads::Prologue { .. } => self.emit_vector_reads(k, io),
            VectorReads::Store { .. } => Ok(HashMap::new()),
        }
    }

    /// Emits the reads of the vector values the tile's store holds
    /// throughout: each scalar's, each row vector's at the thread's rows,
    /// and each column vector's at the thread's columns (all of the tile's
    /// or the first subtile's, as [`VectorReads`] says), keyed as
    /// [`Self::emit_element`]'s `vectors`; for the scaled linear
    /// combination, alpha folded in ([`Self::folded_scales`]).
    pub(super) fn emit_vector_reads(
        &self,
        k: &mut Kernel,
        io: &Sm90EpilogueInputs,
    ) -> Result<HashMap<(usize, u32), Reg>, PtxError> {
        let biases = self.spec.epilogue.biases();
        if biases.is_empty() {
            return Ok(HashMap::new());
        }
        let mma =
            super::super::epilogue_tiled_mma(&self.spec, self.wg_rows, self.warpgroups, None)?;
        let origin = self.emit_origin(k, io.tid);
        let place = self.emit_vector_place(k, io, &mma, &origin)?;
        // Every column value of the tile where they fit the budget, else
        // the first subtile's (the store reads the rest a subtile ahead).
        let column_vectors = biases.iter().filter(|&&a| a == BiasAxis::Column).count();
        let all_cols = mma.col_offsets();
        let cols: Vec<u32> = if all_cols.len() * column_vectors <= self.vector_reads.columns() {
            all_cols
        } else {
            all_cols.into_iter().filter(|&c| c < SUBTILE_N).collect()
        };
        let mut held = HashMap::new();
        for (i, axis) in biases.iter().enumerate() {
            let offsets = match axis {
                BiasAxis::Scalar => vec![0],
                BiasAxis::Row => mma.row_offsets(),
                BiasAxis::Column => cols.clone(),
            };
            for offset in offsets {
                let value = self.emit_vector_value(k, &io.biases, &place, i, offset)?;
                held.insert((i, offset), value);
            }
        }
        // The scaled linear combination: alpha folded into the held scale
        // (both per-tensor scales into vector 0's), so that each element
        // takes one or two multiplications.
        if let Some(granularity) = self.folded_scales() {
            let fold = |k: &mut Kernel, held: &mut HashMap<(usize, u32), Reg>, key, by: Reg| {
                let out = k.reg(RegClass::F32);
                k.push(format!("mul.rn.f32 {out}, {}, {by};", held[&key]));
                held.insert(key, out);
            };
            if granularity == ScaleGranularity::Tensor {
                let scale_b = held[&(1, 0)];
                fold(k, &mut held, (0, 0), scale_b);
                fold(k, &mut held, (0, 0), io.alpha);
            } else {
                let row = (0..2)
                    .find(|&i| biases[i] == BiasAxis::Row)
                    .ok_or_else(|| {
                        atom_error(crate::Error::invalid_argument(
                            "row-wise scales",
                            format!("{biases:?}"),
                            "one row and one column vector",
                        ))
                    })?;
                for offset in mma.row_offsets() {
                    fold(k, &mut held, (row, offset), io.alpha);
                }
            }
        }
        Ok(held)
    }

    /// The scales' granularity where alpha is folded into the held scale
    /// values ([`Self::emit_vector_prefetch`]): the scaled linear
    /// combination of a floating-point D.
    pub(super) fn folded_scales(&self) -> Option<ScaleGranularity> {
        let float_d = self.spec.types.d != ElementType::I32;
        self.spec
            .epilogue
            .scaled_linear_combination()
            .filter(|_| float_d)
    }

    /// Emits the thread's first row and column in the tile and the rows
    /// and columns of the problem from them.
    pub(super) fn emit_vector_place(
        &self,
        k: &mut Kernel,
        io: &Sm90EpilogueInputs,
        mma: &Sm90TiledMma,
        origin: &WarpgroupOrigin,
    ) -> Result<VectorPlace, PtxError> {
        let (local, col0) = mma.emit_origin(k, origin.thread).map_err(atom_error)?;
        let [row0, m_left, n_left] = [0; 3].map(|_| k.reg(RegClass::B32));
        k.push(format!("add.u32 {row0}, {local}, {};", origin.row0));
        k.push(format!("sub.s32 {m_left}, {}, {row0};", io.m_rem));
        k.push(format!("sub.s32 {n_left}, {}, {col0};", io.n_rem));
        Ok(VectorPlace {
            row0,
            col0,
            m_left,
            n_left,
        })
    }

    /// Emits the reads of each column vector's values at `cols` (a
    /// subtile's columns of the thread), issued a subtile ahead of their
    /// use so that their latency hides behind the store between.
    pub(super) fn emit_column_vectors(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        place: &VectorPlace,
        cols: &[u32],
    ) -> Result<HashMap<(usize, u32), Reg>, PtxError> {
        let mut values = HashMap::new();
        for (i, axis) in self.spec.epilogue.biases().iter().enumerate() {
            if *axis == BiasAxis::Column {
                for &offset in cols {
                    if io.held.contains_key(&(i, offset)) {
                        continue;
                    }
                    let value = self.emit_vector_value(k, &io.base.biases, place, i, offset)?;
                    values.insert((i, offset), value);
                }
            }
        }
        Ok(values)
    }
}
