//! Text tables and SVG pictures of layouts.

use cutlet::layout::{layout_svg, print_layout, tv_layout_svg, Layout};

fn layout(s: &str) -> Layout {
    s.parse().unwrap()
}

#[test]
fn table_matches_cute_format() {
    let table = print_layout(&layout("(4,(2,2)):(2,(1,8))")).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines[0], "(4,(2,2)):(2,(1,8))");
    assert_eq!(lines[1], "       0    1    2    3 ");
    assert_eq!(lines[2], "    +----+----+----+----+");
    assert_eq!(lines[3], " 0  |  0 |  1 |  8 |  9 |");
    assert_eq!(lines[9], " 3  |  6 |  7 | 14 | 15 |");
    assert_eq!(lines[10], lines[2]);
    assert_eq!(lines.len(), 11);
}

#[test]
fn rank_one_is_a_column() {
    let table = print_layout(&layout("3:2")).unwrap();
    let rows: Vec<&str> = table.lines().filter(|l| l.contains('|')).collect();
    assert_eq!(rows, [" 0  | 0 |", " 1  | 2 |", " 2  | 4 |"]);
}

#[test]
fn rank_three_is_an_error() {
    let e = print_layout(&layout("(2,2,2):(1,2,4)")).unwrap_err();
    assert!(e.to_string().contains("rank 3"), "{e}");
    assert!(layout_svg(&layout("(2,2,2):(1,2,4)")).is_err());
}

#[test]
fn huge_tables_are_refused() {
    assert!(print_layout(&layout("(65536,2):(1,65536)")).is_err());
}

#[test]
fn negative_strides_widen_cells() {
    let table = print_layout(&layout("(2,2):(-100,1)")).unwrap();
    assert!(table.contains("| -100 |"), "{table}");
}

#[test]
fn svg_of_a_layout() {
    let svg = layout_svg(&layout("(4,8):(8,1)")).unwrap();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 "));
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<rect").count(), 32);
    // row 3, column 7 holds 31; its rect is at x = 32 + 7*48, y = 32 + 3*32
    assert!(svg.contains("<rect x=\"368\" y=\"128\""));
    assert!(svg.contains(">31</text>"));
}

/// The TV layout of 32 threads laid (4,8):(8,1) over a 4 x 8 tile, one value each
/// (`make_layout_tv((4,8):(8,1), 1:1)`): thread t owns cell (t / 8, t % 8).
#[test]
fn tv_svg_labels_threads_and_values() {
    // (thread, value) -> m + 4n, thread t = 8m + n
    let tv = layout("((8,4),1):((4,1),0)");
    let svg = tv_layout_svg(&tv, &"(4,8)".parse().unwrap()).unwrap();
    assert_eq!(svg.matches("<rect").count(), 32);
    assert_eq!(svg.matches(">V0</text>").count(), 32);
    for t in 0..32 {
        assert_eq!(svg.matches(&format!(">T{t}</text>")).count(), 1, "T{t}");
    }
    // cell (1, 2) belongs to thread 10: its rect is at x = 32 + 2*48, y = 32 + 32
    let rect = svg.find("<rect x=\"128\" y=\"64\"").unwrap();
    let after = &svg[rect..];
    let label = after.find(">T").unwrap();
    assert!(
        after[label..].starts_with(">T10<"),
        "{}",
        &after[label..label + 8]
    );
}

#[test]
fn tv_svg_rejects_indices_outside_the_tile() {
    let e = tv_layout_svg(&layout("(4,2):(1,4)"), &"(2,2)".parse().unwrap()).unwrap_err();
    assert!(e.to_string().contains("outside the 2 x 2 tile"), "{e}");
    assert!(tv_layout_svg(&layout("4:1"), &"4".parse().unwrap()).is_err());
}

#[test]
fn tv_svg_accepts_a_plain_layout() {
    let svg = tv_layout_svg(&layout("8:1"), &"(2,4)".parse().unwrap()).unwrap();
    assert!(svg.contains(">T7</text>"));
    assert_eq!(svg.matches(">V0</text>").count(), 8);
}
