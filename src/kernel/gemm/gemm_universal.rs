//! `GemmUniversal` for SM80: the whole kernel's PTX from a [`GemmSpec`].
//!
//! What: D = alpha * A B + beta * C over problem (M, N, K, L), with A, B,
//! C, D each of either major, batch strides, runtime sizes and static tile.
//!
//! How:
//! 1. The tile scheduler maps `blockIdx.x` to an output tile (rasterized in
//!    groups of `2^raster_log` M tiles) and `blockIdx.y` to the batch.
//! 2. The [`Sm80MmaMultistage`] mainloop accumulates the tile.
//! 3. The [`EpilogueSm80`] writes D = alpha * acc + beta * C, or the
//!    spec's fused [`Epilogue`](super::Epilogue) expression.
//!
//! Params: the ABI table in [`spec`](super::spec). Constraints the host must
//! check: [`GemmSpec::alignment`] for pointers, leading dimensions and batch
//! strides; M, N, K, L at least 1; the grid of [`GemmSpec::grid`], the block
//! of [`GemmSpec::block_threads`], the dynamic shared memory of
//! [`GemmSpec::shared_mem_bytes`] (with the opt-in attribute above 48 KiB).

use super::tile_scheduler::emit_tile_coord;
use super::{BiasAxis, GemmSpec, OperandMajor, OutputMajor};
use crate::collective::{EpilogueInputs, EpilogueSm80, MainloopInputs, Sm80MmaMultistage};
use crate::ptx::{Kernel, Module, ParamType, PtxError, Reg, RegClass, SpecialReg};

impl GemmSpec {
    /// The PTX module: one kernel named [`kernel_name`](Self::kernel_name).
    ///
    /// ```
    /// use cutlet::kernel::gemm::sm80_default_spec;
    /// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{F16, F32};
    ///
    /// let spec = sm80_default_spec(F16, F16, F16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// let ptx = spec.ptx().unwrap();
    /// assert!(ptx.contains("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"));
    /// assert!(ptx.contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16"));
    /// ```
    ///
    /// # Errors
    /// [`PtxError::UnsupportedSpec`] with [`validate`](Self::validate)'s reason.
    pub fn ptx(&self) -> Result<String, PtxError> {
        let unsupported = |reason| PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: self.kernel_name(),
            reason,
        };
        self.validate().map_err(|e| match e {
            crate::Error::Config { reason, .. } => unsupported(reason),
            other => unsupported(other.to_string()),
        })?;
        let mainloop = Sm80MmaMultistage::new(&self.context(), &self.mainloop)
            .ok_or_else(|| unsupported("no mma for these element types".to_string()))?;
        let epilogue = EpilogueSm80::new(&self.context(), &self.epilogue);
        let mut module = Module::new(self.arch);
        module.add_kernel(self.kernel(&mainloop, &epilogue)?)?;
        module.emit()
    }

    fn kernel(
        &self,
        mainloop: &Sm80MmaMultistage,
        epilogue: &EpilogueSm80,
    ) -> Result<Kernel, PtxError> {
        let mut k = Kernel::new(&self.kernel_name())?;
        k.required_threads(self.block_threads(), 1, 1);
        k.min_blocks_per_sm(1);
        let smem_var = k.shared_dynamic("gemm_smem", crate::collective::SMEM_ALIGN)?;
        let mut ptrs = Vec::new();
        for name in ["a", "b", "c", "d"] {
            ptrs.push(k.param(name, ParamType::U64)?);
        }
        let mut sizes = Vec::new();
        for name in ["m", "n", "k", "l"] {
            sizes.push(k.param(name, ParamType::U32)?);
        }
        let mut lds = Vec::new();
        for name in ["lda", "ldb", "ldc", "ldd"] {
            lds.push(k.param(name, ParamType::U64)?);
        }
        let mut batches = Vec::new();
        for name in ["batch_a", "batch_b", "batch_c", "batch_d"] {
            batches.push(k.param(name, ParamType::U64)?);
        }
        let alpha_p = k.param("alpha", ParamType::F32)?;
        let beta_p = k.param("beta", ParamType::F32)?;
        let raster_p = k.param("raster_log", ParamType::U32)?;
        let mut bias_ps = Vec::new();
        for i in 0..self.epilogue.fusion.biases().len() {
            bias_ps.push(k.param(&format!("bias{i}"), ParamType::U64)?);
        }
        let mut scalar_ps = Vec::new();
        for j in 0..self.epilogue.fusion.extra_scalars() {
            scalar_ps.push(k.param(&format!("s{}", j + 2), ParamType::F32)?);
        }

        let tid = k.special(SpecialReg::TidX);
        let smem = k.shared_address(&smem_var);
        let [m, n, kk] = [
            k.load_param(&sizes[0])?,
            k.load_param(&sizes[1])?,
            k.load_param(&sizes[2])?,
        ];
        let raster = k.load_param(&raster_p)?;
        let alpha = k.load_param(&alpha_p)?;
        let beta = k.load_param(&beta_p)?;
        let [bm, bn, _] = self.tile;
        let (tiles_m, tiles_n) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("add.u32 {tiles_m}, {m}, {};", bm - 1));
        k.push(format!("div.u32 {tiles_m}, {tiles_m}, {bm};"));
        k.push(format!("add.u32 {tiles_n}, {n}, {};", bn - 1));
        k.push(format!("div.u32 {tiles_n}, {tiles_n}, {bn};"));
        let coord = emit_tile_coord(&mut k, tiles_m, tiles_n, raster);
        let (m0, n0, m_rem, n_rem) = (
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.push(format!("mul.lo.u32 {m0}, {}, {bm};", coord.tile_m));
        k.push(format!("mul.lo.u32 {n0}, {}, {bn};", coord.tile_n));
        k.push(format!("sub.u32 {m_rem}, {m}, {m0};"));
        k.push(format!("sub.u32 {n_rem}, {n}, {n0};"));

        let types = [self.types.a, self.types.b, self.types.c, self.types.d];
        let batch = k.reg(RegClass::B64);
        k.push(format!("cvt.u64.u32 {batch}, {};", coord.batch));
        // Batch base addresses (valid for any tile) and leading dims in bytes.
        let mut bases = Vec::new();
        let mut ld_bytes = Vec::new();
        for i in 0..4 {
            let size = types[i].size_bytes();
            let base = k.load_param(&ptrs[i])?;
            k.cvta_to_global(base, base);
            let stride = k.load_param(&batches[i])?;
            k.push(format!("mul.lo.u64 {stride}, {stride}, {batch};"));
            k.push(format!("mad.lo.u64 {base}, {stride}, {size}, {base};"));
            bases.push(base);
            let ld = k.load_param(&lds[i])?;
            k.push(format!("mul.lo.u64 {ld}, {ld}, {size};"));
            ld_bytes.push(ld);
        }
        let a_tile = self.operand_tile(
            &mut k,
            bases[0],
            ld_bytes[0],
            m0,
            self.majors.a,
            self.types.a.size_bytes(),
        );
        let b_tile = self.operand_tile(
            &mut k,
            bases[1],
            ld_bytes[1],
            n0,
            self.majors.b,
            self.types.b.size_bytes(),
        );
        let c_tile = self.output_tile(
            &mut k,
            bases[2],
            ld_bytes[2],
            m0,
            n0,
            self.majors.c,
            self.types.c.size_bytes(),
        );
        let d_tile = self.output_tile(
            &mut k,
            bases[3],
            ld_bytes[3],
            m0,
            n0,
            self.majors.d,
            self.types.d.size_bytes(),
        );

        let mut bias_tiles = Vec::new();
        for (param, axis) in bias_ps.iter().zip(self.epilogue.fusion.biases()) {
            let base = k.load_param(param)?;
            k.cvta_to_global(base, base);
            let origin = match axis {
                BiasAxis::Row => m0,
                BiasAxis::Column => n0,
            };
            let wide = k.reg(RegClass::B64);
            k.push(format!(
                "mul.wide.u32 {wide}, {origin}, {};",
                self.types.c.size_bytes()
            ));
            k.push(format!("add.u64 {base}, {base}, {wide};"));
            bias_tiles.push(base);
        }
        let mut scalars = Vec::new();
        for param in &scalar_ps {
            scalars.push(k.load_param(param)?);
        }
        let acc = mainloop.emit(
            &mut k,
            &MainloopInputs {
                tid,
                smem,
                a_tile,
                b_tile,
                a_safe: bases[0],
                b_safe: bases[1],
                lda_bytes: ld_bytes[0],
                ldb_bytes: ld_bytes[1],
                m_rem,
                n_rem,
                k: kk,
            },
        )?;
        epilogue.emit(
            &mut k,
            &EpilogueInputs {
                tid,
                smem,
                d_tile,
                c_tile,
                ldd_bytes: ld_bytes[3],
                ldc_bytes: ld_bytes[2],
                m_rem,
                n_rem,
                alpha,
                beta,
                biases: bias_tiles,
                scalars,
            },
            &acc,
        )?;
        Ok(k)
    }

    /// Address of operand element (mn0, 0).
    fn operand_tile(
        &self,
        k: &mut Kernel,
        base: Reg,
        ld_bytes: Reg,
        mn0: Reg,
        major: OperandMajor,
        size: u32,
    ) -> Reg {
        let dst = k.reg(RegClass::B64);
        let wide = k.reg(RegClass::B64);
        k.push(format!("cvt.u64.u32 {wide}, {mn0};"));
        match major {
            OperandMajor::K => k.push(format!("mad.lo.u64 {dst}, {wide}, {ld_bytes}, {base};")),
            OperandMajor::MN => k.push(format!("mad.lo.u64 {dst}, {wide}, {size}, {base};")),
        }
        dst
    }

    /// Address of output element (m0, n0).
    #[allow(clippy::too_many_arguments)]
    fn output_tile(
        &self,
        k: &mut Kernel,
        base: Reg,
        ld_bytes: Reg,
        m0: Reg,
        n0: Reg,
        major: OutputMajor,
        size: u32,
    ) -> Reg {
        let (outer, inner) = match major {
            OutputMajor::N => (m0, n0),
            OutputMajor::M => (n0, m0),
        };
        let dst = k.reg(RegClass::B64);
        let wide = k.reg(RegClass::B64);
        k.push(format!("cvt.u64.u32 {wide}, {outer};"));
        k.push(format!("mad.lo.u64 {dst}, {wide}, {ld_bytes}, {base};"));
        k.push(format!("cvt.u64.u32 {wide}, {inner};"));
        k.push(format!("mad.lo.u64 {dst}, {wide}, {size}, {dst};"));
        dst
    }
}
