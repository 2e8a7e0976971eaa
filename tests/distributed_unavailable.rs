//! Without NCCL at run time the multi-GPU constructors return a typed
//! `NoNccl` error (of kind `Unavailable`) and the rest of cutlet is
//! unaffected. Where NCCL loads (the GPU machine), it says so and checks
//! nothing else: `distributed_gpu.rs` runs there.

use cutlet::distributed::{nccl_available, TpRank, UniqueId};
use cutlet::{Error, ErrorKind};

#[test]
fn without_nccl_the_constructors_say_so() {
    if nccl_available() {
        println!("NCCL loads here: the constructors' Unavailable error is not reachable");
        return;
    }
    let err = UniqueId::new().unwrap_err();
    assert!(matches!(err, Error::NoNccl), "{err}");
    assert_eq!(err.kind(), ErrorKind::Unavailable);
    assert!(err.to_string().contains("libnccl"), "{err}");
    let err = TpRank::from_devices(&[]).unwrap_err();
    assert!(matches!(err, Error::NoNccl), "{err}");
    // The rest of cutlet does not need NCCL: a GEMM spec still builds.
    assert!(cutlet::device::gemm::Gemm::builder().spec().is_ok());
}
