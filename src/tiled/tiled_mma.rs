//! [`TiledMma`]: an MMA atom repeated over a layout of warps and over values.

use super::partition::ThreadPartition;
use crate::atom::MmaAtom;
use crate::layout::{complement, composition, ComposedLayout, IntTuple, Layout};
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
/// Thread `t` is `(lane, wm, wn, wk)` column-major (lane fastest). In a tile
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
}

impl TiledMma {
    /// `atom` over `warps = [WM, WN, WK]` (each at least 1). The atom's
    /// logical threads must be its lanes in order (`thr_id` `N:1` or one
    /// thread): the SM70 quad-pair atoms (`(4,2):(1,16)`) are not tiled yet
    /// and are an error naming the atom.
    pub fn new(atom: MmaAtom, warps: [i64; 3]) -> Result<TiledMma> {
        let thr_id = atom.thr_id();
        let atom_threads = thr_id.size();
        if atom_threads > 1 && (0..atom_threads).any(|t| thr_id.at(t) != t) {
            return Err(Error::invalid_argument(
                "atom",
                format!("{atom} with thread ids {thr_id}"),
                "an atom whose logical threads are its lanes in order",
            ));
        }
        if warps.iter().any(|&w| w < 1) || warps.iter().product::<i64>() * atom_threads > 1024 {
            return Err(Error::invalid_argument(
                "warps",
                format!("{warps:?}"),
                format!(
                    "three counts of at least 1 whose product times {atom_threads} (the atom's threads) is at most 1024"
                ),
            ));
        }
        Ok(TiledMma {
            atom,
            warps,
            permutation: [None, None, None],
        })
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
        let linear =
            Layout::from_modes([Layout::from_modes(thr_modes), Layout::from_modes(val_modes)]);
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
