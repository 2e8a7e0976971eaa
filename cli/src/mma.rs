//! `cutlet mma NAME`: the thread/value layouts of an MMA atom, or of a tiled
//! MMA over warps, as text or as one SVG picture (CuTe's `print_latex`).

use std::process::ExitCode;

use cutlet::atom::{MmaAtom, MmaSource};
use cutlet::tiled::{MmaPicture, TiledMma};

/// Arguments of `cutlet mma`.
#[derive(clap::Args, Debug)]
pub struct MmaArgs {
    /// The atom's CuTe name, e.g. SM80_16x8x16_F32BF16BF16F32_TN.
    pub name: String,
    /// Write the picture (A left of C, B above C, as CuTe's print_latex) to FILE instead of printing the grids.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<std::path::PathBuf>,
    /// Draw the tiled MMA of the atom over MxN[xK] warps, e.g. 2x2.
    #[arg(long, value_name = "MxN[xK]")]
    pub warps: Option<String>,
}

/// Runs `cutlet mma`.
pub fn run(args: &MmaArgs) -> ExitCode {
    match picture(args) {
        Ok(picture) => match &args.svg {
            Some(path) => match std::fs::write(path, picture.to_svg()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: cannot write {}: {e}", path.display());
                    ExitCode::from(2)
                }
            },
            None => {
                crate::out::out!("{}", picture.to_text());
                if let Some(note) = shared_operand_note(&args.name) {
                    crate::out::outln!("{note}");
                }
                ExitCode::SUCCESS
            }
        },
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// What the A and B grids of a wgmma atom show: an operand read through a
/// shared-memory descriptor is not split among threads (CuTe's `ABLayout`,
/// thread stride 0), so every thread holds every cell and each is labelled
/// with thread 0.
fn shared_operand_note(name: &str) -> Option<String> {
    let atom = MmaAtom::named(name)?;
    let operands = match atom.source() {
        MmaSource::SharedShared => "A and B are",
        MmaSource::RegisterShared => "B is",
        MmaSource::Registers => return None,
    };
    Some(format!(
        "note: {operands} read from shared memory through a descriptor by the whole warpgroup: \
         every thread's layout is the whole tile (thread stride 0), so those cells show T0 and the \
         value index"
    ))
}

/// The picture the arguments ask for.
fn picture(args: &MmaArgs) -> cutlet::Result<MmaPicture> {
    let atom = MmaAtom::lookup(&args.name)?;
    match &args.warps {
        Some(text) => MmaPicture::of_tiled(&TiledMma::new(atom, parse_warps(text)?)?),
        None => MmaPicture::of_atom(atom),
    }
}

/// `MxN` or `MxNxK` as `[M, N, K]` (K defaults to 1).
fn parse_warps(text: &str) -> cutlet::Result<[i64; 3]> {
    let counts: Option<Vec<i64>> = text.split('x').map(|s| s.trim().parse().ok()).collect();
    match counts.as_deref() {
        Some(&[m, n]) => Ok([m, n, 1]),
        Some(&[m, n, k]) => Ok([m, n, k]),
        _ => Err(cutlet::Error::invalid_argument(
            "--warps",
            text,
            "MxN or MxNxK warp counts, e.g. 2x2",
        )),
    }
}
