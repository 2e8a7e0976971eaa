//! What each operation lowers to, per compute type (the table is in the
//! [module doc](super)).

use super::convert::emit_convert_for;
use super::emit::{ptx_suffix, Emitter};
use super::error::FusionError;
use super::node::{BinaryOp, CompareOp, UnaryOp};
use super::Value;
use crate::arch::ArchKind;
use crate::numeric::ElementType;
use crate::ptx::{Reg, RegClass};

impl Emitter<'_> {
    pub(crate) fn compare(&mut self, op: CompareOp, a: Value, b: Value) -> Reg {
        let p = self.k.reg(RegClass::Pred);
        let cmp = match op {
            CompareOp::Ne => "neu",
            other => other.name(),
        };
        let ty = ptx_suffix(self.options.compute);
        self.k
            .push(format!("setp.{cmp}{ty} {p}, {}, {};", a.reg, b.reg));
        p
    }

    pub(crate) fn select(&mut self, p: Reg, t: Value, f: Value) -> Value {
        let out = self.fresh();
        let ty = match self.options.compute {
            ElementType::F16 => ".b16",
            other => ptx_suffix(other),
        };
        self.k
            .push(format!("selp{ty} {}, {}, {}, {p};", out.reg, t.reg, f.reg));
        out
    }

    /// Runs `lower` in f32 on `args` widened from f16, and rounds the result
    /// back to f16: the f16-compute path of every op without a native f16
    /// instruction.
    fn via_f32(
        &mut self,
        args: &[Value],
        lower: impl FnOnce(&mut Self, &[Value]) -> Result<Value, FusionError>,
    ) -> Result<Value, FusionError> {
        let arch = self.options.arch;
        let mut wide = Vec::with_capacity(args.len());
        for a in args {
            wide.push(emit_convert_for(self.k, *a, ElementType::F32, arch)?);
        }
        self.options.compute = ElementType::F32;
        let result = lower(self, &wide);
        self.options.compute = ElementType::F16;
        emit_convert_for(self.k, result?, ElementType::F16, arch)
    }

    /// `op.rn<ty> d, args...;` (or `op<ty>` where `rn` is `""`) into a fresh register.
    fn instruction(&mut self, op: &str, args: &[Value]) -> Value {
        let out = self.fresh();
        let ty = ptx_suffix(self.options.compute);
        let operands: Vec<String> = args.iter().map(|a| a.reg.to_string()).collect();
        self.k
            .push(format!("{op}{ty} {}, {};", out.reg, operands.join(", ")));
        out
    }

    fn snippet(&mut self, name: &str, x: Value) -> Result<Value, FusionError> {
        let out = self.fresh();
        self.k
            .snippet("common/math_f32", name, &[("dst", &out.reg), ("x", &x.reg)])?;
        Ok(out)
    }

    fn unsupported(&self, op: &'static str) -> FusionError {
        FusionError::UnsupportedOp {
            op,
            compute: self.options.compute,
        }
    }

    pub(crate) fn binary(
        &mut self,
        op: BinaryOp,
        a: Value,
        b: Value,
    ) -> Result<Value, FusionError> {
        let compute = self.options.compute;
        let native_f16 = matches!(op, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul);
        if compute == ElementType::F16 && !native_f16 {
            return self.via_f32(&[a, b], |em, w| em.binary(op, w[0], w[1]));
        }
        let name = match op {
            BinaryOp::Add => "add.rn",
            BinaryOp::Sub => "sub.rn",
            BinaryOp::Mul => "mul.rn",
            BinaryOp::Div => "div.rn",
            BinaryOp::Min => "min",
            BinaryOp::Max => "max",
        };
        Ok(self.instruction(name, &[a, b]))
    }

    pub(crate) fn fma(&mut self, a: Value, b: Value, c: Value) -> Result<Value, FusionError> {
        Ok(self.instruction("fma.rn", &[a, b, c]))
    }

    pub(crate) fn cast(&mut self, to: ElementType, a: Value) -> Result<Value, FusionError> {
        let compute = self.options.compute;
        let identity = matches!(
            (compute, to),
            (ElementType::F32, ElementType::F32 | ElementType::F64)
                | (ElementType::F64, ElementType::F64)
                | (
                    ElementType::F16,
                    ElementType::F16 | ElementType::F32 | ElementType::F64
                )
        );
        if identity {
            return Ok(a);
        }
        let arch = self.options.arch;
        let narrow = emit_convert_for(self.k, a, to, arch)?;
        emit_convert_for(self.k, narrow, compute, arch)
    }

    pub(crate) fn unary(&mut self, op: UnaryOp, a: Value) -> Result<Value, FusionError> {
        match self.options.compute {
            ElementType::F64 => self.unary_f64(op, a),
            ElementType::F16 => match op {
                UnaryOp::Neg => Ok(self.instruction("neg", &[a])),
                UnaryOp::Abs => Ok(self.instruction("abs", &[a])),
                _ => self.via_f32(&[a], |em, w| em.unary_f32(op, w[0])),
            },
            _ => self.unary_f32(op, a),
        }
    }

    fn unary_f64(&mut self, op: UnaryOp, a: Value) -> Result<Value, FusionError> {
        Ok(match op {
            UnaryOp::Neg => self.instruction("neg", &[a]),
            UnaryOp::Abs => self.instruction("abs", &[a]),
            UnaryOp::Sqrt => self.instruction("sqrt.rn", &[a]),
            UnaryOp::Rsqrt => {
                let root = self.instruction("sqrt.rn", &[a]);
                self.instruction("rcp.rn", &[root])
            }
            UnaryOp::Relu => {
                let zero = self.constant(0.0);
                self.instruction("max", &[a, zero])
            }
            other => return Err(self.unsupported(other.name())),
        })
    }

    fn tanh_f32(&mut self, x: Value) -> Result<Value, FusionError> {
        if self.options.arch >= ArchKind::Sm80 {
            self.snippet("tanh_f32_sm75", x)
        } else {
            self.snippet("tanh_f32_sm70", x)
        }
    }

    fn unary_f32(&mut self, op: UnaryOp, a: Value) -> Result<Value, FusionError> {
        Ok(match op {
            UnaryOp::Neg => self.instruction("neg", &[a]),
            UnaryOp::Abs => self.instruction("abs", &[a]),
            UnaryOp::Sqrt => self.instruction("sqrt.rn", &[a]),
            UnaryOp::Rsqrt => self.instruction("rsqrt.approx", &[a]),
            UnaryOp::Relu => {
                let zero = self.constant(0.0);
                self.instruction("max", &[a, zero])
            }
            UnaryOp::Exp => self.snippet("exp_f32", a)?,
            UnaryOp::Log => self.snippet("log_f32", a)?,
            UnaryOp::Tanh => self.tanh_f32(a)?,
            UnaryOp::Sigmoid => self.snippet("sigmoid_f32", a)?,
            UnaryOp::Silu => {
                let s = self.snippet("sigmoid_f32", a)?;
                self.instruction("mul.rn", &[a, s])
            }
            UnaryOp::GeluErf => self.snippet("gelu_erf_f32", a)?,
            UnaryOp::Gelu => {
                let arg = self.snippet("gelu_tanh_arg_f32", a)?;
                let t = self.tanh_f32(arg)?;
                let out = self.fresh();
                self.k.snippet(
                    "common/math_f32",
                    "gelu_tanh_combine_f32",
                    &[("dst", &out.reg), ("x", &a.reg), ("t", &t.reg)],
                )?;
                out
            }
        })
    }
}
