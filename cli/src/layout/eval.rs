//! Evaluating `cutlet layout` expressions with the layout algebra.

use std::fmt;

use cutlet::layout::{self as algebra, IntTuple, Layout, LayoutError, ParseError, Tiler};

use super::expr::{self, Expr, LIMIT};

/// The value of an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A layout.
    Layout(Layout),
    /// A by-mode tiler written `[...]` at the top level.
    Tiler(Tiler),
    /// The result of `make_layout_tv`: the tile `(M,N)` and the TV layout.
    Tv(IntTuple, Layout),
}

impl Value {
    /// The layout this value stands for, if any (a TV pair's TV layout).
    pub fn layout(&self) -> Option<&Layout> {
        match self {
            Value::Layout(l) | Value::Tv(_, l) => Some(l),
            Value::Tiler(_) => None,
        }
    }
}

impl fmt::Display for Value {
    /// A layout in CuTe notation; a TV pair as `TILER TV`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Layout(l) => write!(f, "{l}"),
            Value::Tiler(t) => write!(f, "{t}"),
            Value::Tv(tiler, tv) => write!(f, "{tiler} {tv}"),
        }
    }
}

/// Why an expression has no value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// Malformed, or a call that does not fit its function.
    #[error("{0}")]
    Syntax(#[from] ParseError),
    /// The algebra refused its arguments.
    #[error("at column {}: {source}", pos + 1)]
    Layout {
        /// Byte offset of the call.
        pos: usize,
        /// The algebra's reason.
        source: LayoutError,
    },
}

/// The functions an expression may call, with how many arguments each takes.
const FUNCTIONS: &[(&str, usize, usize)] = &[
    ("composition", 2, 2),
    ("complement", 1, 2),
    ("coalesce", 1, 1),
    ("filter", 1, 1),
    ("right_inverse", 1, 1),
    ("left_inverse", 1, 1),
    ("logical_divide", 2, 2),
    ("zipped_divide", 2, 2),
    ("tiled_divide", 2, 2),
    ("flat_divide", 2, 2),
    ("logical_product", 2, 2),
    ("zipped_product", 2, 2),
    ("tiled_product", 2, 2),
    ("flat_product", 2, 2),
    ("blocked_product", 2, 2),
    ("raked_product", 2, 2),
    ("make_layout_tv", 2, 2),
    ("upcast", 2, 2),
    ("downcast", 2, 2),
];

/// Parses and evaluates one expression.
pub fn evaluate(src: &str) -> Result<Value, EvalError> {
    let e = expr::parse(src)?;
    match &e {
        Expr::ByMode(..) => Ok(Value::Tiler(tiler(&e)?)),
        _ => value(&e),
    }
}

fn syntax(pos: usize, expected: impl Into<String>, found: impl Into<String>) -> EvalError {
    EvalError::Syntax(ParseError {
        pos,
        expected: expected.into(),
        found: found.into(),
    })
}

fn value(e: &Expr) -> Result<Value, EvalError> {
    match e {
        Expr::Layout(l, pos) => checked(l.clone(), *pos, "layout").map(Value::Layout),
        Expr::Shape(s, pos) => {
            checked(Layout::col_major(s.clone()), *pos, "layout").map(Value::Layout)
        }
        Expr::ByMode(_, pos) => Err(syntax(*pos, "a layout", "a by-mode tiler '['")),
        Expr::Call { name, pos, args } => call(name, *pos, args),
    }
}

fn layout(e: &Expr) -> Result<Layout, EvalError> {
    match value(e)? {
        Value::Layout(l) | Value::Tv(_, l) => Ok(l),
        Value::Tiler(_) => Err(syntax(e.pos(), "a layout", "a by-mode tiler")),
    }
}

/// A tiler argument: a bare shape and `[...]` are by-mode, anything else one layout.
fn tiler(e: &Expr) -> Result<Tiler, EvalError> {
    match e {
        Expr::Shape(s, pos) => {
            checked(Layout::col_major(s.clone()), *pos, "tiler")?;
            Ok(Tiler::from_shape(s))
        }
        Expr::ByMode(items, _) => items
            .iter()
            .map(tiler)
            .collect::<Result<_, _>>()
            .map(Tiler::ByMode),
        _ => layout(e).map(Tiler::Layout),
    }
}

/// The tiler argument of `composition`: as [`tiler`], except that a bare
/// integer `n` is CuTe's integral tiler, the layout `n:1` even for `n == 1`
/// (C++ `composition(layout, Int<N>)` composes with stride `Int<1>`, so
/// `composition(3:8, 1)` is `1:8`), where the divides and products build
/// `make_layout(Int<1>)`, which is `1:0`.
fn composition_tiler(e: &Expr) -> Result<Tiler, EvalError> {
    match e {
        Expr::Shape(shape, _) => Ok(Tiler::from_shape_for_composition(shape)),
        Expr::ByMode(items, _) => items
            .iter()
            .map(composition_tiler)
            .collect::<Result<_, _>>()
            .map(Tiler::ByMode),
        _ => tiler(e),
    }
}

/// An integer argument: a bare integer from 1 to 2^31.
fn positive(e: &Expr, what: &str) -> Result<i64, EvalError> {
    match e {
        Expr::Shape(IntTuple::Int(n), _) => Ok(*n),
        _ => Err(syntax(
            e.pos(),
            format!("{what}, a positive integer"),
            "a layout expression",
        )),
    }
}

fn call(name: &str, pos: usize, args: &[Expr]) -> Result<Value, EvalError> {
    let Some(&(_, min, max)) = FUNCTIONS.iter().find(|f| f.0 == name) else {
        return Err(unknown(name, pos));
    };
    if !(min..=max).contains(&args.len()) {
        let count = if min == max {
            min.to_string()
        } else {
            format!("{min} or {max}")
        };
        let plural = if max == 1 { "argument" } else { "arguments" };
        return Err(syntax(
            pos,
            format!("{count} {plural} to {name}"),
            format!("{} arguments", args.len()),
        ));
    }
    let fail = |source: LayoutError| EvalError::Layout { pos, source };
    let a = || layout(&args[0]);
    let out = match name {
        "make_layout_tv" => {
            let (tile, tv) = algebra::make_layout_tv(&a()?, &layout(&args[1])?).map_err(fail)?;
            let tv = checked(tv, pos, name)?;
            return Ok(Value::Tv(tile, tv));
        }
        "composition" => algebra::composition(&a()?, &composition_tiler(&args[1])?),
        "complement" => {
            let l = a()?;
            let cotarget = match args.get(1) {
                Some(m) => positive(m, "the cotarget")?,
                None => l.cosize(),
            };
            algebra::complement(&l, cotarget)
        }
        "coalesce" => Ok(algebra::coalesce(&a()?)),
        "filter" => Ok(algebra::filter(&a()?)),
        "right_inverse" => Ok(algebra::right_inverse(&a()?)),
        "left_inverse" => algebra::left_inverse(&a()?),
        "logical_divide" => algebra::logical_divide(&a()?, &tiler(&args[1])?),
        "zipped_divide" => algebra::zipped_divide(&a()?, &tiler(&args[1])?),
        "tiled_divide" => algebra::tiled_divide(&a()?, &tiler(&args[1])?),
        "flat_divide" => algebra::flat_divide(&a()?, &tiler(&args[1])?),
        "logical_product" => algebra::logical_product(&a()?, &tiler(&args[1])?),
        "zipped_product" => algebra::zipped_product(&a()?, &tiler(&args[1])?),
        "tiled_product" => algebra::tiled_product(&a()?, &tiler(&args[1])?),
        "flat_product" => algebra::flat_product(&a()?, &tiler(&args[1])?),
        "blocked_product" => algebra::blocked_product(&a()?, &layout(&args[1])?),
        "raked_product" => algebra::raked_product(&a()?, &layout(&args[1])?),
        "upcast" => algebra::upcast(&a()?, positive(&args[1], "the factor")?),
        "downcast" => algebra::downcast(&a()?, positive(&args[1], "the factor")?),
        _ => return Err(unknown(name, pos)),
    };
    checked(out.map_err(fail)?, pos, name).map(Value::Layout)
}

fn unknown(name: &str, pos: usize) -> EvalError {
    let known: Vec<&str> = FUNCTIONS.iter().map(|f| f.0).collect();
    syntax(
        pos,
        format!("a known function ({})", known.join(", ")),
        format!("unknown function '{name}'"),
    )
}

/// Refuses a layout whose size, or whose reach (the largest index magnitude
/// plus one), exceeds 2^31, or with an integer outside [-2^31, 2^31]: every
/// operand the algebra sees passes here, so its `i64` arithmetic stays far from
/// overflow.
fn checked(l: Layout, pos: usize, what: &str) -> Result<Layout, EvalError> {
    let shapes = l.shape().flatten();
    let strides = l.stride().flatten();
    let mut size: i64 = 1;
    let mut reach: i64 = 1;
    for (&s, &d) in shapes.iter().zip(&strides) {
        if !(0..=LIMIT).contains(&s) || !(-LIMIT..=LIMIT).contains(&d) {
            return Err(syntax(
                pos,
                format!("a {what} with entries within [-2^31, 2^31]"),
                l.to_string(),
            ));
        }
        size = size.saturating_mul(s);
        reach = reach.saturating_add((s - 1).max(0).saturating_mul(d.abs()));
        if size > LIMIT || reach > LIMIT {
            let (which, n) = if size > LIMIT {
                ("size", size)
            } else {
                ("cosize", reach)
            };
            return Err(syntax(
                pos,
                format!("a {what} of {which} at most 2^31"),
                format!(
                    "{l} of {which} {}",
                    if n == i64::MAX {
                        "over 2^63".into()
                    } else {
                        n.to_string()
                    }
                ),
            ));
        }
    }
    Ok(l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Evaluates `src` and fails the test if the evaluator panics.
    fn no_panic(src: &str) {
        let owned = src.to_string();
        let outcome = std::panic::catch_unwind(move || {
            let _ = evaluate(&owned);
        });
        assert!(outcome.is_ok(), "evaluate panicked on {src:?}");
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut rng = StdRng::seed_from_u64(7);
        const ALPHABET: &[u8] = b"()[],:- 0123456789_abcz\t\n";
        for _ in 0..4000 {
            let len = rng.random_range(0..40);
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.random_bool(0.8) {
                        ALPHABET[rng.random_range(0..ALPHABET.len())]
                    } else {
                        rng.random()
                    }
                })
                .collect();
            no_panic(&String::from_utf8_lossy(&bytes));
        }
    }

    fn random_int(rng: &mut StdRng) -> i64 {
        match rng.random_range(0..10) {
            0 => 0,
            1 => -rng.random_range(1..5),
            2 => [LIMIT, LIMIT - 1, 1 << 16, 3 << 20][rng.random_range(0..4)],
            _ => rng.random_range(1..9),
        }
    }

    fn random_tuple(rng: &mut StdRng, depth: usize) -> String {
        if depth > 1 || rng.random_bool(0.5) {
            return random_int(rng).to_string();
        }
        let n = rng.random_range(1..4);
        let modes: Vec<String> = (0..n).map(|_| random_tuple(rng, depth + 1)).collect();
        format!("({})", modes.join(","))
    }

    /// A layout whose stride mirrors the shape's structure (mostly congruent).
    fn random_layout(rng: &mut StdRng) -> String {
        let shape = random_tuple(rng, 0);
        let stride: String = shape
            .chars()
            .map(|c| {
                if c.is_ascii_digit() && rng.random_bool(0.4) {
                    char::from(b'0' + rng.random_range(0..9))
                } else {
                    c
                }
            })
            .collect();
        if rng.random_bool(0.2) {
            shape
        } else {
            format!("{shape}:{stride}")
        }
    }

    fn random_expr(rng: &mut StdRng, depth: usize) -> String {
        if depth > 2 || rng.random_bool(0.35) {
            return random_layout(rng);
        }
        if rng.random_bool(0.1) {
            let a = random_expr(rng, depth + 1);
            let b = random_expr(rng, depth + 1);
            return format!("[{a}, {b}]");
        }
        let (name, min, max) = FUNCTIONS[rng.random_range(0..FUNCTIONS.len())];
        let n = rng.random_range(min.saturating_sub(1)..=max + 1).max(1);
        let args: Vec<String> = (0..n)
            .map(|i| {
                if i == 1 && rng.random_bool(0.3) {
                    random_int(rng).to_string()
                } else {
                    random_expr(rng, depth + 1)
                }
            })
            .collect();
        format!("{name}({})", args.join(", "))
    }

    #[test]
    fn near_valid_expressions_never_panic() {
        let mut rng = StdRng::seed_from_u64(11);
        let mut evaluated = 0;
        for _ in 0..6000 {
            let mut src = random_expr(&mut rng, 0);
            if rng.random_bool(0.1) && !src.is_empty() {
                let cut = rng.random_range(0..src.len());
                src.truncate(cut);
            }
            no_panic(&src);
            evaluated += usize::from(evaluate(&src).is_ok());
        }
        // the generator must reach the algebra, not only the parser's errors
        assert!(evaluated > 500, "only {evaluated} expressions had a value");
    }
}
