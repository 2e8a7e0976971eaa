//! Every elementwise kernel variant the GPU tests launch assembles with
//! ptxas for sm_70, sm_80 and sm_90a with no spills.
//!
//! Skips (with a printed reason) where ptxas is not installed; see
//! `tests/common/ptxas.rs`.

mod common;
mod elementwise_cases;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::kernel::elementwise::{Access, ElementwiseSpec, Operand, Schedule, Tiling};
use cutlet::numeric::ElementType;
use elementwise_cases::spec;

/// Assembles `spec` as given and with the launcher's 1-D view (`flat`)
/// toggled; asserts no spills.
fn check(spec: &ElementwiseSpec, target: &str) {
    for flat in [false, true] {
        let spec = ElementwiseSpec {
            flat,
            ..spec.clone()
        };
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
            "{} (flat {flat}) spills on {target}: {f:?}",
            spec.kernel_name()
        );
    }
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

/// Every schedule variant (persistent walk, cache hints, occupancy
/// directive) for the two benchmark expressions, contiguous and
/// strided (one tile per block only: see `Schedule::persistent`).
#[test]
fn schedules_assemble() {
    use cutlet::kernel::elementwise::{Prefetch, StoreHint};
    let schedules = [
        Schedule::default(),
        Schedule {
            persistent: 4,
            ..Schedule::default()
        },
        Schedule {
            l1_no_allocate: true,
            prefetch: Prefetch::B256,
            store: StoreHint::NoAllocate,
            ..Schedule::default()
        },
        Schedule {
            prefetch: Prefetch::B128,
            store: StoreHint::WriteBack,
            min_blocks_per_sm: 4,
            ..Schedule::default()
        },
        Schedule {
            persistent: 2,
            ..Schedule::default()
        },
    ];
    for (arch, target) in TARGETS {
        for schedule in schedules {
            for (expression, element) in [
                (elementwise_cases::add(), ElementType::F16),
                (elementwise_cases::gelu3(), ElementType::BF16),
            ] {
                for access in [Access::Contiguous { width: 8 }, Access::Strided] {
                    // The launcher walks strided operands one tile per block;
                    // a register cap is for the vector path.
                    let tuned = schedule.persistent > 0 || schedule.min_blocks_per_sm > 0;
                    if tuned && access == Access::Strided {
                        continue;
                    }
                    let mut s = spec(arch, expression.clone(), element, access);
                    s.schedule = schedule;
                    check(&s, target);
                }
            }
        }
    }
}

/// The bulk-copy schedules `tests/elementwise_gpu.rs` and the benchmark
/// lines run: one chunk walk per block and persistent rings, stores from
/// registers and through shared memory, for the benchmark expressions and
/// f32; sm_90a only, the launcher's 1-D view, no spills.
fn bulk_schedules() -> Vec<Schedule> {
    use cutlet::kernel::elementwise::{BulkCopy, BulkStore};
    let mut out = Vec::new();
    for store in [BulkStore::Registers, BulkStore::Bulk] {
        for (persistent, stages, tiles_per_stage) in [
            (0, 1, 1),
            (0, 2, 2),
            (1, 2, 1),
            (1, 3, 2),
            (2, 4, 1),
            (1, 2, 3),
        ] {
            out.push(Schedule {
                persistent,
                bulk: Some(BulkCopy {
                    stages,
                    tiles_per_stage,
                    store,
                }),
                ..Schedule::default()
            });
        }
    }
    out
}

#[test]
fn bulk_schedules_assemble_for_sm90a() {
    let cases = [
        (elementwise_cases::add(), ElementType::F16),
        (elementwise_cases::add(), ElementType::BF16),
        (elementwise_cases::add(), ElementType::F32),
        (elementwise_cases::gelu3(), ElementType::BF16),
        (elementwise_cases::gelu3(), ElementType::F16),
    ];
    for schedule in bulk_schedules() {
        for (expression, element) in &cases {
            let width = 16 / element.size_bytes();
            let mut s = spec(
                ArchKind::Sm90,
                expression.clone(),
                *element,
                Access::Contiguous { width },
            );
            s.schedule = schedule;
            s.flat = true;
            let layout = s.bulk_layout().unwrap().unwrap();
            let ptx = s.ptx().unwrap();
            for needed in [
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
                "mbarrier.try_wait.parity.shared::cta.b64",
                "ld.shared.v4.b32",
            ] {
                assert!(ptx.contains(needed), "{}: no `{needed}`", s.kernel_name());
            }
            if layout.output_offset.is_some() {
                for needed in [
                    "st.shared.v4.b32",
                    "fence.proxy.async.shared::cta",
                    "cp.async.bulk.global.shared::cta.bulk_group",
                ] {
                    assert!(ptx.contains(needed), "{}: no `{needed}`", s.kernel_name());
                }
            } else {
                assert!(ptx.contains("st.global.cs.v4.b32"), "{}", s.kernel_name());
            }
            let Some(report) = assemble(&ptx, "sm_90a") else {
                return;
            };
            let f = report.function(&s.kernel_name());
            assert_eq!(
                f.spill_stores + f.spill_loads,
                0,
                "{} ({schedule:?}) spills: {f:?}",
                s.kernel_name()
            );
        }
    }
}

/// A 3-input bf16 ring of 4 stages of 4 tiles and its shared memory, by hand:
/// 3 x 32 KiB of inputs (+ 32 KiB of output with bulk stores) per stage.
#[test]
fn bulk_layout_sizes_and_limits() {
    use cutlet::kernel::elementwise::{BulkCopy, BulkStore};
    let mut s = spec(
        ArchKind::Sm90,
        elementwise_cases::gelu3(),
        ElementType::BF16,
        Access::Contiguous { width: 8 },
    );
    s.flat = true;
    s.schedule.persistent = 1;
    s.schedule.bulk = Some(BulkCopy {
        stages: 2,
        tiles_per_stage: 4,
        store: BulkStore::Registers,
    });
    let l = s.bulk_layout().unwrap().unwrap();
    assert_eq!(l.chunk_elements, 4 * 16 * 256);
    assert_eq!(l.input_offsets, [0, 32768, 65536]);
    assert_eq!((l.stage_bytes, l.tx_bytes), (98304, 98304));
    assert_eq!(l.shared_bytes, 2 * 98304 + 16);
    // A third stage (or bulk stores) would exceed 227 KiB with these three
    // inputs: the problem does not fit the ring (the launcher's default
    // path runs it), and the reason names the sizes.
    s.schedule.bulk = Some(BulkCopy {
        stages: 3,
        tiles_per_stage: 4,
        store: BulkStore::Registers,
    });
    let reason = s.bulk_layout().unwrap().unwrap_err();
    let text = reason.to_string();
    assert!(
        matches!(reason, cutlet::Error::InvalidArgument { .. })
            && text.contains("bulk copy schedule")
            && text.contains("3 stages of 4 tiles")
            && text.contains("232448"),
        "{text}"
    );
    // Not sm_90a, not the 1-D view, a narrow access: the launcher's fallback.
    s.schedule.bulk = Some(BulkCopy::default());
    for (arch, flat, width) in [
        (ArchKind::Sm80, true, 8),
        (ArchKind::Sm90, false, 8),
        (ArchKind::Sm90, true, 4),
    ] {
        let mut t = s.clone();
        t.arch = arch;
        t.flat = flat;
        t.inputs[1].access = Access::Contiguous { width };
        let reason = t.bulk_layout().unwrap().unwrap_err();
        assert!(
            matches!(reason, cutlet::Error::InvalidArgument { .. })
                && reason.to_string().contains("bulk copy schedule"),
            "{reason}"
        );
        let text = t.ptx().unwrap_err().to_string();
        assert!(text.contains("bulk copy schedule"), "{text}");
    }
}
