//! [`MmaAtom::named`]: an atom found by its CuTe name among every atom the
//! library lists ([`MmaAtom::ALL`] and the SM90 wgmma table
//! [`SM90_GMMA`](super::SM90_GMMA)), so a new table row is found as soon as
//! it is listed there.

use super::mma_atom::MmaAtom;
use super::mma_sm90_gmma::SM90_GMMA;
use crate::{Error, Result};

impl MmaAtom {
    /// The atom CuTe names `name` (ASCII case ignored), if the library
    /// lists one in [`MmaAtom::ALL`] or [`SM90_GMMA`](super::SM90_GMMA).
    ///
    /// ```
    /// use cutlet::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN};
    ///
    /// let atom = MmaAtom::named("SM80_16x8x16_F32BF16BF16F32_TN");
    /// assert_eq!(atom, Some(SM80_16x8x16_F32BF16BF16F32_TN));
    /// assert_eq!(MmaAtom::named("SM80_16x8x16_F64F64F64F64_TN"), None);
    /// let wgmma = MmaAtom::named("SM90_64x128x16_F32BF16BF16_SS").unwrap();
    /// assert_eq!(wgmma.shape_mnk(), [64, 128, 16]);
    /// ```
    pub fn named(name: &str) -> Option<MmaAtom> {
        MmaAtom::ALL
            .iter()
            .chain(SM90_GMMA.iter())
            .copied()
            .find(|atom| atom.name.eq_ignore_ascii_case(name))
    }

    /// As [`named`](Self::named), with an unknown name an
    /// [`Error::InvalidArgument`] that lists the known names.
    ///
    /// ```
    /// use cutlet::atom::MmaAtom;
    ///
    /// let e = MmaAtom::lookup("SM80_8x8x8_NOPE").unwrap_err();
    /// assert!(e.to_string().contains("SM80_16x8x16_F32BF16BF16F32_TN"));
    /// ```
    pub fn lookup(name: &str) -> Result<MmaAtom> {
        MmaAtom::named(name).ok_or_else(|| {
            let known: Vec<&str> = MmaAtom::ALL.iter().map(|atom| atom.name).collect();
            Error::invalid_argument(
                "mma atom",
                name,
                format!(
                    "the CuTe name of an MMA atom cutlet lists: {}, or an SM90 wgmma \
                     SM90_64xNx16_{{F32BF16BF16,F32F16F16,F16F16F16}}_{{SS,RS}} or \
                     SM90_64xNx8_F32TF32TF32_{{SS,RS}} with N = 8, 16, .., 256",
                    known.join(", ")
                ),
            )
        })
    }
}
