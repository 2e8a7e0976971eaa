//! Universal copies: one vectorized load or store of 32, 64 or 128 bits by
//! one thread (CuTe's `UniversalCopy<uint32_t/uint64_t/uint128_t>`), on
//! every architecture.

use std::fmt;

use super::copy_atom::{CopyAtom, CopyTraits};
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

/// One load or store of `BITS` (32, 64 or 128) bits by one thread, between
/// `BITS / 32` `.b32` registers and memory aligned to `BITS / 8` bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UniversalCopy<const BITS: u32>;

/// The snippet (family, name, extra type hole) of a load or store.
fn snippet_of(bits: u32, space: MemorySpace, load: bool) -> (&'static str, &'static str, bool) {
    let (ld, st) = match (space, bits) {
        (MemorySpace::Global, 128) => (("ld_global_v4_b32", false), ("st_global_v4_b32", false)),
        (MemorySpace::Global, 64) => (("ld_global_v2_b32", false), ("st_global_v2_b32", false)),
        (MemorySpace::Global, _) => (("ld_global", true), ("st_global", true)),
        (MemorySpace::Shared, 128) => (("ld_shared_v4_b32", false), ("st_shared_v4_b32", false)),
        (MemorySpace::Shared, 64) => (("ld_shared_v2_b32", false), ("st_shared_v2_b32", false)),
        (MemorySpace::Shared, _) => (("ld_shared_b32", false), ("st_shared_b32", false)),
    };
    let family = match space {
        MemorySpace::Global => "common/global_memory",
        MemorySpace::Shared => "sm70/shared_memory",
    };
    let (name, typed) = if load { ld } else { st };
    (family, name, typed)
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
    /// `.b32` registers one copy moves.
    pub const REGS: usize = (BITS / 32) as usize;

    /// Writes a load of `BITS` bits at `addr` in `space` into `dst`
    /// (`BITS / 32` `.b32` registers).
    pub fn emit_load(
        k: &mut Kernel,
        space: MemorySpace,
        dst: &[Reg],
        addr: &dyn fmt::Display,
    ) -> Result<()> {
        Self::emit(k, space, true, dst, addr)
    }

    /// Writes a store of `src` (`BITS / 32` `.b32` registers) to `addr` in `space`.
    pub fn emit_store(
        k: &mut Kernel,
        space: MemorySpace,
        addr: &dyn fmt::Display,
        src: &[Reg],
    ) -> Result<()> {
        Self::emit(k, space, false, src, addr)
    }

    /// As [`emit_load`](Self::emit_load) from global memory, issued only
    /// where predicate `pred` holds (`dst` unchanged elsewhere). The
    /// predicated snippets are the 128- and 32-bit ones; other widths are an
    /// error.
    pub fn emit_load_predicated(
        k: &mut Kernel,
        pred: Reg,
        dst: &[Reg],
        addr: &dyn fmt::Display,
    ) -> Result<()> {
        Self::emit_predicated(k, pred, true, dst, addr)
    }

    /// As [`emit_store`](Self::emit_store) to global memory, issued only
    /// where predicate `pred` holds; 128 or 32 bits.
    pub fn emit_store_predicated(
        k: &mut Kernel,
        pred: Reg,
        addr: &dyn fmt::Display,
        src: &[Reg],
    ) -> Result<()> {
        Self::emit_predicated(k, pred, false, src, addr)
    }

    fn emit_predicated(
        k: &mut Kernel,
        pred: Reg,
        load: bool,
        regs: &[Reg],
        addr: &dyn fmt::Display,
    ) -> Result<()> {
        check_regs("universal copy predicate", &[pred], 1, RegClass::Pred)?;
        check_regs("universal copy registers", regs, Self::REGS, RegClass::B32)?;
        check_address(MemorySpace::Global, addr)?;
        let (name, prefix, typed) = match (BITS, load) {
            (128, true) => ("ld_global_v4_b32_pred", "d", false),
            (128, false) => ("st_global_v4_b32_pred", "s", false),
            (32, true) => ("ld_global_pred", "dst", true),
            (32, false) => ("st_global_pred", "src", true),
            _ => {
                return Err(crate::Error::invalid_argument(
                    "predicated universal copy",
                    format!("{BITS} bits"),
                    "128 or 32 bits",
                ))
            }
        };
        let ty = ".b32";
        let mut extra: Vec<(&str, &dyn fmt::Display)> = vec![("addr", addr), ("pred", &pred)];
        if typed {
            extra.push(("type", &ty));
        }
        emit_snippet(k, "common/global_memory", name, &[(prefix, regs)], &extra)
    }

    fn emit(
        k: &mut Kernel,
        space: MemorySpace,
        load: bool,
        regs: &[Reg],
        addr: &dyn fmt::Display,
    ) -> Result<()> {
        check_regs("universal copy registers", regs, Self::REGS, RegClass::B32)?;
        check_address(space, addr)?;
        let (family, name, typed) = snippet_of(BITS, space, load);
        let prefix = match (load, regs.len()) {
            (true, 1) => "dst",
            (false, 1) => "src",
            (true, _) => "d",
            (false, _) => "s",
        };
        let ty = ".b32";
        let mut extra: Vec<(&str, &dyn fmt::Display)> = vec![("addr", addr)];
        if typed {
            extra.push(("type", &ty));
        }
        emit_snippet(k, family, name, &[(prefix, regs)], &extra)
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

universal_copy!(32, Universal32, "(1,32):(0,1)");
universal_copy!(64, Universal64, "(1,64):(0,1)");
universal_copy!(128, Universal128, "(1,128):(0,1)");
