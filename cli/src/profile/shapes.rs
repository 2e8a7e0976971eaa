//! The shapes `cutlet profile` runs: a grid of M x N x K (the default one or
//! `--m`, `--n`, `--k`), named shapes from LLM layers, or a file of shapes.

use cutlet::{Error, Result};

/// The default M values: decode batches to large prefills.
pub const DEFAULT_M: [usize; 14] = [
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
];
/// The default N values.
pub const DEFAULT_N: [usize; 4] = [1024, 4096, 8192, 14336];
/// The default K values.
pub const DEFAULT_K: [usize; 4] = [1024, 4096, 8192, 16384];

/// One problem of a profile: `name` is empty for a grid point.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub name: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

/// Named shapes of LLM layers (tokens x output features x input features,
/// the weights as B): Llama-3 8B and 70B projections at decode (16 tokens)
/// and prefill (4096 or 8192 tokens) sizes, and the two shapes the
/// small-shapes issue names (512 x 512 x 16384, and DeepSeek-V3's 128 x
/// 1536 x 7168 where vLLM measured stream-K).
pub fn named_shapes() -> Vec<Shape> {
    let shape = |name: &str, m, n, k| Shape {
        name: name.to_string(),
        m,
        n,
        k,
    };
    vec![
        shape("llama3-8b qkv decode", 16, 6144, 4096),
        shape("llama3-8b o decode", 16, 4096, 4096),
        shape("llama3-8b gate_up decode", 16, 28672, 4096),
        shape("llama3-8b down decode", 16, 4096, 14336),
        shape("llama3-8b qkv prefill", 4096, 6144, 4096),
        shape("llama3-8b down prefill", 4096, 4096, 14336),
        shape("llama3-70b qkv decode", 16, 10240, 8192),
        shape("llama3-70b down decode", 16, 8192, 28672),
        shape("llama3-70b gate_up batch128", 128, 57344, 8192),
        shape("llama3-70b gate_up prefill", 8192, 57344, 8192),
        shape("llama3-70b down prefill", 8192, 8192, 28672),
        shape("deepseek-v3 q_a batch128", 128, 1536, 7168),
        shape("split-k square", 512, 512, 16384),
    ]
}

/// The grid `ms x ns x ks`, M fastest within each (K, N).
pub fn grid(ms: &[usize], ns: &[usize], ks: &[usize]) -> Vec<Shape> {
    let mut shapes = Vec::new();
    for &k in ks {
        for &n in ns {
            for &m in ms {
                shapes.push(Shape {
                    name: String::new(),
                    m,
                    n,
                    k,
                });
            }
        }
    }
    shapes
}

/// A comma-separated list of positive integers, e.g. `1,16,4096`.
pub fn parse_sizes(text: &str) -> Result<Vec<usize>> {
    let invalid = || {
        Error::invalid_argument(
            "size list",
            format!("`{text}`"),
            "positive integers separated by commas, e.g. 1,16,4096",
        )
    };
    let sizes: Vec<usize> = text
        .split(',')
        .map(|part| part.trim().parse::<usize>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| invalid())?;
    if sizes.is_empty() || sizes.contains(&0) {
        return Err(invalid());
    }
    Ok(sizes)
}

/// The shapes of a shapes file: one per line, `M,N,K` or `M N K`, or
/// `name: M,N,K`; blank lines and `#` comments are skipped.
///
/// Errors: [`Error::InvalidArgument`] naming the line that is not a shape.
pub fn parse_shapes_file(text: &str) -> Result<Vec<Shape>> {
    let mut shapes = Vec::new();
    for (number, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (name, dims) = match line.rsplit_once(':') {
            Some((name, dims)) => (name.trim().to_string(), dims),
            None => (String::new(), line),
        };
        let values: Vec<usize> = dims
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|part| !part.is_empty())
            .map(str::parse::<usize>)
            .collect::<std::result::Result<_, _>>()
            .unwrap_or_default();
        match values[..] {
            [m, n, k] if m > 0 && n > 0 && k > 0 => shapes.push(Shape { name, m, n, k }),
            _ => {
                return Err(Error::invalid_argument(
                    format!("shapes file line {}", number + 1),
                    format!("`{raw}`"),
                    "M,N,K (or `name: M,N,K`), three positive integers",
                ))
            }
        }
    }
    if shapes.is_empty() {
        return Err(Error::invalid_argument(
            "shapes file",
            "no shape",
            "at least one line M,N,K",
        ));
    }
    Ok(shapes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_grid_has_every_point_once() {
        let shapes = grid(&DEFAULT_M, &DEFAULT_N, &DEFAULT_K);
        assert_eq!(shapes.len(), 14 * 4 * 4);
        assert_eq!((shapes[0].m, shapes[0].n, shapes[0].k), (1, 1024, 1024));
        assert_eq!((shapes[14].m, shapes[14].n), (1, 4096));
    }

    #[test]
    fn shapes_files_take_names_comments_and_both_separators() {
        let text = "# decode\nqkv: 16, 6144, 4096\n512 512 16384  # split-k\n\n";
        let shapes = parse_shapes_file(text).unwrap();
        assert_eq!(shapes.len(), 2);
        assert_eq!(shapes[0].name, "qkv");
        assert_eq!((shapes[1].m, shapes[1].n, shapes[1].k), (512, 512, 16384));
        let err = parse_shapes_file("1,2\n").unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
        assert!(parse_sizes("1,0").is_err());
        assert_eq!(parse_sizes("1, 16,4096").unwrap(), vec![1, 16, 4096]);
    }
}
