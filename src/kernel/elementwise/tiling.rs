//! [`Tiling`]: the thread and value layouts of an elementwise kernel, and the
//! plan the generator reads off their TV layout.

use crate::layout::{make_layout_tv, Layout};
use crate::{Error, Result};

/// Most threads a block may have.
const MAX_THREADS: i64 = 1024;
/// Most values one thread may hold (all of them live in registers at once).
const MAX_VALUES: i64 = 64;

/// A thread layout and a value layout, both `(M, N)`-shaped, as in the CuTe
/// DSL tutorial: `make_layout_tv(thr, val)` gives the tile `(TM, TN)` and the
/// TV layout `(thread, value) -> tile index` (column-major in the tile).
///
/// ```
/// use cutlet::kernel::elementwise::Tiling;
/// let t = Tiling::for_vector(8); // f16: 8 elements = 16 bytes per access
/// assert_eq!(t.thr.to_string(), "(8,32):(32,1)");
/// assert_eq!(t.val.to_string(), "(2,8):(8,1)");
/// let plan = t.plan().unwrap();
/// assert_eq!((plan.tile_m, plan.tile_n, plan.threads, plan.values), (16, 256, 256, 16));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Tiling {
    /// Threads over the tile: `(TM_threads, TN_threads)` with its order.
    pub thr: Layout,
    /// Values of one thread: `(VM, VN)` with its order.
    pub val: Layout,
}

/// What the generator needs of a [`Tiling`], computed on the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TvPlan {
    /// Tile rows.
    pub tile_m: i64,
    /// Tile columns (the contiguous dimension).
    pub tile_n: i64,
    /// Threads per block.
    pub threads: i64,
    /// Values per thread.
    pub values: i64,
    /// The thread mode of the TV layout, flattened: `(extent, stride)` pairs,
    /// evaluated on `%tid.x` in the kernel with immediates.
    pub thread_modes: Vec<(i64, i64)>,
    /// Tile index of each value for thread 0 (the value mode of the TV layout).
    pub value_offsets: Vec<i64>,
    /// The value mode of the TV layout, flattened: `(extent, stride)` pairs
    /// (the edge path evaluates it on a loop counter).
    pub value_modes: Vec<(i64, i64)>,
    /// The TV layout itself, for printing.
    pub layout_tv: Layout,
    /// Per value `v`, the tile coordinate `(dm, dn)` it adds to value 0 when
    /// that is the same for every thread and never negative (the TV
    /// layout's thread and value parts do not carry into each other): then
    /// each tensor's value addresses are one base plus immediates.
    pub deltas: Option<Vec<(i64, i64)>>,
}

impl Tiling {
    /// The default tiling for `vector` elements per 16-byte access: 256
    /// threads `(8,32):(32,1)`, each holding `(2, vector):(vector, 1)`
    /// values, so every warp moves 512 contiguous bytes per access and every
    /// thread issues two 16-byte loads per input before using them. Measured
    /// on an H200 (BENCHMARKS.md): two loads per input at 32 registers (full
    /// occupancy) beat four at 38-48 registers by 1-2% for bf16 gelu3 and
    /// match it for f16 add; eight, and persistent grids, are slower.
    pub fn for_vector(vector: u32) -> Tiling {
        let v = i64::from(vector.max(1));
        Tiling {
            thr: Layout::from_parts(
                crate::layout::IntTuple::ints(&[8, 32]),
                crate::layout::IntTuple::ints(&[32, 1]),
            ),
            val: Layout::from_parts(
                crate::layout::IntTuple::ints(&[2, v]),
                crate::layout::IntTuple::ints(&[v, 1]),
            ),
        }
    }

    /// Checks the layouts and computes the plan: `make_layout_tv`, then a
    /// check that the TV layout covers the `TM x TN` tile exactly once.
    ///
    /// Errors: [`Error::InvalidArgument`] naming the layouts when a layout is
    /// not rank 2, the block would exceed 1024 threads or a thread 64 values,
    /// or the TV layout misses or repeats a tile element.
    pub fn plan(&self) -> Result<TvPlan> {
        let name = || format!("thread layout {} and value layout {}", self.thr, self.val);
        if self.thr.rank() != 2 || self.val.rank() != 2 {
            return Err(Error::invalid_argument(
                "tiling",
                name(),
                "rank-2 (M, N) thread and value layouts",
            ));
        }
        let (threads, values) = (self.thr.size(), self.val.size());
        if !(1..=MAX_THREADS).contains(&threads) || !(1..=MAX_VALUES).contains(&values) {
            return Err(Error::invalid_argument(
                "tiling",
                format!("{}: {threads} threads of {values} values", name()),
                format!("1 to {MAX_THREADS} threads of 1 to {MAX_VALUES} values"),
            ));
        }
        let (tiler, layout_tv) = make_layout_tv(&self.thr, &self.val)?;
        let extents = tiler.flatten();
        let [tile_m, tile_n] = extents[..] else {
            return Err(Error::invalid_argument("tiling", name(), "a rank-2 tile"));
        };
        let (Some(thread_mode), Some(value_mode)) = (layout_tv.mode(0), layout_tv.mode(1)) else {
            return Err(Error::invalid_argument(
                "tiling",
                name(),
                "a (thread, value) TV layout",
            ));
        };
        let mut seen = vec![false; usize::try_from(tile_m * tile_n).unwrap_or(0)];
        for t in 0..threads {
            for v in 0..values {
                let idx = layout_tv.at(t + threads * v);
                let slot = usize::try_from(idx).ok().and_then(|i| seen.get_mut(i));
                match slot {
                    Some(slot) if !*slot => *slot = true,
                    _ => {
                        return Err(Error::invalid_argument(
                            "tiling",
                            format!("{} (TV layout {layout_tv})", name()),
                            format!(
                                "a TV layout covering the {tile_m}x{tile_n} tile exactly once; \
                                 thread {t} value {v} maps to tile index {idx}, out of the tile or taken twice"
                            ),
                        ))
                    }
                }
            }
        }
        if seen.iter().any(|s| !s) {
            return Err(Error::invalid_argument(
                "tiling",
                name(),
                format!("a TV layout covering the {tile_m}x{tile_n} tile exactly once; some elements are not covered"),
            ));
        }
        let thread_modes = thread_mode
            .shape()
            .flatten()
            .into_iter()
            .zip(thread_mode.stride().flatten())
            .collect();
        let value_offsets = (0..values).map(|v| value_mode.at(v)).collect();
        let value_modes = value_mode
            .shape()
            .flatten()
            .into_iter()
            .zip(value_mode.stride().flatten())
            .collect();
        let mut plan = TvPlan {
            tile_m,
            tile_n,
            threads,
            values,
            thread_modes,
            value_offsets,
            value_modes,
            layout_tv,
            deltas: None,
        };
        plan.deltas = plan.value_deltas();
        Ok(plan)
    }
}

impl TvPlan {
    /// Tile index of value `v` of thread `t`.
    pub fn index(&self, t: i64, v: i64) -> i64 {
        let mut rest = t;
        let mut idx = self.value_offsets[usize::try_from(v).unwrap_or(0)];
        for (extent, stride) in &self.thread_modes {
            idx += (rest % extent) * stride;
            rest /= extent;
        }
        idx
    }

    /// See [`TvPlan::deltas`].
    fn value_deltas(&self) -> Option<Vec<(i64, i64)>> {
        let coord = |i: i64| (i % self.tile_m, i / self.tile_m);
        (0..self.values)
            .map(|v| {
                let (m0, n0) = coord(self.index(0, 0));
                let (mv, nv) = coord(self.index(0, v));
                let delta = (mv - m0, nv - n0);
                let same = (0..self.threads).all(|t| {
                    let (a, b) = (coord(self.index(t, 0)), coord(self.index(t, v)));
                    (b.0 - a.0, b.1 - a.1) == delta
                });
                (same && delta.0 >= 0 && delta.1 >= 0).then_some(delta)
            })
            .collect()
    }

    /// The largest group `g <= max` (a power of two) such that, for every
    /// thread, values `k*g .. k*g+g` are `g` consecutive columns of one row
    /// starting at a multiple of `g`: the widest access the layout allows.
    pub fn vector_group(&self, max: i64) -> i64 {
        let mut g = max.max(1);
        while g > 1 {
            if self.values % g == 0 && self.groups_are_contiguous(g) {
                return g;
            }
            g /= 2;
        }
        1
    }

    fn groups_are_contiguous(&self, g: i64) -> bool {
        (0..self.threads).all(|t| {
            (0..self.values / g).all(|k| {
                let first = self.index(t, k * g);
                (first / self.tile_m) % g == 0
                    && (1..g).all(|j| self.index(t, k * g + j) == first + j * self.tile_m)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_tiling_groups_sixteen_bytes() {
        for v in [2, 4, 8, 16] {
            let plan = Tiling::for_vector(v).plan().unwrap();
            assert_eq!(plan.vector_group(i64::from(v)), i64::from(v));
            assert_eq!(plan.tile_n, 32 * i64::from(v));
        }
    }

    #[test]
    fn column_threads_give_scalar_groups() {
        let t = Tiling {
            thr: "(32,4):(1,32)".parse().unwrap(),
            val: "(1,1):(1,1)".parse().unwrap(),
        };
        let plan = t.plan().unwrap();
        assert_eq!(plan.vector_group(8), 1);
    }

    #[test]
    fn non_covering_layout_is_an_error_naming_it() {
        let t = Tiling {
            thr: "(4,8):(8,1)".parse().unwrap(),
            val: "(2,2):(1,1)".parse().unwrap(),
        };
        let text = t.plan().unwrap_err().to_string();
        assert!(
            text.contains("(2,2):(1,1)") && text.contains("exactly once"),
            "{text}"
        );
    }

    #[test]
    fn too_many_threads_is_an_error() {
        let t = Tiling {
            thr: "(64,32):(32,1)".parse().unwrap(),
            val: "(1,1):(1,1)".parse().unwrap(),
        };
        assert!(t.plan().unwrap_err().to_string().contains("2048 threads"));
    }
}
