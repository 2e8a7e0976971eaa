//! The complete programs of the README (its `rust,no_run` blocks) and of
//! the rustdoc (the `no_run` examples in `src/`, hidden `# ` lines shown)
//! each have a copy, the same text but for `pub fn main`: the README's in
//! `tests/readme/`, run on a GPU by `tests/readme_gpu.rs`, the rustdoc's
//! in `tests/rustdoc/`, run by `tests/rustdoc_gpu.rs`. This test keeps
//! them in step: a program edited in one place and not the other fails
//! here, naming it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A program found in a document: where it starts, and its text.
type Program = (String, String);

/// The fenced blocks opened by `opener` in `lines` (`None`: a line outside
/// the document's text, which ends any block left open unfinished), each
/// with its first line's place in `file`, rustdoc's hidden lines (`# ...`)
/// shown as the compiler sees them.
fn fenced_programs<'a>(
    file: &str,
    lines: impl Iterator<Item = Option<&'a str>>,
    opener: &str,
) -> Vec<Program> {
    let mut programs = Vec::new();
    let mut open: Option<Program> = None;
    for (index, line) in lines.enumerate() {
        let Some(line) = line else {
            open = None;
            continue;
        };
        match open.as_mut() {
            None if line.trim() == opener => {
                open = Some((format!("{file}:{}", index + 2), String::new()))
            }
            None => {}
            Some(_) if line.trim() == "```" => programs.extend(open.take()),
            Some((_, text)) => {
                let shown = match line {
                    "#" => "",
                    _ => line.strip_prefix("# ").unwrap_or(line),
                };
                text.push_str(shown);
                text.push('\n');
            }
        }
    }
    assert!(open.is_none(), "{file} ends inside a rust block");
    programs
}

/// The README's `rust,no_run` blocks, each with its first line.
fn readme_programs(readme: &str) -> Vec<Program> {
    fenced_programs("README.md", readme.lines().map(Some), "```rust,no_run")
}

/// The `no_run` examples of one source file's doc comments (`///` or
/// `//!`).
fn rustdoc_programs(file: &str, source: &str) -> Vec<Program> {
    let docs = source.lines().map(|line| {
        let trimmed = line.trim_start();
        let doc = trimmed
            .strip_prefix("///")
            .or_else(|| trimmed.strip_prefix("//!"))?;
        Some(doc.strip_prefix(' ').unwrap_or(doc))
    });
    fenced_programs(file, docs, "```no_run")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Each copy in `dir`, by file name, as its document shows it.
fn copies(dir: &Path) -> BTreeMap<String, String> {
    rust_files(dir)
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(
                text.matches("pub fn main(").count(),
                1,
                "{} must define `pub fn main` once, for its GPU test to call it",
                path.display()
            );
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, text.replacen("pub fn main(", "fn main(", 1))
        })
        .collect()
}

/// The programs with no copy (where they start), and the copies no
/// program matches (their names).
fn unmatched(
    programs: &[Program],
    mut copies: BTreeMap<String, String>,
) -> (Vec<String>, Vec<String>) {
    let mut missing = Vec::new();
    for (place, program) in programs {
        let found = copies
            .iter()
            .find(|(_, copy)| *copy == program)
            .map(|(name, _)| name.clone());
        match found {
            Some(name) => {
                copies.remove(&name);
            }
            None => missing.push(place.clone()),
        }
    }
    (missing, copies.into_keys().collect())
}

fn assert_in_step(programs: &[Program], dir: &str, runner: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (missing, stale) = unmatched(programs, copies(&root.join(dir)));
    assert!(
        missing.is_empty(),
        "the programs at {missing:?} have no copy in {dir}/ (copy each there with \
         `pub fn main` and call it from {runner})"
    );
    assert!(
        stale.is_empty(),
        "{dir}/ holds programs that no document shows any more: {stale:?}"
    );
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
    assert_in_step(&programs, "tests/readme", "tests/readme_gpu.rs");
}

#[test]
fn every_rustdoc_program_has_a_copy_that_runs_on_the_gpu() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let programs: Vec<Program> = rust_files(&root.join("src"))
        .iter()
        .flat_map(|path| {
            let file = path.strip_prefix(root).unwrap().display().to_string();
            rustdoc_programs(&file, &std::fs::read_to_string(path).unwrap())
        })
        .collect();
    assert!(
        programs.len() >= 15,
        "{} no_run examples in src/",
        programs.len()
    );
    assert_in_step(&programs, "tests/rustdoc", "tests/rustdoc_gpu.rs");
}

#[test]
fn a_program_edited_on_one_side_alone_is_found() {
    let readme = "text\n```rust,no_run\nfn main() {}\n```\nmore\n```rust\nlet x = 1;\n```\n";
    let programs = readme_programs(readme);
    assert_eq!(
        programs,
        vec![("README.md:3".into(), "fn main() {}\n".into())]
    );
    let copy = |text: &str| BTreeMap::from([("a.rs".to_string(), text.to_string())]);
    assert_eq!(
        unmatched(&programs, copy("fn main() {}\n")),
        (vec![], vec![])
    );
    assert_eq!(
        unmatched(&programs, copy("fn main() { let y = 2; }\n")),
        (vec!["README.md:3".to_string()], vec!["a.rs".to_string()])
    );
}

#[test]
fn rustdoc_examples_show_their_hidden_lines() {
    let source = "/// Text.\n///\n/// ```no_run\n/// use x::y;\n/// # fn main() {\n/// #\n/// let z = 1;\n/// # }\n/// ```\nfn f() {}\n//! ```\n";
    let programs = rustdoc_programs("f.rs", source);
    let text = "use x::y;\nfn main() {\n\nlet z = 1;\n}\n";
    assert_eq!(programs, vec![("f.rs:4".into(), text.into())]);
    // A run doctest (no `no_run`) is not a program to copy.
    assert!(rustdoc_programs("g.rs", "/// ```\n/// let a = 1;\n/// ```\n").is_empty());
}
