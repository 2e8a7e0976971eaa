use cutlet::device::Device;
use cutlet::distributed::TpRank;
pub fn main() -> cutlet::Result<()> {
let devices = [Device::new(0)?, Device::new(1)?];
let ranks = TpRank::from_devices(&devices)?;
assert_eq!((ranks[1].rank(), ranks[1].world_size()), (1, 2));
// Drive each rank from a thread of its own (std::thread::scope).
Ok(())
}
