//! `cutlet layout`, run as a process.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn cutlet(args: &[&str]) -> Output {
    Command::new(common::cutlet_bin())
        .args(args)
        .output()
        .expect("the cutlet binary runs")
}

fn cutlet_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(common::cutlet_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the cutlet binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    // A run that refuses its arguments exits before reading its input: the
    // pipe is then closed under the writer, which is not the test's concern.
    match writer.join().unwrap() {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.unwrap(),
    }
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// Asserts a failed run: exit code 2, one line on stderr that starts with
/// `error: ` and contains `needle`, no panic.
fn assert_one_error(out: &Output, needle: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(needle), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn plain_layout_round_trips() {
    for (expr, expected) in [
        ("(4,(2,2)):(2,(1,8))", "(4,(2,2)):(2,(1,8))"),
        ("  ( 4 , 8 ) : ( 8 , 1 ) ", "(4,8):(8,1)"),
        ("(4,(2,3))", "(4,(2,3)):(1,(4,8))"),
        ("8", "8:1"),
    ] {
        let out = cutlet(&["layout", expr]);
        assert!(out.status.success(), "{expr}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), format!("{expected}\n"));
    }
}

#[test]
fn table_follows_the_result() {
    let out = cutlet(&["layout", "(2,3):(3,1)", "--table"]);
    assert!(out.status.success());
    // The result line once: print_layout's own opening line would repeat it.
    let expected = [
        "(2,3):(3,1)",
        "      0   1   2 ",
        "    +---+---+---+",
        " 0  | 0 | 1 | 2 |",
        "    +---+---+---+",
        " 1  | 3 | 4 | 5 |",
        "    +---+---+---+",
    ];
    assert_eq!(text(&out.stdout), expected.join("\n") + "\n");
}

#[test]
fn table_of_rank_three_is_a_note() {
    let out = cutlet(&["layout", "(2,2,2):(1,2,4)", "--table"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0], "(2,2,2):(1,2,4)");
    assert!(lines[1].starts_with("note: ") && lines[1].contains("rank 3"));
}

#[test]
fn svg_is_written() {
    let path = std::env::temp_dir().join(format!("cutlet-cli-{}.svg", std::process::id()));
    let out = cutlet(&["layout", "(4,8):(8,1)", "--svg", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(svg.starts_with("<svg"));
    assert_eq!(svg.matches("<rect").count(), 32);
}

#[test]
fn stdin_mode_keeps_lines_aligned() {
    let out = cutlet_stdin(&["layout", "-"], "(4,2):(2,1)\n\n(4,\n  8  \n");
    assert_eq!(out.status.code(), Some(2));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(lines[0], "(4,2):(2,1)");
    assert_eq!(
        lines[1],
        "error: line 3: at column 4: expected an integer or '(', found end of input"
    );
    assert_eq!(lines[2], "8:1");
    assert!(out.stderr.is_empty());
}

#[test]
fn stdin_mode_all_good_exits_zero() {
    let input: String = (1..=10_000).map(|i| format!("({i},2):(2,1)\n")).collect();
    let start = std::time::Instant::now();
    let out = cutlet_stdin(&["layout", "-"], &input);
    let elapsed = start.elapsed();
    assert!(out.status.success());
    assert_eq!(text(&out.stdout).lines().count(), 10_000);
    assert!(elapsed.as_secs_f64() < 5.0, "10,000 lines took {elapsed:?}");
}

#[test]
fn malformed_expressions_fail_with_one_line() {
    assert_one_error(
        &cutlet(&["layout", "(4,2):(1,"]),
        "at column 10: expected an integer or '('",
    );
    assert_one_error(
        &cutlet(&["layout", "(4,2):(1,(2,3))"]),
        "at column 7: expected a stride congruent",
    );
    assert_one_error(
        &cutlet(&["layout", "transpose(4:1)"]),
        "unknown function 'transpose'",
    );
    assert_one_error(
        &cutlet(&["layout", "transpose(4:1)"]),
        "composition, complement",
    );
    assert_one_error(
        &cutlet(&["layout", "coalesce(4:1, 2)"]),
        "expected 1 argument to coalesce, found 2",
    );
    assert_one_error(
        &cutlet(&["layout", "composition(4:1)"]),
        "expected 2 arguments to composition",
    );
    assert_one_error(
        &cutlet(&["layout", "4:1 )"]),
        "at column 5: expected end of input, found ')'",
    );
    assert_one_error(&cutlet(&["layout", ""]), "at column 1");
}

#[test]
fn out_of_range_values_are_refused() {
    assert_one_error(
        &cutlet(&["layout", "(0,2):(1,0)"]),
        "expected a shape entry from 1 to 2147483648, found 0",
    );
    assert_one_error(&cutlet(&["layout", "4:-2147483649"]), "found -2147483649");
    assert_one_error(
        &cutlet(&["layout", "(65536,65536):(1,65536)"]),
        "of size 4294967296",
    );
    assert_one_error(&cutlet(&["layout", "2:2147483648"]), "of cosize 2147483649");
    assert_one_error(&cutlet(&["layout", "upcast(4:1, 0)"]), "found 0");
}

#[test]
fn bad_subcommand_exits_two() {
    let out = cutlet(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!text(&out.stderr).contains("panicked"));
    let out = cutlet(&["layout"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn svg_with_stdin_is_refused() {
    let out = cutlet_stdin(&["layout", "-", "--svg", "x.svg"], "4:1\n");
    assert_one_error(&out, "--svg");
}

/// Every operation on a known example (CuTe's documentation examples where it has one).
#[test]
fn each_operation_on_a_known_example() {
    let cases = [
        (
            "composition((6,2):(8,2), (4,3):(3,1))",
            "((2,2),3):((24,2),8)",
        ),
        ("composition((8,8):(8,1), [2:1, 4:2])", "(2,4):(8,2)"),
        ("complement(4:1, 24)", "6:4"),
        ("complement((2,2):(1,6), 24)", "(3,2):(2,12)"),
        ("complement((2,2):(1,6))", "3:2"),
        ("coalesce((2,(1,6)):(1,(6,2)))", "12:1"),
        ("filter((4,2):(0,1))", "2:1"),
        ("right_inverse((4,8):(8,1))", "(8,4):(4,1)"),
        ("left_inverse((4,8):(8,1))", "(8,4):(4,1)"),
        (
            "logical_divide((4,2,3):(2,1,8), 4:2)",
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "zipped_divide((8,8):(8,1), [2:1, 4:1])",
            "((2,4),(4,2)):((8,1),(16,4))",
        ),
        (
            "tiled_divide((8,8):(8,1), [2:1, 4:1])",
            "((2,4),4,2):((8,1),16,4)",
        ),
        ("flat_divide((8,8):(8,1), (2,4))", "(2,4,4,2):(8,1,16,4)"),
        (
            "logical_product((2,2):(4,1), 6:1)",
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "zipped_product((2,2):(4,1), [2:1, 3:1])",
            "((2,2),(2,3)):((4,1),(1,2))",
        ),
        (
            "tiled_product((2,2):(4,1), [2:1, 3:1])",
            "((2,2),2,3):((4,1),1,2)",
        ),
        ("flat_product((2,2):(4,1), (2,3))", "(2,2,2,3):(4,1,1,2)"),
        (
            "blocked_product((2,5):(5,1), (3,4):(1,3))",
            "((2,3),(5,4)):((5,10),(1,30))",
        ),
        (
            "raked_product((2,5):(5,1), (3,4):(1,3))",
            "((3,2),(4,5)):((10,5),(30,1))",
        ),
        (
            "make_layout_tv((4,8):(8,1), 1:1)",
            "(4,8) ((8,4),1):((4,1),0)",
        ),
        ("upcast((4,8):(8,1), 2)", "(4,4):(4,1)"),
        ("downcast((4,8):(8,1), 2)", "(4,16):(16,1)"),
        (
            "composition(coalesce((2,(2,2)):(1,(2,4))), right_inverse((4,2):(2,1)))",
            "(2,4):(4,1)",
        ),
    ];
    let input: String = cases.iter().map(|(e, _)| format!("{e}\n")).collect();
    let out = cutlet_stdin(&["layout", "-"], &input);
    let stdout = text(&out.stdout);
    for ((expr, expected), got) in cases.iter().zip(stdout.lines()) {
        assert_eq!(got, *expected, "{expr}");
    }
    assert_eq!(stdout.lines().count(), cases.len());
    assert!(out.status.success());
}

#[test]
fn tv_svg_of_make_layout_tv() {
    let path = std::env::temp_dir().join(format!("cutlet-tv-{}.svg", std::process::id()));
    let out = cutlet(&[
        "layout",
        "make_layout_tv((4,8):(8,1), 1:1)",
        "--svg",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(svg.matches("<rect").count(), 32);
    assert!(svg.contains(">T31</text>") && svg.contains(">V0</text>"));
}

#[test]
fn inadmissible_operation_fails_with_one_line() {
    let out = cutlet(&["layout", "composition((8,8):(8,1), [(2,2), 4:2])"]);
    assert_one_error(&out, "composition");
}

/// A bare integer as composition's tiler is CuTe's integral tiler: C++
/// `composition(layout, Int<N>)` calls `composition_impl(coalesce_x(layout),
/// N, Int<1>)`, so the tiler's stride is 1 even for `N == 1`, and a size-1
/// result keeps the stride of the mode it lands on (`Layout{rest_shape,
/// rest_stride * last_stride}`). The divides and products instead build
/// `make_layout(Int<1>)`, which is `1:0`.
#[test]
fn composition_with_a_bare_one_keeps_the_stride() {
    let cases = [
        // coalesce_x(3:8) = 3:8, an integral left side: 1:(1*8)
        ("composition(3:8, 1)", "1:8"),
        // a 1-tuple by-mode tiler of Int<1>: ((1)):((8)) in C++'s make_layout
        ("composition(3:8, [1])", "(1):(8)"),
        ("composition(3:8, (1))", "(1):(8)"),
        // mode 1 is 1:60; coalesce_x turns it into 2:60, so Int<1> gives 1:60
        (
            "composition(((5,6,2),1):((1,5,30),60), (2,1))",
            "(2,1):(1,60)",
        ),
        // mode 0 is 8:8, so its Int<1> gives 1:8
        ("composition((8,8):(8,1), (1,4))", "(1,4):(8,1)"),
        // an explicit layout 1:0 stays a stride-0 tiler
        ("composition(3:8, 1:0)", "1:0"),
        // divides keep make_layout(Int<1>) = 1:0, as the spec's example says
        (
            "zipped_divide((2048,2048):(2048,1), (1,8))",
            "((1,8),(2048,256)):((0,1),(2048,8))",
        ),
    ];
    let input: String = cases.iter().map(|(e, _)| format!("{e}\n")).collect();
    let out = cutlet_stdin(&["layout", "-"], &input);
    let stdout = text(&out.stdout);
    for ((expr, expected), got) in cases.iter().zip(stdout.lines()) {
        assert_eq!(got, *expected, "{expr}");
    }
    assert_eq!(stdout.lines().count(), cases.len());
    assert!(out.status.success());
}

/// A negative stride on a size-1 mode is harmless: C++ `complement` works on
/// `filter(layout)` and `left_inverse` on `coalesce(layout)`, both of which
/// drop size-1 modes, and CuTe's `cosize` is `1 + sum((s-1)*|d|)`.
#[test]
fn negative_stride_on_a_size_one_mode_is_accepted() {
    let cases = [
        // filter gives 5:56: the hole below it is 56:1, its span 280 covers the
        // cotarget 112 (rest ceil(112/280) = 1), so coalesce((56,1):(1,0)) = 56:1
        ("complement(((1),(5,1)):((-1),(56,0)), 112)", "56:1"),
        // coalesce(1:-2) = 1:0: no non-zero stride, so left_inverse is (1):(0) -> 1:0
        ("left_inverse(1:-2)", "1:0"),
        // tile (11,1,1):(31,-6,1): filter = 11:31, complement to 1 is 31:1
        // (shape 31/1, rest ceil(1/341) = 1); composition(1:1, ...) via coalesce_x = 2:1
        (
            "logical_divide(1:1, (11,1,1):(31,-6,1))",
            "((11,1,1),31):((31,-6,1),1)",
        ),
    ];
    let input: String = cases.iter().map(|(e, _)| format!("{e}\n")).collect();
    let out = cutlet_stdin(&["layout", "-"], &input);
    let stdout = text(&out.stdout);
    for ((expr, expected), got) in cases.iter().zip(stdout.lines()) {
        assert_eq!(got, *expected, "{expr}");
    }
    assert_eq!(stdout.lines().count(), cases.len());
    assert!(out.status.success(), "{}", text(&out.stderr));
    // a negative stride on a mode of extent above 1 is still refused
    let out = cutlet(&["layout", "complement(4:-1, 8)"]);
    assert_one_error(&out, "negative stride -1 on a mode of extent 4");
}

/// A by-mode product keeps the modes its tiler does not reach as they are
/// (C++ `transform_layout` appends them untouched), so a negative stride
/// there is no obstacle; only the complemented modes must be non-negative.
#[test]
fn by_mode_product_keeps_unreached_negative_modes() {
    // mode 0 (5):(1) times 4:1: complement((5):(1), 20) = 4:5, so (5,4):(1,5);
    // tiled_product unpacks mode 1 = (4, 1, 8) after the tile (5)
    let out = cutlet(&["layout", "tiled_product((5,1,8):(1,25,-7), (4))"]);
    assert_eq!(text(&out.stdout), "((5),4,1,8):((1),5,25,-7)\n");
    let out = cutlet(&["layout", "logical_product((5,8):(1,-7), [1, 4])"]);
    assert_one_error(&out, "negative stride -7 on a mode of extent 8");
}
