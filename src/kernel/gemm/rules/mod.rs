//! The one rule set of a GEMM configuration: [`check_config`], a `const fn` over
//! the configuration's lowered values ([`ConfigFacts`]).
//!
//! Both front doors call it: the typed [`Config::CHECK`] evaluates it at
//! compile time (a configuration type that breaks a rule does not compile,
//! and the compiler prints the rule's sentence with the values), and
//! [`GemmSpec::validate`] at run time (the builder's `Error::Config` carries
//! the same sentence). A configuration the rules accept is one the kernel
//! generator builds; a test sweeps tiles, warps, types and majors to hold
//! the generator to that.
//!
//! The rules refuse only what the hardware or the instruction cannot do:
//!
//! | rule | why |
//! |---|---|
//! | architecture `Sm80` or `Sm90` with the SM80 mainloop, `Sm70` with the SM70 one | the SM80 kernel is `mma.sync` + `cp.async` + `ldmatrix` (sm_80 and later); `Sm70`'s rules are `rules_sm70.rs`'s |
//! | cluster 1x1 | the multistage kernel schedule runs without clusters |
//! | A/B/accumulator types with a tensor-core instruction | f16/f16/f32, bf16/bf16/f32, f16/f16/f16, tf32/tf32/f32 |
//! | C and D of one type (f16, bf16, f32) and one major | the epilogue reads C where it writes D |
//! | at most 1024 threads (32 warps), one warp along K | a block's limit |
//! | warp tile a multiple of the atom (16 rows, 8 columns); BK a multiple of its K (16, or 8 for tf32) | the `mma.sync` shape |
//! | BK and MN-major extents of 32, 64 or a multiple of 128 bytes | the row of a swizzled shared-memory atom |
//! | accumulators and fragments fit a thread's registers at this block size | the register file: 255 per thread, 65536 per block |
//! | at least 2 stages, and shared memory within the architecture's opt-in limit | the pipeline; the shared memory |
//!
//! [`Config::CHECK`]: crate::device::gemm::Config::CHECK
//! [`GemmSpec::validate`]: crate::kernel::gemm::GemmSpec::validate

//! | file | what it holds |
//! |---|---|
//! | `facts.rs` | [`ConfigFacts`] and the shared figures ([`atom_shape`], [`register_budget`], [`swizzle_row_ok`]) |
//! | `common.rs` | the rules the multistage kernels share (no cluster, C and D of one type and major, the warp count) |
//! | `sm80.rs`, `sm70.rs`, `sm90.rs` | each architecture's rules; the SM90 mainloop's own are its folder's `rules.rs` |
//! | `gemv.rs` | the GEMV kernel's ([`Gemv`](super::Gemv)) |
//!
//! Each arch file imports `facts.rs` and `common.rs` only; this file
//! dispatches to them.

mod common;
mod facts;
mod gemv;
mod sm70;
mod sm80;
mod sm90;

pub use crate::gemm::RuleMessage;
pub use facts::{atom_shape, register_budget, swizzle_row_ok, ConfigFacts};

use crate::arch::ArchKind;
use crate::collective::MainloopPolicy;

/// Checks every rule; the first broken one's sentence names the values.
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::collective::{EpiloguePolicy, MainloopPolicy, MainloopSpec};
/// use cutlet::gemm::{ClusterShape, GemmMajors, GemmTypes, OperandMajor, OutputMajor};
/// use cutlet::kernel::gemm::{check_config, ConfigFacts, KernelSchedule, TileSchedulerPolicy};
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let mut facts = ConfigFacts {
///     arch: ArchKind::Sm80,
///     types: GemmTypes::new(BF16, BF16, BF16, BF16, F32),
///     majors: GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
///     tile: [32, 32, 64],
///     cluster: ClusterShape::ONE,
///     mainloop: MainloopSpec { policy: MainloopPolicy::Sm80CpAsync { stages: 2 }, warps: [1, 1, 1] },
///     epilogue: EpiloguePolicy::Sm80Staged,
///     scheduler: TileSchedulerPolicy::DataParallel,
///     schedule: KernelSchedule::Multistage,
/// };
/// assert!(check_config(&facts).is_ok());
/// facts.mainloop.warps = [4, 1, 1];
/// assert_eq!(
///     check_config(&facts).unwrap_err().as_str(),
///     "TileM 32 over 4 warps along M gives each warp 8 rows: expected a multiple of the mma atom's 16 rows (TileM a multiple of 16 x WarpsM)"
/// );
/// ```
// The message is a fixed buffer by value: a `const fn` cannot allocate.
#[allow(clippy::result_large_err)]
pub const fn check_config(f: &ConfigFacts) -> Result<(), RuleMessage> {
    if f.schedule.warp_specialized() {
        return sm90::check_sm90(f);
    }
    if f.mainloop.policy.is_gemv() {
        return gemv::check_gemv(f);
    }
    if matches!(f.arch, ArchKind::Sm70) || matches!(f.mainloop.policy, MainloopPolicy::Sm70TwoStage)
    {
        return sm70::check_sm70(f);
    }
    sm80::check_sm80(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::{EpiloguePolicy, MainloopSpec};
    use crate::gemm::OutputMajor;
    use crate::gemm::{ClusterShape, GemmMajors, GemmTypes, OperandMajor};
    use crate::kernel::gemm::{KernelSchedule, TileSchedulerPolicy};
    use crate::numeric::ElementType;
    use ElementType::{BF16, F16, F32};

    fn facts(tile: [u32; 3], warps: [u32; 2], stages: u32) -> ConfigFacts {
        ConfigFacts {
            arch: ArchKind::Sm80,
            types: GemmTypes::new(BF16, BF16, BF16, BF16, F32),
            majors: GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N),
            tile,
            cluster: ClusterShape::ONE,
            mainloop: MainloopSpec {
                policy: crate::collective::MainloopPolicy::Sm80CpAsync { stages },
                warps: [warps[0], warps[1], 1],
            },
            epilogue: EpiloguePolicy::Sm80Staged,
            scheduler: TileSchedulerPolicy::DataParallel,
            schedule: KernelSchedule::Multistage,
        }
    }

    fn refusal(f: &ConfigFacts) -> String {
        check_config(f).unwrap_err().to_string()
    }

    #[test]
    fn small_tiles_on_one_warp_pass() {
        assert!(check_config(&facts([32, 32, 64], [1, 1], 2)).is_ok());
        assert!(check_config(&facts([16, 8, 16], [1, 1], 2)).is_ok());
    }

    #[test]
    fn each_rule_names_its_values() {
        let text = refusal(&facts([64, 64, 64], [8, 8], 2));
        assert!(text.contains("8x8 make 2048 threads"), "{text}");
        let text = refusal(&facts([64, 32, 64], [1, 8], 2));
        assert!(text.contains("TileN 32 over 8 warps"), "{text}");
        let text = refusal(&facts([64, 64, 24], [1, 1], 2));
        assert!(text.contains("TileK 24"), "{text}");
        let text = refusal(&facts([64, 64, 48], [1, 1], 2));
        assert!(text.contains("96-byte"), "{text}");
        let text = refusal(&facts([256, 256, 64], [1, 1], 2));
        assert!(text.contains("256x256 warp tile needs"), "{text}");
        let text = refusal(&facts([128, 128, 64], [2, 2], 1));
        assert!(text.contains("Stages 1"), "{text}");
        let text = refusal(&facts([128, 256, 64], [2, 4], 8));
        assert!(text.contains("exceeds the 166912 bytes"), "{text}");
        let mut f = facts([64, 64, 64], [2, 2], 2);
        f.types.b = F16;
        assert!(refusal(&f).contains("a=bf16, b=f16"));
        let mut f = facts([64, 64, 64], [2, 2], 2);
        f.majors.b = OperandMajor::MN;
        f.tile[1] = 48;
        f.mainloop.warps[1] = 1;
        assert!(refusal(&f).contains("B is N-major with TileN 48"));
    }

    #[test]
    fn register_budget_follows_the_block_size() {
        assert_eq!(register_budget(128), 255);
        assert_eq!(register_budget(256), 255);
        assert_eq!(register_budget(512), 128);
        assert_eq!(register_budget(1024), 64);
    }

    #[test]
    fn messages_print_numbers_exactly() {
        let m = RuleMessage::new().s("a ").n(0).s(" b ").n(4_294_967_295);
        assert_eq!(m.as_str(), "a 0 b 4294967295");
    }
}
