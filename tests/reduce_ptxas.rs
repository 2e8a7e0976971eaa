//! Every reduction kernel the GPU tests launch assembles with ptxas for
//! sm_70, sm_80 and sm_90a, without spills. The kernels are found the way
//! the device layer finds them: by planning each GPU test case.

mod common;
mod reduce;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::kernel::reduce::{plan, ColumnTuning, Problem, ReduceDim, ReduceOp, ReduceSpec};
use cutlet::numeric::ElementType;
use reduce::{maps, View, DIMS, SPLIT_VIEWS, TYPE_PAIRS, VIEWS};

/// One GPU test case: view, dimension, operator, (input, output) types and
/// the index of its map in `maps()` (`usize::MAX`: none).
type Case = (View, ReduceDim, ReduceOp, (ElementType, ElementType), usize);

/// The specs of every launch of every GPU test case on `arch` (132 SMs, as
/// an H100/H200; the SM count only changes split counts, not kernels).
fn specs(arch: ArchKind) -> Vec<ReduceSpec> {
    let mut cases: Vec<Case> = Vec::new();
    for op in ReduceOp::ALL {
        for dim in DIMS {
            for pair in TYPE_PAIRS {
                for view in VIEWS {
                    cases.push((view, dim, op, pair, usize::MAX));
                }
                for (m, _) in maps().iter().enumerate() {
                    for view in [VIEWS[1], VIEWS[2], VIEWS[4], VIEWS[5]] {
                        cases.push((view, dim, op, pair, m));
                    }
                }
            }
        }
        for (view, dim) in SPLIT_VIEWS {
            for pair in [TYPE_PAIRS[0], TYPE_PAIRS[4]] {
                cases.push((view, dim, op, pair, usize::MAX));
            }
        }
    }
    let maps = maps();
    let mut specs: Vec<ReduceSpec> = Vec::new();
    for (view, dim, op, (input, output), map) in cases {
        let problem = Problem {
            op,
            input,
            output,
            shape: view.shape.map(|x| x as u64),
            strides: view.strides.map(|x| x as u64),
            address: 256 + (view.offset as u64) * u64::from(input.size_bytes()),
            out_stride: 1,
            dim,
            map: maps.get(map).map(|(_, e, _)| e.clone()),
            arch,
            sm_count: 132,
            ctas_per_sm: 8,
            tuning: ColumnTuning::default(),
        };
        for launch in plan(&problem).launches {
            if !specs.contains(&launch.spec) {
                specs.push(launch.spec);
            }
        }
    }
    // The column tunings `examples/reduce_sweep.rs` measures, on aligned
    // and ragged f32 rows.
    for (_, tuning) in reduce::TUNINGS {
        for (rows, cols) in [(16384u64, 8192u64), (16383, 8191)] {
            let problem = Problem {
                op: ReduceOp::Sum,
                input: ElementType::F32,
                output: ElementType::F32,
                shape: [rows, cols],
                strides: [cols, 1],
                address: 256,
                out_stride: 1,
                dim: ReduceDim::First,
                map: None,
                arch,
                sm_count: 132,
                ctas_per_sm: 8,
                tuning,
            };
            for launch in plan(&problem).launches {
                if !specs.contains(&launch.spec) {
                    specs.push(launch.spec);
                }
            }
        }
    }
    specs
}

#[test]
fn every_tested_reduction_kernel_assembles_without_spills() {
    for arch in ArchKind::ALL {
        let specs = specs(arch);
        assert!(
            specs.len() > 20,
            "{arch}: only {} kernels planned",
            specs.len()
        );
        for spec in specs {
            let name = spec.kernel_name();
            let ptx = spec.ptx().unwrap_or_else(|e| panic!("{name}: {e}"));
            let Some(report) = assemble(&ptx, arch.ptx_target()) else {
                return;
            };
            let f = report.function(&name);
            assert_eq!(
                (f.spill_stores, f.spill_loads),
                (0, 0),
                "{name} on {arch} spills: {f:?}"
            );
        }
    }
}
