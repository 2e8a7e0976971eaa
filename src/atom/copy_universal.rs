//! Universal copies: one vectorized load or store of 8, 16, 32, 64 or 128 bits
//! by one thread (CuTe's `UniversalCopy<uint16_t/.../uint128_t>`), of words
//! or of a typed [`CopyValue`], on every architecture.

use std::fmt;

use super::copy_atom::{CopyAtom, CopyTraits};
use super::copy_value::CopyValue;
use super::emit::{check_regs, emit_snippet};
use super::mma_atom::fixed;
use crate::arch::ArchKind;
use crate::layout::Layout;
use crate::ptx::{Kernel, Reg, RegClass};
use crate::Result;

/// The state space a universal copy reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemorySpace {
    /// Global memory: a `.b64` global address (after `cvta.to.global`).
    Global,
    /// Shared memory: a `.b32` shared-window address, or `reg+imm` text.
    Shared,
}

/// One load or store of `BITS` (8, 16, 32, 64 or 128) bits by one thread,
/// between registers and memory aligned to `BITS / 8` bytes.
///
/// The plain methods move `.b32` words (`BITS / 32` `.b32` registers); the
/// `_typed` ones move values of a [`CopyValue`] (CuTe's
/// `Copy_Atom<UniversalCopy<S>, S>`): `BITS / value.bits()` registers of
/// its class, one value or a `.v2` / `.v4` vector of them, e.g.
/// `ld.shared.v4.f32` for `UniversalCopy<128>` at [`CopyValue::F32`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UniversalCopy<const BITS: u32>;

/// The snippet family of the accesses to `space`.
fn family_of(space: MemorySpace) -> &'static str {
    match space {
        MemorySpace::Global => "common/global_memory",
        MemorySpace::Shared => "sm70/shared_memory",
    }
}

/// The typed snippet of an access: `ld_shared_v2`, `st_global_pred`, ...
fn snippet_of(space: MemorySpace, values: usize, load: bool, predicated: bool) -> String {
    let op = if load { "ld" } else { "st" };
    let space = match space {
        MemorySpace::Global => "global",
        MemorySpace::Shared => "shared",
    };
    let vector = match values {
        1 => String::new(),
        n => format!("_v{n}"),
    };
    let pred = if predicated { "_pred" } else { "" };
    format!("{op}_{space}{vector}{pred}")
}

fn check_address(space: MemorySpace, addr: &dyn fmt::Display) -> Result<()> {
    let text = addr.to_string();
    let global = text.starts_with("%rd");
    if (space == MemorySpace::Global) != global {
        let expected = match space {
            MemorySpace::Global => "a .b64 global address register (%rd)",
            MemorySpace::Shared => "a .b32 shared-window address (%r, or a shared variable)",
        };
        return Err(crate::Error::invalid_argument(
            "copy address",
            text,
            expected,
        ));
    }
    Ok(())
}

impl<const BITS: u32> UniversalCopy<BITS> {
    /// `.b32` registers one copy of words moves (0 for `UniversalCopy<16>`,
    /// which moves one 16-bit value only).
    pub const REGS: usize = (BITS / 32) as usize;

    /// Values of type `value` one copy moves (the registers it takes): 1,
    /// 2 or 4; an error if `BITS` is not one of those counts of `value`.
    pub fn values(value: CopyValue) -> Result<usize> {
        let count = BITS / value.bits();
        if !BITS.is_multiple_of(value.bits()) || ![1, 2, 4].contains(&count) {
            return Err(crate::Error::invalid_argument(
                "universal copy value type",
                format!("{} in {BITS} bits", value.ptx_type()),
                "a type of which the copy holds 1, 2 or 4 values",
            ));
        }
        Ok(count as usize)
    }

    /// Writes a load of `BITS` bits at `addr` in `space` into `dst`
    /// (`BITS / 32` `.b32` registers).
    pub fn emit_load(
        k: &mut Kernel,
        space: MemorySpace,
        dst: &[Reg],
        addr: &dyn fmt::Display,
    ) -> Result<()> {
        Self::emit_load_typed(k, space, CopyValue::B32, dst, addr)
    }

    /// Writes a store of `src` (`BITS / 32` `.b32` registers) to `addr` in `space`.
    pub fn emit_store(
        k: &mut Kernel,
        space: MemorySpace,
        addr: &dyn fmt::Display,
        src: &[Reg],
    ) -> Result<()> {
        Self::emit_store_typed(k, space, CopyValue::B32, addr, src)
    }

    /// As [`emit_load`](Self::emit_load) from global memory, issued only
    /// where predicate `pred` holds (`dst` unchanged elsewhere).
    pub fn emit_load_predicated(
        k: &mut Kernel,
        pred: Reg,
        dst: &[Reg],
        addr: &dyn fmt::Display,
    ) -> Result<()> {
        Self::emit_load_predicated_typed(k, CopyValue::B32, pred, dst, addr)
    }

    /// As [`emit_store`](Self::emit_store) to global memory, issued only
    /// where predicate `pred` holds.
    pub fn emit_store_predicated(
        k: &mut Kernel,
        pred: Reg,
        addr: &dyn fmt::Display,
        src: &[Reg],
    ) -> Result<()> {
        Self::emit_store_predicated_typed(k, CopyValue::B32, pred, addr, src)
    }

    /// Writes a load of `BITS` bits at `addr` in `space` into `dst`:
    /// [`values`](Self::values)`(value)` registers of `value`'s class.
    pub fn emit_load_typed(
        k: &mut Kernel,
        space: MemorySpace,
        value: CopyValue,
        dst: &[Reg],
        addr: &dyn fmt::Display,
    ) -> Result<()> {
        Self::emit(k, (space, value, None), true, dst, addr)
    }

    /// Writes a store of `src` ([`values`](Self::values)`(value)` registers
    /// of `value`'s class) to `addr` in `space`.
    pub fn emit_store_typed(
        k: &mut Kernel,
        space: MemorySpace,
        value: CopyValue,
        addr: &dyn fmt::Display,
        src: &[Reg],
    ) -> Result<()> {
        Self::emit(k, (space, value, None), false, src, addr)
    }

    /// As [`emit_load_typed`](Self::emit_load_typed) from global memory,
    /// issued only where predicate `pred` holds (`dst` unchanged elsewhere).
    pub fn emit_load_predicated_typed(
        k: &mut Kernel,
        value: CopyValue,
        pred: Reg,
        dst: &[Reg],
        addr: &dyn fmt::Display,
    ) -> Result<()> {
        Self::emit(k, (MemorySpace::Global, value, Some(pred)), true, dst, addr)
    }

    /// As [`emit_store_typed`](Self::emit_store_typed) to global memory,
    /// issued only where predicate `pred` holds.
    pub fn emit_store_predicated_typed(
        k: &mut Kernel,
        value: CopyValue,
        pred: Reg,
        addr: &dyn fmt::Display,
        src: &[Reg],
    ) -> Result<()> {
        Self::emit(
            k,
            (MemorySpace::Global, value, Some(pred)),
            false,
            src,
            addr,
        )
    }

    /// Checks the operands and instantiates the typed snippet of the access.
    fn emit(
        k: &mut Kernel,
        (space, value, pred): (MemorySpace, CopyValue, Option<Reg>),
        load: bool,
        regs: &[Reg],
        addr: &dyn fmt::Display,
    ) -> Result<()> {
        if let Some(pred) = pred {
            check_regs("universal copy predicate", &[pred], 1, RegClass::Pred)?;
        }
        let count = Self::values(value)?;
        check_regs("universal copy registers", regs, count, value.reg_class())?;
        check_address(space, addr)?;
        let prefix = match (load, count) {
            (true, 1) => "dst",
            (false, 1) => "src",
            (true, _) => "d",
            (false, _) => "s",
        };
        let ty = value.ptx_type();
        let mut extra: Vec<(&str, &dyn fmt::Display)> = vec![("addr", addr), ("type", &ty)];
        if let Some(pred) = &pred {
            extra.push(("pred", pred));
        }
        let name = snippet_of(space, count, load, pred.is_some());
        emit_snippet(k, family_of(space), &name, &[(prefix, regs)], &extra)
    }
}

macro_rules! universal_copy {
    ($bits:literal, $atom:ident, $layout:literal) => {
        impl CopyTraits for UniversalCopy<$bits> {
            const ATOM: CopyAtom = CopyAtom::$atom;
            const NAME: &'static str = concat!("UniversalCopy<uint", stringify!($bits), "_t>");
            const MIN_ARCH: ArchKind = ArchKind::Sm70;
            fn thr_id() -> Layout {
                fixed("1:0")
            }
            fn src_layout() -> Layout {
                fixed($layout)
            }
            fn dst_layout() -> Layout {
                fixed($layout)
            }
        }
    };
}

universal_copy!(16, Universal16, "(1,16):(0,1)");
universal_copy!(32, Universal32, "(1,32):(0,1)");
universal_copy!(64, Universal64, "(1,64):(0,1)");
universal_copy!(128, Universal128, "(1,128):(0,1)");
