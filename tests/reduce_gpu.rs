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

use std::sync::Arc;

use common::gpu::random_vec;
use cudarc::driver::{CudaSlice, CudaStream};
use cutlet::device::{Device, Reduce, ReduceWorkspace};
use cutlet::fusion::Expression;
use cutlet::kernel::reduce::{ColumnTuning, ReduceDim, ReduceOp};
use cutlet::numeric::ElementType;
use cutlet::tensor::{TensorArg, TensorMut, TensorRef, ViewLayout};
use cutlet_harness::device_or_skip;
use reduce::{
    lines, maps, reference, tolerance, Host, View, DIMS, SPLIT_VIEWS, TUNINGS, TYPE_PAIRS, VIEWS,
};

/// One call: what to reduce and how.
struct Case<'a> {
    op: ReduceOp,
    dim: ReduceDim,
    view: View,
    map: Option<&'a (&'static str, Expression, Vec<f64>)>,
    seed: u64,
    tuning: ColumnTuning,
}

impl Case<'_> {
    /// `op` along `dim` of `view` filled from `seed`, without a map, with
    /// the default column tuning.
    fn new(op: ReduceOp, dim: ReduceDim, view: View, seed: u64) -> Self {
        Case {
            op,
            dim,
            view,
            map: None,
            seed,
            tuning: ColumnTuning::default(),
        }
    }
}

/// A test's device, its default stream and one workspace for all its calls.
struct Bed {
    device: Device,
    stream: Arc<CudaStream>,
    workspace: ReduceWorkspace,
}

impl Bed {
    /// Device 0, or `None` after `device_or_skip` printed why not.
    fn open(test: &str) -> Option<Bed> {
        let device = device_or_skip(test)?;
        Some(Bed {
            stream: device.default_stream(),
            device,
            workspace: ReduceWorkspace::new(),
        })
    }

    /// `reduce` of `input` into all of `out`.
    fn reduce<U: Host>(
        &mut self,
        reduce: &Reduce,
        input: TensorArg<'_>,
        out: &mut CudaSlice<U>,
    ) -> cutlet::Result<()> {
        reduce.run(
            input,
            TensorMut::vector(out).into(),
            &mut self.workspace,
            &self.stream,
        )
    }
}

fn run<T: Host, U: Host>(bed: &mut Bed, case: &Case<'_>) {
    let stream = bed.stream.clone();
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
    let mut reduce = Reduce::new(&bed.device, case.op, case.dim).tuning(case.tuning);
    if let Some((_, map, scalars)) = case.map {
        reduce = reduce.map(map.clone(), scalars);
    }
    bed.reduce(&reduce, input.into(), &mut out)
        .unwrap_or_else(|e| panic!("{}: {e}", label::<T, U>(case)));
    let got = stream.clone_dtoh(&out).unwrap();
    for (i, (line, got)) in lines.iter().zip(&got).enumerate() {
        let values: Vec<f64> = line
            .iter()
            .map(|&j| {
                let x = host[j].to_f64();
                match case.map {
                    Some((_, map, scalars)) => map.eval(&[x], scalars),
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

fn run_types(bed: &mut Bed, pair: (ElementType, ElementType), case: &Case<'_>) {
    use half::{bf16, f16};
    match pair {
        (ElementType::F32, _) => run::<f32, f32>(bed, case),
        (ElementType::F16, ElementType::F16) => run::<f16, f16>(bed, case),
        (ElementType::F16, _) => run::<f16, f32>(bed, case),
        (ElementType::BF16, ElementType::BF16) => run::<bf16, bf16>(bed, case),
        _ => run::<bf16, f32>(bed, case),
    }
}

#[test]
fn every_op_dim_and_type_on_every_view() {
    let Some(mut bed) = Bed::open("every_op_dim_and_type_on_every_view") else {
        return;
    };
    let mut seed = 0;
    for op in ReduceOp::ALL {
        for dim in DIMS {
            for pair in TYPE_PAIRS {
                for view in VIEWS {
                    seed += 1;
                    run_types(&mut bed, pair, &Case::new(op, dim, view, seed));
                }
            }
        }
    }
}

#[test]
fn column_tunings_match_the_host() {
    let Some(mut bed) = Bed::open("column_tunings_match_the_host") else {
        return;
    };
    let views = [
        View::new("tall", [20_000, 520], [520, 1], 0),
        View::new("tall_ragged", [20_001, 517], [517, 1], 1),
    ];
    for (i, (_, tuning)) in TUNINGS.into_iter().enumerate() {
        for view in views {
            for op in [ReduceOp::Sum, ReduceOp::Max] {
                for pair in [
                    (ElementType::F32, ElementType::F32),
                    (ElementType::BF16, ElementType::F32),
                ] {
                    let case = Case {
                        tuning,
                        ..Case::new(op, ReduceDim::First, view, 2000 + i as u64)
                    };
                    run_types(&mut bed, pair, &case);
                }
            }
        }
    }
}

#[test]
fn split_plans_match_the_host() {
    let Some(mut bed) = Bed::open("split_plans_match_the_host") else {
        return;
    };
    for (i, (view, dim)) in SPLIT_VIEWS.into_iter().enumerate() {
        for op in ReduceOp::ALL {
            for pair in [
                (ElementType::F32, ElementType::F32),
                (ElementType::BF16, ElementType::F32),
            ] {
                let case = Case::new(op, dim, view, 1000 + i as u64);
                run_types(&mut bed, pair, &case);
            }
        }
    }
    assert!(!bed.workspace.is_empty(), "split plans use the workspace");
}

#[test]
fn maps_apply_before_reducing() {
    let Some(mut bed) = Bed::open("maps_apply_before_reducing") else {
        return;
    };
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
                            &mut bed,
                            pair,
                            &Case {
                                map: Some(map),
                                ..Case::new(op, dim, view, seed)
                            },
                        );
                    }
                }
            }
        }
        let (view, dim) = SPLIT_VIEWS[3];
        seed += 1;
        run_types(
            &mut bed,
            TYPE_PAIRS[0],
            &Case {
                map: Some(map),
                ..Case::new(ReduceOp::Sum, dim, view, seed)
            },
        );
    }
}

#[test]
fn empty_reductions_follow_pytorch() {
    let Some(mut bed) = Bed::open("empty_reductions_follow_pytorch") else {
        return;
    };
    let stream = bed.stream.clone();
    let x = stream.alloc_zeros::<f32>(1).unwrap();
    for (op, want) in [(ReduceOp::Sum, Some(0.0)), (ReduceOp::Mean, None)] {
        for dim in [ReduceDim::Last, ReduceDim::All] {
            let outputs = if dim == ReduceDim::All { 1 } else { 5 };
            let mut out = stream.clone_htod(&vec![7.0f32; outputs]).unwrap();
            let input = TensorRef::new(&x, ViewLayout::row_major(5, 0)).unwrap();
            bed.reduce(&Reduce::new(&bed.device, op, dim), input.into(), &mut out)
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
    let err = bed
        .reduce(
            &Reduce::new(&bed.device, ReduceOp::Max, ReduceDim::Last),
            input.into(),
            &mut out,
        )
        .unwrap_err();
    assert!(err.to_string().contains("max of no elements"), "{err}");
}

#[test]
fn wrong_output_and_map_are_errors() {
    let Some(mut bed) = Bed::open("wrong_output_and_map_are_errors") else {
        return;
    };
    let stream = bed.stream.clone();
    let x = stream.alloc_zeros::<f32>(12).unwrap();
    let mut out = stream.alloc_zeros::<f32>(4).unwrap();
    let input = || TensorRef::row_major(&x, 3, 4).unwrap();
    let err = bed
        .reduce(
            &Reduce::along(&bed.device, ReduceOp::Sum, -1).unwrap(),
            input().into(),
            &mut out,
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("expected a vector of 3 elements"),
        "{err}"
    );
    let scaled = Reduce::along(&bed.device, ReduceOp::Sum, 0).unwrap().map(
        Expression::from_fn(|x: cutlet::fusion::Expr| x * cutlet::fusion::scalar(0)),
        &[],
    );
    let err = bed.reduce(&scaled, input().into(), &mut out).unwrap_err();
    assert!(
        err.to_string().contains("`map scalars` = 0 value(s)"),
        "{err}"
    );
}

#[test]
fn non_finite_map_scalars_are_errors_unless_checks_are_off() {
    let Some(mut bed) = Bed::open("non_finite_map_scalars_are_errors_unless_checks_are_off") else {
        return;
    };
    let stream = bed.stream.clone();
    let x = stream.clone_htod(&[1.0f32, -2.0, 3.0, -4.0]).unwrap();
    let mut out = stream.clone_htod(&[0.0f32; 2]).unwrap();
    let input = || TensorRef::row_major(&x, 2, 2).unwrap();
    // max(x, s0): with s0 = -inf, the map is the identity.
    let floor = Expression::from_fn(|x: cutlet::fusion::Expr| x.max(cutlet::fusion::scalar(0)));
    let checked = Reduce::along(&bed.device, ReduceOp::Max, -1)
        .unwrap()
        .map(floor, &[f64::NEG_INFINITY]);
    let err = bed.reduce(&checked, input().into(), &mut out).unwrap_err();
    assert!(
        matches!(err, cutlet::Error::InvalidArgument { .. })
            && err.to_string().contains("`map scalars[0]` = -inf"),
        "{err}"
    );
    let unchecked = checked.check_scalars(false);
    bed.reduce(&unchecked, input().into(), &mut out).unwrap();
    assert_eq!(stream.clone_dtoh(&out).unwrap(), [1.0, 3.0]);
}
