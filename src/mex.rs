//! MEX functions: a translation's CPU program and its gateway (`<name>_mex.c`, printed by
//! `m2cu_codegen::mex`), written into a folder and built with GNU Octave's `mkoctfile --mex`
//! into `<name>_mex.mex`, which Octave calls as `<name>_mex(...)`. MATLAB builds the same
//! three files with `mex` (the command is in the gateway's first comment).
//!
//! Invariant: the files written are exactly the ones the build reads, so a folder that
//! [`write_mex_sources`] filled builds the same MEX function anywhere `mkoctfile` or `mex` is.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Error, Translation};

/// How to build a MEX function.
#[derive(Clone, Debug, Default)]
pub struct MexOptions {
    /// The `mkoctfile` to run: `$MKOCTFILE` when set, else `mkoctfile` on the `PATH`.
    pub mkoctfile: Option<PathBuf>,
}

impl MexOptions {
    fn mkoctfile(&self) -> PathBuf {
        self.mkoctfile
            .clone()
            .or_else(|| std::env::var_os("MKOCTFILE").map(PathBuf::from))
            .unwrap_or_else(|| PathBuf::from("mkoctfile"))
    }
}

/// What [`build_mex`] made.
#[derive(Clone, Debug)]
pub struct MexBuild {
    /// The sources it wrote: `<name>.c`, `<name>.h` and `<name>_mex.c`, and for a program with
    /// kernels `<name>_gpu.c`, `<name>_kernels.c` and `m2cu_cuda.c`, which the gateway includes.
    pub sources: Vec<PathBuf>,
    /// The MEX file, `<name>_mex.mex`.
    pub mex_file: PathBuf,
}

/// The MEX function's name: GPU Coder's convention, `<name>_mex`.
pub fn mex_name(t: &Translation) -> String {
    format!("{}_mex", t.entry)
}

/// Whether the MEX function has a GPU path: the program has kernels.
fn has_gpu_path(t: &Translation) -> bool {
    !t.generated.kernel_names.is_empty()
}

/// Writes the CPU program, its header and the MEX gateway into `dir`, and for a program with
/// kernels the files the gateway includes: the GPU program, the CUDA services and the kernels.
pub fn write_mex_sources(t: &Translation, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let g = &t.generated;
    let mut files = vec![
        (format!("{}.c", t.entry), g.c_source.clone()),
        (format!("{}.h", t.entry), g.c_header.clone()),
        (format!("{}.c", mex_name(t)), g.mex_c.clone()),
    ];
    if has_gpu_path(t) {
        files.extend([
            (format!("{}_gpu.c", t.entry), g.gpu_host_c.clone()),
            (
                format!("{}_kernels.c", t.entry),
                m2cu_codegen::mex::kernels_source(&g.kernels_cu),
            ),
            (
                "m2cu_cuda.c".to_string(),
                m2cu_codegen::mex::CUDA_SERVICES.to_string(),
            ),
        ]);
    }
    crate::write_files(dir, files.iter().map(|(name, text)| (name.clone(), text)))
}

/// Writes the sources into `dir` and builds `<name>_mex.mex` there with `mkoctfile --mex`.
/// Without `mkoctfile` the sources are written and the error says how to get it.
pub fn build_mex(t: &Translation, dir: &Path, options: &MexOptions) -> Result<MexBuild, Error> {
    let io = |e: std::io::Error| {
        Error::Usage(format!(
            "cannot write the MEX sources into {}: {e}",
            dir.display()
        ))
    };
    let sources = write_mex_sources(t, dir).map_err(io)?;
    let name = mex_name(t);
    let mkoctfile = options.mkoctfile();
    let output = Command::new(&mkoctfile)
        .current_dir(dir)
        // The files first: mkoctfile passes an option it does not know (`-std=c99`) to the
        // compiler together with the word after it.
        .args(["--mex", &format!("{name}.c"), &format!("{}.c", t.entry)])
        .args(m2cu_codegen::mex::CFLAGS.split(' '))
        .args(["-DM2CU_MEX", "-o", &name])
        // The GPU path loads the CUDA driver and NVRTC with dlopen.
        .args(has_gpu_path(t).then_some("-ldl"))
        .output()
        .map_err(|e| {
            Error::Runtime(m2cu_runtime::Error::Unavailable(format!(
                "cannot run {}: {e}; the sources are in {}\nhelp: install GNU Octave's mkoctfile (Debian: apt-get install liboctave-dev), or build them in MATLAB with the `mex` command at the top of {name}.c",
                mkoctfile.display(),
                dir.display()
            )))
        })?;
    if !output.status.success() {
        return Err(Error::Runtime(m2cu_runtime::Error::Compile {
            command: format!("{} --mex ... {name}.c {}.c", mkoctfile.display(), t.entry),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }));
    }
    Ok(MexBuild {
        sources,
        mex_file: dir.join(format!("{name}.mex")),
    })
}
