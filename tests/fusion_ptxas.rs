//! Every fusion op, emitted into a small test kernel per op, assembles with
//! ptxas for sm_70, sm_80 and sm_90a without spills: f32 compute for every
//! op, f64 compute for the exact ops (the others must be typed errors), f16
//! compute for every op; inputs f16, bf16 and f32 (and f64, i32 with f32
//! compute). Each kernel loads its inputs from a pointer param, emits the
//! expression, converts the result to the input type and stores it.

mod common;

use common::ptxas::assemble;
use cutlet::arch::ArchKind;
use cutlet::fusion::{scalar, EmitOptions, Expr, Expression, FusionError, Value};
use cutlet::numeric::ElementType;
use cutlet::ptx::{Kernel, Module, ParamType};

/// One expression per op (and a few combinations), named for the kernel.
fn cases() -> Vec<(String, Expression)> {
    use cutlet::fusion::{BinaryOp, CompareOp, UnaryOp};
    let mut out: Vec<(String, Expression)> = Vec::new();
    for op in UnaryOp::ALL {
        let e = Expression::from_fn(move |x: Expr| match op {
            UnaryOp::Neg => -x,
            UnaryOp::Abs => x.abs(),
            UnaryOp::Exp => x.exp(),
            UnaryOp::Log => x.log(),
            UnaryOp::Sqrt => x.sqrt(),
            UnaryOp::Rsqrt => x.rsqrt(),
            UnaryOp::Tanh => x.tanh(),
            UnaryOp::Sigmoid => x.sigmoid(),
            UnaryOp::Relu => x.relu(),
            UnaryOp::Gelu => x.gelu(),
            UnaryOp::GeluErf => x.gelu_erf(),
            UnaryOp::Silu => x.silu(),
        });
        out.push((op.name().to_string(), e));
    }
    for op in BinaryOp::ALL {
        let e = Expression::from_fn(move |a: Expr, b: Expr| match op {
            BinaryOp::Add => a + b,
            BinaryOp::Sub => a - b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div => a / b,
            BinaryOp::Min => a.min(b),
            BinaryOp::Max => a.max(b),
        });
        out.push((op.name().to_string(), e));
    }
    for op in CompareOp::ALL {
        let e = Expression::from_fn(move |a: Expr, b: Expr| {
            let c = match op {
                CompareOp::Lt => a.lt(&b),
                CompareOp::Le => a.le(&b),
                CompareOp::Gt => a.gt(&b),
                CompareOp::Ge => a.ge(&b),
                CompareOp::Eq => a.eq(&b),
                CompareOp::Ne => a.ne(&b),
            };
            c.select(&a, &b) + c
        });
        out.push((format!("select_{}", op.name()), e));
    }
    for ty in [
        ElementType::F16,
        ElementType::BF16,
        ElementType::F32,
        ElementType::F64,
        ElementType::I32,
    ] {
        out.push((
            format!("cast_{ty}"),
            Expression::from_fn(move |x: Expr| x.cast(ty) * 3.0),
        ));
    }
    out.push((
        "fma".to_string(),
        Expression::from_fn(|a: Expr, b, c| a.fma(b, c)),
    ));
    out.push((
        "select_value".to_string(),
        Expression::from_fn(|a: Expr, b: Expr| (&a - &b).select(a, -1.5)),
    ));
    out.push((
        "linear_combination".to_string(),
        Expression::linear_combination(),
    ));
    out.push((
        "gelu_mad_scalar".to_string(),
        Expression::from_fn(|a: Expr, b: Expr, c: Expr| (a * b + c * scalar(0)).gelu()),
    ));
    out
}

/// The PTX load/store type of a storage type.
fn memory_type(ty: ElementType) -> &'static str {
    match ty {
        ElementType::F16 | ElementType::BF16 => ".b16",
        ElementType::F64 => ".f64",
        ElementType::I32 => ".b32",
        _ => ".f32",
    }
}

/// `out[0] = e(in[0], in[1], ...)` with scalars from f32/f64 params,
/// converted to the compute type; the result stored in `input`'s type.
fn test_kernel(
    name: &str,
    e: &Expression,
    input: ElementType,
    options: &EmitOptions,
) -> Result<Kernel, FusionError> {
    let mut k = Kernel::new(name)?;
    let src = k.param("src", ParamType::U64)?;
    let dst = k.param("dst", ParamType::U64)?;
    let scalar_param = if options.compute == ElementType::F64 {
        ParamType::F64
    } else {
        ParamType::F32
    };
    let mut scalars = Vec::new();
    for i in 0..e.scalar_count() {
        let p = k.param(&format!("s{i}"), scalar_param)?;
        let reg = k.load_param(&p)?;
        let loaded = if scalar_param == ParamType::F64 {
            ElementType::F64
        } else {
            ElementType::F32
        };
        let v = Value { reg, ty: loaded };
        scalars.push(cutlet::fusion::emit_convert(&mut k, v, options.compute)?);
    }
    let src = k.load_param(&src)?;
    let dst = k.load_param(&dst)?;
    k.cvta_to_global(src, src);
    k.cvta_to_global(dst, dst);
    let ty = memory_type(input);
    let mut inputs = Vec::new();
    for i in 0..e.arity() {
        let v = Value::fresh(&mut k, input);
        let offset = i as u32 * input.size_bytes();
        k.push(format!("ld.global{ty} {}, [{src}+{offset}];", v.reg));
        inputs.push(v);
    }
    let result = e.emit(&mut k, &inputs, &scalars, options)?;
    let stored = cutlet::fusion::emit_convert_for(&mut k, result, input, options.arch)?;
    k.push(format!("st.global{ty} [{dst}], {};", stored.reg));
    Ok(k)
}

/// Ops f64 compute has no PTX instruction for.
fn f64_unsupported(name: &str) -> bool {
    [
        "exp",
        "log",
        "tanh",
        "sigmoid",
        "gelu",
        "gelu_erf",
        "silu",
        "gelu_mad_scalar",
    ]
    .contains(&name)
}

fn check(arch: ArchKind, input: ElementType, compute: ElementType) {
    let options = EmitOptions::new(compute, arch);
    let mut module = Module::new(arch);
    let mut names = Vec::new();
    for (name, e) in cases() {
        let kernel_name = format!("{name}_{input}_{compute}");
        match test_kernel(&kernel_name, &e, input, &options) {
            Ok(k) => {
                module.add_kernel(k).unwrap();
                names.push(kernel_name);
            }
            Err(FusionError::UnsupportedOp { op, compute: c })
                if compute == ElementType::F64 && f64_unsupported(&name) =>
            {
                assert_eq!(c, ElementType::F64);
                assert!(f64_unsupported(op), "{op}");
            }
            Err(err) => panic!("{kernel_name}: {err}"),
        }
    }
    let ptx = module.emit().unwrap();
    let Some(report) = assemble(&ptx, arch.ptx_target()) else {
        return;
    };
    for name in &names {
        let f = report.function(name);
        assert_eq!((f.spill_stores, f.spill_loads), (0, 0), "{name}: {f:?}");
    }
}

#[test]
fn every_op_assembles_for_16_and_32_bit_inputs_and_every_compute_type() {
    for arch in ArchKind::ALL {
        for input in [ElementType::F16, ElementType::BF16, ElementType::F32] {
            for compute in [ElementType::F32, ElementType::F64, ElementType::F16] {
                check(arch, input, compute);
            }
        }
    }
}

#[test]
fn every_op_assembles_for_f64_and_i32_inputs_in_f32() {
    for arch in ArchKind::ALL {
        for input in [ElementType::F64, ElementType::I32] {
            check(arch, input, ElementType::F32);
        }
    }
}
