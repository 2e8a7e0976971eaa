//! The host reference: `eval` of every op against Rust's f64 math, the
//! rounding helper, and the measured error of the GPU's erf approximation.

use cutlet::fusion::host::{erf, erf_as7126, erfc_abs_as7126, round_to};
use cutlet::fusion::{scalar, Expr, Expression};
use cutlet::numeric::ElementType;

const SAMPLES: [f64; 11] = [
    -30.0, -3.5, -1.0, -0.25, -0.0, 0.0, 1e-3, 0.7, 2.0, 9.5, 80.0,
];

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b
}

/// Equal up to formula rearrangement in f64 (a few ulps).
fn close(a: f64, b: f64) -> bool {
    same(a, b) || (a - b).abs() <= 1e-14 * b.abs()
}

/// Rust's f64 math for one op.
type Reference = Box<dyn Fn(f64) -> f64>;

#[test]
fn unary_ops_match_f64_math() {
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let k = (2.0 / std::f64::consts::PI).sqrt();
    let cases: Vec<(Expression, Reference)> = vec![
        (Expression::from_fn(|x: Expr| -x), Box::new(|x| -x)),
        (Expression::from_fn(|x: Expr| x.abs()), Box::new(f64::abs)),
        (Expression::from_fn(|x: Expr| x.exp()), Box::new(f64::exp)),
        (Expression::from_fn(|x: Expr| x.log()), Box::new(f64::ln)),
        (Expression::from_fn(|x: Expr| x.sqrt()), Box::new(f64::sqrt)),
        (
            Expression::from_fn(|x: Expr| x.rsqrt()),
            Box::new(|x| 1.0 / x.sqrt()),
        ),
        (Expression::from_fn(|x: Expr| x.tanh()), Box::new(f64::tanh)),
        (
            Expression::from_fn(|x: Expr| x.sigmoid()),
            Box::new(sigmoid),
        ),
        (
            Expression::from_fn(|x: Expr| x.relu()),
            Box::new(|x| if x > 0.0 { x } else { 0.0 }),
        ),
        (
            Expression::from_fn(|x: Expr| x.gelu()),
            Box::new(move |x| 0.5 * x * (1.0 + (k * (x + 0.044715 * x.powi(3))).tanh())),
        ),
        (
            Expression::from_fn(|x: Expr| x.gelu_erf()),
            Box::new(|x| 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2))),
        ),
        (
            Expression::from_fn(|x: Expr| x.silu()),
            Box::new(move |x| x * sigmoid(x)),
        ),
    ];
    for (e, f) in &cases {
        for x in SAMPLES.into_iter().chain([f64::NAN, f64::INFINITY]) {
            let (got, want) = (e.eval(&[x], &[]), f(x));
            assert!(close(got, want), "{e} at {x}: {got} vs {want}");
        }
    }
}

#[test]
fn binary_ternary_and_comparison_ops_match_f64_math() {
    let pairs = [
        (1.5, -2.0),
        (0.0, -0.0),
        (3.0, 3.0),
        (f64::NAN, 1.0),
        (2.0, f64::NAN),
        (-1e300, 1e-300),
    ];
    let bool_f = |b: bool| if b { 1.0 } else { 0.0 };
    for (a, b) in pairs {
        let check = |e: Expression, want: f64| {
            let got = e.eval(&[a, b], &[]);
            assert!(same(got, want), "{e} at ({a}, {b}): {got} vs {want}");
        };
        check(Expression::from_fn(|x, y| x + y), a + b);
        check(Expression::from_fn(|x, y| x - y), a - b);
        check(Expression::from_fn(|x, y| x * y), a * b);
        check(Expression::from_fn(|x, y| x / y), a / b);
        check(Expression::from_fn(|x: Expr, y| x.min(y)), a.min(b));
        check(Expression::from_fn(|x: Expr, y| x.max(y)), a.max(b));
        check(
            Expression::from_fn(|x: Expr, y: Expr| x.fma(&y, 0.25)),
            a.mul_add(b, 0.25),
        );
        check(Expression::from_fn(|x: Expr, y| x.lt(y)), bool_f(a < b));
        check(Expression::from_fn(|x: Expr, y| x.le(y)), bool_f(a <= b));
        check(Expression::from_fn(|x: Expr, y| x.gt(y)), bool_f(a > b));
        check(Expression::from_fn(|x: Expr, y| x.ge(y)), bool_f(a >= b));
        check(Expression::from_fn(|x: Expr, y| x.eq(y)), bool_f(a == b));
        check(Expression::from_fn(|x: Expr, y| x.ne(y)), bool_f(a != b));
        check(
            Expression::from_fn(|x: Expr, y: Expr| x.lt(&y).select(&x, &y)),
            if a < b { a } else { b },
        );
        check(
            Expression::from_fn(|x: Expr, y: Expr| x.select(1.0, y)),
            if a != 0.0 { 1.0 } else { b },
        );
    }
}

#[test]
fn scalars_constants_and_casts() {
    let e = Expression::from_fn(|x: Expr| x * scalar(1) - scalar(0) + 0.5);
    assert_eq!(e.eval(&[3.0], &[1.0, 2.0]), 5.5);
    let x = 1.0 + 1.0 / 1024.0 + 1.0 / 4096.0;
    for ty in [
        ElementType::F16,
        ElementType::BF16,
        ElementType::F32,
        ElementType::F64,
        ElementType::I32,
    ] {
        let e = Expression::from_fn(move |x: Expr| x.cast(ty));
        assert_eq!(e.eval(&[x], &[]), round_to(ty, x), "{ty}");
    }
    assert!(e.eval(&[], &[]).is_nan());
}

#[test]
fn round_to_matches_the_half_crate_and_rust_casts() {
    let mut v = 1.0e-9_f64;
    while v < 1.0e6 {
        for x in [v, -v, v * 1.000_244_140_625, v * 1.003_906_25] {
            let f16 = half::f16::from_f32(x as f32);
            // Compare where f64 -> f32 is exact enough that f32 -> f16 is one rounding.
            if f64::from(x as f32) == x {
                assert_eq!(round_to(ElementType::F16, x), f16.to_f64(), "f16 {x}");
                let bf16 = half::bf16::from_f32(x as f32);
                assert_eq!(round_to(ElementType::BF16, x), bf16.to_f64(), "bf16 {x}");
            }
            assert_eq!(round_to(ElementType::F32, x), f64::from(x as f32));
        }
        v *= 1.37;
    }
    // Ties: 1 + 2^-11 is halfway between two f16 values; even wins.
    assert_eq!(round_to(ElementType::F16, 1.0 + 2f64.powi(-11)), 1.0);
    assert_eq!(
        round_to(ElementType::F16, 1.0 + 3.0 * 2f64.powi(-11)),
        1.0 + 2.0 * 2f64.powi(-10)
    );
    // A tie only visible below f32 precision: bf16 must not double-round.
    let just_above_tie = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
    assert_eq!(
        round_to(ElementType::BF16, just_above_tie),
        1.0 + 2f64.powi(-7)
    );
    assert_eq!(round_to(ElementType::F16, 1e-8), 0.0);
    assert_eq!(round_to(ElementType::BF16, -1e39), f64::NEG_INFINITY);
    assert_eq!(round_to(ElementType::I32, f64::NAN), 0.0);
    assert!(round_to(ElementType::F16, f64::NAN).is_nan());
}

#[test]
fn exact_erf_matches_known_values() {
    // erf values from Abramowitz & Stegun table 7.1 / high-precision references.
    let known = [
        (0.1, 0.112_462_916_018_284_9),
        (1.0, 0.842_700_792_949_714_9),
        (2.0, 0.995_322_265_018_952_7),
        (3.5, 0.999_999_256_901_627_7),
    ];
    for (x, want) in known {
        assert!((erf(x) - want).abs() < 5e-15, "erf({x}) = {}", erf(x));
        assert!((erf(-x) + want).abs() < 5e-15);
    }
}

/// The GPU's gelu_erf uses Abramowitz & Stegun 7.1.26 (published bound
/// 1.5e-7). Measured here in f64 on a fine grid: the bound holds for erf,
/// and erfc keeps it in the negative tail.
#[test]
fn as7126_erf_error_is_within_its_published_bound() {
    let mut max_error: f64 = 0.0;
    let mut x = -8.0;
    while x <= 8.0 {
        max_error = max_error.max((erf_as7126(x) - erf(x)).abs());
        let erfc = 1.0 - erf(x.abs());
        max_error = max_error.max((erfc_abs_as7126(x) - erfc).abs());
        x += 1.0 / 1024.0;
    }
    eprintln!("A&S 7.1.26 max |error| vs f64 erf on [-8, 8]: {max_error:.3e}");
    assert!(max_error <= 1.5e-7, "{max_error}");
    assert!(
        max_error > 1e-8,
        "the approximation is not exact: {max_error}"
    );
}
