use cutlet::device::{get_or_load, Device, KernelArgs, LaunchConfig};
fn generate_ptx() -> cutlet::Result<String> {
    Ok(".version 8.0\n.target sm_80\n.address_size 64\n\
        .visible .entry times_three(.param .u64 out_ptr, .param .u32 n)\n{\n\
        .reg .pred %p<2>;\n.reg .b32 %r<7>;\n.reg .b64 %rd<4>;\n\
        ld.param.u64 %rd1, [out_ptr];\nld.param.u32 %r1, [n];\n\
        mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n\
        mad.lo.u32 %r5, %r2, %r3, %r4;\nsetp.ge.u32 %p1, %r5, %r1;\n@%p1 bra DONE;\n\
        cvta.to.global.u64 %rd1, %rd1;\nmul.wide.u32 %rd2, %r5, 4;\n\
        add.u64 %rd3, %rd1, %rd2;\nmul.lo.u32 %r6, %r5, 3;\n\
        st.global.u32 [%rd3], %r6;\nDONE:\nret;\n}\n".to_string())
}
pub fn main() -> cutlet::Result<()> {
let device = Device::new(0)?;
let stream = device.default_stream();
let mut out = stream.alloc_zeros::<u32>(1000).expect("allocation");
let kernel = get_or_load(&device, &"times_three", || "times_three".into(), generate_ptx)?;
let mut args = KernelArgs::new(&stream);
args.output(&mut out).scalar(1000u32);
// SAFETY: `times_three(.u64 out, .u32 n)` writes out[0..n) and `out` holds n values.
unsafe { kernel.function().launch(&LaunchConfig::for_elements(1000, 256), args)? };
assert_eq!(stream.clone_dtoh(&out).expect("copy")[999], 2997);
Ok(())
}
