//! A test bed for elementwise kernels: typed device buffers behind one enum,
//! random data, a poisoned output, the host reference (`Expression::eval`)
//! and an element-by-element check with a tolerance by output type.
//!
//! Tolerances (|got - want| <= tol * max(|want|, 1)), output type first:
//! - f64: 1e-12; i32: exact (computed in f64, cast back);
//! - f32: 1e-6 for exact ops; 4e-3 where the kernel uses approximate PTX
//!   (`ex2/lg2/rsqrt/tanh.approx`: tanh.approx.f32 is good to ~2^-11);
//! - f16: 1.5e-3 (one rounding, 2^-11, plus the f32 error), bf16: 1e-2 (2^-8),
//!   each plus 4e-3 for approximate ops.

#![allow(dead_code)]

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};
use cutlet::fusion::{host::round_to, Expression};
use cutlet::numeric::ElementType;
use cutlet::tensor::{TensorArg, TensorArgMut, TensorMut, TensorRef, ViewLayout};
use half::{bf16, f16};
use rand::Rng;

/// A device buffer of any element type the kernels take.
pub enum DevBuf {
    F16(CudaSlice<f16>),
    BF16(CudaSlice<bf16>),
    F32(CudaSlice<f32>),
    F64(CudaSlice<f64>),
    I32(CudaSlice<i32>),
}

impl DevBuf {
    /// Uploads `values` (already representable) as `ty`.
    pub fn upload(stream: &Arc<CudaStream>, ty: ElementType, values: &[f64]) -> DevBuf {
        match ty {
            ElementType::F16 => DevBuf::F16(
                stream
                    .clone_htod(&values.iter().map(|v| f16::from_f64(*v)).collect::<Vec<_>>())
                    .unwrap(),
            ),
            ElementType::BF16 => DevBuf::BF16(
                stream
                    .clone_htod(
                        &values
                            .iter()
                            .map(|v| bf16::from_f64(*v))
                            .collect::<Vec<_>>(),
                    )
                    .unwrap(),
            ),
            ElementType::F32 => DevBuf::F32(
                stream
                    .clone_htod(&values.iter().map(|v| *v as f32).collect::<Vec<_>>())
                    .unwrap(),
            ),
            ElementType::F64 => DevBuf::F64(stream.clone_htod(values).unwrap()),
            ElementType::I32 => DevBuf::I32(
                stream
                    .clone_htod(&values.iter().map(|v| *v as i32).collect::<Vec<_>>())
                    .unwrap(),
            ),
            other => panic!("no test buffer for {other}"),
        }
    }

    /// Downloads as f64.
    pub fn download(&self, stream: &Arc<CudaStream>) -> Vec<f64> {
        match self {
            DevBuf::F16(b) => stream
                .clone_dtoh(b)
                .unwrap()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            DevBuf::BF16(b) => stream
                .clone_dtoh(b)
                .unwrap()
                .iter()
                .map(|v| v.to_f64())
                .collect(),
            DevBuf::F32(b) => stream
                .clone_dtoh(b)
                .unwrap()
                .iter()
                .map(|v| f64::from(*v))
                .collect(),
            DevBuf::F64(b) => stream.clone_dtoh(b).unwrap(),
            DevBuf::I32(b) => stream
                .clone_dtoh(b)
                .unwrap()
                .iter()
                .map(|v| f64::from(*v))
                .collect(),
        }
    }

    /// A read view with `layout`, starting `offset` elements in.
    pub fn view(&self, layout: ViewLayout) -> TensorArg<'_> {
        match self {
            DevBuf::F16(b) => TensorRef::new(b, layout).unwrap().into(),
            DevBuf::BF16(b) => TensorRef::new(b, layout).unwrap().into(),
            DevBuf::F32(b) => TensorRef::new(b, layout).unwrap().into(),
            DevBuf::F64(b) => TensorRef::new(b, layout).unwrap().into(),
            DevBuf::I32(b) => TensorRef::new(b, layout).unwrap().into(),
        }
    }

    /// A write view with `layout`.
    pub fn view_mut(&mut self, layout: ViewLayout) -> TensorArgMut<'_> {
        match self {
            DevBuf::F16(b) => TensorMut::new(b, layout).unwrap().into(),
            DevBuf::BF16(b) => TensorMut::new(b, layout).unwrap().into(),
            DevBuf::F32(b) => TensorMut::new(b, layout).unwrap().into(),
            DevBuf::F64(b) => TensorMut::new(b, layout).unwrap().into(),
            DevBuf::I32(b) => TensorMut::new(b, layout).unwrap().into(),
        }
    }
}

/// Random values in `[lo, hi)` rounded to `ty` (integers for i32).
pub fn random_values(
    rng: &mut impl Rng,
    ty: ElementType,
    len: usize,
    (lo, hi): (f64, f64),
) -> Vec<f64> {
    (0..len)
        .map(|_| {
            let v = rng.random_range(lo..hi);
            if ty == ElementType::I32 {
                (v * 100.0).round()
            } else {
                round_to(ty, v)
            }
        })
        .collect()
}

/// The value poisoned outputs hold before a run.
pub const POISON: f64 = -7777.0;

/// Tolerance for an output of type `ty` (see the module doc).
pub fn tolerance(ty: ElementType, approximate: bool) -> f64 {
    let extra = if approximate { 4e-3 } else { 0.0 };
    match ty {
        ElementType::F64 => 1e-12,
        ElementType::I32 => 0.0,
        ElementType::F32 => 1e-6 + extra,
        ElementType::F16 => 1.5e-3 + extra,
        _ => 1e-2 + extra,
    }
}

/// One input of a case: its host values (as stored), element type and layout.
pub struct HostTensor {
    pub ty: ElementType,
    pub layout: ViewLayout,
    pub values: Vec<f64>,
}

/// The host reference: `expression` at every element of `out_layout`,
/// inputs read through their (broadcast) layouts; rounded to `out_ty`.
pub fn reference(
    expression: &Expression,
    inputs: &[HostTensor],
    out_layout: ViewLayout,
    out_ty: ElementType,
    scalars: &[f64],
) -> Vec<(usize, f64)> {
    let [rows, cols] = out_layout.shape();
    let views: Vec<ViewLayout> = inputs
        .iter()
        .map(|t| t.layout.broadcast_to([rows, cols]).expect("broadcastable"))
        .collect();
    let mut out = Vec::with_capacity(rows * cols);
    let mut args = vec![0.0; inputs.len()];
    for r in 0..rows {
        for c in 0..cols {
            for ((arg, t), l) in args.iter_mut().zip(inputs).zip(&views) {
                *arg = t.values[l.offset(r, c)];
            }
            let v = expression.eval(&args, scalars);
            let v = if out_ty == ElementType::I32 {
                v.trunc()
            } else {
                round_to(out_ty, v)
            };
            out.push((out_layout.offset(r, c), v));
        }
    }
    out
}

/// Compares `got` (the whole output buffer) with `want` at each addressed
/// offset; panics with the first failures, naming `case`.
pub fn compare(case: &str, got: &[f64], want: &[(usize, f64)], tol: f64) {
    let mut bad = Vec::new();
    for (offset, w) in want {
        let g = got[*offset];
        let ok = if w.is_nan() {
            g.is_nan()
        } else {
            (g - w).abs() <= tol * w.abs().max(1.0)
        };
        if !ok || g == POISON && *w != POISON {
            bad.push(format!("offset {offset}: got {g}, want {w}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{case}: {} of {} elements wrong (tol {tol}): {}",
        bad.len(),
        want.len(),
        bad.iter().take(5).cloned().collect::<Vec<_>>().join("; ")
    );
}
