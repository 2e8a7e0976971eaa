//! PTX that evaluates a layout at a run-time index.

use crate::layout::{Layout, Swizzle};
use crate::ptx::{Kernel, Reg, RegClass};
use crate::{Error, Result};

/// Emits the PTX computing `layout(index)` for a run-time `.b32` `index`
/// (e.g. `%tid.x`) and returns the `.b32` register holding it.
///
/// Each flat mode `(s, d)` contributes `((index / prefix) % s) * d`, where
/// `prefix` is the product of the shapes before it; the last mode takes no
/// `% s` (CuTe's `idx2crd`: an index past the size runs on in the last mode).
/// Powers of two become shifts and masks, modes of size 1 or stride 0 emit
/// nothing. Everything is 32-bit signed arithmetic: the layout's values must
/// fit in `i32`.
///
/// ```
/// use cutlet::layout::Layout;
/// use cutlet::ptx::{Kernel, RegClass, SpecialReg};
/// use cutlet::tiled::emit_layout_offset;
///
/// let mut k = Kernel::new("k").unwrap();
/// let tid = k.special(SpecialReg::TidX);
/// let layout: Layout = "(4,8):(2,64)".parse().unwrap();
/// let offset = emit_layout_offset(&mut k, &layout, tid).unwrap();
/// let text = k.emit().unwrap();
/// assert!(text.contains("and.b32"));
/// assert!(text.contains("shr.u32"));
/// assert_eq!(offset.class(), RegClass::B32);
/// ```
pub fn emit_layout_offset(k: &mut Kernel, layout: &Layout, index: Reg) -> Result<Reg> {
    if index.class() != RegClass::B32 {
        return Err(Error::invalid_argument(
            "layout index register",
            format!("{index} of class {}", index.class()),
            "a .b32 register",
        ));
    }
    let shapes = layout.shape().flatten();
    let strides = layout.stride().flatten();
    let fits = |v: i64| i32::try_from(v).is_ok();
    if !fits(layout.size()) || !strides.iter().all(|&d| fits(d)) || !fits(layout.cosize()) {
        return Err(Error::invalid_argument(
            "layout",
            layout,
            "sizes and strides that fit in 32-bit signed integers",
        ));
    }
    let acc = k.reg(RegClass::B32);
    k.push(format!("mov.b32 {acc}, 0;"));
    let last = shapes.len().saturating_sub(1);
    let mut prefix = 1i64;
    for (i, (&s, &d)) in shapes.iter().zip(&strides).enumerate() {
        if s != 1 && d != 0 {
            let crd = k.reg(RegClass::B32);
            k.div_u32_by_extent(crd, index, prefix);
            if i != last {
                k.rem_u32_by_extent(crd, crd, s);
            }
            k.push(format!("mad.lo.s32 {acc}, {crd}, {d}, {acc};"));
        }
        prefix *= s;
    }
    Ok(acc)
}

/// Applies `swizzle` to the `.b32` register `x` in place (`x ^= (x &
/// yyy_mask) >> shift`) and returns `x`; the identity emits nothing.
pub fn emit_swizzle(k: &mut Kernel, x: Reg, swizzle: Swizzle) -> Reg {
    if swizzle.bits() == 0 {
        return x;
    }
    let t = k.reg(RegClass::B32);
    k.push(format!("and.b32 {t}, {x}, {};", swizzle.yyy_mask()));
    let shift = swizzle.shift();
    if shift >= 0 {
        k.push(format!("shr.u32 {t}, {t}, {shift};"));
    } else {
        k.push(format!("shl.b32 {t}, {t}, {};", -shift));
    }
    k.push(format!("xor.b32 {x}, {x}, {t};"));
    x
}
