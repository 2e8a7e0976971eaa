//! One element of a subtile through the fusion expression: its bounds
//! test (for C's and the biases' loads; TMA clips D's store), its C (from
//! C's staged buffer, from global memory, or none), its biases, and the
//! expression (or `alpha * acc` where beta is 0).

use std::collections::HashMap;

use super::store::TileFrame;
use super::{EpilogueSm90TmaStore, Sm90TmaEpilogueInputs};
use crate::collective::epilogue_fusion::{apply, apply_without_source, load_f32};
use crate::gemm::{BiasAxis, OutputMajor};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

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
            k.push(format!("setp.gt.s32 {p_col}, {}, {col_off};", frame.n_left));
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
        // Each vector's value at the element's row or column, read once
        // per subtile (`vectors`): a row's under the row's bounds test, a
        // column's under the column's.
        let mut bias = Vec::new();
        for (i, axis) in biases.iter().enumerate() {
            let offset = match axis {
                BiasAxis::Row => row_off,
                BiasAxis::Column => col_off,
                BiasAxis::Scalar => 0,
            };
            if let Some(&value) = vectors.get(&(i, offset)) {
                bias.push(value);
                continue;
            }
            let element = self.spec.epilogue.bias_element(i, types.c);
            let ok = k.reg(RegClass::Pred);
            let addr = match axis {
                BiasAxis::Scalar => {
                    k.push(format!("setp.eq.u32 {ok}, 0, 0;"));
                    io.base.biases[i]
                }
                BiasAxis::Row | BiasAxis::Column => {
                    let origin = if *axis == BiasAxis::Row {
                        k.push(format!("mov.pred {ok}, {};", frame.row_ok[row]));
                        frame.row0
                    } else {
                        k.push(format!("setp.gt.s32 {ok}, {}, {col_off};", frame.n_left));
                        frame.col0
                    };
                    let index = k.reg(RegClass::B32);
                    k.push(format!("add.u32 {index}, {origin}, {offset};"));
                    let addr = k.reg(RegClass::B64);
                    k.push(format!(
                        "mad.wide.u32 {addr}, {index}, {}, {};",
                        element.size_bytes(),
                        io.base.biases[i]
                    ));
                    addr
                }
            };
            let value = load_f32(k, element, ok, addr, 0)?;
            vectors.insert((i, offset), value);
            bias.push(value);
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
}
