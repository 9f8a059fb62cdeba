//! m2cu code generation: the analyzed IR → CUDA kernels, the C/OpenMP CPU program, the GPU host
//! programs, and a standalone `.cu` for nvcc users.
//!
//! Shared by every output: [`names`] (C identifiers), [`prelude`] (MATLAB scalar semantics in
//! C/CUDA), [`expr`] and [`stmt`] (IR → C text; the statement writer takes its [`stmt::Target`]),
//! [`reduce`] (identities, combines and host merges of the reduction operators), [`model`] (what
//! each kernel takes and accumulates, decided once: its parameters, its accumulators, its binned
//! array). The printers: [`cuda`] (kernels, CUDA atomics, shuffle trees, shared-memory bins; the
//! only module with CUDA intrinsics), [`openmp`] (the CPU program's parallel loops; the only one
//! with `#pragma omp`), [`launch`] (kernel launches in the GPU host programs) and [`host`] (the
//! entry function frame).
//!
//! Invariant: all outputs are written from the same IR by the same statement writer, so the CPU
//! program and the GPU program differ only in how a planned loop runs.

pub mod c_text;
mod code;
pub mod combine;
pub mod cuda;
mod defined;
pub mod expr;
pub mod failure;
pub mod host;
pub mod keywords;
pub mod launch;
pub mod mex;
pub mod model;
pub mod names;
pub mod openmp;
pub mod openmp_tiles;
pub mod prelude;
mod print;
pub mod raise;
pub mod reduce;
pub mod report_html;
pub mod residency;
pub mod sites;
pub mod stmt;
pub mod summary;
pub mod trace;

use std::collections::HashMap;

use askama::Template;
use m2cu_analysis::{Analysis, Kernel};
use m2cu_frontend::ir::{Fill, Function, StmtKind};

use host::Flavor;
use names::Names;
use stmt::Context;

/// The C ABI every entry function follows.
pub const ABI_HEADER: &str = include_str!("c/m2cu_abi.h");

/// Marks where the shared prelude ends and the function-specific code begins in every output.
pub const GENERATED_MARKER: &str = "/* ==== code generated for this function ==== */\n";

/// What the generators need besides the IR.
#[derive(Clone, Copy, Debug)]
pub struct CodegenOptions<'a> {
    /// The MATLAB file name, for comments.
    pub file_name: &'a str,
    /// The MATLAB source files, for line numbers in comments.
    pub sources: &'a m2cu_frontend::sources::SourceMap,
    /// Check every index against the array's extents (MATLAB's behaviour); `false` trusts the
    /// program's indices, which is faster and undefined when an index is out of range.
    pub bounds_checks: bool,
    /// Merge the block partials of floating sums and products in a fixed order (slots and a
    /// last-block tree) instead of atomics: bit-identical results from run to run on one device.
    /// (The C path always folds per-thread slots in thread order.)
    pub deterministic: bool,
    /// The seed of the random stream `rand`/`randn` draw from (compiled into programs that
    /// draw; others do not depend on it).
    pub seed: u64,
    /// Start each statement's code with `#line N "file.m"` (`--line-directives`), so that
    /// compiler and sanitizer messages name the MATLAB line (see [`trace`]).
    pub line_directives: bool,
}

/// The generated program.
#[derive(Clone, Debug, PartialEq)]
pub struct Generated {
    /// The entry function's C symbol: its MATLAB name, renamed when that is reserved in C, C++
    /// or CUDA (`int` → `int_1`); the GPU host program exports it with `_gpu` appended.
    pub entry: String,
    /// `<entry>.kernels.cu`: device code only, for NVRTC.
    pub kernels_cu: String,
    /// `<entry>.c`: the CPU program (C99 + OpenMP).
    pub c_source: String,
    /// `<entry>.h`: the ABI and the prototypes.
    pub c_header: String,
    /// `<entry>.cu`: kernels plus a host entry over the CUDA runtime API, for nvcc.
    pub standalone_cu: String,
    /// The GPU host program the m2cu runtime builds; exports `<entry>_gpu`.
    pub gpu_host_c: String,
    /// `<name>_mex.c`: the MEX gateway that calls the CPU program from GNU Octave or MATLAB
    /// (see [`mex`]).
    pub mex_c: String,
    pub kernel_names: Vec<String>,
    /// Each kernel of the plan described for readers ([`summary`]).
    pub kernels: Vec<summary::KernelSummary>,
}

#[derive(Template)]
#[template(path = "unit.txt", escape = "none")]
struct Unit<'a> {
    banner: &'a str,
    file_name: &'a str,
    includes: &'a str,
    abi: &'a str,
    prelude: &'a str,
    kernels: &'a str,
    host: &'a str,
}

const C_INCLUDES: &str = "#include <float.h>\n#include <limits.h>\n#include <math.h>\n#include <stdarg.h>\n#include <stdbool.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n";

/// Whether `f` draws from the random stream (`rand`/`randn` fills).
fn draws_random(f: &Function) -> bool {
    let mut draws = false;
    f.walk_stmts(&f.body, &mut |s| {
        draws |= matches!(f.stmts[s].kind, StmtKind::Alloc { fill, .. } if fill.is_random());
    });
    draws
}

/// Whether `f` reads the host's clock (`tic`/`toc`: `Fill::Clock`).
fn reads_clock(f: &Function) -> bool {
    let mut reads = false;
    f.walk_stmts(&f.body, &mut |s| {
        reads |= matches!(
            f.stmts[s].kind,
            StmtKind::Alloc {
                fill: Fill::Clock,
                ..
            }
        );
    });
    reads
}

/// Generates every output for the entry function `f`.
pub fn generate(f: &Function, analysis: &Analysis, options: &CodegenOptions) -> Generated {
    let kernel_names = kernel_names(analysis);
    let names = Names::new(f, &kernel_names);
    let undefined_sizes = defined::maybe_undefined_sizes(f);
    let ctx = Context {
        f,
        names: &names,
        analysis,
        status: "m2cu_status",
        err: "&m2cu_status",
        target: &openmp::OpenMp,
        source: Some(options.sources),
        location_hooks: HashMap::new(),
        seeded_updates: HashMap::new(),
        integer_counts: Default::default(),
        held: HashMap::new(),
        bounds_checks: options.bounds_checks,
        undefined_sizes: &undefined_sizes,
        deterministic: options.deterministic,
        binned: None,
        failure: None,
        quiet_stores: false,
        scratch: Vec::new(),
        guarded: Default::default(),
        line_directives: options.line_directives,
    };
    let kernels: Vec<String> = analysis
        .plan
        .kernels
        .iter()
        .flat_map(|k| {
            let lanes = k
                .per_output
                .as_ref()
                .map(|p| cuda::per_output::kernel(&ctx, k, p));
            let tiles = k
                .per_output
                .as_ref()
                .and_then(|p| Some(cuda::tiles::kernel(&ctx, k, p, p.tiles.as_ref()?)));
            let own = match &k.scan {
                Some(scan) => cuda::scan::kernels(&ctx, k, scan),
                None => cuda::kernel::kernel(&ctx, k),
            };
            std::iter::once(own).chain(lanes).chain(tiles)
        })
        .chain((!analysis.plan.kernels.is_empty()).then(cuda::take_detail_kernel))
        .collect();
    let combiners = combine::functions(&ctx);
    let random = if draws_random(f) {
        prelude::random_prelude(options.seed)
    } else {
        String::new()
    };
    let device_code = format!(
        "{}{random}{}\n{GENERATED_MARKER}{combiners}{}{}{}",
        prelude::prelude(),
        cuda::atomics::CAS_ATOMICS,
        cuda::atomics::combiners(&ctx),
        residency::constant_declarations(&ctx),
        kernels.join("\n")
    );
    // The standalone `.cu` has the combiners in its device code already.
    let host_combiners = |flavor: Flavor| match flavor {
        Flavor::Standalone => "",
        _ => combiners.as_str(),
    };
    // The CPU program exports the team size of its parallel loops.
    let threads_api = |flavor: Flavor| match flavor {
        Flavor::Cpu => openmp::SET_THREADS,
        _ => "",
    };
    // The sites' texts, the same in every host program: written once.
    let site_table = sites::table(f, ctx.source);
    let clock = match reads_clock(f) {
        true => prelude::CLOCK,
        false => "",
    };
    // `clock_gettime` is POSIX: C99 shows it when this comes before every include.
    let c_includes = match reads_clock(f) {
        true => format!("#define _POSIX_C_SOURCE 200809L\n{C_INCLUDES}"),
        false => C_INCLUDES.to_string(),
    };
    let host_code = |flavor: Flavor| {
        format!(
            "{}{clock}{}{}{}\n{GENERATED_MARKER}{}{site_table}{}",
            prelude::host_helpers(),
            threads_api(flavor),
            host::gpu_macros(flavor),
            host::check_macro(flavor),
            host_combiners(flavor),
            host::entry_function(&ctx, flavor)
        )
    };
    let file_name = c_text::comment(options.file_name);
    let unit =
        |banner: &str, includes: &str, abi: &str, prelude: &str, kernels: &str, host: &str| {
            Unit {
                banner,
                file_name: &file_name,
                includes,
                abi,
                prelude,
                kernels,
                host,
            }
            .render()
            .expect("the unit template renders")
        };
    let name = &f.name;
    let cpu_prelude = prelude::prelude() + &random;
    Generated {
        entry: names.entry().to_string(),
        kernels_cu: unit(
            &format!("{name}.kernels.cu: CUDA kernels of {name}, for NVRTC (device code only)."),
            "",
            "",
            &device_code,
            "",
            "",
        ),
        c_source: unit(
            &format!("{name}.c: {name} on the CPU (C99, parallel loops with OpenMP)."),
            &c_includes,
            ABI_HEADER,
            &cpu_prelude,
            "",
            &host_code(Flavor::Cpu),
        ),
        c_header: unit(
            &format!("{name}.h: the C interface of {name}."),
            "",
            ABI_HEADER,
            "",
            "",
            &prototypes(names.entry()),
        ),
        standalone_cu: unit(
            &format!("{name}.cu: {name} on the GPU with the CUDA runtime API (build with `nvcc -fmad=false`, so that a*b + c rounds as in MATLAB)."),
            &format!("#include <cuda_runtime.h>\n{c_includes}"),
            ABI_HEADER,
            &device_code,
            "",
            &host_code(Flavor::Standalone),
        ),
        gpu_host_c: unit(
            &format!("{name} GPU host program for the m2cu runtime."),
            &c_includes,
            ABI_HEADER,
            &cpu_prelude,
            "",
            &host_code(Flavor::GpuRuntime),
        ),
        mex_c: mex::gateway(
            f,
            names.entry(),
            &format!("{name}_mex"),
            options.file_name,
            if kernel_names.is_empty() {
                mex::Paths::Cpu
            } else {
                mex::Paths::CpuAndGpu
            },
        ),
        kernel_names,
        kernels: summary::kernels(&ctx),
    }
}

/// The names of the kernels, per-output and tiled variants and the first launch of a scan
/// included, in the order of their sources, and last the kernel that takes a failure's detail
/// ([`cuda::TAKE_DETAIL`]).
fn kernel_names(analysis: &Analysis) -> Vec<String> {
    let kernels = &analysis.plan.kernels;
    kernels
        .iter()
        .flat_map(|k| {
            // A scan's first launch comes before the kernel itself.
            let mut names: Vec<String> = kernel_variants(k).collect();
            names.insert(usize::from(k.scan.is_some()), k.name.clone());
            names
        })
        .chain((!kernels.is_empty()).then(|| cuda::TAKE_DETAIL.to_string()))
        .collect()
}

/// The kernels generated for `k`'s loop besides `k` itself: the first launch of a scan, the
/// per-output variant and the tiled one.
fn kernel_variants(k: &Kernel) -> impl Iterator<Item = String> {
    let partials = k.scan.as_ref().map(|_| cuda::scan::partials_name(k));
    let lanes = k
        .per_output
        .as_ref()
        .map(|_| cuda::per_output::variant_name(k));
    partials.into_iter().chain(lanes).chain(tiled_name(k))
}

fn tiled_name(k: &Kernel) -> Option<String> {
    k.per_output
        .as_ref()
        .and_then(|p| p.tiles.as_ref())
        .map(|_| cuda::tiles::variant_name(k))
}

fn prototypes(name: &str) -> String {
    format!(
        "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n\n/* {name}.c: runs {name} on the CPU. */\n{};\n\n/* {name}.cu: runs {name} on the GPU (CUDA runtime API). */\n{};\n\n#ifdef __cplusplus\n}}\n#endif\n",
        Flavor::Cpu.signature(name),
        Flavor::Standalone.signature(name)
    )
}
