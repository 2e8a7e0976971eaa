//! [`Kernel`]: one `.entry` function being assembled.

use std::collections::BTreeSet;
use std::fmt;
use std::fmt::Write as _;

use super::error::{check_identifier, PtxError, Result};
use super::{Param, ParamType, Reg, RegClass, SharedVar};

/// Static shared memory every architecture accepts per kernel.
const STATIC_SHARED_LIMIT: u64 = 48 * 1024;

/// A branch target. `Display` writes its name; place it with
/// [`Kernel::place_label`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label(String);

impl Label {
    /// The label's name, e.g. `$L_loop_0`.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A kernel (`.visible .entry`) under construction: params, shared memory,
/// virtual registers, labels, performance directives and body lines.
///
/// Registers are allocated per [`RegClass`] and declared when the kernel is
/// emitted (`.reg .b32 %r<N>;`). Body lines are instructions as text; labels
/// go at column 0, everything else is indented by one tab. A final `ret;` is
/// appended on emission.
///
/// ```
/// use cutlet::ptx::{Kernel, ParamType, RegClass};
///
/// let mut k = Kernel::new("copy_one").unwrap();
/// let src = k.param("src", ParamType::U64).unwrap();
/// let p = k.load_param(&src).unwrap();
/// let v = k.reg(RegClass::B32);
/// k.push(format!("ld.global.b32 {v}, [{p}];"));
/// let text = k.emit().unwrap();
/// assert!(text.contains(".visible .entry copy_one(\n\t.param .u64 src\n)"));
/// assert!(text.contains("\t.reg .b64 %rd<1>;\n"));
/// ```
#[derive(Clone, Debug)]
pub struct Kernel {
    name: String,
    params: Vec<Param>,
    shared: Vec<SharedVar>,
    names: BTreeSet<String>,
    reg_counts: [u32; RegClass::ALL.len()],
    max_threads: Option<[u32; 3]>,
    required_threads: Option<[u32; 3]>,
    min_blocks_per_sm: Option<u32>,
    body: Vec<String>,
    next_unique: u32,
}

impl Kernel {
    /// Starts a kernel named `name` (a PTX identifier).
    pub fn new(name: &str) -> Result<Kernel> {
        check_identifier("kernel", name)?;
        Ok(Kernel {
            name: name.to_string(),
            params: Vec::new(),
            shared: Vec::new(),
            names: BTreeSet::new(),
            reg_counts: [0; RegClass::ALL.len()],
            max_threads: None,
            required_threads: None,
            min_blocks_per_sm: None,
            body: Vec::new(),
            next_unique: 0,
        })
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kernel's params, in declaration order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The kernel's shared-memory declarations, in declaration order.
    pub fn shared(&self) -> &[SharedVar] {
        &self.shared
    }

    fn claim_name(&mut self, what: &'static str, name: &str) -> Result<()> {
        check_identifier(what, name)?;
        if !self.names.insert(name.to_string()) {
            return Err(PtxError::DuplicateName {
                scope: format!("kernel `{}`", self.name),
                name: name.to_string(),
            });
        }
        Ok(())
    }

    /// Declares a parameter; params appear in the `.entry` list in the order
    /// declared, which is the launch's argument order.
    pub fn param(&mut self, name: &str, ty: ParamType) -> Result<Param> {
        if let ParamType::Bytes { align, size } = ty {
            check_align(name, align)?;
            if size == 0 {
                return Err(PtxError::EmptyArray {
                    name: name.to_string(),
                });
            }
        }
        self.claim_name("param", name)?;
        let param = Param::new(name.to_string(), ty);
        self.params.push(param.clone());
        Ok(param)
    }

    /// Declares a static shared array of `bytes` bytes aligned to `align`.
    pub fn shared_static(&mut self, name: &str, align: u32, bytes: u32) -> Result<SharedVar> {
        check_align(name, align)?;
        if bytes == 0 {
            return Err(PtxError::EmptyArray {
                name: name.to_string(),
            });
        }
        self.claim_name("shared variable", name)?;
        let var = SharedVar::new(name.to_string(), align, Some(bytes));
        self.shared.push(var.clone());
        Ok(var)
    }

    /// Declares the kernel's dynamic shared memory (at most one per kernel),
    /// aligned to `align`; its size is given at launch.
    pub fn shared_dynamic(&mut self, name: &str, align: u32) -> Result<SharedVar> {
        check_align(name, align)?;
        if let Some(first) = self.shared.iter().find(|v| v.size().is_none()) {
            return Err(PtxError::SecondDynamicShared {
                kernel: self.name.clone(),
                first: first.name().to_string(),
                second: name.to_string(),
            });
        }
        self.claim_name("shared variable", name)?;
        let var = SharedVar::new(name.to_string(), align, None);
        self.shared.push(var.clone());
        Ok(var)
    }

    /// Sets `.maxntid x, y, z`: the most threads a launch may use.
    pub fn max_threads(&mut self, x: u32, y: u32, z: u32) -> &mut Self {
        self.max_threads = Some([x, y, z]);
        self
    }

    /// Sets `.reqntid x, y, z`: the exact block shape every launch must use.
    /// Exclusive with [`max_threads`](Self::max_threads).
    pub fn required_threads(&mut self, x: u32, y: u32, z: u32) -> &mut Self {
        self.required_threads = Some([x, y, z]);
        self
    }

    /// Sets `.minnctapersm n`: the blocks per SM the register allocation must allow.
    pub fn min_blocks_per_sm(&mut self, n: u32) -> &mut Self {
        self.min_blocks_per_sm = Some(n);
        self
    }

    /// Allocates a fresh register of `class`.
    pub fn reg(&mut self, class: RegClass) -> Reg {
        let slot = &mut self.reg_counts[class as usize];
        let reg = Reg::new(class, *slot);
        *slot += 1;
        reg
    }

    /// Allocates `count` fresh registers of `class`.
    pub fn regs(&mut self, class: RegClass, count: usize) -> Vec<Reg> {
        (0..count).map(|_| self.reg(class)).collect()
    }

    /// How many registers of `class` have been allocated.
    pub fn reg_count(&self, class: RegClass) -> u32 {
        self.reg_counts[class as usize]
    }

    /// A fresh suffix (`_0`, `_1`, ...), unique within this kernel; labels
    /// and snippet instances draw from the same counter.
    pub fn unique_suffix(&mut self) -> String {
        let suffix = format!("_{}", self.next_unique);
        self.next_unique += 1;
        suffix
    }

    /// A fresh label `$L_<base>_<n>`, unique within this kernel.
    pub fn new_label(&mut self, base: &str) -> Result<Label> {
        check_identifier("label", base)?;
        let suffix = self.unique_suffix();
        Ok(Label(format!("$L_{base}{suffix}")))
    }

    /// Places `label` at the current position of the body.
    pub fn place_label(&mut self, label: &Label) {
        self.body.push(format!("{label}:"));
    }

    /// Appends body text: one instruction, or several lines. Each line is
    /// trimmed; blank lines are dropped; lines ending in `:` are labels.
    pub fn push(&mut self, text: impl AsRef<str>) {
        for line in text.as_ref().lines().map(str::trim) {
            if line.is_empty() {
                continue;
            }
            let indent = if line.ends_with(':') { "" } else { "\t" };
            self.body.push(format!("{indent}{line}"));
        }
    }

    fn check_directives(&self) -> Result<()> {
        if self.max_threads.is_some() && self.required_threads.is_some() {
            return Err(PtxError::ConflictingThreadDirectives {
                kernel: self.name.clone(),
            });
        }
        let dims = [
            (".maxntid", self.max_threads),
            (".reqntid", self.required_threads),
        ];
        for (directive, dims) in dims {
            let Some([x, y, z]) = dims else { continue };
            let product = u64::from(x) * u64::from(y) * u64::from(z);
            if product == 0 || product > 1024 {
                return Err(PtxError::InvalidDirective {
                    kernel: self.name.clone(),
                    directive,
                    value: format!("{x}, {y}, {z}"),
                    expected: "three non-zero sizes whose product is at most 1024",
                });
            }
        }
        if self.min_blocks_per_sm == Some(0) {
            return Err(PtxError::InvalidDirective {
                kernel: self.name.clone(),
                directive: ".minnctapersm",
                value: "0".to_string(),
                expected: "at least 1",
            });
        }
        let static_bytes: u64 = self
            .shared
            .iter()
            .filter_map(|v| v.size())
            .map(u64::from)
            .sum();
        if static_bytes > STATIC_SHARED_LIMIT {
            return Err(PtxError::StaticSharedTooLarge {
                kernel: self.name.clone(),
                bytes: static_bytes,
                limit: STATIC_SHARED_LIMIT,
            });
        }
        Ok(())
    }

    /// The kernel's text: its shared declarations, then the `.entry`.
    pub fn emit(&self) -> Result<String> {
        self.check_directives()?;
        let mut out = String::new();
        for var in &self.shared {
            out.push_str(&var.declaration());
            out.push('\n');
        }
        if !self.shared.is_empty() {
            out.push('\n');
        }
        let _ = write!(out, ".visible .entry {}(", self.name);
        let params: Vec<String> = self.params.iter().map(Param::declaration).collect();
        if !params.is_empty() {
            out.push_str("\n\t");
            out.push_str(&params.join(",\n\t"));
            out.push('\n');
        }
        out.push_str(")\n");
        if let Some([x, y, z]) = self.max_threads {
            let _ = writeln!(out, ".maxntid {x}, {y}, {z}");
        }
        if let Some([x, y, z]) = self.required_threads {
            let _ = writeln!(out, ".reqntid {x}, {y}, {z}");
        }
        if let Some(n) = self.min_blocks_per_sm {
            let _ = writeln!(out, ".minnctapersm {n}");
        }
        out.push_str("{\n");
        let mut declared = false;
        for class in RegClass::ALL {
            let count = self.reg_count(class);
            if count > 0 {
                let _ = writeln!(
                    out,
                    "\t.reg {} {}<{count}>;",
                    class.ptx_type(),
                    class.prefix()
                );
                declared = true;
            }
        }
        if declared {
            out.push('\n');
        }
        for line in &self.body {
            out.push_str(line);
            out.push('\n');
        }
        out.push_str("\tret;\n}\n");
        Ok(out)
    }
}

fn check_align(name: &str, align: u32) -> Result<()> {
    if align.is_power_of_two() {
        Ok(())
    } else {
        Err(PtxError::InvalidAlignment {
            name: name.to_string(),
            align,
        })
    }
}
