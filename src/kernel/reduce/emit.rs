//! PTX pieces both reduction kernels share: loading a vector of elements,
//! mapping each element to f32 (the expression hook), combining partial
//! results, the block-wide tree and the final store.

use super::{ReduceOp, ReduceSpec};
use crate::arch::ArchKind;
use crate::fusion::{EmitOptions, Value};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass, SharedVar};
use crate::Result;

/// What element code needs while a kernel is generated: the spec and the
/// registers of the map's runtime scalars (f32 params).
pub(super) struct Ctx<'a> {
    pub spec: &'a ReduceSpec,
    pub scalars: Vec<Value>,
}

/// One element as loaded: its register (`.f32` for f32, `.b16` for f16 and
/// bf16) and its storage type.
#[derive(Clone, Copy, Debug)]
pub(super) struct Loaded {
    pub reg: Reg,
    pub ty: ElementType,
}

/// Size in bytes of one element of `ty`, as a shift.
pub(super) fn size_shift(ty: ElementType) -> u32 {
    ty.size_bytes().trailing_zeros()
}

/// Loads `bytes` (2, 4, 8 or 16) at global `addr` and splits them into
/// elements of `ty`; `pred` makes the load conditional (the registers keep
/// whatever they held when it is false); `hint` goes after
/// `ld.global.nc` (e.g. `.L2::256B`, or empty).
pub(super) fn load_elements(
    k: &mut Kernel,
    addr: Reg,
    bytes: u32,
    ty: ElementType,
    pred: Option<Reg>,
    hint: &str,
) -> Result<Vec<Loaded>> {
    let guard = pred.map(|p| format!("@{p} ")).unwrap_or_default();
    if bytes == ty.size_bytes() {
        let class = RegClass::for_element(ty);
        let reg = k.reg(class);
        let ptx_ty = if class == RegClass::F32 {
            ".f32"
        } else {
            ".b16"
        };
        k.push(format!(
            "{guard}ld.global.nc{hint}{ptx_ty} {reg}, [{addr}];"
        ));
        return Ok(vec![Loaded { reg, ty }]);
    }
    let words = k.regs(RegClass::B32, (bytes / 4) as usize);
    let list = words
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    match words.len() {
        1 => k.push(format!("{guard}ld.global.nc{hint}.b32 {list}, [{addr}];")),
        2 | 4 => k.push(format!(
            "{guard}ld.global.nc{hint}.v{}.b32 {{{list}}}, [{addr}];",
            words.len()
        )),
        _ => {
            return Err(PtxError::UnsupportedElement {
                kernel: "reduce",
                element: format!("a {bytes}-byte vector of {ty}"),
                supported: "vectors of 2, 4, 8 or 16 bytes",
            }
            .into())
        }
    }
    let mut out = Vec::new();
    for word in words {
        if ty == ElementType::F32 {
            let reg = k.reg(RegClass::F32);
            k.push(format!("mov.b32 {reg}, {word};"));
            out.push(Loaded { reg, ty });
        } else {
            let (lo, hi) = (k.reg(RegClass::B16), k.reg(RegClass::B16));
            k.push(format!("mov.b32 {{{lo}, {hi}}}, {word};"));
            out.push(Loaded { reg: lo, ty });
            out.push(Loaded { reg: hi, ty });
        }
    }
    Ok(out)
}

/// The value the reduction accumulates for one loaded element, in an
/// `.f32` register: `map(x)` computed in f32 when the spec has a map, else
/// the element itself, converted exactly to f32.
pub(super) fn map_element(k: &mut Kernel, cx: &Ctx<'_>, x: Loaded) -> Result<Reg> {
    if let Some(map) = &cx.spec.map {
        let input = Value {
            reg: x.reg,
            ty: x.ty,
        };
        let options = EmitOptions::new(ElementType::F32, cx.spec.arch);
        let value = map.emit(k, &[input], &cx.scalars, &options)?;
        return Ok(value.reg);
    }
    let dst = k.reg(RegClass::F32);
    match x.ty {
        ElementType::F32 => k.mov(dst, x.reg),
        ElementType::F16 => k.snippet(
            "common/reduce",
            "f16_to_f32",
            &[("dst", &dst), ("src", &x.reg)],
        )?,
        _ => k.snippet(
            "common/reduce",
            "bf16_to_f32",
            &[("dst", &dst), ("src", &x.reg)],
        )?,
    }
    Ok(dst)
}

/// `dst = combine(a, b)` for `op` (sum and mean add; max and min propagate NaN).
pub(super) fn combine(k: &mut Kernel, op: ReduceOp, dst: Reg, a: Reg, b: Reg) -> Result<()> {
    let name = match op {
        ReduceOp::Sum | ReduceOp::Mean => "combine_sum",
        ReduceOp::Max => "combine_max",
        ReduceOp::Min => "combine_min",
    };
    k.snippet(
        "common/reduce",
        name,
        &[("dst", &dst), ("a", &a), ("b", &b)],
    )?;
    Ok(())
}

/// Fresh `.f32` registers set to `op`'s identity.
pub(super) fn identities(k: &mut Kernel, op: ReduceOp, count: usize) -> Vec<Reg> {
    let regs = k.regs(RegClass::F32, count);
    for &reg in &regs {
        k.mov(reg, op.identity_ptx());
    }
    regs
}

/// Combines `values` pairwise, as a balanced tree, into `values[0]`.
pub(super) fn tree(k: &mut Kernel, op: ReduceOp, values: &[Reg]) -> Result<Reg> {
    let mut level = values.to_vec();
    while level.len() > 1 {
        let mut next = Vec::with_capacity(level.len().div_ceil(2));
        for pair in level.chunks(2) {
            if let [a, b] = pair {
                combine(k, op, *a, *a, *b)?;
            }
            next.push(pair[0]);
        }
        level = next;
    }
    Ok(level[0])
}

/// `acc = combine over the lanes (laneid ^ m)` for m = `width`/2 .. 1: after
/// it, every lane of each aligned group of `width` lanes holds the group's
/// result (a butterfly: the same order on every lane, so it is deterministic).
pub(super) fn butterfly(k: &mut Kernel, op: ReduceOp, acc: Reg, width: u32) -> Result<()> {
    k.butterfly(acc, width, |k, other| combine(k, op, acc, acc, other))
}

/// Stores the `.f32` result `value` at global `addr`: divided by `count`
/// first for a finishing mean, then converted to the spec's output type.
pub(super) fn store_result(
    k: &mut Kernel,
    spec: &ReduceSpec,
    value: Reg,
    count: Reg,
    addr: Reg,
    pred: Option<Reg>,
) -> Result<()> {
    let guard = pred.map(|p| format!("@{p} ")).unwrap_or_default();
    if spec.finish && spec.op == ReduceOp::Mean {
        k.push(format!("div.rn.f32 {value}, {value}, {count};"));
    }
    match spec.written_type() {
        ElementType::F32 => k.push(format!("{guard}st.global.f32 [{addr}], {value};")),
        ty => {
            let half = k.reg(RegClass::B16);
            let name = match (ty, spec.arch) {
                (ElementType::F16, _) => "f32_to_f16",
                (_, ArchKind::Sm70) => "f32_to_bf16_sm70",
                _ => "f32_to_bf16_sm80",
            };
            k.snippet("common/reduce", name, &[("dst", &half), ("src", &value)])?;
            k.push(format!("{guard}st.global.b16 [{addr}], {half};"));
        }
    }
    Ok(())
}

/// The shared-window address `base + index * 4` of an f32 slot in `smem`.
pub(super) fn smem_slot(k: &mut Kernel, smem: &SharedVar, index: Reg) -> Reg {
    let addr = k.reg(RegClass::B32);
    k.push(format!("mov.u32 {addr}, {smem};"));
    k.push(format!("mad.lo.u32 {addr}, {index}, 4, {addr};"));
    addr
}
