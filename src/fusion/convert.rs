//! [`emit_convert`]: converting a [`Value`] between element types in PTX.

use super::error::FusionError;
use super::Value;
use crate::arch::ArchKind;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, RegClass};

impl Value {
    /// A fresh register of the class `ty` lives in.
    pub fn fresh(k: &mut Kernel, ty: ElementType) -> Value {
        Value {
            reg: k.reg(RegClass::for_element(ty)),
            ty,
        }
    }

    /// An error unless the register's class is the one `ty` lives in.
    pub(crate) fn check(&self, what: impl FnOnce() -> String) -> Result<(), FusionError> {
        let expected = RegClass::for_element(self.ty);
        if self.reg.class() == expected {
            Ok(())
        } else {
            Err(FusionError::RegisterClass {
                what: what(),
                register: self.reg.to_string(),
                class: self.reg.class().ptx_type(),
                ty: self.ty,
                expected: expected.ptx_type(),
            })
        }
    }
}

/// Converts `v` to `to` with instructions every architecture has (bf16
/// through integer instructions: see [`emit_convert_for`] for `cvt` on
/// sm_80+). Rounding: to nearest even into a narrower float (`cvt.rn`),
/// toward zero with saturation into i32 (`cvt.rzi`, NaN gives 0), to nearest
/// even from integers into floats (`cvt.rn`). f64 to bf16 rounds once
/// (through round-to-odd f32). `v` itself is returned when the types match.
///
/// Sources: f16, bf16, f32, f64, i32, and i8, u8 (sign-/zero-extended in a
/// `.b32` register) and tf32 (f32 bits). Targets: f16, bf16, f32, f64, i32.
///
/// ```
/// use cutlet::fusion::{emit_convert, Value};
/// use cutlet::numeric::ElementType;
/// use cutlet::ptx::Kernel;
///
/// let mut k = Kernel::new("k").unwrap();
/// let x = Value::fresh(&mut k, ElementType::F16);
/// let y = emit_convert(&mut k, x, ElementType::F32).unwrap();
/// assert_eq!(y.ty, ElementType::F32);
/// assert!(k.emit().unwrap().contains("cvt.f32.f16 %f0, %rs0;"));
/// ```
pub fn emit_convert(k: &mut Kernel, v: Value, to: ElementType) -> Result<Value, FusionError> {
    convert(k, v, to, false)
}

/// As [`emit_convert`], using the bf16 `cvt` instructions where `arch` has
/// them (f32 to bf16: `cvt.rn.bf16.f32` on sm_80 and later).
pub fn emit_convert_for(
    k: &mut Kernel,
    v: Value,
    to: ElementType,
    arch: ArchKind,
) -> Result<Value, FusionError> {
    convert(k, v, to, arch >= ArchKind::Sm80)
}

fn convert(
    k: &mut Kernel,
    v: Value,
    to: ElementType,
    native_bf16: bool,
) -> Result<Value, FusionError> {
    use ElementType::{BF16, F16, F32, F64, I32, I8, TF32, U8};
    v.check(|| format!("converted value ({} to {to})", v.ty))?;
    let unsupported = FusionError::UnsupportedConversion { from: v.ty, to };
    if !matches!(to, F16 | BF16 | F32 | F64 | I32) {
        return Err(unsupported);
    }
    if v.ty == to {
        return Ok(v);
    }
    // i8/u8 arrive extended to 32 bits; tf32 is f32 bits.
    let v = match v.ty {
        I8 | U8 => Value {
            reg: v.reg,
            ty: I32,
        },
        TF32 => {
            let f = Value::fresh(k, F32);
            k.push(format!("mov.b32 {}, {};", f.reg, v.reg));
            f
        }
        _ => v,
    };
    if v.ty == to {
        return Ok(v);
    }
    // Exact widenings first, then one rounding.
    let via = match (v.ty, to) {
        (BF16, F32) | (F32, BF16) | (F16, F32 | F64) | (I32, F32 | F64) => None,
        (BF16 | F16, _) => Some(F32),
        (I32, _) => Some(F64),
        _ => None,
    };
    if let Some(via) = via {
        let wide = convert(k, v, via, native_bf16)?;
        return convert(k, wide, to, native_bf16);
    }
    if (v.ty, to) == (F64, BF16) {
        let odd = Value::fresh(k, F32);
        k.snippet(
            "common/convert",
            "f64_to_f32_odd",
            &[("dst", &odd.reg), ("src", &v.reg)],
        )?;
        return convert(k, odd, BF16, native_bf16);
    }
    let out = Value::fresh(k, to);
    let (d, s) = (out.reg, v.reg);
    match (v.ty, to) {
        (F16, F32) => k.push(format!("cvt.f32.f16 {d}, {s};")),
        (F16, F64) => k.push(format!("cvt.f64.f16 {d}, {s};")),
        (F32, F16) => k.push(format!("cvt.rn.f16.f32 {d}, {s};")),
        (F64, F16) => k.push(format!("cvt.rn.f16.f64 {d}, {s};")),
        (F32, F64) => k.push(format!("cvt.f64.f32 {d}, {s};")),
        (F64, F32) => k.push(format!("cvt.rn.f32.f64 {d}, {s};")),
        (BF16, F32) => k.snippet("common/convert", "bf16_to_f32", &[("dst", &d), ("src", &s)])?,
        (F32, BF16) if native_bf16 => k.push(format!("cvt.rn.bf16.f32 {d}, {s};")),
        (F32, BF16) => k.snippet(
            "common/convert",
            "f32_to_bf16_rn",
            &[("dst", &d), ("src", &s)],
        )?,
        (I32, F32) => k.push(format!("cvt.rn.f32.s32 {d}, {s};")),
        (I32, F64) => k.push(format!("cvt.rn.f64.s32 {d}, {s};")),
        (F32, I32) => k.push(format!("cvt.rzi.s32.f32 {d}, {s};")),
        (F64, I32) => k.push(format!("cvt.rzi.s32.f64 {d}, {s};")),
        _ => return Err(unsupported),
    }
    Ok(out)
}
