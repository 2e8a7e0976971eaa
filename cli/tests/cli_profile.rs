//! `cutlet profile` as a user runs it: the shape list without a GPU, one
//! error line where there is none, and on a GPU a small grid that writes
//! its CSV, JSON and heatmap.

mod common;

use common::{assert_one_error_line, run_cutlet};
use cutlet_harness::{device_or_skip, gpu_present};

#[test]
fn list_prints_the_default_grid_and_the_named_shapes_without_a_gpu() {
    let output = run_cutlet(&["profile", "--list"]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    // 14 M x 4 N x 4 K, then the named LLM shapes.
    assert!(lines.len() > 14 * 4 * 4, "{stdout}");
    assert_eq!(lines[0], ",1,1024,1024");
    assert!(stdout.contains("split-k square,512,512,16384"), "{stdout}");
    let grid = run_cutlet(&[
        "profile",
        "--list",
        "--no-named",
        "--m",
        "1,16",
        "--n",
        "4096",
        "--k",
        "4096,8192",
    ]);
    let grid = String::from_utf8_lossy(&grid.stdout).into_owned();
    assert_eq!(
        grid.lines().collect::<Vec<_>>(),
        [
            ",1,4096,4096",
            ",16,4096,4096",
            ",1,4096,8192",
            ",16,4096,8192"
        ]
    );
}

#[test]
fn a_bad_size_list_is_one_error_line() {
    let output = run_cutlet(&["profile", "--m", "1,x"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("1,x"), "{stderr}");
}

#[test]
fn without_a_gpu_profile_prints_one_error_line_and_exits_2() {
    if gpu_present() {
        eprintln!(
            "skipped without_a_gpu_profile_prints_one_error_line_and_exits_2: a GPU is present"
        );
        return;
    }
    let stderr = assert_one_error_line(&run_cutlet(&[
        "profile", "--m", "16", "--n", "1024", "--k", "1024",
    ]));
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn on_a_gpu_a_small_grid_writes_csv_json_and_heatmap() {
    if device_or_skip("on_a_gpu_a_small_grid_writes_csv_json_and_heatmap").is_none() {
        return;
    }
    let out = std::env::temp_dir().join(format!("cutlet_profile_{}", std::process::id()));
    let out_text = out.to_string_lossy().into_owned();
    let output = run_cutlet(&[
        "profile",
        "--m",
        "16,256",
        "--n",
        "1024",
        "--k",
        "2048",
        "--no-named",
        "--iterations",
        "3",
        "--warmup_iterations",
        "1",
        "--out",
        &out_text,
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stdout.contains("geometric mean"), "{stdout}");
    let csv = std::fs::read_to_string(out.join("profile.csv")).expect("profile.csv");
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(
        csv.lines()
            .nth(1)
            .unwrap()
            .starts_with("\"\",16,1024,2048,bf16,"),
        "{csv}"
    );
    assert!(csv.contains("pass vs"), "{csv}");
    let json = std::fs::read_to_string(out.join("profile.json")).expect("profile.json");
    assert_eq!(json.matches("\"m\": ").count(), 2, "{json}");
    let svg = std::fs::read_to_string(out.join("heatmap.svg")).expect("heatmap.svg");
    assert!(svg.starts_with("<svg") && svg.contains("K = 2048"), "{svg}");
    let _ = std::fs::remove_dir_all(&out);
}
