//! The per-element arithmetic of [`EpilogueSm80`]: C's words unpacked to
//! f32, the epilogue at each element, the results packed into D's words.

use super::{EpilogueInputs, EpilogueSm80};
use crate::arch::ArchKind;
use crate::collective::epilogue_fusion::{apply, emit_pack_pair, BiasRegs};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

impl EpilogueSm80 {
    /// f32 values of C from packed words (16-bit types: two per word).
    pub(super) fn unpack(&self, k: &mut Kernel, words: &[Reg], out: &[Reg]) {
        match self.spec.types.c {
            ElementType::F32 => {
                for (w, o) in words.iter().zip(out) {
                    k.push(format!("mov.b32 {o}, {w};"));
                }
            }
            ElementType::BF16 => {
                for (j, w) in words.iter().enumerate() {
                    k.push(format!("shl.b32 {}, {w}, 16;", out[2 * j]));
                    k.push(format!("and.b32 {}, {w}, -65536;", out[2 * j + 1]));
                }
            }
            _ => {
                let h = k.regs(RegClass::B16, 2);
                for (j, w) in words.iter().enumerate() {
                    k.push(format!("mov.b32 {{{}, {}}}, {w};", h[0], h[1]));
                    k.push(format!("cvt.f32.f16 {}, {};", out[2 * j], h[0]));
                    k.push(format!("cvt.f32.f16 {}, {};", out[2 * j + 1], h[1]));
                }
            }
        }
    }

    /// The epilogue at each element of a vector: f32 results.
    pub(super) fn combine(
        &self,
        k: &mut Kernel,
        acc: &[Reg],
        c: &[Reg],
        biases: &[BiasRegs],
        inp: &EpilogueInputs,
    ) -> Result<Vec<Reg>, PtxError> {
        (0..acc.len())
            .map(|e| {
                let bias: Vec<Reg> = biases.iter().map(|b| b.value(e)).collect();
                apply(
                    k,
                    &self.spec,
                    acc[e],
                    c[e],
                    &bias,
                    inp.alpha,
                    inp.beta,
                    &inp.scalars,
                )
            })
            .collect()
    }

    /// Packs f32 values into D's words (f16 pairs by `cvt.rn.f16x2.f32`,
    /// or on sm_70, which lacks it, by two `cvt.rn.f16.f32`).
    pub(super) fn pack(&self, k: &mut Kernel, vals: &[Reg], words: &[Reg]) {
        match self.spec.types.d {
            ElementType::F32 => {
                for (v, w) in vals.iter().zip(words) {
                    k.push(format!("mov.b32 {w}, {v};"));
                }
            }
            ElementType::F16 if self.spec.arch == ArchKind::Sm70 => {
                // sm_70 has no cvt.f16x2.f32 (sm_80): two halves, one move.
                let halves = k.regs(RegClass::B16, 2);
                for (j, w) in words.iter().enumerate() {
                    for (h, v) in halves.iter().zip(&vals[2 * j..2 * j + 2]) {
                        k.push(format!("cvt.rn.f16.f32 {h}, {v};"));
                    }
                    k.push(format!("mov.b32 {w}, {{{}, {}}};", halves[0], halves[1]));
                }
            }
            d => {
                for (j, &w) in words.iter().enumerate() {
                    emit_pack_pair(k, d, w, vals[2 * j], vals[2 * j + 1]);
                }
            }
        }
    }
}
