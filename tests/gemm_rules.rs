//! One rule set for GEMM configurations: every combination of the sweep
//! (`common/sweep.rs`) either builds or is refused by a rule that names a
//! limit of the hardware or the instruction; the typed front door and the
//! runtime builder accept and refuse the same configurations.
//!
//! `CUTLET_GEMM_SWEEP=full` generates the PTX of every accepted
//! combination (26,672; minutes); by default a fixed sample of them.

mod common;

use std::collections::BTreeMap;

use common::sweep::{combos, limit_of, uneven_combos};
use cutlet::arch::Sm80;
use cutlet::device::gemm::{
    Config, GemmConfig, KMajor, Majors, MnMajor, RowMajor, Tile, Types, Warps,
};
use cutlet::kernel::gemm::{check_config, GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
use cutlet::Error;
use half::{bf16, f16};
use typenum::{U1, U128, U2, U32, U4, U64, U8};

fn full_sweep() -> bool {
    std::env::var("CUTLET_GEMM_SWEEP").as_deref() == Ok("full")
}

#[test]
fn every_combination_builds_or_is_refused_by_a_named_limit() {
    let all = combos();
    assert_eq!(all.len(), 6 * 8 * 16 * 4 * 16);
    let mut refused: BTreeMap<&str, usize> = BTreeMap::new();
    let mut accepted: Vec<GemmSpec> = Vec::new();
    for combo in &all {
        match combo.builder().spec() {
            Ok(spec) => accepted.push(spec),
            Err(Error::Config { config, reason }) => {
                let limit = limit_of(&reason)
                    .unwrap_or_else(|| panic!("{config} was refused for no named limit: {reason}"));
                *refused.entry(limit).or_default() += 1;
            }
            Err(other) => panic!("{combo:?}: not a configuration error: {other}"),
        }
    }
    println!(
        "{} combinations: {} build, {} refused",
        all.len(),
        accepted.len(),
        all.len() - accepted.len()
    );
    for (limit, count) in &refused {
        println!("  refused by {limit}: {count}");
    }
    // The tiles the issue names build: 32x32x64 on one warp, tf32 with an
    // MN-major operand on 64x128x32 with 2x2 warps, 256x128x32, 128x64x32.
    for (ab, major, tile, warps) in [
        (ElementType::BF16, OperandMajor::K, [32, 32, 64], [1, 1]),
        (ElementType::F32, OperandMajor::MN, [64, 128, 32], [2, 2]),
        (ElementType::F32, OperandMajor::MN, [256, 128, 32], [4, 2]),
        (ElementType::F32, OperandMajor::MN, [128, 64, 32], [2, 2]),
    ] {
        assert!(
            accepted.iter().any(|s| s.types.a == ab
                && s.majors.b == major
                && s.tile == tile
                && s.mainloop.warps == [warps[0], warps[1], 1]),
            "{ab} {major:?} {tile:?} {warps:?} is not accepted"
        );
    }
    // Every accepted configuration's kernel is generated (a sample by default).
    let stride = if full_sweep() { 1 } else { 127 };
    let mut generated = 0;
    for spec in accepted.iter().step_by(stride) {
        spec.ptx().unwrap_or_else(|e| {
            panic!(
                "{} passed the rules but does not generate: {e}",
                spec.kernel_name()
            )
        });
        generated += 1;
    }
    println!("generated the kernels of {generated} accepted configurations");
}

#[test]
fn uneven_tiles_and_warps_build_or_are_refused_by_a_named_limit() {
    let mut built = 0;
    for combo in uneven_combos() {
        match combo.builder().spec() {
            Ok(spec) => {
                if built % 7 == 0 || full_sweep() {
                    spec.ptx().unwrap_or_else(|e| {
                        panic!(
                            "{} passed the rules but does not generate: {e}",
                            spec.kernel_name()
                        )
                    });
                }
                built += 1;
            }
            Err(Error::Config { config, reason }) => {
                assert!(
                    limit_of(&reason).is_some() || reason.contains("the row of a swizzle atom"),
                    "{config}: {reason}"
                );
            }
            Err(other) => panic!("{combo:?}: not a configuration error: {other}"),
        }
    }
    assert!(built > 100, "only {built} uneven configurations build");
}

#[test]
fn a_sample_of_the_sweep_assembles_with_ptxas() {
    let accepted: Vec<GemmSpec> = combos()
        .iter()
        .filter_map(|c| c.builder().spec().ok())
        .collect();
    let mut assembled = 0;
    for spec in accepted.iter().step_by(1111) {
        let ptx = spec.ptx().unwrap();
        let Some(report) = common::ptxas::assemble(&ptx, "sm_80") else {
            return; // ptxas not found: assemble() printed why (or failed under CUTLET_REQUIRE_PTXAS)
        };
        let f = report.function(&spec.kernel_name());
        println!(
            "{}: {} registers, {} bytes spilled",
            spec.kernel_name(),
            f.registers,
            f.spill_stores
        );
        assembled += 1;
    }
    assert!(assembled >= 20, "only {assembled} kernels assembled");
}

/// The configuration a new user wrote in issue 9: it compiles, so it runs.
type Small = GemmConfig<
    Types<bf16, bf16, bf16, bf16, f32>,
    Majors<KMajor, KMajor, RowMajor>,
    Tile<U32, U32, U64>,
    Warps<U1, U1>,
    U2,
    Sm80,
>;

type Tf32MnMajor = GemmConfig<
    Types<f32, f32, f32, f32, f32>,
    Majors<KMajor, MnMajor, RowMajor>,
    Tile<U64, U128, U32>,
    Warps<U2, U2>,
    U4,
    Sm80,
>;

type WideK = GemmConfig<
    Types<f16, f16, f16, f16, f16>,
    Majors<MnMajor, MnMajor, RowMajor>,
    Tile<U128, U128, U128>,
    Warps<U2, U2>,
    U2,
    Sm80,
>;

type EightWarpsAlongM = GemmConfig<
    Types<bf16, bf16, f32, f32, f32>,
    Majors<KMajor, KMajor, RowMajor>,
    Tile<U128, U32, U32>,
    Warps<U8, U1>,
    U4,
    Sm80,
>;

fn typed_and_built_agree<C: Config>() {
    let () = C::CHECK;
    let typed = C::spec();
    typed.validate().unwrap();
    let built = cutlet::device::gemm::Gemm::builder()
        .a(typed.types.a, typed.majors.a)
        .b(typed.types.b, typed.majors.b)
        .d(typed.types.d, typed.majors.d)
        .accumulator(typed.types.acc)
        .tile(typed.tile)
        .warps([typed.mainloop.warps[0], typed.mainloop.warps[1]])
        .stages(typed.mainloop.stages())
        .spec()
        .unwrap();
    assert_eq!(typed, built);
    typed.ptx().unwrap();
}

#[test]
fn typed_configurations_that_compile_build_the_same_spec_as_the_builder() {
    typed_and_built_agree::<Small>();
    typed_and_built_agree::<Tf32MnMajor>();
    typed_and_built_agree::<WideK>();
    typed_and_built_agree::<EightWarpsAlongM>();
}

#[test]
fn the_builder_refuses_what_the_typed_check_refuses_with_the_same_sentence() {
    // 8 warps along N of a 32-wide tile: 4 columns a warp, less than the atom's 8.
    let mut facts = Small::spec();
    facts.mainloop.warps = [1, 8, 1];
    let rule = check_config(&facts.facts()).unwrap_err();
    let built = cutlet::device::gemm::Gemm::builder()
        .a(ElementType::BF16, OperandMajor::K)
        .b(ElementType::BF16, OperandMajor::K)
        .d(ElementType::BF16, OutputMajor::N)
        .tile([32, 32, 64])
        .warps([1, 8])
        .stages(2)
        .spec()
        .unwrap_err();
    let Error::Config { reason, .. } = &built else {
        panic!("not a configuration error: {built}");
    };
    assert_eq!(reason, rule.as_str());
    assert!(
        reason.contains("TileN 32 over 8 warps along N gives each warp 4 columns"),
        "{reason}"
    );
}

#[test]
fn a_tile_without_warps_gets_warp_tiles_near_64x64() {
    let warps = |tile: [u32; 3]| {
        cutlet::device::gemm::Gemm::builder()
            .tile(tile)
            .spec()
            .unwrap()
            .mainloop
            .warps
    };
    assert_eq!(warps([32, 32, 64]), [1, 1, 1]);
    assert_eq!(warps([128, 256, 64]), [2, 4, 1]);
    assert_eq!(warps([256, 128, 64]), [4, 2, 1]);
    assert_eq!(warps([64, 128, 32]), [1, 2, 1]);
}
