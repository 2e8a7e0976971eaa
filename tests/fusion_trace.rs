//! Tracing: canonical text, key equality, arity and scalar counts, closures
//! of every arity, and typed errors from emission.

use cutlet::arch::ArchKind;
use cutlet::fusion::{input, scalar, EmitOptions, Expr, Expression, FusionError, Value};
use cutlet::numeric::ElementType;
use cutlet::ptx::{Kernel, RegClass};

#[test]
fn tracing_builds_the_canonical_text() {
    let cases: [(Expression, &str); 8] = [
        (
            Expression::from_fn(|a: Expr, b: Expr| (a + b).relu()),
            "|x0, x1| relu(add(x0, x1))",
        ),
        (
            Expression::from_fn(|x: Expr, y: Expr, z: Expr| x * scalar(0) + y.max(z)),
            "|x0, x1, x2| add(mul(x0, s0), max(x1, x2))",
        ),
        (
            Expression::from_fn(|x: Expr| 2.0 * -x / 0.5f32 - 1.0),
            "|x0| sub(div(mul(2.0, neg(x0)), 0.5), 1.0)",
        ),
        (
            Expression::from_fn(|x: Expr| x.gt(0.0).select(&x, &x * 0.01)),
            "|x0| select(gt(x0, 0.0), x0, mul(x0, 0.01))",
        ),
        (
            Expression::from_fn(|x: Expr| x.cast(ElementType::BF16).fma(scalar(2), 1.0)),
            "|x0| fma(cast<bf16>(x0), s2, 1.0)",
        ),
        (
            Expression::from_fn(|x: Expr| {
                let s = x.sigmoid();
                &s * &s
            }),
            "|x0| let t0 = sigmoid(x0); mul(t0, t0)",
        ),
        (
            Expression::from_fn(|x: Expr, _unused: Expr| x.gelu_erf().abs()),
            "|x0, x1| abs(gelu_erf(x0))",
        ),
        (
            Expression::from_fn(|x: Expr| Expr::constant(f64::NAN).min(x.ne(f64::INFINITY))),
            "|x0| min(NaN, ne(x0, inf))",
        ),
    ];
    for (e, text) in cases {
        assert_eq!(e.key(), text);
        assert_eq!(e.to_string(), text);
    }
}

#[test]
fn equal_expressions_have_equal_keys_and_different_ones_differ() {
    let shared = Expression::from_fn(|x: Expr| {
        let e = x.exp();
        &e + &e
    });
    let rebuilt = Expression::from_fn(|x: Expr| x.exp() + x.exp());
    assert_eq!(shared, rebuilt);
    assert_eq!(shared.key(), rebuilt.key());
    assert_eq!(shared.node_count(), 3);
    let different = [
        Expression::from_fn(|x: Expr| x.exp() * x.exp()),
        Expression::from_fn(|x: Expr| x.exp() + x.log()),
        Expression::from_fn(|x: Expr, _y: Expr| x.exp() + x.exp()),
        Expression::from_fn(|x: Expr| x.exp() + x.exp() + 0.0),
        Expression::from_fn(|x: Expr| x.exp() + x.exp() + -0.0),
    ];
    for (i, a) in different.iter().enumerate() {
        assert_ne!(a, &shared);
        assert_ne!(a.key(), shared.key());
        for b in &different[i + 1..] {
            assert_ne!(a.key(), b.key(), "{a} vs {b}");
        }
    }
    let nan_a = Expression::from_fn(|x: Expr| x + f64::NAN);
    let nan_b = Expression::from_fn(|x: Expr| x + f64::from_bits(0x7ff0_0000_0000_0001));
    assert_eq!(nan_a, nan_b);
}

#[test]
fn arity_and_scalar_count() {
    let e = Expression::from_fn(|a: Expr, b: Expr, _c: Expr| a * scalar(3) + b);
    assert_eq!((e.arity(), e.scalar_count()), (3, 4));
    let none = Expression::from_fn(|a: Expr| a.sqrt());
    assert_eq!((none.arity(), none.scalar_count()), (1, 0));
    let lc = Expression::linear_combination();
    assert_eq!((lc.arity(), lc.scalar_count()), (2, 2));
    let widened = Expression::from_fn(|a: Expr| a + input(4));
    assert_eq!(widened.arity(), 5);
}

#[test]
fn closures_of_every_arity_trace() {
    let e: [Expression; 8] = [
        Expression::from_fn(|a| a + 1.0),
        Expression::from_fn(|a, b| a + b),
        Expression::from_fn(|a, b, c| a + b + c),
        Expression::from_fn(|a, b, c, d| a + b + c + d),
        Expression::from_fn(|a, b, c, d, e| a + b + c + d + e),
        Expression::from_fn(|a, b, c, d, e, f| a + b + c + d + e + f),
        Expression::from_fn(|a, b, c, d, e, f, g| a + b + c + d + e + f + g),
        Expression::from_fn(|a, b, c, d, e, f, g, h| a + b + c + d + e + f + g + h),
    ];
    for (i, e) in e.iter().enumerate() {
        let n = i + 1;
        assert_eq!(e.arity(), n);
        let inputs: Vec<f64> = (1..=n).map(|v| v as f64).collect();
        let want = if n == 1 {
            2.0
        } else {
            (n * (n + 1) / 2) as f64
        };
        assert_eq!(e.eval(&inputs, &[]), want);
    }
}

#[test]
fn deep_and_widely_shared_graphs_trace_without_blowup() {
    let e = Expression::from_fn(|x: Expr| {
        let mut y = x;
        for _ in 0..64 {
            y = &y * &y;
        }
        y
    });
    assert_eq!(e.node_count(), 65);
    assert!(e.key().len() < 64 * 40, "{}", e.key().len());
    let chain = Expression::from_fn(|x: Expr| (0..100_000).fold(x, |acc, _| acc + 1.0));
    assert_eq!(chain.node_count(), 100_002);
}

fn kernel_with(ty: ElementType) -> (Kernel, Value) {
    let mut k = Kernel::new("k").unwrap();
    let v = Value::fresh(&mut k, ty);
    (k, v)
}

#[test]
fn f64_transcendentals_are_typed_errors_naming_op_and_type() {
    let options = EmitOptions::new(ElementType::F64, ArchKind::Sm90);
    let (mut k, x) = kernel_with(ElementType::F64);
    let e = Expression::from_fn(|x: Expr| x.tanh());
    let err = e.emit(&mut k, &[x], &[], &options).unwrap_err();
    assert_eq!(
        err,
        FusionError::UnsupportedOp {
            op: "tanh",
            compute: ElementType::F64
        }
    );
    let text = cutlet::Error::from(err).to_string();
    assert!(text.contains("tanh") && text.contains("f64"), "{text}");
}

#[test]
fn wrong_scalars_and_inputs_are_typed_errors() {
    let options = EmitOptions::new(ElementType::F32, ArchKind::Sm80);
    let e = Expression::from_fn(|x: Expr| x * scalar(0));
    let (mut k, x) = kernel_with(ElementType::F16);
    let s = Value::fresh(&mut k, ElementType::F16);
    assert_eq!(
        e.emit(&mut k, &[x], &[s], &options).unwrap_err(),
        FusionError::ScalarType {
            index: 0,
            got: ElementType::F16,
            expected: ElementType::F32
        }
    );
    let err = e.emit(&mut k, &[x], &[], &options).unwrap_err();
    assert!(matches!(
        err,
        FusionError::ScalarCount {
            expected: 1,
            got: 0,
            ..
        }
    ));
    assert!(
        err.to_string().contains("reads 1 scalar(s), got 0"),
        "{err}"
    );
    let err = e.emit(&mut k, &[x, x], &[s], &options).unwrap_err();
    assert!(matches!(
        err,
        FusionError::InputCount {
            expected: 1,
            got: 2,
            ..
        }
    ));
    let wrong_class = Value {
        reg: k.reg(RegClass::B32),
        ty: ElementType::F32,
    };
    let err = e.emit(&mut k, &[wrong_class], &[s], &options).unwrap_err();
    assert!(err.to_string().contains("input x0"), "{err}");
    let bad_compute = EmitOptions::new(ElementType::BF16, ArchKind::Sm80);
    assert_eq!(
        e.emit(&mut k, &[x], &[s], &bad_compute).unwrap_err(),
        FusionError::UnsupportedCompute {
            compute: ElementType::BF16
        }
    );
    let to_i8 = Expression::from_fn(|x: Expr| x.cast(ElementType::I8));
    assert!(matches!(
        to_i8.emit(&mut k, &[x], &[], &options).unwrap_err(),
        FusionError::UnsupportedConversion {
            to: ElementType::I8,
            ..
        }
    ));
    assert!(Expression::new(2, &(input(0) + input(2))).is_err());
    assert!(e.try_eval(&[1.0], &[]).is_err());
    assert_eq!(e.try_eval(&[1.5], &[2.0]), Ok(3.0));
}

#[test]
fn a_node_used_twice_is_emitted_once() {
    let e = Expression::from_fn(|x: Expr| {
        let t = x.tanh();
        &t * &t + t.exp()
    });
    let (mut k, x) = kernel_with(ElementType::F32);
    e.emit(
        &mut k,
        &[x],
        &[],
        &EmitOptions::new(ElementType::F32, ArchKind::Sm90),
    )
    .unwrap();
    let text = k.emit().unwrap();
    assert_eq!(text.matches("tanh.approx.f32").count(), 1, "{text}");
}

#[test]
fn expressions_are_send_sync_and_hashable_cache_keys() {
    fn send_sync<T: Send + Sync + std::hash::Hash + Eq + Clone>(_: &T) {}
    let e = Expression::linear_combination();
    send_sync(&e);
    let mut cache = std::collections::HashMap::new();
    cache.insert(e.clone(), 1);
    let same = Expression::from_fn(|acc: Expr, c: Expr| acc * scalar(0) + c * scalar(1));
    assert_eq!(cache.get(&same), Some(&1));
    let handle = std::thread::spawn(move || e.key());
    assert_eq!(handle.join().unwrap(), same.key());
}

/// Unsuffixed float literals on either side of every operator, inside
/// method chains: with two scalar impls per operator (`f32` and `f64`) the
/// result type of `x + 0.5` was unknown until the literal's type was, and
/// `(x + 0.5).log()` did not compile (E0282).
#[test]
fn unsuffixed_literals_infer_on_both_sides_of_every_operator() {
    let cases: [(Expression, &str); 8] = [
        (
            Expression::from_fn(|x: Expr| (x.abs() + 0.5).log()),
            "|x0| log(add(abs(x0), 0.5))",
        ),
        (
            Expression::from_fn(|x: Expr| (x - 1.0).exp()),
            "|x0| exp(sub(x0, 1.0))",
        ),
        (
            Expression::from_fn(|x: Expr| (x * 2.0).relu()),
            "|x0| relu(mul(x0, 2.0))",
        ),
        (
            Expression::from_fn(|x: Expr| (&x / 4.0).sqrt()),
            "|x0| sqrt(div(x0, 4.0))",
        ),
        (
            Expression::from_fn(|x: Expr| (0.5 + x).tanh()),
            "|x0| tanh(add(0.5, x0))",
        ),
        (
            Expression::from_fn(|x: Expr| (1.0 - &x).abs()),
            "|x0| abs(sub(1.0, x0))",
        ),
        (
            Expression::from_fn(|x: Expr| (0.5 * x).sigmoid()),
            "|x0| sigmoid(mul(0.5, x0))",
        ),
        (
            Expression::from_fn(|x: Expr| (1.0 / &x).silu()),
            "|x0| silu(div(1.0, x0))",
        ),
    ];
    for (e, text) in cases {
        assert_eq!(e.key(), text);
    }
}

/// `f32` variables stay usable: on the right of every operator, in methods,
/// and on the left through `Expr::from`.
#[test]
fn f32_variables_work_on_the_right_and_through_from() {
    let (half, two): (f32, f32) = (0.5, 2.0);
    let e =
        Expression::from_fn(|x: Expr| (&x + half) * two - &x / two + Expr::from(half) * x.max(two));
    assert_eq!(
        e.key(),
        "|x0| add(sub(mul(add(x0, 0.5), 2.0), div(x0, 2.0)), mul(0.5, max(x0, 2.0)))"
    );
    assert_eq!(e.eval(&[3.0], &[]), 7.0 - 1.5 + 1.5);
}
