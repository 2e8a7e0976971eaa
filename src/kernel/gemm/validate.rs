//! [`GemmSpec::validate`]: the configuration rules ([`check_config`]) and
//! the epilogue's own checks, as a runtime error.

use super::rules::{check_config, ConfigFacts};
use super::GemmSpec;
use crate::collective::EpiloguePolicy;
use crate::Error;

impl GemmSpec {
    /// The spec's facts the configuration rules read (all but the epilogue).
    pub fn facts(&self) -> ConfigFacts {
        ConfigFacts {
            arch: self.arch,
            types: self.types,
            majors: self.majors,
            tile: self.tile,
            cluster: self.cluster,
            mainloop: self.mainloop,
            epilogue: self.epilogue.policy,
            scheduler: self.scheduler,
            schedule: self.schedule,
        }
    }

    /// Checks the spec against the configuration rules, the same
    /// [`check_config`] the typed [`Config::CHECK`] runs at compile time,
    /// and its epilogue's arity and bias count. A spec that passes is one
    /// the kernel generator builds.
    ///
    /// ```
    /// use cutlet::collective::{MainloopPolicy};
    /// use cutlet::kernel::gemm::sm80_default_spec;
    /// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{F16, F32};
    ///
    /// let mut spec = sm80_default_spec(F16, F16, F16, F32, OperandMajor::K, OperandMajor::MN, OutputMajor::N).unwrap();
    /// assert!(spec.validate().is_ok());
    /// spec.mainloop.policy = MainloopPolicy::Sm80CpAsync { stages: 9 };
    /// assert!(spec.validate().unwrap_err().to_string().contains("shared memory"));
    /// ```
    ///
    /// # Errors
    /// [`Error::Config`] naming the spec's kernel and the broken rule, with
    /// its values.
    ///
    /// [`Config::CHECK`]: crate::device::gemm::Config::CHECK
    pub fn validate(&self) -> crate::Result<()> {
        let refuse = |reason: &str| Error::Config {
            config: self.kernel_name(),
            reason: reason.to_string(),
        };
        check_config(&self.facts()).map_err(|rule| refuse(rule.as_str()))?;
        if self.epilogue.fusion.needs_sm90() && self.epilogue.policy == EpiloguePolicy::Sm80Staged {
            return Err(refuse(&format!(
                "epilogue `{}` reads scales or a per-tensor (scalar) vector, or scales D or writes its amax, which only the SM90 epilogues do: expected arch Sm90 (8-bit inputs run there)",
                self.epilogue.fusion
            )));
        }
        if self.epilogue.fusion.scales() == Some(crate::gemm::ScaleGranularity::Block) {
            let interval = match self.mainloop.policy {
                crate::collective::MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 {
                    promotion_interval,
                    ..
                } => Some(promotion_interval),
                _ => None,
            };
            let transposed = self.epilogue.fusion.block_scales_transposed();
            crate::collective::check_sm90_block_scales(interval, self.tile, transposed)
                .map_err(|rule| refuse(rule.as_str()))?;
        }
        let quantized = self.epilogue.fusion.output() != crate::gemm::OutputQuantization::default();
        if quantized && self.epilogue.policy != EpiloguePolicy::Sm90NoSmem {
            return Err(refuse(&format!(
                "epilogue `{}` with the {:?} epilogue: an output scale or amax of D is applied by the register-store epilogue (expected EpilogueNoSmemWarpSpecialized)",
                self.epilogue.fusion, self.epilogue.policy
            )));
        }
        if self.types.d == crate::numeric::ElementType::I32
            && !self.epilogue.fusion.is_linear_combination()
        {
            return Err(refuse(&format!(
                "epilogue `{}` with an i32 D: expected the linear combination alpha * acc + beta * C, which an i32 D computes in s32 (for scales, biases or an activation, write D in bf16, f16 or f32)",
                self.epilogue.fusion
            )));
        }
        match self.epilogue.fusion.unfit_reason() {
            Some(reason) => Err(refuse(&reason)),
            None => Ok(()),
        }
    }
}
