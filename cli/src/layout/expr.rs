//! The expression grammar of `cutlet layout`, read into a syntax tree.
//!
//! ```text
//! expr    := call | layout | shape | bymode
//! call    := NAME '(' expr (',' expr)* ')'
//! layout  := tuple ':' tuple          (4,(2,2)):(2,(1,8))
//! shape   := tuple                    (4,8), 8: compact column-major, or a by-mode tiler
//! bymode  := '[' expr (',' expr)* ']' [2:1, (2,2), [4, 1:0]]
//! tuple   := INT | '(' tuple (',' tuple)* ')' | '(' ')'
//! ```
//!
//! Every integer is checked while it is read: within [-2^31, 2^31], and
//! shape entries positive, so that the algebra's `i64` arithmetic cannot
//! overflow on what it is given.

use cutlet::layout::{IntTuple, Layout, ParseError, Parser};

/// The largest magnitude an integer of an expression may have: 2^31.
pub const LIMIT: i64 = 1 << 31;

/// A node of the syntax tree, with the byte offset where it starts.
#[derive(Clone, Debug)]
pub enum Expr {
    /// `shape:stride`.
    Layout(Layout, usize),
    /// A bare shape (or integer): a compact layout, a by-mode tiler, or an integer argument.
    Shape(IntTuple, usize),
    /// `[T0, T1, ...]`, a by-mode tiler.
    ByMode(Vec<Expr>, usize),
    /// `name(args...)`.
    Call {
        /// The function name.
        name: String,
        /// Where the name starts.
        pos: usize,
        /// The arguments, in order.
        args: Vec<Expr>,
    },
}

impl Expr {
    /// Where this node starts (a byte offset).
    pub fn pos(&self) -> usize {
        match self {
            Expr::Layout(_, pos) | Expr::Shape(_, pos) | Expr::ByMode(_, pos) => *pos,
            Expr::Call { pos, .. } => *pos,
        }
    }
}

/// How deeply calls, tuples and tilers may nest; deeper input is refused so
/// that recursion stays far from the stack limit.
const MAX_DEPTH: usize = 64;

/// Reads a whole expression; only whitespace may follow it.
pub fn parse(src: &str) -> Result<Expr, ParseError> {
    let mut p = Parser::new(src);
    let e = expr(&mut p, 0)?;
    p.finish()?;
    Ok(e)
}

fn too_deep(p: &mut Parser<'_>) -> ParseError {
    let mut e = p.error(format!("at most {MAX_DEPTH} levels of nesting"));
    e.found = "deeper nesting".to_string();
    e
}

fn expr(p: &mut Parser<'_>, depth: usize) -> Result<Expr, ParseError> {
    if depth > MAX_DEPTH {
        return Err(too_deep(p));
    }
    p.skip_ws();
    let pos = p.pos();
    match p.peek() {
        Some('[') => {
            p.eat('[');
            let items = list(p, ']', depth)?;
            Ok(Expr::ByMode(items, pos))
        }
        Some(c) if c == '(' || c == '-' || c.is_ascii_digit() => {
            let shape = tuple(p, Entry::Shape, depth)?;
            if !p.eat(':') {
                return Ok(Expr::Shape(shape, pos));
            }
            p.skip_ws();
            let stride_pos = p.pos();
            let stride = tuple(p, Entry::Stride, depth)?;
            match Layout::new(shape.clone(), stride.clone()) {
                Some(l) => Ok(Expr::Layout(l, pos)),
                None => Err(ParseError {
                    pos: stride_pos,
                    expected: format!(
                        "a stride congruent to the shape {shape} (at column {})",
                        pos + 1
                    ),
                    found: stride.to_string(),
                }),
            }
        }
        Some(c) if c == '_' || c.is_ascii_alphabetic() => {
            let name = p.ident().unwrap_or_default().to_string();
            p.expect('(')?;
            let args = list(p, ')', depth)?;
            Ok(Expr::Call { name, pos, args })
        }
        _ => Err(p.error("a layout, a shape, '[' or a function name")),
    }
}

/// Reads `expr (',' expr)* close`, the opening bracket already eaten.
fn list(p: &mut Parser<'_>, close: char, depth: usize) -> Result<Vec<Expr>, ParseError> {
    let mut items = vec![expr(p, depth + 1)?];
    loop {
        if p.eat(close) {
            return Ok(items);
        }
        if !p.eat(',') {
            return Err(p.error(format!("',' or '{close}'")));
        }
        items.push(expr(p, depth + 1)?);
    }
}

/// What the integers of a tuple are: shape entries must be positive.
#[derive(Clone, Copy)]
enum Entry {
    Shape,
    Stride,
}

fn tuple(p: &mut Parser<'_>, entry: Entry, depth: usize) -> Result<IntTuple, ParseError> {
    if depth > MAX_DEPTH {
        return Err(too_deep(p));
    }
    if p.eat('(') {
        let mut modes = Vec::new();
        if p.eat(')') {
            return Ok(IntTuple::Tuple(modes));
        }
        loop {
            modes.push(tuple(p, entry, depth + 1)?);
            if p.eat(')') {
                return Ok(IntTuple::Tuple(modes));
            }
            if !p.eat(',') {
                return Err(p.error("',' or ')'"));
            }
        }
    }
    match p.peek() {
        Some(c) if c == '-' || c.is_ascii_digit() => {}
        _ => return Err(p.error("an integer or '('")),
    }
    let pos = p.pos();
    let (lo, what) = match entry {
        Entry::Shape => (1, "a shape entry"),
        Entry::Stride => (-LIMIT, "an integer"),
    };
    let in_range = |p: &mut Parser<'_>| ParseError {
        pos,
        expected: format!("{what} from {lo} to {LIMIT}"),
        found: number_at(p.rest()),
    };
    match p.int() {
        Ok(v) if (lo..=LIMIT).contains(&v) => Ok(IntTuple::Int(v)),
        Ok(v) => {
            let mut e = in_range(p);
            e.found = v.to_string();
            Err(e)
        }
        Err(_) => Err(in_range(p)),
    }
}

/// The number written at the start of `rest` (an optional '-' and digits).
fn number_at(rest: &str) -> String {
    let sign = usize::from(rest.starts_with('-'));
    let digits = rest[sign..].bytes().take_while(u8::is_ascii_digit).count();
    rest[..sign + digits].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nested_calls_and_tilers() {
        let e = parse(" logical_divide( (8,8):(8,1) , [ 2 , coalesce((2,2)) ] )").unwrap();
        let Expr::Call { name, pos, args } = e else {
            panic!("not a call: {e:?}");
        };
        assert_eq!((name.as_str(), pos, args.len()), ("logical_divide", 1, 2));
        assert!(matches!(&args[0], Expr::Layout(l, 17) if l.to_string() == "(8,8):(8,1)"));
        assert!(matches!(&args[1], Expr::ByMode(items, 31) if items.len() == 2));
    }

    #[test]
    fn errors_name_column_and_token() {
        let e = parse("composition((4,2):(1,4) 3)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "at column 25: expected ',' or ')', found '3'"
        );
        let e = parse("(4,0):(1,4)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "at column 4: expected a shape entry from 1 to 2147483648, found 0"
        );
        let e = parse("4:99999999999999999999999").unwrap_err();
        assert!(e
            .to_string()
            .starts_with("at column 3: expected an integer from -2147483648"));
        assert!(e.to_string().ends_with("found 99999999999999999999999"));
        let e = parse("(4,2):(1,(2,3))").unwrap_err();
        assert_eq!(e.pos, 6);
    }

    #[test]
    fn refuses_deep_nesting() {
        let deep = format!("{}4{}", "(".repeat(100), ")".repeat(100));
        assert!(parse(&deep)
            .unwrap_err()
            .to_string()
            .contains("levels of nesting"));
        let calls = format!("{}4:1{}", "coalesce(".repeat(100), ")".repeat(100));
        assert!(parse(&calls).is_err());
    }
}
