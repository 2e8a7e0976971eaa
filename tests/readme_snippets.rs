//! The README's complete programs (its `rust,no_run` blocks) each have a
//! copy in `tests/readme/`, the same text but for `pub fn main`, which
//! `tests/readme_gpu.rs` runs on a GPU. This test keeps the two in step:
//! a program edited in one place and not the other fails here, naming it.

use std::collections::BTreeMap;
use std::path::Path;

/// The README's `rust,no_run` blocks, each with its first line's number.
fn readme_programs(readme: &str) -> Vec<(usize, String)> {
    let mut programs = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (index, line) in readme.lines().enumerate() {
        match open.as_mut() {
            None if line == "```rust,no_run" => open = Some((index + 2, String::new())),
            None => {}
            Some(_) if line == "```" => programs.extend(open.take()),
            Some((_, text)) => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    assert!(open.is_none(), "README.md ends inside a rust block");
    programs
}

/// Each copy in `tests/readme/`, by file name, as the README would show it.
fn copies(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                text.matches("pub fn main(").count(),
                1,
                "{} must define `pub fn main` once, for readme_gpu.rs to call it",
                path.display()
            );
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, text.replacen("pub fn main(", "fn main(", 1))
        })
        .collect()
}

/// The README programs with no copy (their line numbers), and the copies
/// no README program matches (their names).
fn unmatched(
    programs: &[(usize, String)],
    mut copies: BTreeMap<String, String>,
) -> (Vec<usize>, Vec<String>) {
    let mut missing = Vec::new();
    for (line, program) in programs {
        let found = copies
            .iter()
            .find(|(_, copy)| *copy == program)
            .map(|(name, _)| name.clone());
        match found {
            Some(name) => {
                copies.remove(&name);
            }
            None => missing.push(*line),
        }
    }
    (missing, copies.into_keys().collect())
}

#[test]
fn every_readme_program_has_a_copy_that_runs_on_the_gpu() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let programs = readme_programs(&readme);
    assert!(
        programs.len() >= 5,
        "{} programs in README.md",
        programs.len()
    );
    let (missing, stale) = unmatched(&programs, copies(&root.join("tests/readme")));
    assert!(
        missing.is_empty(),
        "README.md's programs at lines {missing:?} have no copy in tests/readme/ \
         (copy each there with `pub fn main` and call it from tests/readme_gpu.rs)"
    );
    assert!(
        stale.is_empty(),
        "tests/readme/ holds programs that README.md no longer shows: {stale:?}"
    );
}

#[test]
fn a_program_edited_on_one_side_alone_is_found() {
    let readme = "text\n```rust,no_run\nfn main() {}\n```\nmore\n```rust\nlet x = 1;\n```\n";
    let programs = readme_programs(readme);
    assert_eq!(programs, vec![(3, "fn main() {}\n".to_string())]);
    let copy = |text: &str| BTreeMap::from([("a.rs".to_string(), text.to_string())]);
    assert_eq!(
        unmatched(&programs, copy("fn main() {}\n")),
        (vec![], vec![])
    );
    assert_eq!(
        unmatched(&programs, copy("fn main() { let y = 2; }\n")),
        (vec![3], vec!["a.rs".to_string()])
    );
}
