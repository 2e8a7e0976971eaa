//! The SM80 and SM70 kernel builders: a good tile, warp layout and stage count for
//! element types and majors (CUTLASS's `CollectiveBuilder` with
//! `StageCountAuto`, for the whole kernel: mainloop, epilogue, scheduler).

use super::{atom_shape, GemmSpec};
use crate::arch::ArchKind;
use crate::gemm::{GemmMajors, GemmTypes, OperandMajor, OutputMajor};
use crate::numeric::ElementType;

/// The (A = B, D, accumulator) type combinations every family of default
/// kernels covers: f16, f16, f32; f16, f32, f32; bf16, bf16, f32; bf16,
/// f32, f32; f16, f16, f16; tf32 as f32, f32, f32.
pub(super) const DEFAULT_TYPES: [(ElementType, ElementType, ElementType); 6] = {
    use ElementType::{BF16, F16, F32};
    [
        (F16, F16, F32),
        (F16, F32, F32),
        (BF16, BF16, F32),
        (BF16, F32, F32),
        (F16, F16, F16),
        (F32, F32, F32),
    ]
};

/// The default SM80 GEMM for these types and majors, C and D of one type
/// and one major.
///
/// The tile fills one 128-byte shared-memory row along K (BK = 64 for
/// 16-bit inputs, 32 for tf32). 16-bit inputs: 128x256 over 2x4 warps (each
/// 64x64: 128 f32 accumulators a thread). tf32: 128x128 over 2x4 warps.
/// Stages: as many as fit in the arch's opt-in shared memory (the epilogue's
/// staging tile reuses the same memory), at most 4.
///
/// ```
/// use cutlet::kernel::gemm::sm80_default_spec;
/// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{F16, F32};
///
/// let spec = sm80_default_spec(F16, F16, F16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
/// assert_eq!((spec.tile, spec.mainloop.warps, spec.mainloop.stages()), ([128, 256, 64], [2, 4, 1], 3));
/// assert_eq!(spec.shared_mem_bytes(), 3 * 48 * 1024);
/// ```
///
/// # Errors
/// [`Error::Config`](crate::Error::Config) naming the broken rule when no
/// kernel exists for these types and majors (see [`GemmSpec::validate`]).
pub fn sm80_default_spec(
    a: ElementType,
    b: ElementType,
    d: ElementType,
    acc: ElementType,
    a_major: OperandMajor,
    b_major: OperandMajor,
    d_major: OutputMajor,
) -> crate::Result<GemmSpec> {
    let arch = ArchKind::Sm80;
    let bk = crate::gemm::default_tile_k(a);
    let tile = match atom_shape(a) {
        [_, _, 8] => [128, 128, bk],
        _ => [128, 256, bk],
    };
    let types = GemmTypes::new(a, b, d, d, acc);
    let majors = GemmMajors::new(a_major, b_major, d_major);
    let mut spec = GemmSpec::multistage(arch, types, majors, tile, [2, 4, 1], 2);
    let limit = arch.max_dynamic_shared_bytes();
    let mut stages = 2;
    while stages < 4 && (stages + 1) * spec.stage_bytes() <= limit {
        stages += 1;
    }
    spec.set_stages(stages);
    spec.validate()?;
    Ok(spec)
}

/// The default SM80 GEMM for a problem of `m x n` outputs (per batch, `l`
/// batches) on a GPU of `sm_count` SMs: [`sm80_default_spec`], with the
/// 16-bit tile turned to 256x128 (warps 4x2) when that takes fewer waves of
/// one-tile-per-SM blocks (e.g. 4095 x 4097: 544 tiles of 128x256 are 5
/// waves on 132 SMs, 528 tiles of 256x128 are 4) and A is K-major.
///
/// ```
/// use cutlet::gemm::{GemmMajors, GemmTypes};
/// use cutlet::kernel::gemm::sm80_spec_for_problem;
/// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let pick = |m, n| sm80_spec_for_problem(GemmTypes::new(BF16, BF16, BF16, BF16, F32), GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::N), m, n, 1, 132).unwrap().tile;
/// assert_eq!(pick(4096, 4096), [128, 256, 64]);
/// assert_eq!(pick(4095, 4097), [256, 128, 64]);
/// ```
///
/// # Errors
/// As [`sm80_default_spec`].
pub fn sm80_spec_for_problem(
    types: GemmTypes,
    majors: GemmMajors,
    m: u32,
    n: u32,
    l: u32,
    sm_count: u32,
) -> crate::Result<GemmSpec> {
    let (t, mj) = (types, majors);
    let wide = sm80_default_spec(t.a, t.b, t.d, t.acc, mj.a, mj.b, mj.d)?;
    let Some(tall) = tall_variant(&wide) else {
        return Ok(wide);
    };
    let waves = |spec: &GemmSpec| {
        let (gx, gy, _) = spec.grid(m.max(1), n.max(1), l.max(1));
        (u64::from(gx) * u64::from(gy)).div_ceil(u64::from(sm_count.max(1)))
    };
    Ok(if waves(&tall) < waves(&wide) {
        tall
    } else {
        wide
    })
}

/// The 256x128 (warps 4x2) variant of a 128x256 default, where the builder
/// offers one: 16-bit inputs with a K-major A. (The tall tile with an
/// MN-major A, 8 copies of A per stage and thread, spills under ptxas 12.9.)
fn tall_variant(wide: &GemmSpec) -> Option<GemmSpec> {
    if wide.tile != [128, 256, 64] || wide.majors.a == OperandMajor::MN {
        return None;
    }
    let mut tall = wide.clone();
    tall.tile = [256, 128, 64];
    tall.mainloop.warps = [4, 2, 1];
    tall.validate().is_ok().then_some(tall)
}

/// Every configuration the SM80 builder can pick: [`sm80_default_spec`]
/// for each supported (A = B, D, accumulator) type combination (f16, f16,
/// f32; f16, f32, f32; bf16, bf16, f32; bf16, f32, f32; f16, f16, f16;
/// tf32 as f32, f32, f32), A and B K- or MN-major and D row- or
/// column-major, each followed by the 256x128 variant that
/// [`sm80_spec_for_problem`] may pick instead, where there is one. A program
/// can compile them all ahead of its first GEMM; the tests check them all.
///
/// ```
/// use cutlet::kernel::gemm::sm80_default_specs;
///
/// let specs = sm80_default_specs();
/// // 6 type combinations x 8 majors, and 20 tall variants (16-bit inputs, K-major A).
/// assert_eq!(specs.len(), 68);
/// assert_eq!(specs.iter().filter(|s| s.tile == [256, 128, 64]).count(), 20);
/// ```
pub fn sm80_default_specs() -> Vec<GemmSpec> {
    let majors = [OperandMajor::K, OperandMajor::MN];
    let mut specs = Vec::new();
    for (ab, d, acc) in DEFAULT_TYPES {
        for a_major in majors {
            for b_major in majors {
                for d_major in [OutputMajor::N, OutputMajor::M] {
                    let Ok(spec) = sm80_default_spec(ab, ab, d, acc, a_major, b_major, d_major)
                    else {
                        continue;
                    };
                    let tall = tall_variant(&spec);
                    specs.push(spec);
                    specs.extend(tall);
                }
            }
        }
    }
    specs
}

/// The default SM70 GEMM for these types and majors (A and B f16, the
/// accumulator f32 or f16; C and D of one type and one major): a 128x128x32
/// tile over 2x4 warps (256 threads; each warp 2x2 quad pairs, each quad
/// pair 32x16: 64 f32 accumulators a thread) and the two-stage mainloop
/// (CUTLASS's `MainloopSm70TwoStage`).
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::collective::MainloopPolicy;
/// use cutlet::kernel::gemm::sm70_default_spec;
/// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{F16, F32};
///
/// let spec = sm70_default_spec(F16, F16, F16, F32, OperandMajor::K, OperandMajor::MN, OutputMajor::N).unwrap();
/// assert_eq!((spec.arch, spec.tile, spec.mainloop.warps), (ArchKind::Sm70, [128, 128, 32], [2, 4, 1]));
/// assert_eq!(spec.mainloop.policy, MainloopPolicy::Sm70TwoStage);
/// assert!(spec.ptx().unwrap().contains("mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32"));
/// // bf16 has no sm_70 instruction.
/// assert!(sm70_default_spec(cutlet::numeric::ElementType::BF16, cutlet::numeric::ElementType::BF16, F32, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).is_err());
/// ```
///
/// # Errors
/// [`Error::Config`](crate::Error::Config) naming the broken rule when no
/// SM70 kernel exists for these types and majors.
pub fn sm70_default_spec(
    a: ElementType,
    b: ElementType,
    d: ElementType,
    acc: ElementType,
    a_major: OperandMajor,
    b_major: OperandMajor,
    d_major: OutputMajor,
) -> crate::Result<GemmSpec> {
    let types = GemmTypes::new(a, b, d, d, acc);
    let majors = GemmMajors::new(a_major, b_major, d_major);
    let mut spec =
        GemmSpec::multistage(ArchKind::Sm70, types, majors, [128, 128, 32], [2, 4, 1], 2);
    spec.mainloop.policy = crate::collective::MainloopPolicy::Sm70TwoStage;
    spec.validate()?;
    Ok(spec)
}

/// Every configuration the SM70 builder can pick: [`sm70_default_spec`]
/// for f16 inputs with (D, accumulator) f16/f32, f32/f32 and f16/f16, A and
/// B K- or MN-major, D row- or column-major (24 specs). The tests assemble
/// them all for sm_70.
///
/// ```
/// assert_eq!(cutlet::kernel::gemm::sm70_default_specs().len(), 24);
/// ```
pub fn sm70_default_specs() -> Vec<GemmSpec> {
    use ElementType::{F16, F32};
    let majors = [OperandMajor::K, OperandMajor::MN];
    let mut specs = Vec::new();
    for (d, acc) in [(F16, F32), (F32, F32), (F16, F16)] {
        for a_major in majors {
            for b_major in majors {
                for d_major in [OutputMajor::N, OutputMajor::M] {
                    specs.extend(sm70_default_spec(
                        F16, F16, d, acc, a_major, b_major, d_major,
                    ));
                }
            }
        }
    }
    specs
}
