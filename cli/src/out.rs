//! Standard output for every subcommand: `print!` panics ("failed printing
//! to stdout: Broken pipe") when the reader has gone (`cutlet gemm
//! --emit-ptx | head`); these end the process quietly instead, as a
//! pipeline expects.

use std::fmt::Arguments;
use std::io::{self, Write};

/// Writes `text` to standard output and flushes it. Where the reader has
/// closed the pipe the process exits at once with status 0 (its output is
/// not wanted); any other write error exits with status 2 and one `error:`
/// line on standard error.
pub fn write(text: Arguments<'_>) {
    let mut out = io::stdout().lock();
    let written = out.write_fmt(text).and_then(|()| out.flush());
    if let Err(e) = written {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(2);
    }
}

/// `print!` through [`write`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*))
    };
}

/// `println!` through [`write`].
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};
