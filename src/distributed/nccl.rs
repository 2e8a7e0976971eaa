//! NCCL at run time: whether it loads, its errors as cutlet's, and the id
//! the ranks of a group started in separate processes share.

use cudarc::nccl::result::NcclError;

use crate::{Error, Result};

/// Whether `libnccl.so.2` can be loaded (where not, every constructor of
/// this module returns [`Error::NoNccl`]).
pub fn nccl_available() -> bool {
    // SAFETY: loads the library by name only to see that it exists; no
    // symbol is called.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// [`Error::NoNccl`] where NCCL cannot be loaded.
pub(crate) fn require_nccl() -> Result<()> {
    if nccl_available() {
        Ok(())
    } else {
        Err(Error::NoNccl)
    }
}

/// An NCCL failure while doing `context`.
pub(crate) fn nccl_error(context: impl Into<String>, error: NcclError) -> Error {
    Error::Nccl {
        context: context.into(),
        code: error.0,
    }
}

/// The id that ties the ranks of one group together across processes
/// (NCCL's `ncclUniqueId`): made once, on one rank, and handed to the
/// others (as 128 bytes, or as the hex text of [`to_hex`](Self::to_hex)
/// on a command line or in an environment variable).
///
/// ```
/// use cutlet::distributed::UniqueId;
///
/// let id = UniqueId::from_bytes(&[7u8; 128]).unwrap();
/// assert_eq!(UniqueId::from_hex(&id.to_hex()).unwrap().to_bytes(), [7u8; 128]);
/// assert!(UniqueId::from_bytes(&[0u8; 3]).is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId([u8; 128]);

impl std::fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "UniqueId({}...)", &self.to_hex()[..16])
    }
}

impl UniqueId {
    /// A new id (NCCL's `ncclGetUniqueId`; on rank 0, typically).
    ///
    /// Errors: [`Error::NoNccl`], or [`Error::Nccl`] where NCCL fails.
    pub fn new() -> Result<UniqueId> {
        require_nccl()?;
        let id = cudarc::nccl::result::get_uniqueid()
            .map_err(|e| nccl_error("making a unique id", e))?;
        let mut bytes = [0u8; 128];
        for (byte, &c) in bytes.iter_mut().zip(id.internal.iter()) {
            *byte = c as u8;
        }
        Ok(UniqueId(bytes))
    }

    /// The id's 128 bytes.
    pub fn to_bytes(&self) -> [u8; 128] {
        self.0
    }

    /// The id of these 128 bytes.
    ///
    /// Errors: [`Error::InvalidArgument`] naming the length otherwise.
    pub fn from_bytes(bytes: &[u8]) -> Result<UniqueId> {
        let bytes: [u8; 128] = bytes.try_into().map_err(|_| {
            Error::invalid_argument("unique id", format!("{} bytes", bytes.len()), "128 bytes")
        })?;
        Ok(UniqueId(bytes))
    }

    /// The id as 256 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The id of 256 hex digits.
    ///
    /// Errors: [`Error::InvalidArgument`] naming the text's length or its
    /// first character that is not a hex digit.
    pub fn from_hex(text: &str) -> Result<UniqueId> {
        let text = text.trim();
        if text.len() != 256 {
            return Err(Error::invalid_argument(
                "unique id",
                format!("{} characters", text.len()),
                "256 hex digits (UniqueId::to_hex)",
            ));
        }
        let mut bytes = [0u8; 128];
        for (i, byte) in bytes.iter_mut().enumerate() {
            let pair = &text[2 * i..2 * i + 2];
            *byte = u8::from_str_radix(pair, 16).map_err(|_| {
                Error::invalid_argument(
                    "unique id",
                    format!("`{pair}` at character {}", 2 * i),
                    "hex digits only",
                )
            })?;
        }
        Ok(UniqueId(bytes))
    }

    /// NCCL's id of these bytes.
    pub(crate) fn nccl(&self) -> cudarc::nccl::sys::ncclUniqueId {
        let mut internal = [0 as std::ffi::c_char; 128];
        for (c, &byte) in internal.iter_mut().zip(self.0.iter()) {
            *c = byte as std::ffi::c_char;
        }
        cudarc::nccl::sys::ncclUniqueId { internal }
    }
}
