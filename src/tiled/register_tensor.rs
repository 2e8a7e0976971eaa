//! [`RegisterTensor`]: a thread's register fragment (accumulators, an A or
//! B fragment) as a tensor: its registers and a layout from the fragment's
//! logical coordinate to a value slot, so that the part that reads the
//! fragment uses the layout the part that wrote it chose.

use crate::layout::Layout;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Reg, RegClass};
use crate::{Error, Result};

/// Bits of one register a fragment's values pack into.
const REG_BITS: u32 = 32;

/// Registers holding values of one element type, and a layout from the
/// logical coordinate (CuTe's fragment shape, e.g. `(FrgV, RestM, RestN)`,
/// indexed column-major) to a value slot: slot `s` lives in register
/// `s / per_reg` at bits `(s % per_reg) * bits`, the lower slot in the low
/// bits (as the atoms' registers hold values; `per_reg` is 2 for 16-bit
/// types, else 1).
///
/// ```
/// use cutlet::layout::Layout;
/// use cutlet::numeric::ElementType;
/// use cutlet::ptx::{Kernel, RegClass};
/// use cutlet::tiled::RegisterTensor;
///
/// let mut k = Kernel::new("example").unwrap();
/// // (value, m tile, n tile) = (4, 2, 3) f16 accumulators, tiles row by row.
/// let layout: Layout = "(4,2,3):(1,12,4)".parse().unwrap();
/// let acc = RegisterTensor::allocate(&mut k, RegClass::B32, layout, ElementType::F16).unwrap();
/// assert_eq!(acc.regs().len(), 12);
/// // Value 1 of tile (1, 0): slot 13, the high half of register 6.
/// assert_eq!(acc.value(1 + 4 * 1), (acc.regs()[6], 1));
/// // The two registers of tile (0, 1).
/// assert_eq!(acc.atom_regs(&[0, 1]), acc.regs()[2..4].to_vec());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegisterTensor {
    regs: Vec<Reg>,
    layout: Layout,
    element: ElementType,
}

impl RegisterTensor {
    /// The tensor of `regs` holding `element` values at the slots `layout`
    /// gives; an error if a slot falls outside the registers.
    pub fn new(regs: Vec<Reg>, layout: Layout, element: ElementType) -> Result<RegisterTensor> {
        let per_reg = values_per_reg(element);
        let slots = regs.len() as i64 * per_reg;
        if layout.cosize() > slots {
            return Err(Error::invalid_argument(
                "register tensor layout",
                &layout,
                format!(
                    "slots within {} registers of {per_reg} {element} values",
                    regs.len()
                ),
            ));
        }
        Ok(RegisterTensor {
            regs,
            layout,
            element,
        })
    }

    /// Allocates, in order, the registers of class `class` that `layout`'s
    /// slots of `element` values need, and makes the tensor of them.
    pub fn allocate(
        k: &mut Kernel,
        class: RegClass,
        layout: Layout,
        element: ElementType,
    ) -> Result<RegisterTensor> {
        let per_reg = values_per_reg(element);
        let count = (layout.cosize() + per_reg - 1) / per_reg;
        let regs = k.regs(class, usize::try_from(count).unwrap_or(0));
        RegisterTensor::new(regs, layout, element)
    }

    /// Every register, in allocation order.
    pub fn regs(&self) -> &[Reg] {
        &self.regs
    }

    /// Logical coordinate -> value slot.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The values' element type.
    pub fn element(&self) -> ElementType {
        self.element
    }

    /// Values one register holds.
    pub fn values_per_reg(&self) -> i64 {
        values_per_reg(self.element)
    }

    /// The size of each top-level mode of the logical shape, e.g.
    /// `[FrgV, RestM, RestN]`.
    pub fn mode_sizes(&self) -> Vec<i64> {
        self.layout
            .shape()
            .modes()
            .iter()
            .map(|m| m.size())
            .collect()
    }

    /// The register and slot within it (0 for the low bits) of the value at
    /// logical index `i` (column-major over the shape).
    pub fn value(&self, i: i64) -> (Reg, u32) {
        let slot = self.layout.at(i);
        let per_reg = self.values_per_reg();
        (
            self.regs[(slot / per_reg) as usize],
            (slot % per_reg) as u32,
        )
    }

    /// The registers of one atom's values (mode 0 of the shape) at the
    /// coordinate `rest` of the other modes, each register once, in the
    /// order of its first value: the operand an MMA atom takes.
    pub fn atom_regs(&self, rest: &[i64]) -> Vec<Reg> {
        let sizes = self.mode_sizes();
        let (mut index, mut scale) = (0, sizes[0]);
        for (&c, &size) in rest.iter().zip(&sizes[1..]) {
            index += c * scale;
            scale *= size;
        }
        let mut regs: Vec<Reg> = Vec::new();
        for v in 0..sizes[0] {
            let (reg, _) = self.value(index + v);
            if !regs.contains(&reg) {
                regs.push(reg);
            }
        }
        regs
    }
}

/// Values of `element` one 32-bit register holds.
fn values_per_reg(element: ElementType) -> i64 {
    i64::from((REG_BITS / element.size_bits()).max(1))
}
