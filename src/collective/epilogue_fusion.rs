//! The fused part of [`EpilogueSm80`](super::EpilogueSm80): bias vectors
//! read for a thread's output vectors, and the epilogue expression applied
//! to one element.
//!
//! A thread's output vectors share one position along D's contiguous
//! ("inner") dimension and step along the strided ("outer") one. A bias that
//! follows the inner dimension (a column bias of row-major D, a row bias of
//! column-major D) is therefore read once, one value per vector element; a
//! bias that follows the outer dimension is read once per pass, one value
//! per vector. Reads are element by element and predicated on the edge.

use super::epilogue_sm80::EpilogueFacts;
use super::sm80_mma_multistage::atom_error;
use crate::atom::{CopyValue, UniversalCopy};
use crate::fusion::{EmitOptions, Value};
use crate::gemm::{BiasAxis, OutputMajor};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// The registers of one bias vector in a thread.
#[derive(Clone, Debug)]
pub(super) enum BiasRegs {
    /// Along the inner dimension: the address of the value of the thread's
    /// first vector element (`.b64`) and one f32 value per vector element.
    Inner {
        /// Address of the value of element 0 of the thread's vectors.
        ptr: Reg,
        /// The values of the vector's elements.
        values: Vec<Reg>,
    },
    /// Along the outer dimension: the address of the thread's first row's
    /// value (`.b64`) and the current pass's value (`.f32`).
    Outer {
        /// Address of the value of the thread's row in pass 0.
        ptr: Reg,
        /// The value of the current pass.
        value: Reg,
    },
}

impl BiasRegs {
    /// The value for element `e` of the current vector.
    pub(super) fn value(&self, e: usize) -> Reg {
        match self {
            BiasRegs::Inner { values, .. } => values[e],
            BiasRegs::Outer { value, .. } => *value,
        }
    }
}

/// Whether a bias on `axis` follows D's inner (contiguous) dimension.
fn is_inner(axis: BiasAxis, major: OutputMajor) -> bool {
    matches!(
        (axis, major),
        (BiasAxis::Column, OutputMajor::N) | (BiasAxis::Row, OutputMajor::M)
    )
}

/// Reads element `[addr + imm]` of type `ty` as f32 where `pred` holds, 0
/// elsewhere: one predicated universal copy (`.f32`; a bf16 as `.u16` into
/// the low half of a word, then shifted up; an f16 as `.b16`, converted;
/// an FP8 byte as `.u8`, widened through f16).
pub(super) fn load_f32(
    k: &mut Kernel,
    ty: ElementType,
    pred: Reg,
    addr: Reg,
    imm: u32,
) -> Result<Reg, PtxError> {
    let out = k.reg(RegClass::F32);
    let at = format!("{addr}+{imm}");
    k.push(format!("mov.f32 {out}, 0f00000000;"));
    match ty {
        // An i32 C (of an i32 D) is read as its 32 bits: the integer
        // epilogue ([`apply`]) reads them as s32.
        ElementType::F32 | ElementType::I32 => {
            UniversalCopy::<32>::emit_load_predicated_typed(k, CopyValue::F32, pred, &[out], &at)
                .map_err(atom_error)?;
        }
        ElementType::BF16 => {
            let bits = k.reg(RegClass::B32);
            k.push(format!("mov.b32 {bits}, 0;"));
            UniversalCopy::<16>::emit_load_predicated_typed(k, CopyValue::U16, pred, &[bits], &at)
                .map_err(atom_error)?;
            k.push(format!("shl.b32 {bits}, {bits}, 16;"));
            k.push(format!("mov.b32 {out}, {bits};"));
        }
        // An FP8 byte, widened exactly to f16 (the low half of the pair
        // `cvt.rn.f16x2.{e4m3,e5m2}x2` makes), then to f32.
        ElementType::F8E4M3 | ElementType::F8E5M2 => {
            let byte = k.reg(RegClass::B16);
            k.push(format!("mov.b16 {byte}, 0;"));
            UniversalCopy::<8>::emit_load_predicated_typed(k, CopyValue::U8, pred, &[byte], &at)
                .map_err(atom_error)?;
            let (pair, lo, hi) = (
                k.reg(RegClass::B32),
                k.reg(RegClass::B16),
                k.reg(RegClass::B16),
            );
            let ty = if ty == ElementType::F8E4M3 {
                "e4m3x2"
            } else {
                "e5m2x2"
            };
            k.push(format!("cvt.rn.f16x2.{ty} {pair}, {byte};"));
            k.push(format!("mov.b32 {{{lo}, {hi}}}, {pair};"));
            k.push(format!("cvt.f32.f16 {out}, {lo};"));
        }
        _ => {
            let h = k.reg(RegClass::B16);
            k.push(format!("mov.b16 {h}, 0;"));
            UniversalCopy::<16>::emit_load_predicated_typed(k, CopyValue::B16, pred, &[h], &at)
                .map_err(atom_error)?;
            k.push(format!("cvt.f32.f16 {out}, {h};"));
        }
    }
    Ok(out)
}

/// Sets up every bias of `spec`'s epilogue for a thread whose vectors start
/// at outer index `row` and inner index `col` of the tile, with `irem`
/// elements left along the inner edge. `tiles[i]` is bias `i`'s address at
/// the tile's origin along its axis. Inner biases are read here.
pub(super) fn setup_biases(
    k: &mut Kernel,
    spec: &EpilogueFacts,
    tiles: &[Reg],
    row: Reg,
    col: Reg,
    irem: Reg,
    vec: u32,
) -> Result<Vec<BiasRegs>, PtxError> {
    let size = spec.types.c.size_bytes();
    let mut out = Vec::new();
    for (&axis, &tile) in spec.epilogue.biases().iter().zip(tiles) {
        let ptr = k.reg(RegClass::B64);
        let wide = k.reg(RegClass::B64);
        let inner = is_inner(axis, spec.majors.d);
        let index = if inner { col } else { row };
        k.push(format!("mul.wide.u32 {wide}, {index}, {size};"));
        k.push(format!("add.u64 {ptr}, {tile}, {wide};"));
        if inner {
            let p = k.reg(RegClass::Pred);
            let values = (0..vec)
                .map(|e| {
                    k.push(format!("setp.gt.s32 {p}, {irem}, {e};"));
                    load_f32(k, spec.types.c, p, ptr, e * size)
                })
                .collect::<Result<_, _>>()?;
            out.push(BiasRegs::Inner { ptr, values });
        } else {
            let value = k.reg(RegClass::F32);
            out.push(BiasRegs::Outer { ptr, value });
        }
    }
    Ok(out)
}

/// The values of every bias at one element of a cut vector, for the
/// element-by-element loop: inner biases read at `[ptr + offset]` (`offset`
/// a `.b64` byte offset of the element; the caller keeps it inside the
/// edge, so the read is unpredicated: `p_true` holds), outer biases the
/// current pass's value.
pub(super) fn element_bias_values(
    k: &mut Kernel,
    spec: &EpilogueFacts,
    biases: &[BiasRegs],
    offset: Reg,
    p_true: Reg,
) -> Result<Vec<Reg>, PtxError> {
    biases
        .iter()
        .map(|bias| match bias {
            BiasRegs::Inner { ptr, .. } => {
                let addr = k.reg(RegClass::B64);
                k.push(format!("add.u64 {addr}, {ptr}, {offset};"));
                load_f32(k, spec.types.c, p_true, addr, 0)
            }
            BiasRegs::Outer { value, .. } => Ok(*value),
        })
        .collect()
}

/// Reads the outer biases' values of the pass whose rows start `offset`
/// rows after the thread's first, where `p_row` holds (0 elsewhere).
pub(super) fn load_outer_biases(
    k: &mut Kernel,
    spec: &EpilogueFacts,
    biases: &[BiasRegs],
    offset: u32,
    p_row: Reg,
) -> Result<(), PtxError> {
    let size = spec.types.c.size_bytes();
    for bias in biases {
        if let BiasRegs::Outer { ptr, value } = bias {
            let loaded = load_f32(k, spec.types.c, p_row, *ptr, offset * size)?;
            k.push(format!("mov.f32 {value}, {loaded};"));
        }
    }
    Ok(())
}

/// Moves the outer biases' addresses `rows` rows on (the rolled pass loop
/// of the store reads them at immediate offsets from there).
pub(super) fn advance_outer_biases(
    k: &mut Kernel,
    spec: &EpilogueFacts,
    biases: &[BiasRegs],
    rows: u32,
) {
    let size = spec.types.c.size_bytes();
    for bias in biases {
        if let BiasRegs::Outer { ptr, .. } = bias {
            k.push(format!("add.u64 {ptr}, {ptr}, {};", rows * size));
        }
    }
}

/// `spec`'s epilogue at one element: the f32 result of the expression over
/// (`acc`, `c`, `bias`...) with scalars (`alpha`, `beta`, `extra`...). The
/// default linear combination is `mul` then `fma` (one rounding fewer than
/// the traced `acc*s0 + c*s1`). An i32 D computes in s32 instead
/// ([`integer_combination`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn apply(
    k: &mut Kernel,
    spec: &EpilogueFacts,
    acc: Reg,
    c: Reg,
    bias: &[Reg],
    alpha: Reg,
    beta: Reg,
    extra: &[Reg],
) -> Result<Reg, PtxError> {
    let epilogue = &spec.epilogue;
    if spec.types.d == ElementType::I32 {
        return integer_combination(k, spec, acc, Some((c, beta)), alpha);
    }
    if epilogue.is_linear_combination() {
        let out = k.reg(RegClass::F32);
        k.push(format!("mul.rn.f32 {out}, {acc}, {alpha};"));
        k.push(format!("fma.rn.f32 {out}, {c}, {beta}, {out};"));
        return Ok(out);
    }
    let f32v = |reg: Reg| Value {
        reg,
        ty: ElementType::F32,
    };
    let mut inputs = vec![f32v(acc), f32v(c)];
    inputs.extend(bias.iter().copied().map(f32v));
    inputs.truncate(epilogue.expression().arity());
    let mut scalars = vec![f32v(alpha), f32v(beta)];
    scalars.extend(extra.iter().copied().map(f32v));
    let options = EmitOptions::new(ElementType::F32, spec.arch);
    let value = epilogue
        .expression()
        .emit(k, &inputs, &scalars, &options)
        .map_err(|e| PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::from("sm80 epilogue"),
            reason: format!("epilogue `{epilogue}`: {e}"),
        })?;
    Ok(value.reg)
}

/// [`apply`] where the epilogue reads no C (beta = 0): the default linear
/// combination is alpha · acc alone, as CUTLASS's `LinearCombination`
/// computes it when the source is not needed (one `mul` instead of `mul`
/// and `fma` for each element: 0.2-0.4% of an H100 GEMM at bf16 4096³,
/// BENCHMARKS.md; a -0 product stays -0, which adding 0 · beta made +0);
/// any other expression is applied with C as `zero` (+0).
#[allow(clippy::too_many_arguments)]
pub(super) fn apply_without_source(
    k: &mut Kernel,
    spec: &EpilogueFacts,
    acc: Reg,
    zero: Reg,
    bias: &[Reg],
    alpha: Reg,
    beta: Reg,
    extra: &[Reg],
) -> Result<Reg, PtxError> {
    if spec.types.d == ElementType::I32 {
        return integer_combination(k, spec, acc, None, alpha);
    }
    if spec.epilogue.is_linear_combination() {
        let out = k.reg(RegClass::F32);
        k.push(format!("mul.rn.f32 {out}, {acc}, {alpha};"));
        return Ok(out);
    }
    apply(k, spec, acc, zero, bias, alpha, beta, extra)
}

/// The epilogue of an i32 D (s8/u8 inputs): `alpha · acc + beta · c` in
/// s32 arithmetic, wrapping as cuBLAS's `CUBLAS_COMPUTE_32I` does, with
/// `source` = (C's 32 bits, beta) or `None` where beta is 0. Alpha and beta
/// arrive as f32 parameters holding whole numbers (the launcher checks
/// them: `check_integer_scalars`), converted here. Only the linear
/// combination computes in integers; the rules refuse any other epilogue
/// with an i32 D.
fn integer_combination(
    k: &mut Kernel,
    spec: &EpilogueFacts,
    acc: Reg,
    source: Option<(Reg, Reg)>,
    alpha: Reg,
) -> Result<Reg, PtxError> {
    if !spec.epilogue.is_linear_combination() {
        return Err(PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::from("integer epilogue"),
            reason: format!(
                "epilogue `{}` with an i32 D: expected the linear combination (an i32 D computes in s32)",
                spec.epilogue
            ),
        });
    }
    let (a, scale, out) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
    );
    k.push(format!("mov.b32 {a}, {acc};"));
    k.push(format!("cvt.rzi.s32.f32 {scale}, {alpha};"));
    k.push(format!("mul.lo.s32 {out}, {a}, {scale};"));
    if let Some((c, beta)) = source {
        let (cv, b) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("mov.b32 {cv}, {c};"));
        k.push(format!("cvt.rzi.s32.f32 {b}, {beta};"));
        k.push(format!("mad.lo.s32 {out}, {cv}, {b}, {out};"));
    }
    Ok(out)
}

/// Emits `word = {lo, hi}` as D's 16-bit pair: `lo` (the lower column or
/// row) rounded into the low half, `hi` into the high half, by one
/// `cvt.rn.{bf16x2,f16x2}.f32` (sm_80 and later). `d` is BF16 or F16.
pub(super) fn emit_pack_pair(k: &mut Kernel, d: ElementType, word: Reg, lo: Reg, hi: Reg) {
    let ty = if d == ElementType::BF16 {
        "bf16x2"
    } else {
        "f16x2"
    };
    k.push(format!("cvt.rn.{ty}.f32 {word}, {hi}, {lo};"));
}
