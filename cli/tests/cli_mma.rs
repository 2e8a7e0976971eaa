//! `cutlet mma`, run as a process.

mod common;

use common::{assert_one_error_line, run_cutlet};

const ATOM: &str = "SM80_16x8x16_F32BF16BF16F32_TN";

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn text_prints_the_three_grids() {
    let out = run_cutlet(&["mma", ATOM]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with(ATOM), "{}", lines[0]);
    assert_eq!(lines[1], "A (M x K = 16 x 16):");
    assert!(
        lines[4].starts_with(" 0  |  T0V0 |  T0V1 |  T1V0 |"),
        "{}",
        lines[4]
    );
    assert!(stdout.contains("B (N x K = 8 x 16):"));
    assert!(stdout.contains("C (M x N = 16 x 8):"));
    assert!(stdout.contains("T31V3"));
}

#[test]
fn warps_draw_the_tiled_mma() {
    let out = run_cutlet(&["mma", ATOM, "--warps", "2x2"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("(128 threads)"), "{stdout}");
    assert!(stdout.contains("C (M x N = 32 x 16):"));
    assert!(stdout.contains("T127V3"));
}

#[test]
fn svg_is_one_well_formed_picture() {
    let path = std::env::temp_dir().join(format!("cutlet-mma-{}.svg", std::process::id()));
    let out = run_cutlet(&["mma", ATOM, "--svg", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<svg").count(), 1);
    let cells = 16 * 16 + 8 * 16 + 16 * 8;
    assert_eq!(svg.matches("<rect").count(), cells);
    // T and V a cell, row and column numbers of the three grids, 3 titles.
    assert_eq!(svg.matches("<text").count(), 2 * cells + 80 + 3);
    assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
}

/// The example: the SM70 quad-pair atom, 8x4 A and B and 8x8 C,
/// labelled with the lanes of the quad pair.
#[test]
fn the_sm70_atom_draws_with_its_quad_pair_lanes() {
    let path = std::env::temp_dir().join(format!("cutlet-mma-sm70-{}.svg", std::process::id()));
    let out = run_cutlet(&[
        "mma",
        "SM70_8x8x4_F32F16F16F32_NT",
        "--svg",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(svg.matches("<rect").count(), 8 * 4 + 8 * 4 + 8 * 8);
    assert!(
        svg.contains(">T16<") || svg.contains("T16"),
        "lane 16 is drawn"
    );
    let out = run_cutlet(&["mma", "SM70_8x8x4_F32F16F16F32_NT"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let grids = text(&out.stdout);
    assert!(grids.contains("T19V"), "{grids}");
    assert!(!grids.contains("T4V"), "{grids}");
}

#[test]
fn unknown_name_lists_the_known_ones() {
    let out = run_cutlet(&["mma", "SM80_16x8x16_F64F64F64F64_TN"]);
    let err = assert_one_error_line(&out);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("SM80_16x8x16_F64F64F64F64_TN"), "{err}");
    assert!(err.contains(ATOM) && err.contains("UniversalFMA"), "{err}");
}

#[test]
fn malformed_warps_are_refused() {
    for warps in ["2", "2x", "0x1", "2x2x2x2"] {
        let out = run_cutlet(&["mma", ATOM, "--warps", warps]);
        let err = assert_one_error_line(&out);
        assert!(err.contains("warps"), "{warps}: {err}");
    }
}

/// An SM90 wgmma atom: C is the 64 x N accumulator of 128 threads; A and B
/// (read through descriptors) are whole tiles, labelled with thread 0.
#[test]
fn wgmma_atom_draws_its_accumulator_and_says_what_a_and_b_show() {
    let out = run_cutlet(&["mma", "SM90_64x128x16_F32BF16BF16_SS"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("SM90_64x128x16_F32BF16BF16_SS (128 threads)"),
        "{}",
        &stdout[..80]
    );
    assert!(stdout.contains("A (M x K = 64 x 16):"));
    assert!(stdout.contains("B (N x K = 128 x 16):"));
    assert!(stdout.contains("C (M x N = 64 x 128):"));
    // Value 63 of thread 127 (t 3, g 7, w 3): row 48 + 7 + 8, column 120 + 6 + 1.
    assert!(stdout.contains("T127V63"));
    assert!(
        stdout.contains("note: A and B are read from shared memory"),
        "{stdout}"
    );
    let path = std::env::temp_dir().join(format!("cutlet-wgmma-{}.svg", std::process::id()));
    let out = run_cutlet(&[
        "mma",
        "SM90_64x8x16_F16F16F16_RS",
        "--svg",
        path.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let svg = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(svg.matches("<rect").count(), 64 * 16 + 8 * 16 + 64 * 8);
}
