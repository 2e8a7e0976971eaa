//! The `cutlet` command line: a layout calculator and a device report.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
