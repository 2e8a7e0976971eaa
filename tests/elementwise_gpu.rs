//! Elementwise kernels on a GPU against the host reference: every op and
//! dtype, aligned and ragged shapes, strided and column-major views,
//! broadcasting, mixed input types, in place, misaligned views, custom
//! tilings. Every output is poisoned first and must be fully overwritten;
//! tolerances are in `tests/elementwise_harness/mod.rs`.
//!
//! Each test skips with a printed reason where no GPU is found (and fails
//! under `CUTLET_REQUIRE_GPU=1`).

mod common;
mod elementwise_cases;
mod elementwise_harness;

use common::gpu::seeded_rng;
use cutlet::device::{Device, Elementwise};
use cutlet::fusion::{Expr, Expression};
use cutlet::numeric::ElementType::{self, BF16, F16, F32, F64, I32};
use cutlet::tensor::{TensorMut, TensorRef, ViewLayout};
use cutlet::Error;
use cutlet_harness::device_or_skip;
use elementwise_harness::{
    compare, random_values, reference, tolerance, DevBuf, HostTensor, POISON,
};

const APPROXIMATE: [&str; 9] = [
    "exp", "log", "rsqrt", "tanh", "sigmoid", "gelu", "gelu_erf", "silu", "gelu3",
];

/// Runs `op` on inputs `(type, layout)` into `(out type, out layout)` and checks it.
fn check(
    device: &Device,
    case: &str,
    op: &Elementwise,
    inputs: &[(ElementType, ViewLayout)],
    out: (ElementType, ViewLayout),
    range: (f64, f64),
    approximate: bool,
) {
    let stream = device.default_stream();
    let mut rng = seeded_rng(case.len() as u64 * 7919 + 1);
    let host: Vec<HostTensor> = inputs
        .iter()
        .map(|(ty, layout)| HostTensor {
            ty: *ty,
            layout: *layout,
            values: random_values(&mut rng, *ty, layout.required_len().unwrap().max(1), range),
        })
        .collect();
    let scalars = elementwise_cases::scalars_for(op.expression());
    let bufs: Vec<DevBuf> = host
        .iter()
        .map(|t| DevBuf::upload(&stream, t.ty, &t.values))
        .collect();
    let out_len = out.1.required_len().unwrap().max(1);
    let mut out_buf = DevBuf::upload(&stream, out.0, &vec![POISON; out_len]);
    let views: Vec<_> = bufs
        .iter()
        .zip(&host)
        .map(|(b, t)| b.view(t.layout))
        .collect();
    op.run(&views, out_buf.view_mut(out.1), &scalars, &stream)
        .unwrap_or_else(|e| panic!("{case}: {e}"));
    let got = out_buf.download(&stream);
    let want = reference(op.expression(), &host, out.1, out.0, &scalars);
    compare(case, &got, &want, tolerance(out.0, approximate));
}

fn same(ty: ElementType, layout: ViewLayout, arity: usize) -> Vec<(ElementType, ViewLayout)> {
    vec![(ty, layout); arity]
}

#[test]
fn every_op_and_float_dtype() {
    let Some(device) = device_or_skip("every_op_and_float_dtype") else {
        return;
    };
    let layout = ViewLayout::row_major(67, 131);
    for (name, expression, range) in elementwise_cases::ops() {
        for ty in [F16, BF16, F32] {
            let op = Elementwise::new(&device, expression.clone());
            let case = format!("{name} {ty} 67x131");
            check(
                &device,
                &case,
                &op,
                &same(ty, layout, expression.arity()),
                (ty, layout),
                range,
                APPROXIMATE.contains(&name),
            );
        }
    }
}

#[test]
fn f64_and_i32_exact_ops() {
    let Some(device) = device_or_skip("f64_and_i32_exact_ops") else {
        return;
    };
    let layout = ViewLayout::row_major(33, 70);
    for (name, expression, range) in elementwise_cases::ops() {
        if APPROXIMATE.contains(&name) {
            continue;
        }
        for ty in [F64, I32] {
            if ty == I32 && ["div", "sqrt", "scalars"].contains(&name) {
                continue;
            }
            let op = Elementwise::new(&device, expression.clone());
            check(
                &device,
                &format!("{name} {ty}"),
                &op,
                &same(ty, layout, expression.arity()),
                (ty, layout),
                range,
                false,
            );
        }
    }
}

#[test]
fn aligned_and_ragged_shapes() {
    let Some(device) = device_or_skip("aligned_and_ragged_shapes") else {
        return;
    };
    let shapes = [
        (1, 1),
        (1, 7),
        (3, 5),
        (32, 256),
        (64, 512),
        (1000, 1001),
        (255, 4099),
        (513, 8),
    ];
    for (m, n) in shapes {
        for ty in [F16, F32, BF16] {
            let op = Elementwise::new(&device, elementwise_cases::add());
            let layout = ViewLayout::row_major(m, n);
            check(
                &device,
                &format!("add {ty} {m}x{n}"),
                &op,
                &same(ty, layout, 2),
                (ty, layout),
                (-3.0, 3.0),
                false,
            );
        }
    }
    let op = Elementwise::new(&device, elementwise_cases::gelu3());
    let v = ViewLayout::vector(100_003);
    check(
        &device,
        "gelu3 bf16 vector 100003",
        &op,
        &same(BF16, v, 3),
        (BF16, v),
        (-3.0, 3.0),
        true,
    );
}

#[test]
fn strided_and_column_major_views() {
    let Some(device) = device_or_skip("strided_and_column_major_views") else {
        return;
    };
    let (m, n) = (70, 300);
    let padded = |ld| ViewLayout::with_strides(&[m, n], &[ld, 1]).unwrap();
    let layouts = [
        ("ld 304", padded(304)),
        ("ld 301", padded(301)),
        ("col major", ViewLayout::col_major(m, n)),
        (
            "col ld 72",
            ViewLayout::with_strides(&[m, n], &[1, 72]).unwrap(),
        ),
        (
            "col stride 3",
            ViewLayout::with_strides(&[m, n], &[3 * n, 3]).unwrap(),
        ),
    ];
    for (in_name, in_layout) in layouts {
        for (out_name, out_layout) in layouts {
            for ty in [F16, F32] {
                let op = Elementwise::new(&device, elementwise_cases::add());
                let case = format!("add {ty} in {in_name} out {out_name}");
                check(
                    &device,
                    &case,
                    &op,
                    &[(ty, in_layout), (ty, ViewLayout::row_major(m, n))],
                    (ty, out_layout),
                    (-3.0, 3.0),
                    false,
                );
            }
        }
    }
}

#[test]
fn broadcasting_rows_columns_and_scalars() {
    let Some(device) = device_or_skip("broadcasting_rows_columns_and_scalars") else {
        return;
    };
    let (m, n) = (45, 520);
    let full = ViewLayout::row_major(m, n);
    let cases = [
        ("row", ViewLayout::with_strides(&[m, n], &[0, 1]).unwrap()),
        ("col", ViewLayout::with_strides(&[m, n], &[1, 0]).unwrap()),
        (
            "scalar",
            ViewLayout::with_strides(&[m, n], &[0, 0]).unwrap(),
        ),
        ("vector (numpy)", ViewLayout::vector(n)),
        (
            "column (numpy)",
            ViewLayout::with_strides(&[m, 1], &[1, 1]).unwrap(),
        ),
    ];
    for (name, layout) in cases {
        for ty in [F16, F32] {
            let op = Elementwise::new(&device, elementwise_cases::add());
            check(
                &device,
                &format!("add {ty} broadcast {name}"),
                &op,
                &[(ty, full), (ty, layout)],
                (ty, full),
                (-3.0, 3.0),
                false,
            );
            let col_out = ViewLayout::col_major(m, n);
            check(
                &device,
                &format!("add {ty} broadcast {name} col-major out"),
                &op,
                &[(ty, layout), (ty, full)],
                (ty, col_out),
                (-3.0, 3.0),
                false,
            );
        }
    }
}

#[test]
fn mixed_input_types() {
    let Some(device) = device_or_skip("mixed_input_types") else {
        return;
    };
    let layout = ViewLayout::row_major(50, 777);
    let op = Elementwise::new(&device, elementwise_cases::gelu3());
    for out in [F16, BF16, F32] {
        check(
            &device,
            &format!("gelu3 f16,f32,bf16 -> {out}"),
            &op,
            &[(F16, layout), (F32, layout), (BF16, layout)],
            (out, layout),
            (-3.0, 3.0),
            true,
        );
    }
    let cast = Elementwise::new(&device, Expression::from_fn(|a: Expr| a.cast(F16) * 2.0));
    check(
        &device,
        "cast f32 -> f16 -> f32",
        &cast,
        &[(F32, layout)],
        (F32, layout),
        (-3.0, 3.0),
        false,
    );
}

#[test]
fn custom_tilings() {
    let Some(device) = device_or_skip("custom_tilings") else {
        return;
    };
    let layout = ViewLayout::row_major(100, 333);
    let tilings = [
        ("(4,32) x (2,8)", "(4,32):(32,1)", "(2,8):(8,1)"),
        ("(32,4) column threads", "(32,4):(1,32)", "(1,4):(4,1)"),
        ("(2,64) x (8,1)", "(2,64):(64,1)", "(8,1):(1,1)"),
    ];
    for (name, thr, val) in tilings {
        let op = Elementwise::new(&device, elementwise_cases::add())
            .with_layouts(thr.parse().unwrap(), val.parse().unwrap())
            .unwrap();
        check(
            &device,
            &format!("add f16 tiling {name}"),
            &op,
            &same(F16, layout, 2),
            (F16, layout),
            (-3.0, 3.0),
            false,
        );
    }
}

#[test]
fn misaligned_views_take_the_narrow_path() {
    let Some(device) = device_or_skip("misaligned_views_take_the_narrow_path") else {
        return;
    };
    let stream = device.default_stream();
    let n = 4097;
    let a_host: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let a = stream.clone_htod(&a_host).unwrap();
    let b = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let mut c = stream.clone_htod(&vec![POISON as f32; n]).unwrap();
    for start in [1, 2, 3] {
        let (av, bv) = (a.slice(start..n), b.slice(start..n));
        let op = Elementwise::new(&device, elementwise_cases::add());
        op.run(
            &[TensorRef::vector(&av).into(), TensorRef::vector(&bv).into()],
            TensorMut::vector(&mut c.slice_mut(start..n)).into(),
            &[],
            &stream,
        )
        .unwrap();
        let got = stream.clone_dtoh(&c).unwrap();
        for i in start..n {
            assert_eq!(got[i], a_host[i] + 1.0, "view from {start}, element {i}");
        }
    }
}

#[test]
fn shape_mismatch_is_an_error_naming_both_shapes() {
    let Some(device) = device_or_skip("shape_mismatch_is_an_error_naming_both_shapes") else {
        return;
    };
    let stream = device.default_stream();
    let a = stream.alloc_zeros::<f32>(12).unwrap();
    let b = stream.alloc_zeros::<f32>(12).unwrap();
    let mut c = stream.alloc_zeros::<f32>(12).unwrap();
    let op = Elementwise::new(&device, elementwise_cases::add());
    let err = op
        .run(
            &[
                TensorRef::row_major(&a, 3, 4).unwrap().into(),
                TensorRef::row_major(&b, 4, 3).unwrap().into(),
            ],
            TensorMut::row_major(&mut c, 3, 4).unwrap().into(),
            &[],
            &stream,
        )
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, Error::InvalidArgument { .. })
            && text.contains("inputs[1]")
            && text.contains("[4, 3]")
            && text.contains("[3, 4]"),
        "{text}"
    );
    let empty_out = TensorMut::row_major(&mut c, 0, 4).unwrap();
    op.run(
        &[
            TensorRef::row_major(&a, 0, 4).unwrap().into(),
            TensorRef::row_major(&b, 0, 4).unwrap().into(),
        ],
        empty_out.into(),
        &[],
        &stream,
    )
    .expect("empty tensors are a no-op");
}

/// A bulk-copy ring too big for a problem's inputs (three bf16 inputs in 3
/// stages of 4 tiles: 288 KiB of shared memory) runs the default path, as
/// `BulkCopy`'s rustdoc says, instead of returning an error; the result is
/// the default path's, checked against the host.
#[test]
fn bulk_ring_too_big_for_the_inputs_runs_the_default_path() {
    use cutlet::kernel::elementwise::{BulkCopy, BulkStore, Schedule};
    let Some(device) = device_or_skip("bulk_ring_too_big_for_the_inputs_runs_the_default_path")
    else {
        return;
    };
    let schedule = Schedule {
        persistent: 1,
        bulk: Some(BulkCopy {
            stages: 3,
            tiles_per_stage: 4,
            store: BulkStore::Registers,
        }),
        ..Schedule::default()
    };
    let op = Elementwise::new(&device, elementwise_cases::gelu3()).schedule(schedule);
    let v = ViewLayout::vector(100_003);
    check(
        &device,
        "gelu3 bf16 vector 100003, ring too big",
        &op,
        &same(BF16, v, 3),
        (BF16, v),
        (-3.0, 3.0),
        true,
    );
}

/// The sm_90a bulk-copy schedules (`Schedule::bulk`): one chunk walk per
/// block and persistent rings, stores from registers and through shared
/// memory, on f16/bf16/f32 aligned and ragged shapes (a ragged tail takes
/// the predicated path), a shape whose persistent walk wraps each ring
/// several times (parity flips), the three-input gelu, and misaligned views
/// (the launcher falls back to the default path). On another arch every
/// case runs the fallback and must be just as correct.
#[test]
fn bulk_copy_schedules() {
    use cutlet::kernel::elementwise::{BulkCopy, BulkStore, Schedule};
    let Some(device) = device_or_skip("bulk_copy_schedules") else {
        return;
    };
    let bulk = |persistent, stages, tiles_per_stage, store| Schedule {
        persistent,
        bulk: Some(BulkCopy {
            stages,
            tiles_per_stage,
            store,
        }),
        ..Schedule::default()
    };
    let schedules = [
        ("per block 1x1 regs", bulk(0, 1, 1, BulkStore::Registers)),
        ("per block 2x2 bulk", bulk(0, 2, 2, BulkStore::Bulk)),
        ("persistent 1 3x2 regs", bulk(1, 3, 2, BulkStore::Registers)),
        ("persistent 2 2x1 bulk", bulk(2, 2, 1, BulkStore::Bulk)),
        ("persistent 1 2x3 bulk", bulk(1, 2, 3, BulkStore::Bulk)),
    ];
    let shapes = [(3, 5), (64, 512), (256, 1024), (255, 4099), (1000, 1001)];
    for (name, schedule) in schedules {
        for (m, n) in shapes {
            for ty in [F16, BF16, F32] {
                let op = Elementwise::new(&device, elementwise_cases::add()).schedule(schedule);
                let layout = ViewLayout::row_major(m, n);
                check(
                    &device,
                    &format!("add {ty} {m}x{n} bulk {name}"),
                    &op,
                    &same(ty, layout, 2),
                    (ty, layout),
                    (-3.0, 3.0),
                    false,
                );
            }
        }
        let op = Elementwise::new(&device, elementwise_cases::gelu3()).schedule(schedule);
        let v = ViewLayout::vector(100_003);
        check(
            &device,
            &format!("gelu3 bf16 vector 100003 bulk {name}"),
            &op,
            &same(BF16, v, 3),
            (BF16, v),
            (-3.0, 3.0),
            true,
        );
    }
    // 2.25 M elements: 550 f16 chunks of one tile over 132 blocks, so a
    // persistent two-stage ring wraps twice per block (four for f32).
    let big = ViewLayout::row_major(1500, 1501);
    for ty in [F16, F32] {
        for store in [BulkStore::Registers, BulkStore::Bulk] {
            let op =
                Elementwise::new(&device, elementwise_cases::add()).schedule(bulk(1, 2, 1, store));
            check(
                &device,
                &format!("add {ty} 1500x1501 bulk persistent 1 2x1 {store:?}"),
                &op,
                &same(ty, big, 2),
                (ty, big),
                (-3.0, 3.0),
                false,
            );
        }
    }
    let stream = device.default_stream();
    let n = 40_961;
    let a_host: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let a = stream.clone_htod(&a_host).unwrap();
    let b = stream.clone_htod(&vec![1.0f32; n]).unwrap();
    let mut c = stream.clone_htod(&vec![POISON as f32; n]).unwrap();
    for start in [0, 1, 2] {
        let (av, bv) = (a.slice(start..n), b.slice(start..n));
        let op = Elementwise::new(&device, elementwise_cases::add()).schedule(bulk(
            1,
            3,
            2,
            BulkStore::Bulk,
        ));
        op.run(
            &[TensorRef::vector(&av).into(), TensorRef::vector(&bv).into()],
            TensorMut::vector(&mut c.slice_mut(start..n)).into(),
            &[],
            &stream,
        )
        .unwrap();
        let got = stream.clone_dtoh(&c).unwrap();
        for i in start..n {
            assert_eq!(
                got[i],
                a_host[i] + 1.0,
                "bulk, view from {start}, element {i}"
            );
        }
    }
}

/// A bulk-copy configuration no problem can run is an error naming it.
#[test]
fn bulk_copy_bad_configuration_is_an_error() {
    use cutlet::kernel::elementwise::{BulkCopy, Schedule};
    let Some(device) = device_or_skip("bulk_copy_bad_configuration_is_an_error") else {
        return;
    };
    let stream = device.default_stream();
    let a = stream.alloc_zeros::<f32>(4096).unwrap();
    let mut c = stream.alloc_zeros::<f32>(4096).unwrap();
    let op = Elementwise::new(&device, Expression::from_fn(|a: Expr| a * 2.0)).schedule(Schedule {
        persistent: 1,
        bulk: Some(BulkCopy {
            stages: 1,
            ..BulkCopy::default()
        }),
        ..Schedule::default()
    });
    let err = op
        .run(
            &[TensorRef::vector(&a).into()],
            TensorMut::vector(&mut c).into(),
            &[],
            &stream,
        )
        .unwrap_err();
    let text = err.to_string();
    assert!(
        matches!(err, Error::InvalidArgument { .. })
            && text.contains("stages")
            && text.contains('1'),
        "{text}"
    );
}

/// Scalars are checked by default: a NaN, an infinity, or (for f32
/// arithmetic) an f64 beyond f32's range is an `InvalidArgument` naming
/// the scalar; `check_scalars(false)` passes them on, as a `-inf` mask
/// value needs.
#[test]
fn non_finite_scalars_are_errors_by_default_and_pass_when_unchecked() {
    let Some(device) =
        device_or_skip("non_finite_scalars_are_errors_by_default_and_pass_when_unchecked")
    else {
        return;
    };
    let stream = device.default_stream();
    let x = stream.clone_htod(&[1.0f32, -2.0, 3.0, -4.0]).unwrap();
    let mut y = stream.alloc_zeros::<f32>(4).unwrap();
    let masked = Elementwise::new(
        &device,
        Expression::from_fn(|x: Expr| x.gt(0.0).select(&x, cutlet::fusion::scalar(0))),
    );
    for (value, shown) in [
        (f64::NEG_INFINITY, "-inf"),
        (f64::NAN, "NaN"),
        (1e300, "1e300"),
    ] {
        let err = masked
            .run(
                &[TensorRef::vector(&x).into()],
                TensorMut::vector(&mut y).into(),
                &[value],
                &stream,
            )
            .unwrap_err();
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
        assert!(
            err.to_string().contains(&format!("`scalars[0]` = {shown}")),
            "{err}"
        );
    }
    masked
        .check_scalars(false)
        .run(
            &[TensorRef::vector(&x).into()],
            TensorMut::vector(&mut y).into(),
            &[f64::NEG_INFINITY],
            &stream,
        )
        .unwrap();
    let got = stream.clone_dtoh(&y).unwrap();
    assert_eq!(got, [1.0, f32::NEG_INFINITY, 3.0, f32::NEG_INFINITY]);
}

/// `Elementwise::validate` runs the host checks of `run` (no device call):
/// the same errors, scalar checks on by default.
#[test]
fn validate_applies_the_host_checks_of_run() {
    let Some(device) = device_or_skip("validate_applies_the_host_checks_of_run") else {
        return;
    };
    let desc = |layout| cutlet::device::TensorDesc {
        element: F32,
        layout,
    };
    let out = desc(ViewLayout::row_major(3, 4));
    let add = Elementwise::new(&device, elementwise_cases::add());
    let err = add
        .validate(&[out, desc(ViewLayout::row_major(4, 3))], &out, &[])
        .unwrap_err();
    assert!(err.to_string().contains("inputs[1]"), "{err}");
    assert!(!add.validate(&[out, out], &out, &[]).unwrap().empty);
    let scaled = Elementwise::new(
        &device,
        Expression::from_fn(|a: Expr| a * cutlet::fusion::scalar(0)),
    );
    let err = scaled.validate(&[out], &out, &[f64::NAN]).unwrap_err();
    assert!(err.to_string().contains("`scalars[0]` = NaN"), "{err}");
    assert!(scaled
        .check_scalars(false)
        .validate(&[out], &out, &[f64::NAN])
        .is_ok());
}
