//! The default SM80 GEMM configurations (what the collective builder picks
//! for each dtype combination and operand major) assemble for sm_80 with no
//! register spills.

mod common;

use common::ptxas::assert_none_spills;
use cutlet::kernel::gemm::sm80_default_specs;

#[test]
fn default_configurations_assemble_for_sm80_without_spills() {
    // Every type combination and major, each with the builder's 256x128
    // variant for tall problems where it has one: all 48 combinations have
    // a default, and 20 of them a tall variant.
    let specs = sm80_default_specs();
    assert_eq!(specs.len(), 68);
    assert_none_spills(specs, "sm_80");
}
