//! [`Sm90`]: the Hopper (H100) architecture tag.

use super::{Arch, ArchKind};

/// Tag for Hopper (H100), compute capability 9.0. Targets `sm_90a`: `wgmma`,
/// `setmaxnreg`, TMA and `mbarrier` transaction counts. Code for `sm_90a` runs
/// only on compute capability 9.0 exactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sm90;

impl Arch for Sm90 {
    const KIND: ArchKind = ArchKind::Sm90;
}
