//! Step 3 of [`EpilogueSm80`]: a vector the contiguous edge cuts, stored
//! element by element in a rolled loop.

use super::{EpilogueInputs, EpilogueSm80};
use crate::atom::{CopyValue, MemorySpace, UniversalCopy};
use crate::collective::epilogue_fusion::{apply, element_bias_values, load_f32, BiasRegs};
use crate::collective::sm80_mma_multistage::atom_error;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

impl EpilogueSm80 {
    /// Element-by-element C read and D write of a vector with `irem`
    /// (0 < `irem` < vec) elements inside the edge, as a rolled loop over
    /// those elements: each reads its staged accumulator at `sread + 4e`,
    /// C's element where `p_beta`, the biases' values, and writes D's
    /// element. `p_part` holds for the threads that run it.
    pub(super) fn store_partial(
        &self,
        k: &mut Kernel,
        biases: &[BiasRegs],
        inp: &EpilogueInputs,
        (sread, dptr, cptr): (Reg, Reg, Reg),
        irem: Reg,
        (p_beta, p_part): (Reg, Reg),
    ) -> Result<(), PtxError> {
        let dsize = self.spec.types.d.size_bytes();
        let (e, es) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        let (off, caddr, daddr) = (
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
        );
        let (acc, p_next) = (k.reg(RegClass::F32), k.reg(RegClass::Pred));
        let element = k.new_label("epilogue_partial_element")?;
        k.mov(e, 0);
        k.mov(es, sread);
        k.push(format!("mov.b64 {off}, 0;"));
        k.place_label(&element);
        k.push(".pragma \"nounroll\";");
        UniversalCopy::<32>::emit_load_typed(k, MemorySpace::Shared, CopyValue::F32, &[acc], &es)
            .map_err(atom_error)?;
        k.push(format!("add.u64 {caddr}, {cptr}, {off};"));
        k.push(format!("add.u64 {daddr}, {dptr}, {off};"));
        let cv = load_f32(k, self.spec.types.c, p_beta, caddr, 0)?;
        let bias = element_bias_values(k, &self.spec, biases, off, p_part)?;
        let v = apply(
            k,
            &self.spec,
            acc,
            cv,
            &bias,
            inp.alpha,
            inp.beta,
            &inp.scalars,
        )?;
        match self.spec.types.d {
            ElementType::F32 => UniversalCopy::<32>::emit_store_typed(
                k,
                MemorySpace::Global,
                CopyValue::F32,
                &daddr,
                &[v],
            ),
            d => {
                let ty = if d == ElementType::BF16 {
                    "bf16"
                } else {
                    "f16"
                };
                let h = k.reg(RegClass::B16);
                k.push(format!("cvt.rn.{ty}.f32 {h}, {v};"));
                UniversalCopy::<16>::emit_store_typed(
                    k,
                    MemorySpace::Global,
                    CopyValue::B16,
                    &daddr,
                    &[h],
                )
            }
        }
        .map_err(atom_error)?;
        k.push(format!("add.u32 {es}, {es}, 4;"));
        k.push(format!("add.u64 {off}, {off}, {dsize};"));
        k.push(format!("add.u32 {e}, {e}, 1;"));
        k.push(format!("setp.lt.s32 {p_next}, {e}, {irem};"));
        k.push(format!("@{p_next} bra {element};"));
        Ok(())
    }
}
