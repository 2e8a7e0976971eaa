//! [`Snippet`]: a named PTX template from `ptx/`, and filling its holes.
//!
//! # Format of a family file
//! ```text
//! // Header comment: what the family is, its sources.
//!
//! //@snippet NAME
//! // One or more doc lines.
//!     instruction ${hole}, ...;
//! ```
//! A snippet runs from its `//@snippet` line to the next one. The `//` lines
//! right after the header are its doc; the rest is its body. Holes are
//! `${name}` (PTX uses braces for vector operands, so they cannot be the hole
//! syntax). `${@uniq}` is replaced by a suffix unique to the instantiation:
//! write snippet-local labels as `$L_name${@uniq}`.

use std::fmt;

use super::error::{check_identifier, PtxError, Result};
use super::snippets::FAMILIES;

/// The hole the filler replaces with the instantiation's unique suffix.
const UNIQUE_HOLE: &str = "@uniq";

/// One named PTX template of a snippet family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snippet {
    family: &'static str,
    name: &'static str,
    doc: String,
    body: String,
    line: usize,
}

/// A piece of a parsed body: literal text or a hole.
enum Piece<'a> {
    Text(&'a str),
    Hole(&'a str),
}

/// The families in the store, e.g. `common/global_memory`, `sm80/cp_async`.
pub fn families() -> impl Iterator<Item = &'static str> {
    FAMILIES.iter().map(|(path, _)| *path)
}

/// Every snippet of `family`, in file order.
pub fn snippets(family: &str) -> Result<Vec<Snippet>> {
    let (path, text) = FAMILIES
        .iter()
        .find(|(path, _)| *path == family)
        .ok_or_else(|| PtxError::UnknownFamily {
            family: family.to_string(),
            known: families().collect::<Vec<_>>().join(", "),
        })?;
    parse_family(path, text)
}

/// Snippet `name` of `family`.
///
/// ```
/// use cutlet::ptx::snippet;
///
/// let s = snippet("sm80/cp_async", "cp_async_16_zfill").unwrap();
/// let text = s.fill(&[("dst", &"%r1"), ("src", &"%rd2"), ("src_size", &16)], "").unwrap();
/// assert_eq!(text.trim(), "cp.async.cg.shared.global [%r1], [%rd2], 16, 16;");
/// ```
pub fn snippet(family: &str, name: &str) -> Result<Snippet> {
    let all = snippets(family)?;
    let known = all.iter().map(|s| s.name).collect::<Vec<_>>().join(", ");
    all.into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| PtxError::UnknownSnippet {
            family: family.to_string(),
            snippet: name.to_string(),
            known,
        })
}

pub(super) fn parse_family(family: &'static str, text: &'static str) -> Result<Vec<Snippet>> {
    let malformed = |line: usize, detail: String| PtxError::MalformedSnippet {
        family: family.to_string(),
        line,
        detail,
    };
    let mut out: Vec<Snippet> = Vec::new();
    let mut in_doc = false;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if let Some(rest) = line.strip_prefix("//@") {
            let name = rest
                .strip_prefix("snippet ")
                .map(str::trim)
                .ok_or_else(|| malformed(number, format!("unknown directive `{line}`")))?;
            check_identifier("snippet", name).map_err(|e| malformed(number, e.to_string()))?;
            if out.iter().any(|s| s.name == name) {
                return Err(malformed(number, format!("snippet `{name}` defined twice")));
            }
            out.push(Snippet {
                family,
                name,
                doc: String::new(),
                body: String::new(),
                line: number,
            });
            in_doc = true;
            continue;
        }
        let Some(current) = out.last_mut() else {
            continue;
        };
        match line.trim_start().strip_prefix("//") {
            Some(doc) if in_doc => {
                current.doc.push_str(doc.trim());
                current.doc.push('\n');
            }
            _ => {
                in_doc = false;
                current.body.push_str(line);
                current.body.push('\n');
            }
        }
    }
    for snippet in &mut out {
        if snippet.doc.is_empty() {
            return Err(malformed(
                snippet.line,
                format!("snippet `{}` has no doc line", snippet.name),
            ));
        }
        let trimmed = snippet.body.trim_end().to_string();
        if trimmed.trim().is_empty() {
            return Err(malformed(
                snippet.line,
                format!("snippet `{}` has no body", snippet.name),
            ));
        }
        snippet.body = trimmed + "\n";
        snippet.pieces()?;
    }
    Ok(out)
}

impl Snippet {
    /// The family the snippet comes from, e.g. `sm90/mbarrier`.
    pub fn family(&self) -> &'static str {
        self.family
    }

    /// The snippet's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The snippet's doc lines.
    pub fn doc(&self) -> &str {
        &self.doc
    }

    /// The unfilled template text.
    pub fn body(&self) -> &str {
        &self.body
    }

    /// The snippet's named holes, each once, in order of first use
    /// (`${@uniq}` not included).
    pub fn holes(&self) -> Vec<&str> {
        let mut holes: Vec<&str> = Vec::new();
        for piece in self.pieces().unwrap_or_default() {
            if let Piece::Hole(name) = piece {
                if name != UNIQUE_HOLE && !holes.contains(&name) {
                    holes.push(name);
                }
            }
        }
        holes
    }

    /// Whether the body uses `${@uniq}`.
    pub fn uses_unique_suffix(&self) -> bool {
        self.body.contains("${@uniq}")
    }

    fn pieces(&self) -> Result<Vec<Piece<'_>>> {
        let mut pieces = Vec::new();
        let mut rest = self.body.as_str();
        while let Some(start) = rest.find("${") {
            pieces.push(Piece::Text(&rest[..start]));
            let after = &rest[start + 2..];
            let end = after
                .find('}')
                .ok_or_else(|| self.malformed("a `${` without its `}`"))?;
            let hole = &after[..end];
            if hole != UNIQUE_HOLE && check_identifier("hole", hole).is_err() {
                return Err(self.malformed(&format!("bad hole name `{hole}`")));
            }
            pieces.push(Piece::Hole(hole));
            rest = &after[end + 1..];
        }
        pieces.push(Piece::Text(rest));
        Ok(pieces)
    }

    fn malformed(&self, detail: &str) -> PtxError {
        PtxError::MalformedSnippet {
            family: self.family.to_string(),
            line: self.line,
            detail: format!("snippet `{}`: {detail}", self.name),
        }
    }

    /// The body with every hole filled: `holes` gives each named hole's text
    /// exactly once, and `${@uniq}` becomes `uniq`. To instantiate into a
    /// kernel with a fresh suffix, use [`Kernel::snippet`](super::Kernel::snippet).
    pub fn fill(&self, holes: &[(&str, &dyn fmt::Display)], uniq: &str) -> Result<String> {
        let needed = self.holes();
        for (i, (name, _)) in holes.iter().enumerate() {
            if holes[..i].iter().any(|(earlier, _)| earlier == name) {
                return Err(PtxError::DuplicateHole {
                    family: self.family.to_string(),
                    snippet: self.name.to_string(),
                    hole: name.to_string(),
                });
            }
            if !needed.contains(name) {
                return Err(PtxError::UnexpectedHole {
                    family: self.family.to_string(),
                    snippet: self.name.to_string(),
                    hole: name.to_string(),
                    known: if needed.is_empty() {
                        "none".to_string()
                    } else {
                        needed.join(", ")
                    },
                });
            }
        }
        if let Some(missing) = needed.iter().find(|n| !holes.iter().any(|(h, _)| h == *n)) {
            return Err(PtxError::MissingHole {
                family: self.family.to_string(),
                snippet: self.name.to_string(),
                hole: missing.to_string(),
            });
        }
        let mut out = String::with_capacity(self.body.len());
        for piece in self.pieces()? {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Hole(UNIQUE_HOLE) => out.push_str(uniq),
                Piece::Hole(name) => {
                    let (_, value) = holes.iter().find(|(h, _)| *h == name).ok_or_else(|| {
                        PtxError::MissingHole {
                            family: self.family.to_string(),
                            snippet: self.name.to_string(),
                            hole: name.to_string(),
                        }
                    })?;
                    out.push_str(&value.to_string());
                }
            }
        }
        Ok(out)
    }
}
