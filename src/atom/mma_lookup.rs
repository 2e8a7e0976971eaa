//! [`MmaAtom::named`]: an atom found by its CuTe name among every atom the
//! library lists ([`MmaAtom::ALL`] and the SM90 wgmma tables
//! [`SM90_GMMA`], [`SM90_GMMA_F8`] and
//! [`SM90_GMMA_I8`]), so a new table row is found as soon
//! as it is listed there.

use super::mma_atom::MmaAtom;
use super::mma_sm90_gmma::SM90_GMMA;
use super::mma_sm90_gmma_8bit::{SM90_GMMA_F8, SM90_GMMA_I8};
use crate::{Error, Result};

impl MmaAtom {
    /// The atom CuTe names `name` (ASCII case ignored), if the library
    /// lists one in [`MmaAtom::ALL`], [`SM90_GMMA`],
    /// [`SM90_GMMA_F8`] or [`SM90_GMMA_I8`].
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
            .chain(SM90_GMMA_F8.iter())
            .chain(SM90_GMMA_I8.iter())
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
                     SM90_64xNx8_F32TF32TF32_{{SS,RS}} with N = 8, 16, .., 256, or an 8-bit \
                     SM90_64xNx32_{{F32,F16}}{{E4M3,E5M2}}{{E4M3,E5M2}}_{{SS,RS}}_TN (N = 8, 16, .., 256) \
                     or SM90_64xNx32_S32{{S8,U8}}{{S8,U8}}_{{SS,RS}}_TN (N = 8, 16, 24, 32, 48, .., 256)",
                    known.join(", ")
                ),
            )
        })
    }
}
