//! The host side of the proving kernel: `c = a + b`, checked, cached, launched.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::cache::get_or_load;
use super::device::Device;
use super::launch::{KernelArgs, LaunchConfig};
use crate::kernel::vector_add::VectorAddSpec;
use crate::numeric::Element;
use crate::{Error, Result};

/// Adds `a` and `b` element by element into `c` (`c[i] = a[i] + b[i]`) on
/// `stream`, a stream of `device` (the stream last, as in every family),
/// with the [`vector_add`](crate::kernel::vector_add) kernel generated for the
/// device's architecture, compiled on first use and cached.
///
/// Supported element types: `f32` and `half::f16`. Empty vectors are a no-op.
///
/// Errors: [`Error::InvalidArgument`] when the lengths differ, a buffer is not
/// 16-byte aligned, the element type is not supported or `stream` is not a
/// stream of `device`;
/// [`Error::UnsupportedArch`] on a GPU older than compute capability 7.0;
/// driver and JIT errors with the kernel's name.
///
/// ```no_run
/// # fn main() -> cutlet::Result<()> {
/// use cutlet::device::{vector_add, Device};
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let a = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
/// let b = stream.clone_htod(&[10.0f32, 20.0, 30.0]).unwrap();
/// let mut c = stream.alloc_zeros::<f32>(3).unwrap();
/// vector_add(&device, &a, &b, &mut c, &stream)?;
/// assert_eq!(stream.clone_dtoh(&c).unwrap(), [11.0, 22.0, 33.0]);
/// # Ok(())
/// # }
/// ```
pub fn vector_add<T: Element>(
    device: &Device,
    a: &CudaSlice<T>,
    b: &CudaSlice<T>,
    c: &mut CudaSlice<T>,
    stream: &Arc<CudaStream>,
) -> Result<()> {
    device.check_stream(stream)?;
    let n = a.len();
    for (name, len) in [("b", b.len()), ("c", c.len())] {
        if len != n {
            return Err(Error::invalid_argument(
                format!("{name}.len()"),
                len,
                format!("the length of a, {n}"),
            ));
        }
    }
    let Some(arch) = device.arch() else {
        let (major, minor) = device.compute_capability();
        return Err(Error::UnsupportedArch {
            kernel: "vector_add".into(),
            required: "compute capability 7.0 or newer".into(),
            ordinal: device.ordinal(),
            major,
            minor,
        });
    };
    let spec = VectorAddSpec {
        element: T::TYPE,
        arch,
    };
    if !VectorAddSpec::SUPPORTED.contains(&T::TYPE) {
        return Err(Error::invalid_argument(
            "element type",
            T::TYPE,
            "f32 or f16 (the vector_add kernel's types)",
        ));
    }
    let mut args = KernelArgs::new(stream);
    args.aligned_input("a", a, 16)?
        .aligned_input("b", b, 16)?
        .aligned_output("c", c, 16)?
        .scalar(n as u64);
    if n == 0 {
        return Ok(());
    }
    let kernel = get_or_load(device, &spec, || spec.kernel_name(), || Ok(spec.ptx()?))?;
    let (grid, block) = spec.grid(n as u64, device.limits().sm_count);
    let config = LaunchConfig {
        grid: (grid, 1, 1),
        block: (block, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: the kernel's params are (a: u64, b: u64, c: u64, n: u64), pushed in
    // that order; a, b and c each hold n elements of the spec's type (checked
    // above), are 16-byte aligned (checked above), and `c` is a distinct
    // allocation from `a` and `b` (it is borrowed mutably); the launch uses the
    // spec's block size, and the grid-stride loop stays below n.
    unsafe { kernel.function().launch(&config, args) }
}
