//! [`PtxError`]: why the assembler cannot emit what it was asked to.

/// Why the PTX assembler or the snippet store cannot do what it was asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PtxError {
    /// A kernel, param, shared variable or label name is not a PTX identifier.
    #[error(
        "invalid {what} name `{name}`: expected a letter or `_` followed by letters, digits or `_`"
    )]
    InvalidIdentifier {
        /// What the name was for, e.g. `param`.
        what: &'static str,
        /// The name given.
        name: String,
    },
    /// Two params, shared variables or kernels share one name.
    #[error(
        "duplicate name `{name}` in {scope}: each param, shared variable and kernel needs its own"
    )]
    DuplicateName {
        /// Where the clash is, e.g. `kernel gemm` or `module`.
        scope: String,
        /// The name declared twice.
        name: String,
    },
    /// Both `.maxntid` and `.reqntid` were set on one kernel.
    #[error("kernel `{kernel}` sets both .maxntid and .reqntid: use one of them")]
    ConflictingThreadDirectives {
        /// The kernel.
        kernel: String,
    },
    /// A performance directive was given a value PTX does not accept.
    #[error("kernel `{kernel}`: {directive} {value} is invalid: expected {expected}")]
    InvalidDirective {
        /// The kernel.
        kernel: String,
        /// The directive, e.g. `.maxntid`.
        directive: &'static str,
        /// The value given, as written.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// A shared-memory or param alignment that is not a power of two.
    #[error("`{name}`: alignment {align} is invalid: expected a power of two")]
    InvalidAlignment {
        /// The variable.
        name: String,
        /// The alignment given.
        align: u32,
    },
    /// A static shared array or byte-array param of zero bytes.
    #[error("`{name}`: size 0 is invalid: expected at least one byte")]
    EmptyArray {
        /// The variable.
        name: String,
    },
    /// A second dynamic shared-memory declaration in one kernel.
    #[error("kernel `{kernel}` declares dynamic shared memory twice (`{first}` and `{second}`): expected one")]
    SecondDynamicShared {
        /// The kernel.
        kernel: String,
        /// The name declared first.
        first: String,
        /// The name declared second.
        second: String,
    },
    /// Static shared memory above the 48 KiB every architecture allows.
    #[error("kernel `{kernel}` declares {bytes} bytes of static shared memory: expected at most {limit}; use dynamic shared memory beyond that")]
    StaticSharedTooLarge {
        /// The kernel.
        kernel: String,
        /// The total declared.
        bytes: u64,
        /// The limit.
        limit: u64,
    },
    /// A param was loaded into a register of the wrong class, or a byte-array
    /// param was loaded at all.
    #[error("param `{param}` of type {param_type} cannot be loaded into {register} (a {class} register): expected {expected}")]
    ParamRegisterMismatch {
        /// The param.
        param: String,
        /// Its PTX type, e.g. `.u64`.
        param_type: String,
        /// The destination register.
        register: String,
        /// The register's class, e.g. `.b32`.
        class: &'static str,
        /// What would be accepted.
        expected: String,
    },
    /// A PTX `.version` outside what the arch needs and ptxas 12.9 reads.
    #[error("ptx version {major}.{minor} is invalid for {target}: expected {min_major}.{min_minor} to {max_major}.{max_minor}")]
    PtxVersionOutOfRange {
        /// Requested major.
        major: u32,
        /// Requested minor.
        minor: u32,
        /// The `.target`.
        target: &'static str,
        /// Lowest accepted major.
        min_major: u32,
        /// Lowest accepted minor.
        min_minor: u32,
        /// Highest accepted major.
        max_major: u32,
        /// Highest accepted minor.
        max_minor: u32,
    },
    /// No snippet family of that path.
    #[error("unknown snippet family `{family}`: expected one of {known}")]
    UnknownFamily {
        /// The family asked for, e.g. `sm80/cp_async`.
        family: String,
        /// The families that exist, comma-separated.
        known: String,
    },
    /// The family has no snippet of that name.
    #[error("snippet family `{family}` has no snippet `{snippet}`: expected one of {known}")]
    UnknownSnippet {
        /// The family.
        family: String,
        /// The snippet asked for.
        snippet: String,
        /// The snippets of the family, comma-separated.
        known: String,
    },
    /// The caller filled a hole the snippet does not have.
    #[error("snippet `{family}/{snippet}` has no hole `{hole}`: its holes are {known}")]
    UnexpectedHole {
        /// The family.
        family: String,
        /// The snippet.
        snippet: String,
        /// The hole given.
        hole: String,
        /// The snippet's holes, comma-separated.
        known: String,
    },
    /// The caller did not fill a hole of the snippet.
    #[error("snippet `{family}/{snippet}` needs hole `{hole}`, which was not given")]
    MissingHole {
        /// The family.
        family: String,
        /// The snippet.
        snippet: String,
        /// The hole left empty.
        hole: String,
    },
    /// The caller filled one hole twice.
    #[error("snippet `{family}/{snippet}`: hole `{hole}` was given twice, expected once")]
    DuplicateHole {
        /// The family.
        family: String,
        /// The snippet.
        snippet: String,
        /// The hole given twice.
        hole: String,
    },
    /// A snippet file breaks the snippet format (a bug in `ptx/`).
    #[error("snippet family `{family}` is malformed at line {line}: {detail}")]
    MalformedSnippet {
        /// The family.
        family: String,
        /// 1-based line in the family file.
        line: usize,
        /// What is wrong.
        detail: String,
    },
    /// A kernel generator was asked for an element type it does not support.
    #[error("{kernel} does not support element type {element}: expected one of {supported}")]
    UnsupportedElement {
        /// The kernel family, e.g. `vector_add`.
        kernel: &'static str,
        /// The element type asked for.
        element: String,
        /// The supported ones, comma-separated.
        supported: &'static str,
    },
    /// A kernel generator was asked for a configuration it does not support.
    #[error("{kernel} `{name}`: {reason}")]
    UnsupportedSpec {
        /// The kernel family, e.g. `gemm`.
        kernel: &'static str,
        /// The kernel name the spec would get.
        name: String,
        /// Why not, naming the value and what is expected.
        reason: String,
    },
}

/// The result type of the PTX assembler.
pub type Result<T, E = PtxError> = std::result::Result<T, E>;

/// Checks that `name` is a plain PTX identifier: `[A-Za-z_][A-Za-z0-9_]*`.
///
/// PTX also accepts `$` and `%` in identifiers; cutlet keeps those for the
/// names it makes itself (labels `$L_...`, registers `%r...`), so user names
/// can never clash with them.
pub(crate) fn check_identifier(what: &'static str, name: &str) -> Result<()> {
    let mut chars = name.chars();
    let valid = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(PtxError::InvalidIdentifier {
            what,
            name: name.to_string(),
        })
    }
}
