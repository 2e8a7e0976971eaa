//! [`SharedVar`]: static and dynamic shared-memory declarations.

use std::fmt;

/// A shared-memory byte array of a kernel. `Display` writes its name, which
/// PTX accepts as an address (`mov.u32 %r0, tile;`, `ld.shared.b32 %r1, [tile+4];`).
///
/// Emitted at module scope just before its kernel's `.entry`:
/// static arrays as `.shared .align A .b8 name[N];`, the dynamic one as
/// `.extern .shared .align A .b8 name[];` (its size is the launch's dynamic
/// shared-memory size).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SharedVar {
    name: String,
    align: u32,
    size: Option<u32>,
}

impl SharedVar {
    pub(crate) fn new(name: String, align: u32, size: Option<u32>) -> SharedVar {
        SharedVar { name, align, size }
    }

    /// The variable's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Alignment in bytes.
    pub fn align(&self) -> u32 {
        self.align
    }

    /// Size in bytes of a static array; `None` for dynamic shared memory.
    pub fn size(&self) -> Option<u32> {
        self.size
    }

    /// The module-scope declaration.
    pub(crate) fn declaration(&self) -> String {
        match self.size {
            Some(size) => format!(".shared .align {} .b8 {}[{size}];", self.align, self.name),
            None => format!(".extern .shared .align {} .b8 {}[];", self.align, self.name),
        }
    }
}

impl fmt::Display for SharedVar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}
