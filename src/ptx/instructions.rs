//! Typed helpers for the few instructions every kernel uses. Everything else
//! comes from snippets ([`Kernel::snippet`]).

use std::fmt;

use super::error::{PtxError, Result};
use super::{snippet, Kernel, Param, ParamType, Reg, RegClass, SharedVar};

/// A special register read with `mov.u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `%tid.x`: thread index in the block.
    TidX,
    /// `%tid.y`.
    TidY,
    /// `%tid.z`.
    TidZ,
    /// `%ntid.x`: block size.
    NtidX,
    /// `%ntid.y`.
    NtidY,
    /// `%ntid.z`.
    NtidZ,
    /// `%ctaid.x`: block index in the grid.
    CtaidX,
    /// `%ctaid.y`.
    CtaidY,
    /// `%ctaid.z`.
    CtaidZ,
    /// `%nctaid.x`: grid size in blocks.
    NctaidX,
    /// `%nctaid.y`.
    NctaidY,
    /// `%nctaid.z`.
    NctaidZ,
    /// `%laneid`: lane in the warp.
    LaneId,
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SpecialReg::TidX => "%tid.x",
            SpecialReg::TidY => "%tid.y",
            SpecialReg::TidZ => "%tid.z",
            SpecialReg::NtidX => "%ntid.x",
            SpecialReg::NtidY => "%ntid.y",
            SpecialReg::NtidZ => "%ntid.z",
            SpecialReg::CtaidX => "%ctaid.x",
            SpecialReg::CtaidY => "%ctaid.y",
            SpecialReg::CtaidZ => "%ctaid.z",
            SpecialReg::NctaidX => "%nctaid.x",
            SpecialReg::NctaidY => "%nctaid.y",
            SpecialReg::NctaidZ => "%nctaid.z",
            SpecialReg::LaneId => "%laneid",
        })
    }
}

impl Kernel {
    /// `ld.param<type> dst, [param];` after checking that `dst` has the
    /// param's register class.
    pub fn ld_param(&mut self, dst: Reg, param: &Param) -> Result<()> {
        match param.ty().register_class() {
            Some(class) if class == dst.class() => {
                let ty = param.ty();
                self.push(format!("ld.param{ty} {dst}, [{param}];"));
                Ok(())
            }
            expected => Err(PtxError::ParamRegisterMismatch {
                param: param.name().to_string(),
                param_type: param.ty().to_string(),
                register: dst.to_string(),
                class: dst.class().ptx_type(),
                expected: match expected {
                    Some(class) => format!("a {class} register"),
                    None => "no load: take a byte array's address with param_address".to_string(),
                },
            }),
        }
    }

    /// Allocates a register of the param's class and loads the param into it.
    pub fn load_param(&mut self, param: &Param) -> Result<Reg> {
        let class = param.ty().register_class().unwrap_or(RegClass::B64);
        let dst = self.reg(class);
        self.ld_param(dst, param)?;
        Ok(dst)
    }

    /// Declares a param named `name` of type `ty` and loads it into a
    /// fresh register ([`param`](Kernel::param), then
    /// [`load_param`](Kernel::load_param)).
    pub fn param_value(&mut self, name: &str, ty: ParamType) -> Result<Reg> {
        let param = self.param(name, ty)?;
        self.load_param(&param)
    }

    /// Declares a `.u64` param named `name` holding a generic address and
    /// returns it converted to a global one (`cvta.to.global.u64`).
    pub fn global_address_param(&mut self, name: &str) -> Result<Reg> {
        let address = self.param_value(name, ParamType::U64)?;
        self.cvta_to_global(address, address);
        Ok(address)
    }

    /// The generic address of a by-value byte-array param (e.g. a TMA tensor
    /// map): `mov.b64 %rd, name; cvta.param.u64 %rd, %rd;` (PTX 7.7+).
    pub fn param_address(&mut self, param: &Param) -> Result<Reg> {
        if !matches!(param.ty(), ParamType::Bytes { .. }) {
            return Err(PtxError::ParamRegisterMismatch {
                param: param.name().to_string(),
                param_type: param.ty().to_string(),
                register: "an address".to_string(),
                class: RegClass::B64.ptx_type(),
                expected: "a byte-array param: load scalars with load_param".to_string(),
            });
        }
        let dst = self.reg(RegClass::B64);
        self.push(format!("mov.b64 {dst}, {param};"));
        self.push(format!("cvta.param.u64 {dst}, {dst};"));
        Ok(dst)
    }

    /// `mov<class type> dst, src;` (`src` a register, immediate or symbol).
    pub fn mov(&mut self, dst: Reg, src: impl fmt::Display) {
        let ty = dst.class().ptx_type();
        self.push(format!("mov{ty} {dst}, {src};"));
    }

    /// Reads a special register into a fresh `.b32` register.
    pub fn special(&mut self, sreg: SpecialReg) -> Reg {
        let dst = self.reg(RegClass::B32);
        self.push(format!("mov.u32 {dst}, {sreg};"));
        dst
    }

    /// The warpgroup of thread `tid` (`tid / 128`, `.b32`), read from the
    /// warp's lane 0 with `shfl.sync.idx` (CUTLASS's
    /// `canonical_warp_group_idx`), so that the assembler knows it is the
    /// same in every lane: branches on it leave warps converged, and values
    /// computed from it (wgmma descriptors, barrier ids) stay in uniform
    /// registers instead of being moved there with `R2UR` before each use.
    /// Every lane of the warp must execute it.
    ///
    /// ```
    /// use cutlet::ptx::{Kernel, RegClass};
    ///
    /// let mut k = Kernel::new("k").unwrap();
    /// let tid = k.reg(RegClass::B32);
    /// let wg = k.warpgroup_index(tid);
    /// let ptx = k.emit().unwrap();
    /// assert!(ptx.contains(&format!("shr.u32 {wg}, {tid}, 7;")));
    /// assert!(ptx.contains(&format!("shfl.sync.idx.b32 {wg}, {wg}, 0, 31, -1;")));
    /// ```
    pub fn warpgroup_index(&mut self, tid: Reg) -> Reg {
        let dst = self.reg(RegClass::B32);
        self.push(format!("shr.u32 {dst}, {tid}, 7;"));
        self.push(format!("shfl.sync.idx.b32 {dst}, {dst}, 0, 31, -1;"));
        dst
    }

    /// `cvta.to.global.u64 dst, src;`: a generic pointer to a global address.
    pub fn cvta_to_global(&mut self, dst: Reg, src: Reg) {
        self.push(format!("cvta.to.global.u64 {dst}, {src};"));
    }

    /// The 32-bit shared-window address of a shared variable in a fresh
    /// `.b32` register (`mov.u32 %r, name;`).
    pub fn shared_address(&mut self, var: &SharedVar) -> Reg {
        let dst = self.reg(RegClass::B32);
        self.push(format!("mov.u32 {dst}, {var};"));
        dst
    }

    /// A warp butterfly over `acc` (a 32-bit register): for masks
    /// `width / 2` down to 1, the value of lane `laneid ^ mask`
    /// (`shfl.sync.bfly`, all 32 lanes taking part) goes to `combine`,
    /// which folds it into `acc`. After it every lane of each aligned group
    /// of `width` lanes holds the group's result, combined in the same
    /// order on every lane. The reductions and the quantize kernels' amax
    /// use it.
    pub(crate) fn butterfly<E: From<PtxError>>(
        &mut self,
        acc: Reg,
        width: u32,
        mut combine: impl FnMut(&mut Kernel, Reg) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let other = self.reg(acc.class());
        let mut mask = width / 2;
        while mask >= 1 {
            self.snippet(
                "common/reduce",
                "shfl_bfly_f32",
                &[("dst", &other), ("src", &acc), ("mask", &mask)],
            )?;
            combine(self, other)?;
            mask /= 2;
        }
        Ok(())
    }

    /// Instantiates snippet `name` of `family` with `holes` and appends it.
    /// A snippet that uses `${@uniq}` gets a fresh [unique
    /// suffix](Self::unique_suffix), so it can be instantiated many times.
    pub fn snippet(
        &mut self,
        family: &str,
        name: &str,
        holes: &[(&str, &dyn fmt::Display)],
    ) -> Result<()> {
        let snippet = snippet(family, name)?;
        let uniq = if snippet.uses_unique_suffix() {
            self.unique_suffix()
        } else {
            String::new()
        };
        let text = snippet.fill(holes, &uniq)?;
        self.push(text);
        Ok(())
    }
}
