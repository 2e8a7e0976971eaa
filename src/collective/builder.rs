//! The SM80 collective builder: a good tile, warp layout and stage count for
//! element types and majors (CUTLASS's `CollectiveBuilder` with
//! `StageCountAuto`).

use super::MmaKind;
use crate::arch::ArchKind;
use crate::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor};
use crate::numeric::ElementType;

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
/// use cutlet::collective::sm80_default_spec;
/// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{F16, F32};
///
/// let spec = sm80_default_spec(F16, F16, F16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
/// assert_eq!((spec.tile, spec.warps, spec.stages), ([128, 256, 64], [2, 4, 1], 3));
/// assert_eq!(spec.shared_mem_bytes(), 3 * 48 * 1024);
/// ```
///
/// # Errors
/// A sentence naming the values when no kernel exists for them (see
/// [`GemmSpec::validate`]).
pub fn sm80_default_spec(
    a: ElementType,
    b: ElementType,
    d: ElementType,
    acc: ElementType,
    a_major: OperandMajor,
    b_major: OperandMajor,
    d_major: OutputMajor,
) -> Result<GemmSpec, String> {
    let arch = ArchKind::Sm80;
    let mma = MmaKind::for_types(a, b, acc).ok_or_else(|| {
        format!("element types a={a}, b={b}, acc={acc}: expected f16/f16/f32, bf16/bf16/f32, f16/f16/f16 or f32/f32/f32 (tf32)")
    })?;
    let tile = match mma {
        MmaKind::Tf32 => [128, 128, 32],
        _ => [128, 256, 64],
    };
    let mut spec = GemmSpec {
        arch,
        a,
        b,
        c: d,
        d,
        acc,
        a_major,
        b_major,
        c_major: d_major,
        d_major,
        tile,
        warps: [2, 4, 1],
        stages: 2,
    };
    let limit = arch.max_dynamic_shared_bytes();
    while spec.stages < 4 && (spec.stages + 1) * spec.stage_bytes() <= limit {
        spec.stages += 1;
    }
    spec.validate()?;
    Ok(spec)
}
