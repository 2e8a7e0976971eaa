//! [`TiledCopy`]: a copy atom tiled over a thread layout and a value layout.

use super::partition::ThreadPartition;
use super::tiled_mma::{mode_layout, mode_of};
use crate::atom::CopyAtom;
use crate::layout::{composition, make_layout_tv, ComposedLayout, IntTuple, Layout};
use crate::numeric::ElementType;
use crate::{Error, Result};

/// A copy atom over `thr_layout` (thread index -> coordinate of the thread
/// grid) and `val_layout` (value index -> coordinate of each thread's
/// block): CuTe's `make_tiled_copy(atom, thr_layout, val_layout)`. The tile
/// is `raked_product(thr_layout, val_layout)`'s shape, and the TV layout its
/// right inverse ([`make_layout_tv`]).
///
/// Each thread's values are moved `values_per_instruction` at a time,
/// consecutive in value order: for the 16-byte `cp.async` of bf16, 8.
///
/// ```
/// use cutlet::atom::CopyAtom;
/// use cutlet::layout::Layout;
/// use cutlet::numeric::ElementType;
/// use cutlet::tiled::TiledCopy;
///
/// // 128 threads as 32x4 (K fastest), 8 bf16 each along K: a 32x32 tile.
/// let thr: Layout = "(32,4):(4,1)".parse().unwrap();
/// let val: Layout = "(1,8):(1,1)".parse().unwrap();
/// let copy = TiledCopy::new(CopyAtom::Sm80CpAsyncCacheGlobalZfill, ElementType::BF16, &thr, &val).unwrap();
/// assert_eq!(copy.tile().to_string(), "(32,32)");
/// assert_eq!(copy.values_per_instruction(), 8);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledCopy {
    atom: CopyAtom,
    element: ElementType,
    thr_layout: Layout,
    val_layout: Layout,
    tile: IntTuple,
    layout_tv: Layout,
}

impl TiledCopy {
    /// `atom` moving `element`s, over `thr_layout` and `val_layout`. Each
    /// thread's value count must be a multiple of what one instruction moves.
    pub fn new(
        atom: CopyAtom,
        element: ElementType,
        thr_layout: &Layout,
        val_layout: &Layout,
    ) -> Result<TiledCopy> {
        let bits = i64::from(element.size_bits());
        let per = atom.bits_per_thread();
        if per % bits != 0 || val_layout.size() % (per / bits) != 0 {
            return Err(Error::invalid_argument(
                "value layout",
                format!("{val_layout} of {element}"),
                format!(
                    "a multiple of {} values per thread ({per} bits per {atom})",
                    per / bits.max(1)
                ),
            ));
        }
        if thr_layout.size() % atom.threads() != 0 {
            return Err(Error::invalid_argument(
                "thread layout",
                thr_layout,
                format!("a multiple of {} threads ({atom})", atom.threads()),
            ));
        }
        let (tile, layout_tv) = make_layout_tv(thr_layout, val_layout)?;
        Ok(TiledCopy {
            atom,
            element,
            thr_layout: thr_layout.clone(),
            val_layout: val_layout.clone(),
            tile,
            layout_tv,
        })
    }

    /// The copy atom.
    pub fn atom(&self) -> CopyAtom {
        self.atom
    }

    /// The element type moved.
    pub fn element(&self) -> ElementType {
        self.element
    }

    /// The thread layout.
    pub fn thr_layout(&self) -> &Layout {
        &self.thr_layout
    }

    /// The value layout.
    pub fn val_layout(&self) -> &Layout {
        &self.val_layout
    }

    /// The tile one step of the copy covers, e.g. `(128,32)`.
    pub fn tile(&self) -> &IntTuple {
        &self.tile
    }

    /// (thread, value) -> column-major index of [`tile`](Self::tile).
    pub fn layout_tv(&self) -> &Layout {
        &self.layout_tv
    }

    /// Threads of the copy.
    pub fn threads(&self) -> i64 {
        self.thr_layout.size()
    }

    /// Values per thread per step.
    pub fn values(&self) -> i64 {
        self.val_layout.size()
    }

    /// Values one instruction moves for one thread.
    pub fn values_per_instruction(&self) -> i64 {
        self.atom.bits_per_thread() / i64::from(self.element.size_bits())
    }

    /// (thread, value) -> column-major index of a larger `tile` (`[rows,
    /// cols]`, multiples of [`tile`](Self::tile)) that the copy covers in
    /// steps: values are ordered (CPY, CPY_0, CPY_1) as CuTe's `partition_S`,
    /// the copy's own values first, then its repeats along each mode.
    pub fn layout_tv_over(&self, tile: [i64; 2]) -> Result<Layout> {
        let step = self.tile.flatten();
        if step.len() != 2 || tile.iter().zip(&step).any(|(t, s)| *t < 1 || t % s != 0) {
            return Err(Error::invalid_argument(
                "tile",
                format!("{tile:?}"),
                format!("positive multiples of the copy's tile {}", self.tile),
            ));
        }
        let embed = Layout::from_parts(IntTuple::ints(&step), IntTuple::ints(&[1, tile[0]]));
        let tv = composition(&embed, &self.layout_tv.clone().into())?;
        let (thr, val) = (mode_of(&tv, 0)?, mode_of(&tv, 1)?);
        let val = Layout::from_modes([
            val,
            mode_layout(tile[0] / step[0], step[0]),
            mode_layout(tile[1] / step[1], tile[0] * step[1]),
        ]);
        Ok(Layout::from_modes([thr, val]))
    }

    /// Thread `t`'s part of the source `tile` stored with `memory` (CuTe's
    /// `ThrCopy::partition_S`); value `v` belongs to instruction
    /// `v / values_per_instruction`.
    pub fn partition_s(&self, tile: [i64; 2], memory: &Layout) -> Result<ThreadPartition> {
        ThreadPartition::new(&self.layout_tv_over(tile)?, memory)
    }

    /// Thread `t`'s part of the destination tile (CuTe's `partition_D`).
    /// The single-thread atoms here move values in order, so source and
    /// destination share the TV layout.
    pub fn partition_d(&self, tile: [i64; 2], memory: &Layout) -> Result<ThreadPartition> {
        ThreadPartition::new(&self.layout_tv_over(tile)?, memory)
    }

    /// As [`partition_d`](Self::partition_d) for a swizzled destination.
    pub fn partition_d_swizzled(
        &self,
        tile: [i64; 2],
        memory: &ComposedLayout,
    ) -> Result<ThreadPartition> {
        ThreadPartition::new_swizzled(&self.layout_tv_over(tile)?, memory)
    }

    /// Checks that every instruction of `partition` moves contiguous,
    /// aligned elements (what a vector instruction needs): for each thread
    /// and instruction, the values' offsets are `o, o+1, ...` with `o` a
    /// multiple of the values per instruction.
    pub fn check_vectorized(&self, partition: &ThreadPartition) -> Result<()> {
        let per = self.values_per_instruction();
        for t in 0..partition.threads() {
            for v in 0..partition.values() as usize {
                let first = partition.offset(t, v - v % per as usize);
                let o = partition.offset(t, v);
                if first % per != 0 || o != first + (v as i64 % per) {
                    return Err(Error::invalid_argument(
                        "copy partition",
                        format!("thread {t} value {v} at offset {o}"),
                        format!("{per} contiguous elements per instruction starting at a multiple of {per}"),
                    ));
                }
            }
        }
        Ok(())
    }
}
