//! [`TpRank`]: one GPU's place in a tensor-parallel group, over an NCCL
//! communicator with a stream of its own for the collectives.

use cudarc::nccl::Comm;

use super::nccl::{nccl_error, require_nccl, UniqueId};
use crate::device::Device;
use crate::{Error, Result};

/// One rank of a tensor-parallel group: its device and its NCCL
/// communicator, whose collectives run on a stream of their own so that
/// they overlap the GEMMs on the caller's stream.
///
/// ```no_run
/// use cutlet::device::Device;
/// use cutlet::distributed::TpRank;
/// # fn main() -> cutlet::Result<()> {
/// let devices = [Device::new(0)?, Device::new(1)?];
/// let ranks = TpRank::from_devices(&devices)?;
/// assert_eq!((ranks[1].rank(), ranks[1].world_size()), (1, 2));
/// // Drive each rank from a thread of its own (std::thread::scope).
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct TpRank {
    device: Device,
    comm: Comm,
}

// SAFETY: an NCCL communicator may move between threads; it is used from
// one thread at a time, as `TpRank` is not `Sync` (its calls take `&self`
// on the one thread that holds it).
unsafe impl Send for TpRank {}

impl TpRank {
    /// One rank per device, all in this process (NCCL's
    /// `ncclCommInitAll`): rank `i` on `devices[i]`. Drive each from a
    /// thread of its own: an NCCL collective of one rank waits for the
    /// others' calls.
    ///
    /// Errors: [`Error::NoNccl`] without NCCL; [`Error::InvalidArgument`]
    /// for no device or a device named twice; [`Error::Nccl`] or
    /// [`Error::Driver`] where NCCL or the driver fails.
    pub fn from_devices(devices: &[Device]) -> Result<Vec<TpRank>> {
        require_nccl()?;
        if devices.is_empty() {
            return Err(Error::invalid_argument(
                "devices",
                "none",
                "at least one device",
            ));
        }
        let mut seen = std::collections::BTreeSet::new();
        for device in devices {
            if !seen.insert(device.ordinal()) {
                return Err(Error::invalid_argument(
                    "devices",
                    format!("device {} twice", device.ordinal()),
                    "each device once (one rank per GPU)",
                ));
            }
        }
        let streams = devices
            .iter()
            .map(|d| {
                d.context()
                    .new_stream()
                    .map_err(|e| Error::driver("creating a stream for the collectives", e))
            })
            .collect::<Result<Vec<_>>>()?;
        let comms = Comm::from_devices(streams)
            .map_err(|e| nccl_error("creating the communicators (ncclCommInitAll)", e))?;
        Ok(devices
            .iter()
            .cloned()
            .zip(comms)
            .map(|(device, comm)| TpRank { device, comm })
            .collect())
    }

    /// Rank `rank` of `world_size` on `device`, joining the group of `id`
    /// (NCCL's `ncclCommInitRank`): one call in each process, every one
    /// with the same id (made by [`UniqueId::new`] on one of them). Blocks
    /// until every rank has joined.
    ///
    /// Errors: [`Error::NoNccl`]; [`Error::InvalidArgument`] for a rank
    /// not below `world_size`; [`Error::Nccl`] or [`Error::Driver`].
    pub fn from_rank(
        device: &Device,
        rank: usize,
        world_size: usize,
        id: &UniqueId,
    ) -> Result<TpRank> {
        require_nccl()?;
        if rank >= world_size || i32::try_from(world_size).is_err() {
            return Err(Error::invalid_argument(
                "rank",
                format!("{rank} of {world_size}"),
                "a rank below the world size (which fits an i32)",
            ));
        }
        let stream = device
            .context()
            .new_stream()
            .map_err(|e| Error::driver("creating a stream for the collectives", e))?;
        let comm = Comm::from_rank(stream, rank, world_size, id.nccl()).map_err(|e| {
            nccl_error(
                format!("joining the group as rank {rank} of {world_size} (ncclCommInitRank)"),
                e,
            )
        })?;
        Ok(TpRank {
            device: device.clone(),
            comm,
        })
    }

    /// This rank's index in the group.
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }

    /// How many ranks the group has.
    pub fn world_size(&self) -> usize {
        self.comm.world_size()
    }

    /// The device this rank runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The NCCL communicator.
    pub(crate) fn comm(&self) -> &Comm {
        &self.comm
    }
}
