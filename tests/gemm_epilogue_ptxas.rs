//! Fused epilogues on the default SM80 GEMM configurations assemble for
//! sm_80 with no register spills, and their params follow the ABI table.

mod common;

use common::ptxas::assert_none_spills;
use cutlet::fusion::{scalar, Expr, Expression};
use cutlet::kernel::gemm::sm80_default_spec;
use cutlet::kernel::gemm::{BiasAxis, Epilogue, GemmSpec, OperandMajor, OutputMajor};
use cutlet::numeric::ElementType::{self, BF16, F16, F32};

/// The fused epilogues the GPU tests run.
fn epilogues() -> Vec<Epilogue> {
    let relu_row = Expression::from_fn(|acc: Expr, c: Expr, bias: Expr| {
        (acc * scalar(0) + c * scalar(1) + bias).relu()
    });
    let gelu_col =
        Expression::from_fn(|acc: Expr, _c: Expr, bias: Expr| (acc * scalar(0) + bias).gelu());
    let custom = Expression::from_fn(|acc: Expr, c: Expr, row: Expr, col: Expr| {
        let x = acc * scalar(0) + c * scalar(1) + row * col;
        x.gt(scalar(2)).select(x.clone() * scalar(3), x.sigmoid())
    });
    vec![
        Epilogue::new(relu_row, &[BiasAxis::Row]).unwrap(),
        Epilogue::new(gelu_col, &[BiasAxis::Column]).unwrap(),
        Epilogue::new(custom, &[BiasAxis::Row, BiasAxis::Column]).unwrap(),
    ]
}

fn spec(ab: ElementType, d: ElementType, a_major: OperandMajor, d_major: OutputMajor) -> GemmSpec {
    sm80_default_spec(ab, ab, d, F32, a_major, OperandMajor::K, d_major).unwrap()
}

#[test]
fn fused_epilogues_assemble_for_sm80_without_spills() {
    let mut specs = Vec::new();
    for (ab, d) in [(BF16, BF16), (F16, F32)] {
        for a_major in [OperandMajor::K, OperandMajor::MN] {
            for d_major in [OutputMajor::N, OutputMajor::M] {
                for epilogue in epilogues() {
                    let mut spec = spec(ab, d, a_major, d_major);
                    spec.epilogue.fusion = epilogue;
                    specs.push(spec);
                }
            }
        }
    }
    assert_none_spills(specs, "sm_80");
}

#[test]
fn fused_epilogue_params_follow_the_abi() {
    let mut spec = spec(BF16, BF16, OperandMajor::K, OutputMajor::N);
    spec.epilogue.fusion = epilogues().pop().unwrap();
    let ptx = spec.ptx().unwrap();
    let order = ["raster_log", "raster_order", "bias0", "bias1", "s2", "s3"];
    let at: Vec<usize> = order
        .iter()
        .map(|name| {
            ptx.find(&format!("{}_{name}", spec.kernel_name()))
                .or_else(|| ptx.find(&format!(" {name}")))
                .unwrap_or_else(|| panic!("param {name} missing"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
    assert!(spec.kernel_name().contains("_e"));
    let default = spec_default_name();
    assert!(!default.contains("_e"));
}

fn spec_default_name() -> String {
    spec(BF16, BF16, OperandMajor::K, OutputMajor::N).kernel_name()
}

#[test]
fn an_epilogue_whose_arity_does_not_match_its_biases_is_refused() {
    let mut spec = spec(BF16, BF16, OperandMajor::K, OutputMajor::N);
    spec.epilogue.fusion =
        Epilogue::from(Expression::from_fn(|a: Expr, b: Expr, c: Expr| a + b + c));
    let err = spec.validate().unwrap_err().to_string();
    assert!(err.contains("3 inputs with 0 bias vectors"), "{err}");
    assert!(spec.ptx().is_err());
}

/// Fused epilogues with row and column vectors on SM90 kernels of the
/// TMA-store epilogue (which holds the tile's column values from its
/// prologue on where they fit), at the builder's picks for large and
/// split-K problems and on the widest tiles, assemble for sm_90a with no
/// register spills.
#[test]
fn fused_epilogues_assemble_for_sm90_without_spills() {
    use cutlet::gemm::{GemmMajors, GemmTypes};
    use cutlet::kernel::gemm::{sm90_spec, sm90_spec_for_problem, KernelSchedule};
    let four_columns = Expression::from_fn(
        |acc: Expr, c: Expr, b0: Expr, b1: Expr, b2: Expr, b3: Expr| {
            (acc * scalar(0) + c * scalar(1) + b0 * b1 + b2 * b3).relu()
        },
    );
    let mut fusions = epilogues();
    fusions.push(Epilogue::new(four_columns, &[BiasAxis::Column; 4]).unwrap());
    let mut specs = Vec::new();
    // tf32 with an M-major A reads A through registers (the `_RS` mainloop).
    for (ab, d, a_major) in [
        (BF16, BF16, OperandMajor::K),
        (F16, F32, OperandMajor::K),
        (F32, F32, OperandMajor::MN),
    ] {
        let types = GemmTypes::new(ab, ab, d, d, F32);
        let majors = GemmMajors::new(a_major, OperandMajor::K, OutputMajor::N);
        // Large, split-K, swap-AB (a small M) and few-tile picks, and the
        // widest cooperative and ping-pong tiles.
        let mut bases: Vec<GemmSpec> = [
            [4096, 4096, 4096, 1],
            [512, 512, 16384, 1],
            [16, 4096, 4096, 1],
            [128, 1536, 7168, 1],
        ]
        .into_iter()
        .map(|problem| sm90_spec_for_problem(types, majors, problem, 132).unwrap())
        .collect();
        let cooperative = KernelSchedule::TmaWarpSpecializedCooperative;
        let pingpong = KernelSchedule::TmaWarpSpecializedPingpong;
        for (schedule, tile) in [
            (cooperative, [128, 256, 64]),
            (cooperative, [256, 128, 64]),
            (pingpong, [64, 256, 64]),
            (pingpong, [128, 128, 64]),
        ] {
            if let Ok(spec) = sm90_spec(types, majors, schedule, tile, [1, 1]) {
                bases.push(spec);
            }
        }
        for base in bases {
            for fusion in &fusions {
                specs.push(base.clone().with_fusion(fusion.clone()).unwrap());
            }
        }
    }
    assert!(specs.len() >= 32, "{} specs", specs.len());
    assert_none_spills(specs, "sm_90a");
}
