//! Every elementwise kernel variant the GPU tests launch assembles with
//! ptxas for sm_70, sm_80 and sm_90a with no spills.
//!
//! Skips (with a printed reason) where ptxas is not installed; see
//! `tests/common/ptxas.rs`.

mod common;
mod elementwise_cases;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::kernel::elementwise::{Access, ElementwiseSpec, Operand, Tiling};
use cutlet::numeric::ElementType;

fn spec(
    arch: ArchKind,
    expression: cutlet::fusion::Expression,
    element: ElementType,
    access: Access,
) -> ElementwiseSpec {
    let operand = Operand {
        element,
        access,
        read_only: true,
    };
    let compute = if matches!(element, ElementType::F64 | ElementType::I32) {
        ElementType::F64
    } else {
        ElementType::F32
    };
    ElementwiseSpec {
        arch,
        inputs: vec![operand; expression.arity()],
        output: Operand {
            read_only: false,
            ..operand
        },
        expression,
        compute,
        tiling: Tiling::for_vector(16 / element.size_bytes()),
    }
}

fn check(spec: &ElementwiseSpec, target: &str) {
    let ptx = spec
        .ptx()
        .unwrap_or_else(|e| panic!("{}: {e}", spec.kernel_name()));
    let Some(report) = assemble(&ptx, target) else {
        return;
    };
    let f = report.function(&spec.kernel_name());
    assert_eq!(
        f.spill_stores + f.spill_loads,
        0,
        "{} spills on {target}: {f:?}",
        spec.kernel_name()
    );
}

const TARGETS: [(ArchKind, &str); 3] = [
    (ArchKind::Sm70, "sm_70"),
    (ArchKind::Sm80, "sm_80"),
    (ArchKind::Sm90, "sm_90a"),
];

#[test]
fn every_op_assembles_for_every_float_type() {
    for (arch, target) in TARGETS {
        for (_, expression, _) in elementwise_cases::ops() {
            for element in [ElementType::F16, ElementType::BF16, ElementType::F32] {
                let width = 16 / element.size_bytes();
                check(
                    &spec(
                        arch,
                        expression.clone(),
                        element,
                        Access::Contiguous { width },
                    ),
                    target,
                );
            }
        }
    }
}

#[test]
fn every_access_assembles() {
    let accesses = [
        Access::Contiguous { width: 8 },
        Access::Contiguous { width: 2 },
        Access::Contiguous { width: 1 },
        Access::Broadcast,
        Access::Strided,
    ];
    for (arch, target) in TARGETS {
        for access in accesses {
            for element in [
                ElementType::F16,
                ElementType::F32,
                ElementType::F64,
                ElementType::I32,
            ] {
                let access = match access {
                    Access::Contiguous { width } => Access::Contiguous {
                        width: width.min(16 / element.size_bytes()),
                    },
                    other => other,
                };
                check(
                    &spec(arch, elementwise_cases::add(), element, access),
                    target,
                );
            }
        }
    }
}

#[test]
fn mixed_types_assemble() {
    for (arch, target) in TARGETS {
        let mut s = spec(
            arch,
            elementwise_cases::gelu3(),
            ElementType::BF16,
            Access::Contiguous { width: 8 },
        );
        s.inputs[1] = Operand {
            element: ElementType::F32,
            access: Access::Contiguous { width: 4 },
            read_only: true,
        };
        s.inputs[2] = Operand {
            element: ElementType::F16,
            access: Access::Broadcast,
            read_only: false,
        };
        s.output = Operand {
            element: ElementType::F32,
            access: Access::Strided,
            read_only: false,
        };
        check(&s, target);
    }
}

/// The tilings `tests/elementwise_gpu.rs` and `examples/elementwise_add.rs` use.
#[test]
fn custom_tilings_assemble() {
    let tilings = [
        ("(4,32):(32,1)", "(2,8):(8,1)"),
        ("(32,4):(1,32)", "(1,4):(4,1)"),
        ("(2,64):(64,1)", "(8,1):(1,1)"),
        ("(8,32):(32,1)", "(1,1):(1,1)"),
        ("(8,32):(32,1)", "(1,8):(8,1)"),
    ];
    for (arch, target) in TARGETS {
        for (thr, val) in tilings {
            let mut s = spec(
                arch,
                elementwise_cases::add(),
                ElementType::F16,
                Access::Contiguous { width: 8 },
            );
            s.tiling = Tiling {
                thr: thr.parse().unwrap(),
                val: val.parse().unwrap(),
            };
            check(&s, target);
        }
    }
}
