//! D's output quantization in the register-store epilogue
//! ([`OutputQuantization`](crate::gemm::OutputQuantization)): each
//! result's magnitude folded into the thread's running amax, the output
//! scale, the warp's amax into the device scalar at the end of the tile,
//! and the FP8 stores.
//!
//! The running amax is the f32 bits of `|r|` in a `.b32` register: a
//! non-negative f32 orders as its bits do as unsigned integers (NaN, with
//! its sign cleared, above infinity), so `max.u32` keeps the largest
//! magnitude and a NaN result makes the amax NaN, and the warp's value goes
//! to global memory with one `red.global.max.u32` (PTX ISA 9.7.13.6), onto
//! the 0 the launcher writes before the kernel.

use super::epilogue_error;
use crate::atom::{CopyValue, UniversalCopy};
use crate::gemm::OutputMajor;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// A thread's running amax (`.b32`, the bits of `|r|`), 0 at the start.
pub(super) fn emit_amax_start(k: &mut Kernel) -> Reg {
    let amax = k.reg(RegClass::B32);
    k.push(format!("mov.b32 {amax}, 0;"));
    amax
}

/// Result `value` (`.f32`) as D's conversion takes it: `|value|` folded
/// into `amax` where `inside` holds (the element lies in D), then the
/// product with `scale` where there is one.
pub(super) fn emit_output_value(
    k: &mut Kernel,
    value: Reg,
    inside: Reg,
    amax: Option<Reg>,
    scale: Option<Reg>,
) -> Reg {
    if let Some(amax) = amax {
        let (magnitude, bits) = (k.reg(RegClass::F32), k.reg(RegClass::B32));
        k.push(format!("abs.f32 {magnitude}, {value};"));
        k.push(format!("mov.b32 {bits}, {magnitude};"));
        k.push(format!("@{inside} max.u32 {amax}, {amax}, {bits};"));
    }
    match scale {
        Some(scale) => {
            let scaled = k.reg(RegClass::F32);
            k.push(format!("mul.f32 {scaled}, {value}, {scale};"));
            scaled
        }
        None => value,
    }
}

/// The warp's amax (a butterfly of `max.u32` over the lanes' `amax`) into
/// `[address]` by lane 0 (`tid` is `%tid.x`).
pub(super) fn emit_amax_flush(
    k: &mut Kernel,
    amax: Reg,
    address: Reg,
    tid: Reg,
) -> Result<(), PtxError> {
    k.butterfly(amax, 32, |k, other| {
        k.push(format!("max.u32 {amax}, {amax}, {other};"));
        Ok::<(), PtxError>(())
    })?;
    let (lane, first) = (k.reg(RegClass::B32), k.reg(RegClass::Pred));
    k.push(format!("and.b32 {lane}, {tid}, 31;"));
    k.push(format!("setp.eq.u32 {first}, {lane}, 0;"));
    k.push(format!("@{first} red.global.max.u32 [{address}], {amax};"));
    Ok(())
}

/// Stores the values (`.f32`, already scaled) of one group of an FP8 D at
/// `at`, saturating to the type's largest finite value
/// (`cvt.rn.satfinite.{e4m3,e5m2}x2.f32`, PTX ISA 9.7.9.21): a column pair
/// of row-major D as one 16-bit store where both lie inside N (`preds`),
/// else its first byte alone; one byte of column-major D.
pub(super) fn emit_store_fp8(
    k: &mut Kernel,
    d: ElementType,
    major: OutputMajor,
    at: &str,
    preds: &[Reg],
    values: &[Reg],
) -> Result<(), PtxError> {
    let ty = match d {
        ElementType::F8E4M3 => "e4m3x2",
        ElementType::F8E5M2 => "e5m2x2",
        other => {
            return Err(epilogue_error(crate::Error::invalid_argument(
                "D element type of the FP8 store",
                other.name(),
                "e4m3 or e5m2",
            )))
        }
    };
    // The first value goes to the low byte (the lower address): cvt puts
    // its first source in the upper half.
    let pair = k.reg(RegClass::B16);
    let upper = values.get(1).copied().unwrap_or(values[0]);
    k.push(format!(
        "cvt.rn.satfinite.{ty}.f32 {pair}, {upper}, {};",
        values[0]
    ));
    if major == OutputMajor::M {
        return UniversalCopy::<8>::emit_store_predicated_typed(
            k,
            CopyValue::U8,
            preds[0],
            &at,
            &[pair],
        )
        .map_err(epilogue_error);
    }
    let (both, single) = (k.reg(RegClass::Pred), k.reg(RegClass::Pred));
    k.push(format!("and.pred {both}, {}, {};", preds[0], preds[1]));
    k.push(format!("not.pred {single}, {both};"));
    k.push(format!("and.pred {single}, {single}, {};", preds[0]));
    UniversalCopy::<16>::emit_store_predicated_typed(k, CopyValue::B16, both, &at, &[pair])
        .map_err(epilogue_error)?;
    UniversalCopy::<8>::emit_store_predicated_typed(k, CopyValue::U8, single, &at, &[pair])
        .map_err(epilogue_error)
}
