//! [`MmaAtom::named`]: an atom found by its CuTe name among every atom the
//! library lists ([`MmaAtom::ALL`]), so a new table row is found as soon as
//! it is listed there.

use super::mma_atom::MmaAtom;
use crate::{Error, Result};

impl MmaAtom {
    /// The atom CuTe names `name` (ASCII case ignored), if the library
    /// lists one in [`MmaAtom::ALL`].
    ///
    /// ```
    /// use cutlet::atom::{MmaAtom, SM80_16x8x16_F32BF16BF16F32_TN};
    ///
    /// let atom = MmaAtom::named("SM80_16x8x16_F32BF16BF16F32_TN");
    /// assert_eq!(atom, Some(SM80_16x8x16_F32BF16BF16F32_TN));
    /// assert_eq!(MmaAtom::named("SM80_16x8x16_F64F64F64F64_TN"), None);
    /// ```
    pub fn named(name: &str) -> Option<MmaAtom> {
        MmaAtom::ALL
            .iter()
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
                    "the CuTe name of an MMA atom cutlet lists: {}",
                    known.join(", ")
                ),
            )
        })
    }
}
