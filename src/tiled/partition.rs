//! [`ThreadPartition`]: a thread's share of a tile, split for a generator
//! into a layout of the thread index and host-evaluated value offsets.

use super::emit_offset::{emit_layout_offset, emit_swizzle};
use crate::layout::{coalesce, composition, ComposedLayout, Layout, Swizzle};
use crate::ptx::{Kernel, Reg};
use crate::{Error, Result};

/// One thread's part of a tile in memory, as a kernel generator needs it.
///
/// The offset (in elements) of value `v` of thread `t` is
/// `swizzle(offset + thr(t) + val[v])`, where
/// - `thr` is a [`Layout`] of the thread index: the generator emits it once,
///   with [`emit_layout_offset`] on `%tid`;
/// - `val[v]` are integers computed on the host: immediates in the PTX;
/// - `swizzle` is the tile's swizzle ([`Swizzle::identity`] for a plain
///   layout) and `offset` the swizzled layout's offset (0 for a plain one).
///
/// # When the split is exact
/// It comes from `composition(memory, tv)`, where `tv` is a (thread, value)
/// layout of the tile: the composition is a [`Layout`] whose thread mode and
/// value mode add, so the split is exact whenever the composition exists
/// (the layout algebra returns an error otherwise, e.g. when a mode of `tv`
/// does not divide the memory layout's shape). That covers every linear
/// (unswizzled) memory layout of the tiles the collectives use.
///
/// # Swizzles
/// A swizzle XORs address bits, so it is applied after the sum, at run time:
/// `swizzle(offset + thr(t) + val[v])`. When the bits that thread offsets can
/// set and the bits that value offsets can set do not overlap
/// ([`xor_split`](Self::xor_split)), `thr + val = thr ^ val`, and since a
/// swizzle is linear over XOR, `swizzle(x ^ y) = swizzle(x) ^ swizzle(y)`:
/// the generator then swizzles the thread part once and XORs in the
/// host-swizzled value offsets, [`val_swizzled`](Self::val_swizzled).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadPartition {
    thr: Layout,
    val: Vec<i64>,
    val_layout: Layout,
    swizzle: Swizzle,
    offset: i64,
}

impl ThreadPartition {
    /// The partition of a tile with plain memory layout `memory` (tile
    /// coordinate -> element offset) by the (thread, value) layout `tv`
    /// (-> column-major tile index).
    ///
    /// ```
    /// use cutlet::layout::Layout;
    /// use cutlet::tiled::ThreadPartition;
    ///
    /// // 4 threads, 2 values each, over a 2x4 tile stored row-major (ld 4):
    /// // thread t holds column t, value v row v.
    /// let tv: Layout = "(4,2):(2,1)".parse().unwrap();
    /// let memory: Layout = "(2,4):(4,1)".parse().unwrap();
    /// let p = ThreadPartition::new(&tv, &memory).unwrap();
    /// assert_eq!(p.thr().to_string(), "4:1");
    /// assert_eq!(p.val(), &[0, 4]);
    /// assert_eq!(p.offset(3, 1), 7);
    /// ```
    pub fn new(tv: &Layout, memory: &Layout) -> Result<ThreadPartition> {
        Self::build(tv, memory, Swizzle::identity(), 0)
    }

    /// The partition of a tile with swizzled memory layout `memory`.
    pub fn new_swizzled(tv: &Layout, memory: &ComposedLayout) -> Result<ThreadPartition> {
        Self::build(tv, memory.layout(), memory.swizzle(), memory.offset())
    }

    fn build(tv: &Layout, memory: &Layout, swizzle: Swizzle, offset: i64) -> Result<Self> {
        if tv.rank() != 2 {
            return Err(Error::invalid_argument(
                "tv layout",
                tv,
                "a (thread, value) layout of rank 2",
            ));
        }
        let tv_eval = coalesce(tv);
        if tv.size() > 0
            && (0..tv.size()).map(|i| tv_eval.at(i)).max().unwrap_or(0) >= memory.size()
        {
            return Err(Error::invalid_argument(
                "memory layout",
                format!("{memory} (size {})", memory.size()),
                format!(
                    "a layout of the whole tile, at least {} elements",
                    tv.cosize()
                ),
            ));
        }
        let composed = composition(memory, &tv.clone().into())?;
        let (thr, val_layout) = match (composed.mode(0), composed.mode(1)) {
            (Some(thr), Some(val)) if composed.rank() == 2 => (thr, val),
            _ => {
                return Err(Error::invalid_argument(
                    "composition of memory and tv layouts",
                    &composed,
                    "a (thread, value) layout of rank 2",
                ))
            }
        };
        let val_eval = coalesce(&val_layout);
        let val = (0..val_layout.size()).map(|v| val_eval.at(v)).collect();
        Ok(ThreadPartition {
            thr,
            val,
            val_layout,
            swizzle,
            offset,
        })
    }

    /// Thread index -> the thread's base offset (before the swizzle).
    pub fn thr(&self) -> &Layout {
        &self.thr
    }

    /// Value index -> offset added to the thread's base (before the swizzle).
    pub fn val(&self) -> &[i64] {
        &self.val
    }

    /// The value offsets as a layout of the value index.
    pub fn val_layout(&self) -> &Layout {
        &self.val_layout
    }

    /// The swizzle applied after the sum.
    pub fn swizzle(&self) -> Swizzle {
        self.swizzle
    }

    /// The swizzled layout's offset, added before the swizzle.
    pub fn base_offset(&self) -> i64 {
        self.offset
    }

    /// Threads the partition covers.
    pub fn threads(&self) -> i64 {
        self.thr.size()
    }

    /// Values per thread.
    pub fn values(&self) -> i64 {
        self.val.len() as i64
    }

    /// The offset of value `v` of thread `t`, evaluated on the host.
    pub fn offset(&self, t: i64, v: usize) -> i64 {
        self.swizzle
            .apply(self.offset + self.thr.at(t) + self.val[v])
    }

    /// Whether thread offsets (with the base offset) and value offsets never
    /// set the same bit, so that `swizzle(thr + val) = swizzle(thr) ^
    /// swizzle(val)` for every thread and value.
    pub fn xor_split(&self) -> bool {
        let thr_bits =
            (0..self.thr.size()).fold(self.offset, |acc, t| acc | (self.offset + self.thr.at(t)));
        let val_bits = self.val.iter().fold(0, |acc, v| acc | v);
        self.val.iter().all(|&v| v >= 0)
            && (0..self.thr.size()).all(|t| self.offset + self.thr.at(t) >= 0)
            && thr_bits & val_bits == 0
    }

    /// The value offsets after the swizzle, for XOR into a swizzled thread
    /// base when [`xor_split`](Self::xor_split) holds.
    pub fn val_swizzled(&self) -> Vec<i64> {
        self.val.iter().map(|&v| self.swizzle.apply(v)).collect()
    }

    /// Each value offset as `(xor, add)` such that, for every thread `t`,
    /// `offset(t, v) = (swizzle(base_offset + thr(t)) ^ xor) + add`: what a
    /// generator emits with one swizzled thread base, an XOR immediate and
    /// an address immediate. `None` when no such split exists.
    ///
    /// `add` is the part of the value offset at or above the swizzle's
    /// [`period`](Swizzle::period) (bits the swizzle neither reads nor
    /// writes, so it commutes with the swizzle), `xor` the swizzled rest;
    /// the split needs non-negative offsets and thread offsets that never
    /// set a bit of a value's rest (then the sum is an XOR, as in
    /// [`xor_split`](Self::xor_split)). With no swizzle, `xor` is 0.
    ///
    /// ```
    /// use cutlet::layout::{ComposedLayout, Layout, Swizzle};
    /// use cutlet::tiled::ThreadPartition;
    ///
    /// // 8 threads own rows of a 16x8 tile (row-major, ld 8), 2 values each:
    /// // rows t and t + 8. Swizzle<1,0,3> flips bit 0 by bit 3.
    /// let tv: Layout = "(8,(8,2)):(1,(16,8))".parse().unwrap();
    /// let memory: Layout = "(16,8):(8,1)".parse().unwrap();
    /// let sw = ComposedLayout::new(Swizzle::new(1, 0, 3).unwrap(), 0, memory);
    /// let p = ThreadPartition::new_swizzled(&tv, &sw).unwrap();
    /// let split = p.val_xor_add().unwrap();
    /// for t in 0..8 {
    ///     let base = p.swizzle().apply(p.thr().at(t));
    ///     for (v, (xor, add)) in split.iter().enumerate() {
    ///         assert_eq!((base ^ xor) + add, p.offset(t, v));
    ///     }
    /// }
    /// ```
    pub fn val_xor_add(&self) -> Option<Vec<(i64, i64)>> {
        let period = self.swizzle.period();
        let thr_bits = (0..self.thr.size()).try_fold(0i64, |acc, t| {
            let o = self.offset + self.thr.at(t);
            (o >= 0).then_some(acc | o)
        })?;
        self.val
            .iter()
            .map(|&v| {
                let (rest, add) = (v % period, v - v % period);
                (v >= 0 && rest & thr_bits == 0).then(|| (self.swizzle.apply(rest), add))
            })
            .collect()
    }

    /// Emits `swizzle(base_offset + thr(index))` for a run-time `.b32`
    /// `index` (e.g. `%tid.x`) and returns its `.b32` register: the thread
    /// base that [`val_xor_add`](Self::val_xor_add)'s immediates complete.
    pub fn emit_thread_base(&self, k: &mut Kernel, index: Reg) -> Result<Reg> {
        let base = emit_layout_offset(k, &self.thr, index)?;
        if self.offset != 0 {
            k.push(format!("add.s32 {base}, {base}, {};", self.offset));
        }
        Ok(emit_swizzle(k, base, self.swizzle))
    }
}
