//! [`Expression::emit`]: lowering a traced expression into a kernel.

use super::convert::emit_convert_for;
use super::error::FusionError;
use super::host::round_to;
use super::node::Node;
use super::Expression;
use crate::arch::ArchKind;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Reg, RegClass};

/// A typed value in a register: an input in its storage type, a scalar or
/// a result in the compute type. `reg`'s class must be the one `ty` lives in
/// ([`RegClass::for_element`]): f16/bf16 in `.b16`, f32 in `.f32`, f64 in
/// `.f64`, i32 (and extended i8/u8, tf32 bits) in `.b32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    /// The register holding the value.
    pub reg: Reg,
    /// The value's element type.
    pub ty: ElementType,
}

/// How [`Expression::emit`] lowers: the arithmetic type and the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EmitOptions {
    /// The type arithmetic happens in: f32 (the default, also for 16-bit
    /// inputs), f64 (exact ops only: no transcendentals in PTX), or f16
    /// (native `add/sub/mul/fma/neg/abs/setp/selp.f16`; every other op
    /// through f32 and back, one rounding to f16 per op).
    pub compute: ElementType,
    /// The module's architecture: picks `tanh.approx.f32` (sm_75+) and
    /// `cvt.rn.bf16.f32` (sm_80+) over their sm_70 formulas.
    pub arch: ArchKind,
}

impl Default for EmitOptions {
    /// f32 compute, portable to every architecture (`Sm70` lowering).
    fn default() -> EmitOptions {
        EmitOptions {
            compute: ElementType::F32,
            arch: ArchKind::Sm70,
        }
    }
}

impl EmitOptions {
    /// Options for `compute` arithmetic on `arch`.
    pub fn new(compute: ElementType, arch: ArchKind) -> EmitOptions {
        EmitOptions { compute, arch }
    }
}

/// The PTX type suffix arithmetic in `compute` uses.
pub(crate) fn ptx_suffix(compute: ElementType) -> &'static str {
    match compute {
        ElementType::F64 => ".f64",
        ElementType::F16 => ".f16",
        _ => ".f32",
    }
}

/// The immediate of `c` in `compute`: exact hex (`0f...`, `0d...`, and
/// `0x...` bits for f16 moved with `mov.b16`), `c` rounded to the type first.
pub(crate) fn immediate(compute: ElementType, c: f64) -> String {
    match compute {
        ElementType::F64 => format!("0d{:016X}", c.to_bits()),
        ElementType::F16 => {
            let bits = half::f16::from_f64(round_to(ElementType::F16, c)).to_bits();
            format!("0x{bits:04X}")
        }
        _ => format!("0f{:08X}", (c as f32).to_bits()),
    }
}

/// The state of one emission: each node's value and predicate, once made.
pub(crate) struct Emitter<'k> {
    pub(crate) k: &'k mut Kernel,
    pub(crate) options: EmitOptions,
    values: Vec<Option<Value>>,
    preds: Vec<Option<Reg>>,
}

impl Expression {
    /// Emits the expression into `k`: `inputs` (one per [arity](Self::arity),
    /// in their storage types) are converted to `options.compute` once each;
    /// `scalars` (at least [`scalar_count`](Self::scalar_count), already in
    /// the compute type) are used as they are. Every node is emitted once, in
    /// order, into fresh registers; the result is in the compute type
    /// (convert it for the store with [`emit_convert`](super::emit_convert)).
    ///
    /// ```
    /// use cutlet::fusion::{EmitOptions, Expression, Value};
    /// use cutlet::numeric::ElementType;
    /// use cutlet::ptx::Kernel;
    ///
    /// let e = Expression::from_fn(|a, b| a + b);
    /// let mut k = Kernel::new("k").unwrap();
    /// let a = Value::fresh(&mut k, ElementType::F16);
    /// let b = Value::fresh(&mut k, ElementType::F32);
    /// let out = e.emit(&mut k, &[a, b], &[], &EmitOptions::default()).unwrap();
    /// assert_eq!(out.ty, ElementType::F32);
    /// let text = k.emit().unwrap();
    /// assert!(text.contains("cvt.f32.f16 %f1, %rs0;"));
    /// assert!(text.contains("add.rn.f32 %f2, %f1, %f0;"));
    /// ```
    pub fn emit(
        &self,
        k: &mut Kernel,
        inputs: &[Value],
        scalars: &[Value],
        options: &EmitOptions,
    ) -> Result<Value, FusionError> {
        let compute = options.compute;
        if !matches!(
            compute,
            ElementType::F16 | ElementType::F32 | ElementType::F64
        ) {
            return Err(FusionError::UnsupportedCompute { compute });
        }
        self.check_counts(inputs.len(), scalars.len())?;
        for (i, input) in inputs.iter().enumerate() {
            input.check(|| format!("input x{i}"))?;
        }
        for (i, scalar) in scalars.iter().enumerate().take(self.scalar_count()) {
            scalar.check(|| format!("scalar s{i}"))?;
            if scalar.ty != compute {
                return Err(FusionError::ScalarType {
                    index: i,
                    got: scalar.ty,
                    expected: compute,
                });
            }
        }
        let mut em = Emitter {
            k,
            options: *options,
            values: vec![None; self.nodes().len()],
            preds: vec![None; self.nodes().len()],
        };
        for (i, node) in self.nodes().iter().enumerate() {
            match node {
                Node::Input(j) => {
                    em.values[i] = Some(emit_convert_for(em.k, inputs[*j], compute, options.arch)?);
                }
                Node::Scalar(j) => em.values[i] = Some(scalars[*j]),
                Node::Const(bits) => {
                    let c = em.constant(f64::from_bits(*bits));
                    em.values[i] = Some(c);
                }
                Node::Compare(op, a, b) => {
                    let (a, b) = (em.value(*a), em.value(*b));
                    em.preds[i] = Some(em.compare(*op, a, b));
                }
                Node::Select(c, t, f) => {
                    let p = em.pred(*c);
                    let (t, f) = (em.value(*t), em.value(*f));
                    em.values[i] = Some(em.select(p, t, f));
                }
                Node::Unary(op, a) => {
                    let a = em.value(*a);
                    em.values[i] = Some(em.unary(*op, a)?);
                }
                Node::Binary(op, a, b) => {
                    let (a, b) = (em.value(*a), em.value(*b));
                    em.values[i] = Some(em.binary(*op, a, b)?);
                }
                Node::Fma(a, b, c) => {
                    let (a, b, c) = (em.value(*a), em.value(*b), em.value(*c));
                    em.values[i] = Some(em.fma(a, b, c)?);
                }
                Node::Cast(to, a) => {
                    let a = em.value(*a);
                    em.values[i] = Some(em.cast(*to, a)?);
                }
            }
        }
        Ok(em.value(self.nodes().len() - 1))
    }
}

impl Emitter<'_> {
    /// A fresh register of the compute type.
    pub(crate) fn fresh(&mut self) -> Value {
        Value::fresh(self.k, self.options.compute)
    }

    /// The constant `c` in a fresh register of the compute type.
    pub(crate) fn constant(&mut self, c: f64) -> Value {
        let out = self.fresh();
        let imm = immediate(self.options.compute, c);
        self.k.mov(out.reg, imm);
        out
    }

    /// Node `i`'s value; a comparison becomes 1.0/0.0 here, once.
    fn value(&mut self, i: usize) -> Value {
        if let Some(v) = self.values[i] {
            return v;
        }
        let p = self.preds[i].unwrap_or_else(|| unreachable_node(i));
        let (one, zero) = (self.constant(1.0), self.constant(0.0));
        let v = self.select(p, one, zero);
        self.values[i] = Some(v);
        v
    }

    /// Node `i` as a predicate: a comparison's, or `value != 0` (NaN true).
    fn pred(&mut self, i: usize) -> Reg {
        if let Some(p) = self.preds[i] {
            return p;
        }
        let v = self.value(i);
        let zero = immediate(self.options.compute, 0.0);
        let zero = if self.options.compute == ElementType::F16 {
            let z = self.fresh();
            self.k.mov(z.reg, zero);
            z.reg.to_string()
        } else {
            zero
        };
        let p = self.k.reg(RegClass::Pred);
        let ty = ptx_suffix(self.options.compute);
        self.k.push(format!("setp.neu{ty} {p}, {}, {zero};", v.reg));
        self.preds[i] = Some(p);
        p
    }
}

/// Nodes are emitted in order, so a node read before it has a value or a
/// predicate cannot happen; this names the broken invariant if it ever does.
fn unreachable_node(i: usize) -> Reg {
    unreachable!("fusion node {i} read before it was emitted")
}
