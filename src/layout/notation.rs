//! Parsing CuTe notation: `4`, `(4,(2,2))`, `(4,(2,2)):(2,(1,8))`.
//!
//! [`Parser`] is a small recursive-descent reader over a string that keeps its
//! position, so that an error names the column and what was expected there.
//! Larger grammars (the `cutlet layout` expressions) build on it.

use std::fmt;
use std::str::FromStr;

use super::int_tuple::IntTuple;
use super::layout::Layout;

/// A malformed piece of CuTe notation: where, and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset into the input (0-based).
    pub pos: usize,
    /// What the parser wanted at that position.
    pub expected: String,
    /// What it found there instead (a character, or "end of input").
    pub found: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at column {}: expected {}, found {}",
            self.pos + 1,
            self.expected,
            self.found
        )
    }
}

impl std::error::Error for ParseError {}

/// A cursor over CuTe notation. Whitespace between tokens is skipped.
#[derive(Clone, Debug)]
pub struct Parser<'a> {
    src: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    /// A parser at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Parser { src, pos: 0 }
    }

    /// The current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The unread rest of the input.
    pub fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    /// Skips whitespace, then returns the next character without consuming it.
    pub fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    /// Skips whitespace.
    pub fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// An error at the current position.
    pub fn error(&mut self, expected: impl Into<String>) -> ParseError {
        self.skip_ws();
        let found = match self.rest().chars().next() {
            Some(c) => format!("'{c}'"),
            None => "end of input".to_string(),
        };
        ParseError {
            pos: self.pos,
            expected: expected.into(),
            found,
        }
    }

    /// Consumes `c` if it is next (after whitespace); returns whether it did.
    pub fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    /// Consumes `c` or fails naming it.
    pub fn expect(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(format!("'{c}'")))
        }
    }

    /// Reads an identifier (`[A-Za-z_][A-Za-z0-9_]*`), if one is next.
    pub fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(i, c)| !(c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())))
            .map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            return None;
        }
        self.pos += len;
        Some(&rest[..len])
    }

    /// Reads a (possibly negative) decimal integer.
    pub fn int(&mut self) -> Result<i64, ParseError> {
        self.skip_ws();
        let rest = self.rest();
        let neg = rest.starts_with('-');
        let digits = rest[usize::from(neg)..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if digits == 0 {
            return Err(self.error("an integer"));
        }
        let len = usize::from(neg) + digits;
        let text = &rest[..len];
        let value = text.parse::<i64>().map_err(|_| ParseError {
            pos: self.pos,
            expected: "an integer that fits in 64 bits".to_string(),
            found: text.to_string(),
        })?;
        self.pos += len;
        Ok(value)
    }

    /// Reads an integer tuple: an integer, or `(` tuples separated by `,` `)`.
    pub fn int_tuple(&mut self) -> Result<IntTuple, ParseError> {
        if self.eat('(') {
            let mut modes = Vec::new();
            if self.eat(')') {
                return Ok(IntTuple::Tuple(modes));
            }
            loop {
                modes.push(self.int_tuple()?);
                if self.eat(')') {
                    return Ok(IntTuple::Tuple(modes));
                }
                if !self.eat(',') {
                    return Err(self.error("',' or ')'"));
                }
            }
        }
        match self.peek() {
            Some(c) if c == '-' || c.is_ascii_digit() => self.int().map(IntTuple::Int),
            _ => Err(self.error("an integer or '('")),
        }
    }

    /// Reads a layout `shape:stride`, or a bare `shape` (compact column-major strides).
    pub fn layout(&mut self) -> Result<Layout, ParseError> {
        let shape_pos = self.pos;
        let shape = self.int_tuple()?;
        if !self.eat(':') {
            return Ok(Layout::col_major(shape));
        }
        let stride_pos = {
            self.skip_ws();
            self.pos
        };
        let stride = self.int_tuple()?;
        Layout::new(shape.clone(), stride.clone()).ok_or_else(|| ParseError {
            pos: stride_pos,
            expected: format!(
                "a stride congruent to the shape {shape} (at column {})",
                shape_pos + 1
            ),
            found: stride.to_string(),
        })
    }

    /// Fails unless only whitespace is left.
    pub fn finish(&mut self) -> Result<(), ParseError> {
        if self.peek().is_some() {
            Err(self.error("end of input"))
        } else {
            Ok(())
        }
    }
}

impl FromStr for IntTuple {
    type Err = ParseError;

    /// ```
    /// use cutlet::layout::IntTuple;
    /// assert_eq!("( 4, (2,2) )".parse::<IntTuple>().unwrap().to_string(), "(4,(2,2))");
    /// assert!("(4,".parse::<IntTuple>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut p = Parser::new(s);
        let t = p.int_tuple()?;
        p.finish()?;
        Ok(t)
    }
}

impl FromStr for Layout {
    type Err = ParseError;

    /// ```
    /// use cutlet::layout::Layout;
    /// let l: Layout = "(4,(2,2)):(2,(1,8))".parse().unwrap();
    /// assert_eq!(l.to_string(), "(4,(2,2)):(2,(1,8))");
    /// let e = "(4,2):(1,(2,3))".parse::<Layout>().unwrap_err();
    /// assert_eq!(e.pos, 6);
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut p = Parser::new(s);
        let l = p.layout()?;
        p.finish()?;
        Ok(l)
    }
}
