//! One tensor's global accesses in an elementwise kernel: addresses from
//! `(row, col)`, loads into fixed registers (so a persistent kernel can
//! reload a register set in a loop), unpacking into elements, and stores.

use super::spec::{Access, Operand};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Reg, RegClass};

/// One tensor's registers: its global base address and its two strides.
pub(super) struct TensorRegs {
    pub ptr: Reg,
    pub row_stride: Reg,
    pub col_stride: Reg,
    /// The strides in bytes (u64).
    pub row_bytes: Reg,
    pub col_bytes: Reg,
    pub op: Operand,
}

/// The registers one value group of one input is loaded into: one entry
/// per access (a word list moved by one `ld`), and how many elements the
/// group holds.
pub(super) struct Loaded {
    accesses: Vec<Vec<Reg>>,
    elements: u32,
}

/// The register class an element is held in before and after the expression.
pub(super) fn storage_class(element: ElementType) -> RegClass {
    match element {
        ElementType::F16 | ElementType::BF16 => RegClass::B16,
        ElementType::F32 => RegClass::F32,
        ElementType::F64 => RegClass::F64,
        _ => RegClass::B32,
    }
}

/// The PTX type suffix that moves a register of `class`.
pub(super) fn class_type(class: RegClass) -> &'static str {
    match class {
        RegClass::B16 => ".b16",
        RegClass::F32 => ".f32",
        RegClass::F64 => ".f64",
        RegClass::B64 => ".b64",
        _ => ".b32",
    }
}

/// Bytes of one register of `class`.
fn class_bytes(class: RegClass) -> u32 {
    match class {
        RegClass::B16 => 2,
        RegClass::B64 | RegClass::F64 => 8,
        _ => 4,
    }
}

/// The `{a, b, ...}` or `a` operand list of a vector or scalar access.
fn reg_list(regs: &[Reg]) -> (String, String) {
    let names: Vec<String> = regs.iter().map(|r| r.to_string()).collect();
    match regs.len() {
        1 => (String::new(), names[0].clone()),
        n => (format!(".v{n}"), format!("{{{}}}", names.join(", "))),
    }
}

impl TensorRegs {
    fn size(&self) -> u32 {
        self.op.element.size_bytes()
    }

    /// Address of `(row, col)` with the column stride the access fixes
    /// (1 contiguous, 0 broadcast) as an immediate.
    pub fn address(&self, k: &mut Kernel, row: Reg, col: Reg) -> Reg {
        let addr = k.reg(RegClass::B64);
        match self.op.access {
            Access::Strided => return self.general_address(k, row, col),
            Access::Contiguous { .. } => k.push(format!(
                "mad.lo.u64 {addr}, {row}, {}, {col};",
                self.row_stride
            )),
            Access::Broadcast => k.push(format!("mul.lo.u64 {addr}, {row}, {};", self.row_stride)),
        }
        k.push(format!(
            "mad.lo.u64 {addr}, {addr}, {}, {};",
            self.size(),
            self.ptr
        ));
        addr
    }

    /// Address of `(row, col)` with both strides from params.
    pub fn general_address(&self, k: &mut Kernel, row: Reg, col: Reg) -> Reg {
        let addr = k.reg(RegClass::B64);
        k.push(format!("mul.lo.u64 {addr}, {col}, {};", self.col_stride));
        k.push(format!(
            "mad.lo.u64 {addr}, {row}, {}, {addr};",
            self.row_stride
        ));
        k.push(format!(
            "mad.lo.u64 {addr}, {addr}, {}, {};",
            self.size(),
            self.ptr
        ));
        addr
    }

    /// The address `base + dm * row stride + dn * col stride` (bytes) as a
    /// register and an immediate: immediates where the strides are static
    /// (contiguous column stride 1, broadcast 0; row stride `tile_n` times
    /// the column stride when `flat`).
    pub fn offset_address(
        &self,
        k: &mut Kernel,
        base: Reg,
        (dm, dn): (i64, i64),
        flat: Option<i64>,
    ) -> (Reg, i64) {
        let size = i64::from(self.size());
        let (mut imm, mut terms) = (0i64, Vec::new());
        let col = match self.op.access {
            Access::Contiguous { .. } => Some(1),
            Access::Broadcast => Some(0),
            Access::Strided => None,
        };
        match (col, flat) {
            (Some(c), Some(tile_n)) => imm += (dm * tile_n + dn) * c * size,
            (Some(c), None) => {
                imm += dn * c * size;
                terms.push((self.row_bytes, dm));
            }
            (None, Some(tile_n)) => terms.push((self.col_bytes, dm * tile_n + dn)),
            (None, None) => terms.extend([(self.row_bytes, dm), (self.col_bytes, dn)]),
        }
        terms.retain(|(_, f)| *f != 0);
        if terms.is_empty() {
            return (base, imm);
        }
        let addr = k.reg(RegClass::B64);
        k.push(format!("mov.b64 {addr}, {base};"));
        for (stride, factor) in terms {
            k.push(format!("mad.lo.u64 {addr}, {stride}, {factor}, {addr};"));
        }
        (addr, imm)
    }

    /// The registers a group of `count` consecutive elements loads into.
    pub fn alloc_group(&self, k: &mut Kernel, count: u32) -> Loaded {
        let element = self.op.element;
        let single = |k: &mut Kernel| vec![k.reg(storage_class(element))];
        let accesses = match self.op.access {
            Access::Broadcast => vec![single(k)],
            Access::Strided => (0..count).map(|_| single(k)).collect(),
            Access::Contiguous { width } => {
                let width = width.min(count).max(1);
                (0..count / width)
                    .map(|_| {
                        if width == 1 {
                            return single(k);
                        }
                        let (class, word_bytes) = if element.size_bytes() == 8 {
                            (RegClass::B64, 8)
                        } else {
                            (RegClass::B32, 4)
                        };
                        k.regs(class, (width * element.size_bytes() / word_bytes) as usize)
                    })
                    .collect()
            }
        };
        Loaded {
            accesses,
            elements: count,
        }
    }

    /// Loads the group at `addr + imm` into `dst` with the load qualifiers `hints`.
    pub fn load_group(&self, k: &mut Kernel, addr: (Reg, i64), dst: &Loaded, hints: &str) {
        let cache = if self.op.read_only { ".nc" } else { "" };
        self.load_group_with(k, addr, dst, &format!("ld.global{cache}{hints}"));
    }

    /// Loads the group at shared-window address `addr + imm` (`.b32`) into
    /// `dst` with `ld.shared` (a contiguous group: the same vector accesses
    /// as from global memory).
    pub fn load_shared_group(&self, k: &mut Kernel, addr: (Reg, i64), dst: &Loaded) {
        self.load_group_with(k, addr, dst, "ld.shared");
    }

    /// Loads the group at `addr + imm` into `dst`; `op` is the instruction
    /// up to its vector and type suffixes (`ld.global.nc`, `ld.shared`).
    fn load_group_with(&self, k: &mut Kernel, (addr, imm): (Reg, i64), dst: &Loaded, op: &str) {
        let step = match self.op.access {
            Access::Strided => {
                let step = k.reg(RegClass::B64);
                k.push(format!(
                    "mul.lo.u64 {step}, {}, {};",
                    self.col_stride,
                    self.size()
                ));
                Some(step)
            }
            _ => None,
        };
        let a = match step {
            Some(_) => {
                let a = k.reg(RegClass::B64);
                k.push(format!("mov.b64 {a}, {addr};"));
                a
            }
            None => addr,
        };
        let mut offset = imm;
        for (i, words) in dst.accesses.iter().enumerate() {
            if let (Some(step), true) = (step, i > 0) {
                k.push(format!("add.u64 {a}, {a}, {step};"));
            }
            let (vec, list) = reg_list(words);
            k.push(format!(
                "{op}{vec}{} {list}, [{a}+{offset}];",
                class_type(words[0].class())
            ));
            if step.is_none() {
                offset += i64::from(words.len() as u32 * class_bytes(words[0].class()));
            }
        }
    }

    /// The group's elements in storage registers (unpacking 16-bit pairs).
    pub fn unpack(&self, k: &mut Kernel, loaded: &Loaded) -> Vec<Reg> {
        let element = self.op.element;
        let class = storage_class(element);
        let mut regs = Vec::new();
        for w in loaded.accesses.iter().flatten() {
            if w.class() == class {
                regs.push(*w);
            } else if element.size_bytes() == 2 {
                let (lo, hi) = (k.reg(RegClass::B16), k.reg(RegClass::B16));
                k.push(format!("mov.b32 {{{lo}, {hi}}}, {w};"));
                regs.extend([lo, hi]);
            } else {
                let reg = k.reg(class);
                k.push(format!("mov.b{} {reg}, {w};", element.size_bytes() * 8));
                regs.push(reg);
            }
        }
        if self.op.access == Access::Broadcast {
            regs = vec![regs[0]; loaded.elements as usize];
        }
        regs
    }

    /// Stores one group's results (storage registers, consecutive columns)
    /// at `addr + imm` with the store qualifiers `hints` (`st.global`).
    pub fn store_group(&self, k: &mut Kernel, addr: (Reg, i64), results: &[Reg], hints: &str) {
        self.store_group_with(k, addr, results, &format!("st.global{hints}"));
    }

    /// Stores one group's results at `addr + imm`; `op` is the instruction
    /// up to its vector and type suffixes (`st.global.cs`, `st.shared`).
    pub fn store_group_with(
        &self,
        k: &mut Kernel,
        (addr, imm): (Reg, i64),
        results: &[Reg],
        op: &str,
    ) {
        let count = u32::try_from(results.len()).unwrap_or(1);
        match self.op.access {
            Access::Contiguous { width } if width.min(count) > 1 => {
                let width = width.min(count);
                for (chunk, values) in results.chunks(width as usize).enumerate() {
                    let offset = imm + i64::from(chunk as u32 * width * self.size());
                    self.store_chunk(k, addr, offset, values, op);
                }
            }
            Access::Contiguous { .. } => {
                for (j, r) in results.iter().enumerate() {
                    let offset = imm + i64::from(j as u32 * self.size());
                    k.push(format!(
                        "{op}{} [{addr}+{offset}], {r};",
                        class_type(r.class())
                    ));
                }
            }
            Access::Strided | Access::Broadcast => {
                let step = k.reg(RegClass::B64);
                k.push(format!(
                    "mul.lo.u64 {step}, {}, {};",
                    self.col_stride,
                    self.size()
                ));
                let a = k.reg(RegClass::B64);
                k.push(format!("add.u64 {a}, {addr}, {imm};"));
                for (j, r) in results.iter().enumerate() {
                    if j > 0 {
                        k.push(format!("add.u64 {a}, {a}, {step};"));
                    }
                    k.push(format!("{op}{} [{a}], {r};", class_type(r.class())));
                }
            }
        }
    }

    /// Packs consecutive results into words and stores them in one access.
    fn store_chunk(&self, k: &mut Kernel, addr: Reg, offset: i64, values: &[Reg], op: &str) {
        let element = self.op.element;
        let (word_class, per_word) = match element.size_bytes() {
            2 => (RegClass::B32, 2),
            8 => (RegClass::B64, 1),
            _ => (RegClass::B32, 1),
        };
        let mut words = Vec::new();
        for pack in values.chunks(per_word) {
            if per_word == 2 {
                let w = k.reg(RegClass::B32);
                k.push(format!("mov.b32 {w}, {{{}, {}}};", pack[0], pack[1]));
                words.push(w);
            } else if pack[0].class() == word_class {
                words.push(pack[0]);
            } else {
                let w = k.reg(word_class);
                k.push(format!(
                    "mov.b{} {w}, {};",
                    element.size_bytes() * 8,
                    pack[0]
                ));
                words.push(w);
            }
        }
        let (vec, list) = reg_list(&words);
        k.push(format!(
            "{op}{vec}{} [{addr}+{offset}], {list};",
            class_type(word_class)
        ));
    }
}
