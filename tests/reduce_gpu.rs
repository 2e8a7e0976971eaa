//! Reductions on a GPU against an f64 host reference: every operator x
//! dimension x (input, output) type on aligned, ragged, column-major, padded
//! and unit-stride-free views; split (multi-CTA) plans; maps applied before
//! reducing; empty reductions. Outputs are poisoned (NaN) before each run.
//!
//! Tolerances come from the summation order (see `reduce/mod.rs`,
//! `tolerance`): f32 accumulation of at most ~1000 sequential terms per
//! accumulator, then balanced trees; one output ulp; max and min are exact.

mod common;
mod reduce;

use common::gpu::{device_or_skip, random_vec};
use cutlet::device::{Device, Reduce, ReduceWorkspace};
use cutlet::fusion::Expression;
use cutlet::kernel::reduce::{ColumnTuning, ReduceDim, ReduceOp};
use cutlet::numeric::ElementType;
use cutlet::tensor::{TensorMut, TensorRef, ViewLayout};
use reduce::{
    lines, maps, reference, tolerance, Host, View, DIMS, SPLIT_VIEWS, TUNINGS, TYPE_PAIRS, VIEWS,
};

/// One call: what to reduce and how.
struct Case<'a> {
    op: ReduceOp,
    dim: ReduceDim,
    view: View,
    map: Option<&'a (&'static str, Expression, Vec<f32>)>,
    seed: u64,
    tuning: ColumnTuning,
}

fn run<T: Host, U: Host>(device: &Device, workspace: &mut ReduceWorkspace, case: &Case<'_>) {
    let stream = device.default_stream();
    let view = case.view;
    let host: Vec<T> = random_vec(case.seed, view.buffer_len(), -1.0f64, 1.0)
        .into_iter()
        .map(T::from_f64)
        .collect();
    let buffer = stream.clone_htod(&host).unwrap();
    let lines = lines(&view, case.dim);
    let mut out = stream
        .clone_htod(&vec![U::from_f64(f64::NAN); lines.len()])
        .unwrap();
    let layout = ViewLayout::with_strides(&view.shape, &view.strides).unwrap();
    let sliced = buffer.slice(view.offset..);
    let input = TensorRef::new(&sliced, layout).unwrap();
    let mut reduce = Reduce::new(case.op, case.dim).tuning(case.tuning);
    if let Some((_, map, scalars)) = case.map {
        reduce = reduce.map(map.clone(), scalars);
    }
    reduce
        .run(
            device,
            &stream,
            input.into(),
            TensorMut::vector(&mut out).into(),
            workspace,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", label::<T, U>(case)));
    let got = stream.clone_dtoh(&out).unwrap();
    for (i, (line, got)) in lines.iter().zip(&got).enumerate() {
        let values: Vec<f64> = line
            .iter()
            .map(|&j| {
                let x = host[j].to_f64();
                match case.map {
                    Some((_, map, scalars)) => {
                        let scalars: Vec<f64> = scalars.iter().map(|&s| f64::from(s)).collect();
                        map.eval(&[x], &scalars)
                    }
                    None => x,
                }
            })
            .collect();
        let (want, magnitude) = reference(case.op, &values);
        let got = got.to_f64();
        let tol = tolerance(
            case.op,
            U::TYPE,
            want,
            magnitude,
            values.len(),
            case.map.is_some(),
        );
        let ok = if want.is_nan() {
            got.is_nan()
        } else {
            (got - want).abs() <= tol
        };
        assert!(
            ok,
            "{}: output {i}: got {got}, want {want} (tolerance {tol:e})",
            label::<T, U>(case)
        );
    }
}

fn label<T: Host, U: Host>(case: &Case<'_>) -> String {
    let map = case.map.map_or("identity", |(name, _, _)| name);
    format!(
        "{} dim {:?} {} -> {} view {} {:?}:{:?} map {map} {:?}",
        case.op,
        case.dim,
        T::TYPE,
        U::TYPE,
        case.view.name,
        case.view.shape,
        case.view.strides,
        case.tuning
    )
}

fn run_types(
    device: &Device,
    workspace: &mut ReduceWorkspace,
    pair: (ElementType, ElementType),
    case: &Case<'_>,
) {
    use half::{bf16, f16};
    match pair {
        (ElementType::F32, _) => run::<f32, f32>(device, workspace, case),
        (ElementType::F16, ElementType::F16) => run::<f16, f16>(device, workspace, case),
        (ElementType::F16, _) => run::<f16, f32>(device, workspace, case),
        (ElementType::BF16, ElementType::BF16) => run::<bf16, bf16>(device, workspace, case),
        _ => run::<bf16, f32>(device, workspace, case),
    }
}

#[test]
fn every_op_dim_and_type_on_every_view() {
    let Some(device) = device_or_skip("every_op_dim_and_type_on_every_view") else {
        return;
    };
    let mut workspace = ReduceWorkspace::new();
    let mut seed = 0;
    for op in ReduceOp::ALL {
        for dim in DIMS {
            for pair in TYPE_PAIRS {
                for view in VIEWS {
                    seed += 1;
                    run_types(
                        &device,
                        &mut workspace,
                        pair,
                        &Case {
                            op,
                            dim,
                            view,
                            map: None,
                            seed,
                            tuning: ColumnTuning::default(),
                        },
                    );
                }
            }
        }
    }
}

#[test]
fn column_tunings_match_the_host() {
    let Some(device) = device_or_skip("column_tunings_match_the_host") else {
        return;
    };
    let mut workspace = ReduceWorkspace::new();
    let views = [
        View {
            name: "tall",
            shape: [20_000, 520],
            strides: [520, 1],
            offset: 0,
        },
        View {
            name: "tall_ragged",
            shape: [20_001, 517],
            strides: [517, 1],
            offset: 1,
        },
    ];
    for (i, (_, tuning)) in TUNINGS.into_iter().enumerate() {
        for view in views {
            for op in [ReduceOp::Sum, ReduceOp::Max] {
                for pair in [
                    (ElementType::F32, ElementType::F32),
                    (ElementType::BF16, ElementType::F32),
                ] {
                    let case = Case {
                        op,
                        dim: ReduceDim::First,
                        view,
                        map: None,
                        seed: 2000 + i as u64,
                        tuning,
                    };
                    run_types(&device, &mut workspace, pair, &case);
                }
            }
        }
    }
}

#[test]
fn split_plans_match_the_host() {
    let Some(device) = device_or_skip("split_plans_match_the_host") else {
        return;
    };
    let mut workspace = ReduceWorkspace::new();
    for (i, (view, dim)) in SPLIT_VIEWS.into_iter().enumerate() {
        for op in ReduceOp::ALL {
            for pair in [
                (ElementType::F32, ElementType::F32),
                (ElementType::BF16, ElementType::F32),
            ] {
                let case = Case {
                    op,
                    dim,
                    view,
                    map: None,
                    seed: 1000 + i as u64,
                    tuning: ColumnTuning::default(),
                };
                run_types(&device, &mut workspace, pair, &case);
            }
        }
    }
    assert!(!workspace.is_empty(), "split plans use the workspace");
}

#[test]
fn maps_apply_before_reducing() {
    let Some(device) = device_or_skip("maps_apply_before_reducing") else {
        return;
    };
    let mut workspace = ReduceWorkspace::new();
    let maps = maps();
    let mut seed = 2000;
    for map in &maps {
        for op in ReduceOp::ALL {
            for dim in DIMS {
                for pair in [
                    (ElementType::F32, ElementType::F32),
                    (ElementType::F16, ElementType::F16),
                    (ElementType::BF16, ElementType::F32),
                ] {
                    for view in [VIEWS[1], VIEWS[2], VIEWS[4], VIEWS[5]] {
                        seed += 1;
                        run_types(
                            &device,
                            &mut workspace,
                            pair,
                            &Case {
                                op,
                                dim,
                                view,
                                map: Some(map),
                                seed,
                                tuning: ColumnTuning::default(),
                            },
                        );
                    }
                }
            }
        }
        let (view, dim) = SPLIT_VIEWS[3];
        seed += 1;
        run_types(
            &device,
            &mut workspace,
            TYPE_PAIRS[0],
            &Case {
                op: ReduceOp::Sum,
                dim,
                view,
                map: Some(map),
                seed,
                tuning: ColumnTuning::default(),
            },
        );
    }
}

#[test]
fn empty_reductions_follow_pytorch() {
    let Some(device) = device_or_skip("empty_reductions_follow_pytorch") else {
        return;
    };
    let stream = device.default_stream();
    let mut workspace = ReduceWorkspace::new();
    let x = stream.alloc_zeros::<f32>(1).unwrap();
    for (op, want) in [(ReduceOp::Sum, Some(0.0)), (ReduceOp::Mean, None)] {
        for dim in [ReduceDim::Last, ReduceDim::All] {
            let outputs = if dim == ReduceDim::All { 1 } else { 5 };
            let mut out = stream.clone_htod(&vec![7.0f32; outputs]).unwrap();
            let input = TensorRef::new(&x, ViewLayout::row_major(5, 0)).unwrap();
            Reduce::new(op, dim)
                .run(
                    &device,
                    &stream,
                    input.into(),
                    TensorMut::vector(&mut out).into(),
                    &mut workspace,
                )
                .unwrap();
            for got in stream.clone_dtoh(&out).unwrap() {
                match want {
                    Some(w) => assert_eq!(got, w, "{op} {dim:?}"),
                    None => assert!(got.is_nan(), "{op} {dim:?}: got {got}"),
                }
            }
        }
    }
    let mut out = stream.alloc_zeros::<f32>(5).unwrap();
    let input = TensorRef::new(&x, ViewLayout::row_major(5, 0)).unwrap();
    let err = Reduce::new(ReduceOp::Max, ReduceDim::Last)
        .run(
            &device,
            &stream,
            input.into(),
            TensorMut::vector(&mut out).into(),
            &mut workspace,
        )
        .unwrap_err();
    assert!(err.to_string().contains("max of no elements"), "{err}");
}

#[test]
fn wrong_output_and_map_are_errors() {
    let Some(device) = device_or_skip("wrong_output_and_map_are_errors") else {
        return;
    };
    let stream = device.default_stream();
    let mut workspace = ReduceWorkspace::new();
    let x = stream.alloc_zeros::<f32>(12).unwrap();
    let mut out = stream.alloc_zeros::<f32>(4).unwrap();
    let input = || TensorRef::row_major(&x, 3, 4).unwrap();
    let err = Reduce::along(ReduceOp::Sum, -1)
        .unwrap()
        .run(
            &device,
            &stream,
            input().into(),
            TensorMut::vector(&mut out).into(),
            &mut workspace,
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("expected a vector of 3 elements"),
        "{err}"
    );
    let err = Reduce::along(ReduceOp::Sum, 0)
        .unwrap()
        .map(
            Expression::from_fn(|x: cutlet::fusion::Expr| x * cutlet::fusion::scalar(0)),
            &[],
        )
        .run(
            &device,
            &stream,
            input().into(),
            TensorMut::vector(&mut out).into(),
            &mut workspace,
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("`map scalars` = 0 value(s)"),
        "{err}"
    );
}
