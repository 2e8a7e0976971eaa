//! [`TiledMma`]: an MMA atom repeated over a layout of warps and over values.

use super::partition::ThreadPartition;
use crate::atom::MmaAtom;
use crate::layout::{complement, composition, right_inverse, ComposedLayout, IntTuple, Layout};
use crate::{Error, Result};

/// Which operand of `D = A * B + C` a layout or partition is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A: an (M, K) tile.
    A,
    /// B: an (N, K) tile.
    B,
    /// C and D: an (M, N) tile.
    C,
}

impl Operand {
    /// The (first, second) modes of MNK the operand's tile spans.
    const fn dims(self) -> (usize, usize) {
        match self {
            Operand::A => (0, 2),
            Operand::B => (1, 2),
            Operand::C => (0, 1),
        }
    }
}

/// An MMA atom repeated over `warps = [WM, WN, WK]` groups of the atom's
/// threads (warps for the SM80 atoms, single threads for
/// [`UniversalFMA`](crate::atom::UniversalFMA)), then over values to cover a
/// CTA tile; CuTe's `make_tiled_mma(atom, Layout<Shape<WM,WN,WK>>{},
/// permutation_mnk)`.
///
/// Logical thread `(a, wm, wn, wk)` (column-major, the atom's logical
/// thread `a` fastest) runs on the physical thread CuTe's
/// `tiled_product(thr_id, Layout<Shape<WM,WN,WK>>)` gives it:
/// `thr_id(a) + complement(thr_id)(w)`, `w` the group's column-major index.
/// For a warp-wide atom (`thr_id` `32:1`) that is `a + 32 * w`: thread `t`
/// is `(lane, wm, wn, wk)`. For an SM70 quad pair (`(4,2):(1,16)`) the
/// complement is `(4,..):(4,32)`: a warp holds 4 quad pairs, group `w` on
/// lanes `4 * (w % 4) + {0..3, 16..19}` of warp `w / 4`. Every layout
/// below is indexed by the physical thread (`%tid.x`). In a tile
/// of extent `T` along a mode with atom extent `a` and `W` warps, the linear
/// coordinate of an element is `atom + a * (w + W * rest)`; a permutation
/// `P` of that mode maps it to `(P, complement(P, T))(linear)`, as CuTe's
/// `logical_divide` by the permutation does.
///
/// ```
/// use cutlet::atom::SM80_16x8x16_F32BF16BF16F32_TN;
/// use cutlet::tiled::{Operand, TiledMma};
///
/// let mma = TiledMma::new(SM80_16x8x16_F32BF16BF16F32_TN, [2, 2, 1]).unwrap();
/// assert_eq!(mma.threads(), 128);
/// assert_eq!(mma.tile_mnk(), [32, 16, 16]);
/// // C of a 64x32 tile: 4 atom values x 2 (M) x 2 (N) repeats per thread.
/// assert_eq!(mma.fragment(Operand::C, [64, 32]).unwrap().to_string(), "(4,2,2)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TiledMma {
    atom: MmaAtom,
    warps: [i64; 3],
    permutation: [Option<Layout>; 3],
    /// Physical thread -> logical thread (column-major index of
    /// `(a, wm, wn, wk)`), where the two differ (quad-pair atoms).
    physical_to_logical: Option<Layout>,
}

impl TiledMma {
    /// `atom` over `warps = [WM, WN, WK]` (each at least 1) groups of the
    /// atom's threads: warps for a warp-wide atom, quad pairs for an SM70
    /// atom, single threads for [`UniversalFMA`](crate::atom::UniversalFMA).
    /// Quad pairs must fill whole warps (`WM * WN * WK` a multiple of 4);
    /// anything else is an error naming the counts.
    ///
    /// ```
    /// use cutlet::atom::SM70_8x8x4_F32F16F16F32_NT;
    /// use cutlet::tiled::{Operand, TiledMma};
    ///
    /// // CuTe's make_tiled_mma(SM70_8x8x4_F32F16F16F32_NT{}, Layout<Shape<_2,_2,_1>>{}):
    /// // one warp of 2x2 quad pairs, a 16x16x4 step.
    /// let mma = TiledMma::new(SM70_8x8x4_F32F16F16F32_NT, [2, 2, 1]).unwrap();
    /// assert_eq!((mma.threads(), mma.tile_mnk()), (32, [16, 16, 4]));
    /// assert_eq!(mma.thread_layout().unwrap().to_string(), "((4,2),(2,2,1)):((1,16),(4,8,16))");
    /// // Lane 4 is logical thread 0 of quad pair (1, 0): C (m, n) = (8, 0).
    /// let c = mma.layout_tv(Operand::C, [16, 16]).unwrap();
    /// assert_eq!(c.at(4), 8);
    /// assert!(TiledMma::new(SM70_8x8x4_F32F16F16F32_NT, [1, 1, 1]).is_err());
    /// ```
    pub fn new(atom: MmaAtom, warps: [i64; 3]) -> Result<TiledMma> {
        let thr_id = atom.thr_id();
        let atom_threads = thr_id.size();
        if warps.iter().any(|&w| w < 1) || warps.iter().product::<i64>() * atom_threads > 1024 {
            return Err(Error::invalid_argument(
                "warps",
                format!("{warps:?}"),
                format!(
                    "three counts of at least 1 whose product times {atom_threads} (the atom's threads) is at most 1024"
                ),
            ));
        }
        let identity = atom_threads == 1 || (0..atom_threads).all(|t| thr_id.at(t) == t);
        let physical_to_logical = if identity {
            None
        } else {
            let groups: i64 = warps.iter().product();
            let map = thread_map(&thr_id, groups).ok_or_else(|| {
                Error::invalid_argument(
                    "warps",
                    format!("{warps:?} groups of {atom} (thread ids {thr_id})"),
                    format!(
                        "groups that fill whole warps: a product that is a multiple of {}",
                        32 / atom_threads
                    ),
                )
            })?;
            Some(right_inverse(&map))
        };
        Ok(TiledMma {
            atom,
            warps,
            permutation: [None, None, None],
            physical_to_logical,
        })
    }

    /// The physical thread of each logical thread `(a, (wm, wn, wk))`
    /// (CuTe's `thr_layout_vmnk`), for an atom whose logical threads are
    /// not its lanes in order (the SM70 quad pairs); `None` where the two
    /// are the same.
    pub fn thread_layout(&self) -> Option<Layout> {
        self.physical_to_logical.as_ref()?;
        let groups: i64 = self.warps.iter().product();
        let thr_id = self.atom.thr_id();
        let comp = complement(&thr_id, thr_id.size() * groups).ok()?;
        let w = Layout::from_parts(
            IntTuple::ints(&self.warps),
            IntTuple::ints(&[1, self.warps[0], self.warps[0] * self.warps[1]]),
        );
        let comp = composition(&comp, &w.into()).ok()?;
        Some(Layout::from_modes([thr_id, comp]))
    }

    /// Adds CuTe's `permutation_mnk`: for each mode, `None` (identity) or a
    /// layout whose size is a multiple of atom extent x warps and which is a
    /// bijection onto `0..size`.
    pub fn with_permutation(mut self, permutation: [Option<Layout>; 3]) -> Result<TiledMma> {
        let atom = self.atom.shape_mnk();
        for (mode, p) in permutation.iter().enumerate() {
            let Some(p) = p else { continue };
            let step = atom[mode] * self.warps[mode];
            let mut image: Vec<i64> = (0..p.size()).map(|i| p.at(i)).collect();
            image.sort_unstable();
            let bijective = image.iter().enumerate().all(|(i, &x)| x == i as i64);
            if p.size() % step != 0 || !bijective {
                return Err(Error::invalid_argument(
                    format!("permutation of mode {}", ["M", "N", "K"][mode]),
                    p,
                    format!("a bijection onto 0..size whose size is a multiple of {step}"),
                ));
            }
        }
        self.permutation = permutation;
        Ok(self)
    }

    /// The atom.
    pub fn atom(&self) -> MmaAtom {
        self.atom
    }

    /// `[WM, WN, WK]`.
    pub fn warps(&self) -> [i64; 3] {
        self.warps
    }

    /// Threads of the tiled MMA: the atom's threads times the warps.
    pub fn threads(&self) -> i64 {
        self.atom.thr_id().size() * self.warps.iter().product::<i64>()
    }

    /// The (M, N, K) one step of the tiled MMA covers: the permutation's
    /// size where given, else atom extent x warps. CTA tiles are multiples.
    pub fn tile_mnk(&self) -> [i64; 3] {
        let atom = self.atom.shape_mnk();
        std::array::from_fn(|i| match &self.permutation[i] {
            Some(p) => p.size(),
            None => atom[i] * self.warps[i],
        })
    }

    fn check_tile(&self, op: Operand, tile: [i64; 2]) -> Result<()> {
        let (p, q) = op.dims();
        let step = self.tile_mnk();
        for (extent, mode) in tile.iter().zip([p, q]) {
            if *extent < 1 || extent % step[mode] != 0 {
                return Err(Error::invalid_argument(
                    format!("tile extent along {}", ["M", "N", "K"][mode]),
                    extent,
                    format!(
                        "a positive multiple of {} (the tiled MMA's step)",
                        step[mode]
                    ),
                ));
            }
        }
        Ok(())
    }

    /// (thread, value) -> column-major index of the operand's tile of
    /// extent `tile` (`[M, K]` for A, `[N, K]` for B, `[M, N]` for C).
    /// Values are ordered (FrgV, Rest0, Rest1) as CuTe's `partition_fragment`.
    pub fn layout_tv(&self, op: Operand, tile: [i64; 2]) -> Result<Layout> {
        self.check_tile(op, tile)?;
        let (p, q) = op.dims();
        let atom_mnk = self.atom.shape_mnk();
        let (a0, a1) = (atom_mnk[p], atom_mnk[q]);
        let (t0, t1) = (tile[0], tile[1]);
        let atom_layout = match op {
            Operand::A => self.atom.a_layout(),
            Operand::B => self.atom.b_layout(),
            Operand::C => self.atom.c_layout(),
        };
        // Atom tile index (a0 + A0*a1) -> CTA tile index (d0 + T0*d1).
        let embed = Layout::new(IntTuple::ints(&[a0, a1]), IntTuple::ints(&[1, t0]))
            .ok_or_else(|| Error::invalid_argument("atom shape", a0, "a layout"))?;
        let atom_in_tile = composition(&embed, &atom_layout.into())?;
        let (atom_thr, atom_val) = (mode_of(&atom_in_tile, 0)?, mode_of(&atom_in_tile, 1)?);
        let mut thr_modes = vec![atom_thr];
        for (mode, &w) in self.warps.iter().enumerate() {
            let stride = if mode == p {
                a0
            } else if mode == q {
                t0 * a1
            } else {
                0
            };
            thr_modes.push(mode_layout(w, stride));
        }
        let (w0, w1) = (self.warps[p], self.warps[q]);
        let val_modes = vec![
            atom_val,
            mode_layout(t0 / (a0 * w0), a0 * w0),
            mode_layout(t1 / (a1 * w1), t0 * a1 * w1),
        ];
        let mut thr = Layout::from_modes(thr_modes);
        if let Some(inverse) = &self.physical_to_logical {
            thr = composition(&thr, &inverse.clone().into())?;
        }
        let linear = Layout::from_modes([thr, Layout::from_modes(val_modes)]);
        if self.permutation[p].is_none() && self.permutation[q].is_none() {
            return Ok(linear);
        }
        let first = self.full_permutation(p, t0, 1)?;
        let second = self.full_permutation(q, t1, t0)?;
        let map = Layout::from_modes([first, second]);
        Ok(composition(&map, &linear.into())?)
    }

    /// `(P, complement(P, extent))` with strides scaled by `scale`, or the
    /// identity of `extent` when the mode has no permutation.
    fn full_permutation(&self, mode: usize, extent: i64, scale: i64) -> Result<Layout> {
        let full = match &self.permutation[mode] {
            None => mode_layout(extent, 1),
            Some(p) => Layout::from_modes([p.clone(), complement(p, extent)?]),
        };
        Ok(Layout::from_parts(
            full.shape().clone(),
            full.stride().map(&|s| s * scale),
        ))
    }

    /// The shape (FrgV, Rest0, Rest1) of one thread's register fragment of
    /// the operand over `tile` (CuTe's `partition_fragment_A/B/C`).
    pub fn fragment(&self, op: Operand, tile: [i64; 2]) -> Result<IntTuple> {
        self.check_tile(op, tile)?;
        let (p, q) = op.dims();
        let atom = self.atom.shape_mnk();
        let frg = (atom[p] * atom[q]) / self.atom.thr_id().size();
        Ok(IntTuple::ints(&[
            frg,
            tile[0] / (atom[p] * self.warps[p]),
            tile[1] / (atom[q] * self.warps[q]),
        ]))
    }

    /// Thread `t`'s part of the operand's tile stored with `memory` (tile
    /// coordinate -> element offset), CuTe's `ThrMMA::partition_A/B/C`.
    pub fn partition(
        &self,
        op: Operand,
        tile: [i64; 2],
        memory: &Layout,
    ) -> Result<ThreadPartition> {
        ThreadPartition::new(&self.layout_tv(op, tile)?, memory)
    }

    /// As [`partition`](Self::partition) for a swizzled tile.
    pub fn partition_swizzled(
        &self,
        op: Operand,
        tile: [i64; 2],
        memory: &ComposedLayout,
    ) -> Result<ThreadPartition> {
        ThreadPartition::new_swizzled(&self.layout_tv(op, tile)?, memory)
    }
}

/// Logical thread (column-major `(a, w)`) -> physical thread for an atom
/// with thread ids `thr_id` over `groups` groups: `(thr_id, complement)`,
/// or `None` unless it is a bijection onto `0..size`.
fn thread_map(thr_id: &Layout, groups: i64) -> Option<Layout> {
    let size = thr_id.size() * groups;
    let comp = complement(thr_id, size).ok()?;
    let map = Layout::from_modes([thr_id.clone(), comp]);
    let mut image: Vec<i64> = (0..map.size()).map(|i| map.at(i)).collect();
    image.sort_unstable();
    let bijective = map.size() == size && image.iter().enumerate().all(|(i, &x)| x == i as i64);
    bijective.then_some(map)
}

/// A one-mode layout `shape:stride`.
pub(crate) fn mode_layout(shape: i64, stride: i64) -> Layout {
    Layout::from_parts(IntTuple::Int(shape), IntTuple::Int(stride))
}

/// Mode `i` of `layout`, or an error naming it.
pub(crate) fn mode_of(layout: &Layout, i: usize) -> Result<Layout> {
    layout
        .mode(i)
        .ok_or_else(|| Error::invalid_argument("layout", layout, format!("a mode {i}")))
}
