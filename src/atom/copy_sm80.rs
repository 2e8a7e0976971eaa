//! SM80 asynchronous copies: `cp.async.cg` of 16 bytes with zero-fill, as
//! CuTe's `copy_traits_sm80.hpp` describes `SM80_CP_ASYNC_CACHEGLOBAL_ZFILL`.
#![allow(non_camel_case_types)]

use std::fmt;

use super::copy_atom::{CopyAtom, CopyTraits};
use super::emit::check_regs;
use super::mma_atom::fixed;
use crate::arch::ArchKind;
use crate::layout::Layout;
use crate::ptx::{Kernel, Reg, RegClass};
use crate::Result;

/// 16 bytes from global to shared memory by one thread, bypassing L1
/// (`cp.async.cg.shared.global [dst], [src], 16, src_size;`). Bytes past
/// `src_size` (0 or 16) are written as zeros: the predicated load of a
/// ragged tile. Both addresses are 16-byte aligned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SM80_CP_ASYNC_CACHEGLOBAL_ZFILL;

impl SM80_CP_ASYNC_CACHEGLOBAL_ZFILL {
    /// Bytes one instruction copies.
    pub const BYTES: i64 = 16;

    /// Writes the copy: `dst` a shared-window address (a `.b32` register,
    /// or `reg+imm` text), `src` a `.b64` global address, `src_size` the
    /// bytes to read (a `.b32` register or `16`/`0`).
    pub fn emit(
        k: &mut Kernel,
        dst: &dyn fmt::Display,
        src: Reg,
        src_size: &dyn fmt::Display,
    ) -> Result<()> {
        check_regs("cp.async src", &[src], 1, RegClass::B64)?;
        k.snippet(
            "sm80/cp_async",
            "cp_async_16_zfill",
            &[("dst", dst), ("src", &src), ("src_size", src_size)],
        )?;
        Ok(())
    }

    /// As [`emit`](Self::emit), guarded by predicate register `pred`: the
    /// copy is issued only where `pred` holds.
    pub fn emit_predicated(
        k: &mut Kernel,
        pred: Reg,
        dst: &dyn fmt::Display,
        src: Reg,
        src_size: &dyn fmt::Display,
    ) -> Result<()> {
        check_regs("cp.async pred", &[pred], 1, RegClass::Pred)?;
        check_regs("cp.async src", &[src], 1, RegClass::B64)?;
        k.snippet(
            "sm80/cp_async",
            "cp_async_16_zfill_pred",
            &[
                ("pred", &pred),
                ("dst", dst),
                ("src", &src),
                ("src_size", src_size),
            ],
        )?;
        Ok(())
    }

    /// As [`emit_predicated`](Self::emit_predicated) from global address
    /// `src + src_offset` bytes (`[src+offset]`, or `[src]` when the
    /// offset is 0).
    pub fn emit_predicated_at(
        k: &mut Kernel,
        pred: Reg,
        dst: &dyn fmt::Display,
        (src, src_offset): (Reg, u32),
        src_size: &dyn fmt::Display,
    ) -> Result<()> {
        if src_offset == 0 {
            return Self::emit_predicated(k, pred, dst, src, src_size);
        }
        check_regs("cp.async pred", &[pred], 1, RegClass::Pred)?;
        check_regs("cp.async src", &[src], 1, RegClass::B64)?;
        let at = format!("{src}+{src_offset}");
        k.snippet(
            "sm80/cp_async",
            "cp_async_16_zfill_pred",
            &[
                ("pred", &pred),
                ("dst", dst),
                ("src", &at),
                ("src_size", src_size),
            ],
        )?;
        Ok(())
    }

    /// Writes `cp.async.commit_group;`.
    pub fn emit_commit(k: &mut Kernel) -> Result<()> {
        k.snippet("sm80/cp_async", "cp_async_commit", &[])?;
        Ok(())
    }

    /// Writes `cp.async.wait_group pending;`.
    pub fn emit_wait(k: &mut Kernel, pending: u32) -> Result<()> {
        k.snippet("sm80/cp_async", "cp_async_wait", &[("pending", &pending)])?;
        Ok(())
    }
}

impl CopyTraits for SM80_CP_ASYNC_CACHEGLOBAL_ZFILL {
    const ATOM: CopyAtom = CopyAtom::Sm80CpAsyncCacheGlobalZfill;
    const NAME: &'static str = "SM80_CP_ASYNC_CACHEGLOBAL_ZFILL";
    const MIN_ARCH: ArchKind = ArchKind::Sm80;
    fn thr_id() -> Layout {
        fixed("1:0")
    }
    fn src_layout() -> Layout {
        fixed("(1,128):(0,1)")
    }
    fn dst_layout() -> Layout {
        fixed("(1,128):(0,1)")
    }
}
