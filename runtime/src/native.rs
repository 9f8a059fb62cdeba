//! Generated C → shared object, through the system C compiler and the build cache; shared by the
//! CPU path and the GPU host library.
//!
//! The compiler is `BuildOptions::compiler`, else `$CC`, else `cc` (a value with spaces, like
//! `ccache gcc`, is split into a program and leading arguments). Flags are
//! `-std=c99 -ffp-contract=off -Werror=trigraphs -fPIC -shared` with `-O3` (`-O0` for the
//! emulator's host program, see [`Optimization`]), plus `-fopenmp` when wanted and the compiler
//! accepts it ([`crate::probe`]), plus `-lm`. The ABI header is put
//! beside the source, so generated code may `#include "m2cu_abi.h"`. The cache key covers the
//! source, the header, the compiler and the flags. A loaded library stays loaded until the
//! process exits (see [`open_forever`]); loading the same file again reuses it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use crate::abi::{ReleaseFn, HEADER, HEADER_NAME};
use crate::{cache, probe, Error, Result};

/// How generated C is built.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Where built libraries are kept; default `$M2CU_CACHE_DIR`, `$XDG_CACHE_HOME/m2cu` or
    /// `~/.cache/m2cu`.
    pub cache_dir: Option<PathBuf>,
    /// The C compiler command; default `$CC`, else `cc`.
    pub compiler: Option<String>,
    /// Build with `-fopenmp` when the compiler supports it (default true).
    pub openmp: bool,
    /// How hard the compiler optimizes the CPU program and the GPU host program (default
    /// [`Optimization::Speed`]); the emulated GPU's host program is always built for
    /// [`Optimization::BuildTime`].
    pub optimization: Optimization,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            cache_dir: None,
            compiler: None,
            openmp: true,
            optimization: Optimization::Speed,
        }
    }
}

/// `-ffp-contract=off`: `a*b + c` rounds twice, as in MATLAB, even where the CPU has FMA.
/// `-Werror=trigraphs`: ISO C99 turns `??/` into a backslash; the generated code never holds a trigraph
/// (strings are octal-escaped, see m2cu_codegen::c_text), and this makes one a build error rather
/// than a silent change of meaning (gcc and clang accept it; gcc cannot turn trigraphs off).
const BASE_FLAGS: [&str; 5] = [
    "-std=c99",
    "-ffp-contract=off",
    "-Werror=trigraphs",
    "-fPIC",
    "-shared",
];

/// How hard the C compiler optimizes a generated program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Optimization {
    /// `-O3`: the CPU path and the GPU host program, which users time. It vectorizes counts
    /// (3.6 times the hand-written loop at `-O2` in m2cu-bench). Not `-march=native`: with it
    /// GCC 12 turns a running maximum's `if (x > m) m = x;` into `vmaxsd`, a chain of dependent
    /// instructions that made m2cu-bench's max half as fast as the branch the CPU predicts.
    Speed,
    /// `-O0`: the emulated GPU's host program, a checking tool whose time goes into the emulated
    /// kernels, and any program built to be checked rather than timed (`m2cu run
    /// --quick-build`). The generated function is one large body (every call is inlined),
    /// where GCC's `-O2` spends tens of seconds on data flow (22 s for fixture leontief's host,
    /// 1 s at `-O0`); the results are the same bits (no `-ffast-math`, SSE arithmetic at every
    /// level).
    BuildTime,
}

impl Optimization {
    fn flag(self) -> &'static str {
        match self {
            Optimization::Speed => "-O3",
            Optimization::BuildTime => "-O0",
        }
    }
}

/// A built and loaded shared object that exports `m2cu_release`.
pub(crate) struct SharedObject {
    path: PathBuf,
    release: ReleaseFn,
    library: &'static libloading::Library,
}

/// How one kind of generated source becomes a shared object.
struct Recipe {
    compiler: Vec<String>,
    flags: Vec<&'static str>,
    /// The source file's extension, which tells the compiler the language.
    extension: &'static str,
    /// Headers written beside the source: (file name, text).
    headers: Vec<Header>,
    /// One of them to precompile (`NAME.gch`, cached, linked beside it when the source is
    /// compiled), which GCC reads in place of the text when it was made with the same compiler
    /// and flags, and ignores otherwise.
    precompiled: Option<Header>,
}

/// A header file: its name and text.
pub(crate) type Header = (&'static str, &'static str);

impl Recipe {
    /// Builds `source` (cached) into a shared object; `stem` names the source file in compiler
    /// messages.
    fn build(&self, source: &str, stem: &str, opts: &BuildOptions) -> Result<PathBuf> {
        let dir = cache::cache_dir(opts.cache_dir.as_deref())?;
        let (compiler, flags) = (self.compiler.join(" "), self.flags.join(" "));
        let mut parts: Vec<&[u8]> = vec![source.as_bytes()];
        parts.extend(self.headers.iter().map(|(_, text)| text.as_bytes()));
        parts.extend([compiler.as_bytes(), flags.as_bytes()]);
        let key = cache::key(&parts);
        cache::cached(&dir, &format!("{key}.so"), |scratch| {
            // Only a build needs the precompiled header: a cached library does not make or
            // check it.
            let gch = self.precompiled.and_then(|h| self.precompile(h, &dir));
            compile(self, source, stem, scratch, gch.as_deref())
        })
    }

    /// `header` precompiled with this recipe's compiler and flags (cached in `dir`), or `None`
    /// when that fails (a compiler without GCC's precompiled headers): the build then reads
    /// the text.
    fn precompile(&self, (name, text): Header, dir: &Path) -> Option<PathBuf> {
        let (compiler, flags) = (self.compiler.join(" "), self.flags.join(" "));
        let key = cache::key(&[
            text.as_bytes(),
            compiler.as_bytes(),
            flags.as_bytes(),
            b"gch",
        ]);
        let made = cache::cached(dir, &format!("{key}.gch"), |scratch| {
            std::fs::write(scratch.join(name), text)
                .map_err(|e| Error::io(format!("cannot write {name}"), e))?;
            let out = scratch.join(format!("{name}.gch"));
            let mut cmd = self.command(|f| f != "-shared");
            cmd.args(["-x", "c++-header", name, "-o"])
                .arg(&out)
                .current_dir(scratch);
            run_compiler(cmd)?;
            Ok(out)
        });
        made.ok()
    }

    /// The compiler with its leading arguments and the flags that `keep` keeps.
    fn command(&self, keep: impl Fn(&str) -> bool) -> Command {
        let mut cmd = Command::new(&self.compiler[0]);
        cmd.args(&self.compiler[1..])
            .args(self.flags.iter().filter(|f| keep(f)));
        cmd
    }
}

impl SharedObject {
    /// Builds C `source` (cached) at `optimization` and loads it; `stem` names the source file
    /// in compiler messages.
    pub(crate) fn build(
        source: &str,
        stem: &str,
        opts: &BuildOptions,
        optimization: Optimization,
    ) -> Result<SharedObject> {
        let compiler = compiler_command(opts.compiler.clone(), "CC", "cc");
        let mut flags: Vec<&str> = BASE_FLAGS.to_vec();
        flags.push(optimization.flag());
        if opts.openmp && probe::accepts(&compiler, "-fopenmp", opts.cache_dir.as_deref()) {
            flags.push("-fopenmp");
        }
        let recipe = Recipe {
            compiler,
            flags,
            extension: "c",
            headers: vec![(HEADER_NAME, HEADER)],
            precompiled: None,
        };
        load(recipe.build(source, stem, opts)?)
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn release_fn(&self) -> ReleaseFn {
        self.release
    }

    /// The exported function `name`, as a function pointer of type `F`.
    ///
    /// # Safety
    /// `F` must be the function's true type. The pointer is valid while `self` lives.
    pub(crate) unsafe fn function<F: Copy>(&self, name: &str) -> Result<F> {
        function(self.library, &self.path, name)
    }
}

fn load(path: PathBuf) -> Result<SharedObject> {
    let library = open_forever(&path)?;
    // SAFETY: the ABI declares `void m2cu_release(void *)`.
    let release = unsafe { function::<ReleaseFn>(library, &path, "m2cu_release") }?;
    Ok(SharedObject {
        path,
        release,
        library,
    })
}

/// Loads `path` once per process and never unloads it. Unloading is unsafe here: a library that
/// ran an OpenMP region is the last user of libgomp, which is not marked NODELETE, so closing it
/// unmaps libgomp under its idle worker threads and crashes the process.
fn open_forever(path: &Path) -> Result<&'static libloading::Library> {
    static LOADED: OnceLock<Mutex<HashMap<PathBuf, &'static libloading::Library>>> =
        OnceLock::new();
    let mut loaded = LOADED
        .get_or_init(Default::default)
        .lock()
        .expect("library registry lock");
    if let Some(&library) = loaded.get(path) {
        return Ok(library);
    }
    // SAFETY: the library is m2cu-generated C; its initializers are the C runtime's only.
    let library = unsafe { libloading::Library::new(path) }
        .map_err(|e| Error::Load(format!("cannot load {}: {e}", path.display())))?;
    let library: &'static libloading::Library = Box::leak(Box::new(library));
    loaded.insert(path.to_path_buf(), library);
    Ok(library)
}

/// # Safety
/// `F` must be the true type of the exported function.
pub(crate) unsafe fn function<F: Copy>(
    library: &libloading::Library,
    path: &Path,
    name: &str,
) -> Result<F> {
    let symbol = library.get::<F>(name.as_bytes()).map_err(|e| {
        Error::Load(format!(
            "{} does not export `{name}` (is the entry name right?): {e}",
            path.display()
        ))
    })?;
    Ok(*symbol)
}

/// Builds C++ `source` (cached) into a shared object and loads it for good; for the CUDA
/// emulation, whose library exports no `m2cu_release`. `source` includes `header` first, which
/// is precompiled once per compiler and header text (cached, some 80 MB; made or checked only
/// when a library has to be built): the emulator's shim
/// is most of a small kernel library's build time (1.1 s of it; 0.3 s from the precompiled
/// header). The compiler is `$CXX`, else `c++`.
/// `-U_FORTIFY_SOURCE`: the emulator's fibers switch stacks with `_longjmp`, which a fortified
/// glibc (the default of Ubuntu's gcc) checks against the current stack and aborts.
pub(crate) fn build_cxx(
    header: Header,
    source: &str,
    stem: &str,
    opts: &BuildOptions,
) -> Result<(PathBuf, &'static libloading::Library)> {
    let recipe = Recipe {
        compiler: compiler_command(None, "CXX", "c++"),
        flags: vec![
            "-std=c++20",
            "-O1",
            "-ffp-contract=off",
            "-fPIC",
            "-shared",
            "-pthread",
            "-U_FORTIFY_SOURCE",
        ],
        extension: "cpp",
        headers: vec![(HEADER_NAME, HEADER), header],
        precompiled: Some(header),
    };
    let path = recipe.build(source, stem, opts)?;
    let library = open_forever(&path)?;
    Ok((path, library))
}

/// The compiler program and its leading arguments: `chosen`, else `$<variable>`, else
/// `fallback`.
fn compiler_command(chosen: Option<String>, variable: &str, fallback: &str) -> Vec<String> {
    let text = chosen
        .or_else(|| std::env::var(variable).ok())
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| fallback.to_string());
    text.split_whitespace().map(str::to_string).collect()
}

/// Writes the source and header into `scratch` and builds `scratch/<stem>.so`.
/// Compiles `source` in `scratch` with the recipe's headers beside it (and `gch`, the
/// precompiled one, linked there).
fn compile(
    recipe: &Recipe,
    source: &str,
    stem: &str,
    scratch: &Path,
    gch: Option<&Path>,
) -> Result<PathBuf> {
    let write = |name: &str, text: &str| {
        std::fs::write(scratch.join(name), text)
            .map_err(|e| Error::io(format!("cannot write {name} into {}", scratch.display()), e))
    };
    let file = format!("{stem}.{}", recipe.extension);
    write(&file, source)?;
    for (name, text) in &recipe.headers {
        write(name, text)?;
    }
    if let (Some((name, _)), Some(gch)) = (recipe.precompiled, gch) {
        // Without the link GCC reads the header's text: slower, the same result.
        let _ = std::os::unix::fs::symlink(gch, scratch.join(format!("{name}.gch")));
    }
    let out = scratch.join(format!("{stem}.so"));
    let mut cmd = recipe.command(|_| true);
    cmd.arg("-I.")
        .arg("-o")
        .arg(&out)
        .arg(&file)
        .arg("-lm")
        .current_dir(scratch);
    run_compiler(cmd)?;
    Ok(out)
}

fn run_compiler(mut cmd: Command) -> Result<()> {
    let command = format!("{cmd:?}");
    let output = cmd.output().map_err(|e| {
        Error::io(
            format!("cannot run the C compiler ({command}); set CC or install cc"),
            e,
        )
    })?;
    if output.status.success() {
        return Ok(());
    }
    Err(Error::Compile {
        command,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}
