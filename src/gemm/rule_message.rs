//! [`RuleMessage`]: the sentence of a broken configuration rule, built in
//! a `const fn`, so that the same rule gives a compile-time error (a typed
//! configuration) and a run-time one (the builder). The rules themselves
//! live with the parts they constrain (the SM90 mainloop's in its folder)
//! and at the kernel layer (`kernel::gemm::check_config`).

use std::fmt;

/// The sentence of a broken rule, built in a `const fn` (so a compile-time
/// check can print it with its values) and readable at run time.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct RuleMessage {
    bytes: [u8; RuleMessage::CAPACITY],
    len: usize,
}

impl RuleMessage {
    const CAPACITY: usize = 320;

    /// An empty message.
    pub(crate) const fn new() -> Self {
        RuleMessage {
            bytes: [0; RuleMessage::CAPACITY],
            len: 0,
        }
    }

    /// Appends `text` (cut at the capacity, on a character boundary: the
    /// texts here are ASCII).
    pub(crate) const fn s(mut self, text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < RuleMessage::CAPACITY {
            self.bytes[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// Appends `value` in decimal.
    pub(crate) const fn n(mut self, mut value: u32) -> Self {
        let mut digits = [0u8; 10];
        let mut count = 0;
        loop {
            digits[count] = b'0' + (value % 10) as u8;
            count += 1;
            value /= 10;
            if value == 0 {
                break;
            }
        }
        while count > 0 && self.len < RuleMessage::CAPACITY {
            count -= 1;
            self.bytes[self.len] = digits[count];
            self.len += 1;
        }
        self
    }

    /// Appends `warps AxBxC` for a warp layout `[a, b, c]`.
    pub(crate) const fn warps(self, [a, b, c]: [u32; 3]) -> Self {
        self.s("warps ").n(a).s("x").n(b).s("x").n(c)
    }

    /// The sentence.
    pub const fn as_str(&self) -> &str {
        let (text, _) = self.bytes.split_at(self.len);
        match std::str::from_utf8(text) {
            Ok(text) => text,
            Err(_) => "a GEMM configuration rule is broken",
        }
    }

    /// Panics with the sentence: what a compile-time check does with it.
    pub const fn fail(&self) -> ! {
        panic!("{}", self.as_str())
    }
}

impl fmt::Display for RuleMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for RuleMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RuleMessage({:?})", self.as_str())
    }
}
