//! Shared helpers for the atoms' `emit` methods: register checks and hole names.

use std::fmt;

use crate::ptx::{Kernel, Reg, RegClass};
use crate::{Error, Result};

/// Checks that `regs` holds `count` registers of `class`, naming the operand.
pub(crate) fn check_regs(operand: &str, regs: &[Reg], count: usize, class: RegClass) -> Result<()> {
    if regs.len() != count {
        return Err(Error::invalid_argument(
            operand,
            format!("{} registers", regs.len()),
            format!("{count} {class} registers"),
        ));
    }
    if let Some(bad) = regs.iter().find(|r| r.class() != class) {
        return Err(Error::invalid_argument(
            operand,
            format!("register {bad} of class {}", bad.class()),
            format!("{count} {class} registers"),
        ));
    }
    Ok(())
}

/// Hole names `prefix0..prefixN-1`, or just `prefix` for one register.
pub(crate) fn hole_names(prefix: &str, count: usize) -> Vec<String> {
    if count == 1 {
        vec![prefix.to_string()]
    } else {
        (0..count).map(|i| format!("{prefix}{i}")).collect()
    }
}

/// Instantiates `family`/`name` with register groups (`(prefix, regs)`) and
/// extra named holes.
pub(crate) fn emit_snippet(
    k: &mut Kernel,
    family: &str,
    name: &str,
    groups: &[(&str, &[Reg])],
    extra: &[(&str, &dyn fmt::Display)],
) -> Result<()> {
    let names: Vec<Vec<String>> = groups
        .iter()
        .map(|(prefix, regs)| hole_names(prefix, regs.len()))
        .collect();
    let mut holes: Vec<(&str, &dyn fmt::Display)> = Vec::new();
    for ((_, regs), names) in groups.iter().zip(&names) {
        for (reg, name) in regs.iter().zip(names) {
            holes.push((name.as_str(), reg as &dyn fmt::Display));
        }
    }
    holes.extend_from_slice(extra);
    k.snippet(family, name, &holes)?;
    Ok(())
}
