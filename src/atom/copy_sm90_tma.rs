//! SM90 TMA copies: one thread moves a whole box of a tensor between global
//! and shared memory through the Tensor Memory Accelerator, as a tensor map
//! (a `CUtensorMap`, encoded on the host by
//! [`TmaTiled::encode`](crate::device::TmaTiled::encode)) describes it.
//! CuTe's `copy_traits_sm90_tma.hpp` holds the metadata and
//! `arch/copy_sm90_tma.hpp` the instructions; here the instructions are the
//! snippets of `ptx/sm90/tma.ptx`.
//!
//! | step | who | emits |
//! |---|---|---|
//! | [`emit_tensor_map_address`] | any thread | `mov.b64` + `cvta.param.u64`: the generic address of a by-value map param |
//! | [`emit_prefetch_tensor_map`] | the issuing thread, once | `prefetch.tensormap [tmap]` |
//! | [`emit_tma_load`] | one thread (after `mbarrier.arrive.expect_tx` of the box bytes) | `cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes` |
//! | [`emit_tma_load_multicast`] | one thread of one CTA, for the CTAs of its mask | the same with `.multicast::cluster` and a 16-bit mask |
//! | [`emit_tma_store_fence`] | every thread that wrote the box with `st.shared` | `fence.proxy.async.shared::cta` (then a barrier) |
//! | [`emit_tma_store`] | one thread | `cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group` |
//! | [`emit_tma_store_arrive`], [`emit_tma_store_wait`] | the storing thread | `cp.async.bulk.commit_group`, `cp.async.bulk.wait_group.read N` |
//!
//! Coordinates are the box's first element per dimension, innermost first
//! (for a row-major M x K matrix: `{k, m}`), signed: a box reaching outside
//! the tensor loads zeros there (its bytes still count on the mbarrier) and
//! stores nothing there. The shared box is dense, innermost dimension
//! first, with the map's swizzle applied to the absolute shared address
//! (start 128-byte aligned; 1024 with the 128B swizzle, see
//! [`TmaSwizzle::shared_alignment`](crate::device::TmaSwizzle::shared_alignment)).
//! The store's commit, wait and fence are the bulk-copy snippets of
//! `ptx/sm90/bulk_copy.ptx` that [`PipelineTmaStore`](crate::pipeline::PipelineTmaStore)
//! also emits.
#![allow(non_camel_case_types)]

use std::fmt;

use super::emit::check_regs;
use crate::arch::ArchKind;
use crate::layout::{IntTuple, Layout};
use crate::ptx::{Kernel, Param, ParamType, Reg, RegClass};
use crate::{Error, Result};

/// The most dimensions a TMA box has.
pub const TMA_MAX_RANK: usize = 5;

/// The snippet family of the TMA instructions.
const FAMILY: &str = "sm90/tma";

/// One coordinate of a TMA box: a `.b32` register (read as `.s32`) or an
/// immediate. `Display` writes it as the instruction takes it.
///
/// ```
/// use cutlet::atom::Coord;
/// use cutlet::ptx::{Kernel, RegClass};
///
/// let mut k = Kernel::new("k").unwrap();
/// let m = k.reg(RegClass::B32);
/// assert_eq!(Coord::from(m).to_string(), "%r0");
/// assert_eq!(Coord::Imm(-8).to_string(), "-8");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coord {
    /// A `.b32` register holding the coordinate.
    Reg(Reg),
    /// A coordinate known when the kernel is generated.
    Imm(i32),
}

impl From<Reg> for Coord {
    fn from(reg: Reg) -> Coord {
        Coord::Reg(reg)
    }
}

impl From<i32> for Coord {
    fn from(value: i32) -> Coord {
        Coord::Imm(value)
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coord::Reg(reg) => reg.fmt(f),
            Coord::Imm(value) => value.fmt(f),
        }
    }
}

/// The coordinate list `c0, c1, ...` after checking its length (1..=5) and
/// that every register coordinate is a `.b32`.
fn coord_list(coords: &[Coord]) -> Result<String> {
    if coords.is_empty() || coords.len() > TMA_MAX_RANK {
        return Err(Error::invalid_argument(
            "TMA coordinates",
            format!("{} coordinates", coords.len()),
            format!("1 to {TMA_MAX_RANK}, one per dimension of the tensor map"),
        ));
    }
    let mut list = String::new();
    for (i, coord) in coords.iter().enumerate() {
        if let Coord::Reg(reg) = coord {
            check_regs(&format!("TMA coordinate {i}"), &[*reg], 1, RegClass::B32)?;
        }
        if i > 0 {
            list.push_str(", ");
        }
        list.push_str(&coord.to_string());
    }
    Ok(list)
}

/// The generic address of a by-value tensor-map param (declared with
/// [`ParamType::TENSOR_MAP`]) in a fresh `.b64` register:
/// `mov.b64 %rd, map; cvta.param.u64 %rd, %rd;` (PTX 7.7, what LLVM emits
/// for a `__grid_constant__ CUtensorMap`), through
/// [`Kernel::param_address`].
///
/// Errors: [`Error::InvalidArgument`] for a param of another type.
pub fn emit_tensor_map_address(k: &mut Kernel, param: &Param) -> Result<Reg> {
    if param.ty() != ParamType::TENSOR_MAP {
        return Err(Error::invalid_argument(
            format!("tensor map param `{}`", param.name()),
            format!("a param of type {}", param.ty()),
            format!("ParamType::TENSOR_MAP ({})", ParamType::TENSOR_MAP),
        ));
    }
    Ok(k.param_address(param)?)
}

/// `prefetch.tensormap [tmap];` (CuTe's `prefetch_tma_descriptor`): `tmap`
/// a `.b64` generic address of the map.
pub fn emit_prefetch_tensor_map(k: &mut Kernel, tmap: Reg) -> Result<()> {
    check_regs("tensor map address", &[tmap], 1, RegClass::B64)?;
    k.snippet(FAMILY, "prefetch_tensormap", &[("tmap", &tmap)])?;
    Ok(())
}

/// [`SM90_TMA_LOAD`]: one thread copies the box at `coords` (innermost
/// first, one per dimension of the map) of map `tmap` (`.b64` generic
/// address) into shared memory at `dst` (`.b32` shared-window address),
/// completing its bytes on the mbarrier at `mbar` (`.b32`).
///
/// Errors: [`Error::InvalidArgument`] for registers of the wrong class or
/// a coordinate count outside 1..=5.
pub fn emit_tma_load(
    k: &mut Kernel,
    dst: Reg,
    tmap: Reg,
    coords: &[Coord],
    mbar: Reg,
) -> Result<()> {
    check_regs("TMA load destination", &[dst], 1, RegClass::B32)?;
    check_regs("tensor map address", &[tmap], 1, RegClass::B64)?;
    check_regs("TMA load mbarrier", &[mbar], 1, RegClass::B32)?;
    let list = coord_list(coords)?;
    k.snippet(
        FAMILY,
        "tma_load",
        &[
            ("rank", &coords.len()),
            ("dst", &dst),
            ("tmap", &tmap),
            ("coords", &list),
            ("mbar", &mbar),
        ],
    )?;
    Ok(())
}

/// [`SM90_TMA_LOAD_MULTICAST`]: as [`emit_tma_load`], but the box lands at
/// shared offset `dst`, completing on the mbarrier at offset `mbar`, in
/// every CTA of the cluster whose `%cluster_ctarank` bit is set in `mask`
/// (a `.b16` register: the instruction's `ctaMask` is 16 bits). Each
/// receiving CTA's mbarrier must expect the bytes it receives.
///
/// Errors: [`Error::InvalidArgument`] for registers of the wrong class or
/// a coordinate count outside 1..=5.
pub fn emit_tma_load_multicast(
    k: &mut Kernel,
    dst: Reg,
    tmap: Reg,
    coords: &[Coord],
    mbar: Reg,
    mask: Reg,
) -> Result<()> {
    check_regs("TMA load destination", &[dst], 1, RegClass::B32)?;
    check_regs("tensor map address", &[tmap], 1, RegClass::B64)?;
    check_regs("TMA load mbarrier", &[mbar], 1, RegClass::B32)?;
    check_regs("TMA multicast mask", &[mask], 1, RegClass::B16)?;
    let list = coord_list(coords)?;
    k.snippet(
        FAMILY,
        "tma_load_multicast",
        &[
            ("rank", &coords.len()),
            ("dst", &dst),
            ("tmap", &tmap),
            ("coords", &list),
            ("mbar", &mbar),
            ("mask", &mask),
        ],
    )?;
    Ok(())
}

/// [`SM90_TMA_STORE`]: one thread copies the shared box at `src` (`.b32`
/// shared-window address) to the box at `coords` of map `tmap`, joining
/// this thread's open bulk async-group. The writers of `src` fence first
/// ([`emit_tma_store_fence`]) and meet the storing thread at a barrier.
///
/// Errors: [`Error::InvalidArgument`] for registers of the wrong class or
/// a coordinate count outside 1..=5.
pub fn emit_tma_store(k: &mut Kernel, tmap: Reg, coords: &[Coord], src: Reg) -> Result<()> {
    check_regs("tensor map address", &[tmap], 1, RegClass::B64)?;
    check_regs("TMA store source", &[src], 1, RegClass::B32)?;
    let list = coord_list(coords)?;
    k.snippet(
        FAMILY,
        "tma_store",
        &[
            ("rank", &coords.len()),
            ("tmap", &tmap),
            ("coords", &list),
            ("src", &src),
        ],
    )?;
    Ok(())
}

/// CuTe's `tma_store_fence`: `fence.proxy.async.shared::cta;`, by each
/// thread after its `st.shared` writes of a box a TMA store reads.
pub fn emit_tma_store_fence(k: &mut Kernel) -> Result<()> {
    k.snippet("sm90/bulk_copy", "fence_proxy_async_shared", &[])?;
    Ok(())
}

/// CuTe's `tma_store_arrive`: `cp.async.bulk.commit_group;`, closing the
/// storing thread's group of stores issued so far.
pub fn emit_tma_store_arrive(k: &mut Kernel) -> Result<()> {
    k.snippet("sm90/bulk_copy", "bulk_commit_group", &[])?;
    Ok(())
}

/// CuTe's `tma_store_wait<N>`: `cp.async.bulk.wait_group.read pending;`,
/// until at most `pending` of the storing thread's newest groups still
/// read shared memory (the older ones' boxes may be written again).
pub fn emit_tma_store_wait(k: &mut Kernel, pending: u32) -> Result<()> {
    k.snippet(
        "sm90/bulk_copy",
        "bulk_wait_group_read",
        &[("pending", &pending)],
    )?;
    Ok(())
}

/// `(1, bits):(0, 1)`: one thread moving `bits` bits, CuTe's TMA
/// `SrcLayout`/`DstLayout` with `NumBitsPerTMA = bits`.
fn one_thread_layout(box_bits: i64) -> Layout {
    Layout::from_parts(IntTuple::ints(&[1, box_bits]), IntTuple::ints(&[0, 1]))
}

macro_rules! tma_atom {
    ($(#[$doc:meta])* $name:ident, $snippet:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The CUTLASS name.
            pub const NAME: &'static str = stringify!($name);
            /// The oldest architecture with the instruction.
            pub const MIN_ARCH: ArchKind = ArchKind::Sm90;
            /// The `ptx/` family and snippet that emit the instruction.
            pub const SNIPPET: (&'static str, &'static str) = (FAMILY, $snippet);

            /// The threads that execute it together: one (`1:0`).
            pub fn thr_id() -> Layout {
                Layout::from_parts(IntTuple::Int(1), IntTuple::Int(0))
            }

            /// (thread, value) -> bit of the source for a box of
            /// `box_bits` bits: `(1,box_bits):(0,1)`, one thread moving
            /// the whole box (CuTe's `Copy_Traits<..., NumBitsPerTMA>`).
            ///
            /// ```
            #[doc = concat!("use cutlet::atom::", stringify!($name), ";")]
            ///
            /// // a 64 x 128 bf16 box
            #[doc = concat!("let layout = ", stringify!($name), "::src_layout(64 * 128 * 16);")]
            /// assert_eq!(layout.to_string(), "(1,131072):(0,1)");
            /// ```
            pub fn src_layout(box_bits: i64) -> Layout {
                one_thread_layout(box_bits)
            }

            /// (thread, value) -> bit of the destination for a box of
            /// `box_bits` bits: the same `(1,box_bits):(0,1)`.
            pub fn dst_layout(box_bits: i64) -> Layout {
                one_thread_layout(box_bits)
            }
        }
    };
}

tma_atom!(
    /// A TMA load, global -> shared, completing on an mbarrier
    /// ([`emit_tma_load`]). One thread issues it for the whole box, so it
    /// is not a [`CopyTraits`](super::CopyTraits) atom: its values per
    /// thread are the box's, which the tensor map fixes, not the
    /// instruction.
    SM90_TMA_LOAD,
    "tma_load"
);

tma_atom!(
    /// A TMA load that one thread issues for several CTAs of its cluster
    /// ([`emit_tma_load_multicast`]); one thread moves the whole box, as
    /// for [`SM90_TMA_LOAD`].
    SM90_TMA_LOAD_MULTICAST,
    "tma_load_multicast"
);

tma_atom!(
    /// A TMA store, shared -> global, in the issuing thread's bulk
    /// async-group ([`emit_tma_store`]); one thread moves the whole box,
    /// as for [`SM90_TMA_LOAD`].
    SM90_TMA_STORE,
    "tma_store"
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::snippet;

    fn kernel_with_map() -> (Kernel, Reg) {
        let mut k = Kernel::new("k").unwrap();
        let param = k.param("tmap", ParamType::TENSOR_MAP).unwrap();
        let map = emit_tensor_map_address(&mut k, &param).unwrap();
        (k, map)
    }

    #[test]
    fn loads_and_stores_write_rank_and_coordinates_innermost_first() {
        let (mut k, map) = kernel_with_map();
        let dst = k.reg(RegClass::B32);
        let bar = k.reg(RegClass::B32);
        let m = k.reg(RegClass::B32);
        let mask = k.reg(RegClass::B16);
        emit_prefetch_tensor_map(&mut k, map).unwrap();
        emit_tma_load(&mut k, dst, map, &[Coord::Imm(64), m.into()], bar).unwrap();
        emit_tma_load_multicast(&mut k, dst, map, &[0.into(), m.into(), 2.into()], bar, mask)
            .unwrap();
        emit_tma_store(&mut k, map, &[Coord::Imm(-8)], dst).unwrap();
        let text = k.emit().unwrap();
        for line in [
            "mov.b64 %rd0, tmap;",
            "cvta.param.u64 %rd0, %rd0;",
            "prefetch.tensormap [%rd0];",
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r0], [%rd0, {64, %r2}], [%r1];",
            "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r0], [%rd0, {0, %r2, 2}], [%r1], %rs0;",
            "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd0, {-8}], [%r0];",
        ] {
            assert!(text.contains(line), "missing `{line}` in\n{text}");
        }
    }

    #[test]
    fn bad_operands_are_refused_by_name() {
        let (mut k, map) = kernel_with_map();
        let dst = k.reg(RegClass::B32);
        let wide = k.reg(RegClass::B64);
        let mask32 = k.reg(RegClass::B32);
        let six = [Coord::Imm(0); 6];
        let cases = [
            (
                emit_tma_load(&mut k, dst, map, &[], dst).unwrap_err(),
                "0 coordinates",
            ),
            (
                emit_tma_load(&mut k, dst, map, &six, dst).unwrap_err(),
                "6 coordinates",
            ),
            (
                emit_tma_load(&mut k, wide, map, &[Coord::Imm(0)], dst).unwrap_err(),
                "TMA load destination",
            ),
            (
                emit_tma_load(&mut k, dst, dst, &[Coord::Imm(0)], dst).unwrap_err(),
                "tensor map address",
            ),
            (
                emit_tma_load(&mut k, dst, map, &[Coord::Reg(wide)], dst).unwrap_err(),
                "TMA coordinate 0",
            ),
            (
                emit_tma_load_multicast(&mut k, dst, map, &[Coord::Imm(0)], dst, mask32)
                    .unwrap_err(),
                "TMA multicast mask",
            ),
            (
                emit_tma_store(&mut k, map, &[Coord::Imm(0)], wide).unwrap_err(),
                "TMA store source",
            ),
        ];
        for (err, name) in cases {
            assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
            assert!(err.to_string().contains(name), "{name}: {err}");
        }
        let scalar = k.param("n", ParamType::U32).unwrap();
        let err = emit_tensor_map_address(&mut k, &scalar).unwrap_err();
        assert!(err.to_string().contains("`n`"), "{err}");
        assert!(err.to_string().contains("TENSOR_MAP"), "{err}");
    }

    #[test]
    fn atoms_name_their_snippets_and_one_thread() {
        for (name, (family, snippet_name)) in [
            (SM90_TMA_LOAD::NAME, SM90_TMA_LOAD::SNIPPET),
            (
                SM90_TMA_LOAD_MULTICAST::NAME,
                SM90_TMA_LOAD_MULTICAST::SNIPPET,
            ),
            (SM90_TMA_STORE::NAME, SM90_TMA_STORE::SNIPPET),
        ] {
            assert!(name.starts_with("SM90_TMA_"));
            assert!(snippet(family, snippet_name).is_ok(), "{name}");
        }
        assert_eq!(SM90_TMA_STORE::thr_id().size(), 1);
        assert_eq!(SM90_TMA_LOAD_MULTICAST::dst_layout(4096).size(), 4096);
    }
}
