//! The `m2cu` command line: a thin wrapper over the library's `translate`, `check` and `run`.
//!
//! Exit status: 0 success, 1 an error in the MATLAB source, the inputs or the run, 2 a usage
//! error (clap's own, or an impossible option combination).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use m2cu::source_text;
use m2cu::{
    Backend, BuildOptions, Dialect, EmuOptions, Error, Lanes, Optimization, Options, RunOptions,
    Schedule, Threads,
};

#[derive(Parser)]
#[command(
    name = "m2cu",
    version,
    about = "Translate loop-based MATLAB functions into CUDA kernels and C/OpenMP, and run them",
    long_about = "m2cu reads a MATLAB function file, finds the loops that can run in parallel and the \
reductions inside them (sums, products, min/max, min/max with location, logical and bitwise \
and/or/xor, counts, histograms, gpucoder.reduce with your own functions), and writes CUDA kernels plus an equivalent C/OpenMP program. Loops it cannot \
prove safe stay sequential, and the loop report says why.",
    after_help = "Examples:\n  m2cu check fixtures/e2e/vecsum.m --args 'v=double(1,:)'\n  m2cu translate fixtures/e2e/vecsum.m --args 'v=double(1,:)' -o out/\n  m2cu run fixtures/e2e/vecsum.m --set 'v=rand(1,1e6)'\n  m2cu run fixtures/e2e/saxpy.m --inputs fixtures/e2e/saxpy.in.mat --output y.mat\n  m2cu functions cumsum"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colours in diagnostics: auto (when standard error is a terminal and NO_COLOR is not
    /// set), always, or never.
    #[arg(long, value_enum, default_value = "auto", global = true)]
    color: ColorArg,
    /// How to print diagnostics and the loop report: text, or json for tools (check:
    /// `{"functions": [...]}`; translate and mex: also `"files"`; source errors of any command:
    /// `{"diagnostics": [...]}` on standard output, each with its stable code and place).
    #[arg(long, value_enum, default_value = "text", global = true)]
    format: ReportFormat,
    /// Print only what was asked for and errors: no loop report, `wrote` lines or `m2cu:`
    /// notices (`run` still prints the outputs).
    #[arg(short, long, global = true)]
    quiet: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ColorArg {
    Auto,
    Always,
    Never,
}

/// How the command line speaks: colours on standard error, JSON, quiet.
#[derive(Clone, Copy)]
struct Ui {
    color: bool,
    json: bool,
    quiet: bool,
}

impl Ui {
    fn of(cli: &Cli) -> Ui {
        use std::io::IsTerminal;
        let color = match cli.color {
            ColorArg::Always => true,
            ColorArg::Never => false,
            ColorArg::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stderr().is_terminal()
            }
        };
        Ui {
            color,
            json: matches!(cli.format, ReportFormat::Json),
            quiet: cli.quiet,
        }
    }
}

#[derive(clap::Args)]
struct Common {
    /// The MATLAB function file.
    file: PathBuf,
    /// The function to translate (default: the first function in the file).
    #[arg(long)]
    entry: Option<String>,
    /// An input type, NAME=CLASS(ROWS,COLS) with `:` for any size, e.g. 'v=double(1,:)' or
    /// 'n=int32' for a scalar, 'z=complex' for a complex double scalar. Overrides the function's
    /// `arguments` block. Repeatable.
    #[arg(long = "args", value_name = "SPEC")]
    args: Vec<String>,
    /// Leave out index checks in the generated code: faster, but an out-of-range index is
    /// undefined behaviour instead of MATLAB's "Index exceeds the number of array elements".
    #[arg(long)]
    no_bounds_check: bool,
    /// On the GPU, merge the blocks' partial floating-point sums and products, and those of
    /// gpucoder.reduce with your own function, in a fixed order (each block writes its own
    /// slot; the last block combines the slots in a fixed tree) instead of with atomics in
    /// whatever order blocks finish: the same bits on every run on one GPU. Other reductions
    /// are exact in any order already. The C/OpenMP path always folds its threads' partials in
    /// thread order: the same bits on every run with the same --threads
    #[arg(long)]
    deterministic: bool,
    /// A folder to search for `NAME.m` when the file calls `NAME(...)` and defines no such
    /// function, after the file's own folder. Repeatable, searched in order.
    #[arg(long = "path", value_name = "DIR")]
    path: Vec<PathBuf>,
    /// Start each statement's generated code with a `#line N "FILE.m"` directive, so that
    /// messages of the C compiler, NVRTC, nvcc and compute-sanitizer name the MATLAB line.
    #[arg(long)]
    line_directives: bool,
    #[command(flatten)]
    dialect: DialectArg,
}

impl Common {
    /// The entry file's folder, then each `--path`.
    fn search_path(&self) -> Vec<PathBuf> {
        let folder = match self.file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::iter::once(folder).chain(self.path.clone()).collect()
    }
}

/// The call shape that `check` and `translate` translate for (`run` counts its inputs).
#[derive(clap::Args)]
struct NarginArg {
    /// How many inputs the entry is called with (MATLAB's nargin): its first N parameters are
    /// the inputs of the generated function, and the others are variables its code assigns
    /// (`if nargin < 3, tol = 1e-6; end`) [default: all of them].
    #[arg(long, value_name = "N")]
    nargin: Option<usize>,
}

#[derive(clap::Args)]
struct DialectArg {
    /// The language of the file: matlab, or octave to also accept Octave's spellings
    /// (`endfor`, `!=`, `#` comments, `x += 1`, double-quoted strings).
    #[arg(long, value_enum, default_value = "matlab")]
    dialect: DialectName,
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum DialectName {
    Matlab,
    Octave,
}

impl DialectArg {
    fn dialect(&self) -> Dialect {
        match self.dialect {
            DialectName::Matlab => Dialect::Matlab,
            DialectName::Octave => Dialect::Octave,
        }
    }
}

/// What `translate` and `mex` take: the source, the call shape, and where to write.
#[derive(clap::Args)]
struct Written {
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    nargin: NarginArg,
    /// Output directory.
    #[arg(short = 'o', long = "out-dir", default_value = ".")]
    out_dir: PathBuf,
}

#[derive(Subcommand)]
enum Command {
    /// Write <entry>.kernels.cu, <entry>.c, <entry>.h and <entry>.cu, and print the loop report.
    Translate {
        #[command(flatten)]
        written: Written,
        /// Also write the HTML report (see `m2cu report`) to this file.
        #[arg(long, value_name = "REPORT.html")]
        report: Option<PathBuf>,
    },
    /// Write the HTML report: the source with each loop coloured by its verdict (kernel,
    /// reduction, sequential with the accesses that keep it so underlined, host), each kernel's
    /// launch and the arrays it moves, the notes, and the generated code, linked both ways
    /// with the source lines. One self-contained file: open it in any browser.
    #[command(
        after_help = "Example:\n  m2cu report fixtures/e2e/minloc.m --args 'v=double(1,:)' -o minloc.html"
    )]
    Report {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        nargin: NarginArg,
        /// The report file [default: <entry>_report.html].
        #[arg(short = 'o', long = "output", value_name = "REPORT.html")]
        output: Option<PathBuf>,
    },
    /// Build a MEX function, <entry>_mex, that GNU Octave (and MATLAB, from the same sources)
    /// calls like the MATLAB function: write <entry>.c, <entry>.h and <entry>_mex.c into the
    /// output directory and build <entry>_mex.mex there with `mkoctfile --mex` (Debian:
    /// liboctave-dev). Input types come from --args or an `arguments` block; a call with
    /// inputs of another class or size stops with an error naming the input. A function with
    /// kernels runs them on the GPU where the CUDA driver and libnvrtc load (compiled on the
    /// first call, cached), else its C program; M2CU_MEX_BACKEND=cpu or gpu chooses.
    #[command(
        after_help = "Example:\n  m2cu mex fixtures/e2e/saxpy.m --args 'a=double' --args 'x=double(1,:)' --args 'y=double(1,:)' -o mex/\n  octave-cli --eval \"addpath('mex'); y = saxpy_mex(2, [1 2 3], [1 1 1])\""
    )]
    Mex(Written),
    /// Print diagnostics and the loop report; exit status 1 on errors.
    Check {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        nargin: NarginArg,
        /// Also print a phase's text form: the AST or the typed IR.
        #[arg(long, value_enum)]
        emit: Option<Emit>,
    },
    /// List the MATLAB functions m2cu translates, with their classes and notes, or describe one
    /// (its classes, notes and an example). `--markdown` prints docs/FUNCTIONS.md.
    Functions {
        /// A function to describe, e.g. `cumsum`.
        name: Option<String>,
        /// Print the whole list as Markdown (the text of docs/FUNCTIONS.md).
        #[arg(long, conflicts_with = "name")]
        markdown: bool,
    },
    /// Print the AST of a file as an indented tree.
    Parse {
        /// The MATLAB file.
        file: PathBuf,
        #[command(flatten)]
        dialect: DialectArg,
    },
    /// Translate, build and run a function on the GPU (or the CPU), and print its outputs.
    Run {
        #[command(flatten)]
        common: Common,
        /// Read inputs by parameter name from a MAT-file (as written by `save -v7` or `-v6`), a
        /// NumPy archive (`.npz`, `numpy.savez(f, x=x)`), or one NumPy array (`x.npy` is input
        /// `x`).
        #[arg(long, value_name = "IN.mat")]
        inputs: Option<PathBuf>,
        /// Set an input to a MATLAB expression: 'v=rand(1,1e6)', 'A=int8([1 2; 3 4])',
        /// 'x=0:0.5:10'. Repeatable, evaluated in order (a later value may use an earlier one);
        /// overrides --inputs.
        #[arg(long = "set", value_name = "NAME=EXPR")]
        set: Vec<String>,
        /// Where to run: auto (GPU if usable, else CPU with a notice), cpu, gpu, or emu (the CUDA
        /// kernels emulated on CPU threads, to check the GPU code without a GPU; needs a C++
        /// compiler, slow).
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
        #[command(flatten)]
        emu: EmuArgs,
        /// Save the outputs under their names and MATLAB classes to a MAT-file (-v7), or, by
        /// the extension, to a NumPy archive (`.npz`) or, for one output, a `.npy` file.
        #[arg(long, value_name = "OUT.mat")]
        output: Option<PathBuf>,
        /// Seed of the random stream that rand/randn draw from, in --set values and in the
        /// program (the same seed gives the same values).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Threads of the C path's parallel loops (--backend cpu). Default: OMP_NUM_THREADS,
        /// else every core, lowered to the cores other processes leave free.
        #[arg(long, value_name = "N")]
        threads: Option<std::num::NonZeroUsize>,
        /// Compile the C program (and the GPU host program) at -O0 instead of -O3: a build in a
        /// fraction of the time and a slower run, with the same results, for checking a program
        /// rather than timing it.
        #[arg(long)]
        quick_build: bool,
        /// Say where the time went: reading the inputs, translating, building (or loading from
        /// the cache), the call, printing the outputs.
        #[arg(short, long)]
        verbose: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    Ast,
    Ir,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BackendArg {
    Auto,
    Cpu,
    Gpu,
    Emu,
}

/// The emulated GPU's device and schedule (`--backend emu` only).
#[derive(clap::Args)]
struct EmuArgs {
    /// With --backend emu: the multiprocessors the emulated GPU reports; grids have at most 8
    /// blocks of 256 threads per multiprocessor [default: 2].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=1024))]
    emu_sms: Option<i32>,
    /// With --backend emu: how the threads of a block take turns. concurrent: all at once, so
    /// races show up by chance; in-order, reverse: one at a time, each running to its next
    /// barrier or shuffle and then handing over to the lowest (highest) thread that can go on,
    /// so a missing __syncthreads gives the same wrong answer on every run [default:
    /// concurrent].
    #[arg(long, value_enum, value_name = "ORDER")]
    emu_schedule: Option<ScheduleArg>,
    /// With --backend emu: the threads that share one output in the kernels where a reduction
    /// sits inside a parallel loop (thread, warp or block), or tile: a block per 16-by-16 tile
    /// of a matrix product's outputs, instead of the host program's choice. A scan (a running
    /// sum such as cumsum) runs in one thread in order with thread, as a parallel scan
    /// otherwise.
    #[arg(long, value_enum, value_name = "GROUP")]
    emu_lanes: Option<LanesArg>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ScheduleArg {
    Concurrent,
    InOrder,
    Reverse,
}

#[derive(Clone, Copy, ValueEnum)]
enum LanesArg {
    Thread,
    Warp,
    Block,
    Tile,
}

impl EmuArgs {
    /// The emulated device, or a usage error when an option is given for another backend.
    fn options(&self, backend: BackendArg) -> Result<EmuOptions, Failure> {
        let given =
            self.emu_sms.is_some() || self.emu_schedule.is_some() || self.emu_lanes.is_some();
        if given && backend != BackendArg::Emu {
            return Err(Failure::Usage(
                "--emu-sms, --emu-schedule and --emu-lanes need --backend emu".into(),
            ));
        }
        let defaults = EmuOptions::default();
        Ok(EmuOptions {
            sm_count: self.emu_sms.unwrap_or(defaults.sm_count),
            schedule: self.emu_schedule.map_or(defaults.schedule, |s| match s {
                ScheduleArg::Concurrent => Schedule::Concurrent,
                ScheduleArg::InOrder => Schedule::InOrder,
                ScheduleArg::Reverse => Schedule::Reverse,
            }),
            lanes: self.emu_lanes.map(|l| match l {
                LanesArg::Thread => Lanes::Thread,
                LanesArg::Warp => Lanes::Warp,
                LanesArg::Block => Lanes::Block,
                LanesArg::Tile => Lanes::Tile,
            }),
        })
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ui = Ui::of(&cli);
    ExitCode::from(report(dispatch(cli.command, ui), ui))
}

/// Prints a failure and returns the exit status.
fn report(result: Result<(), Failure>, ui: Ui) -> u8 {
    let e = match result {
        Ok(()) => return 0,
        Err(Failure::Reported(code)) => return code,
        Err(e) => e,
    };
    if ui.json {
        if let Some(json) = e.json() {
            println!("{json:#}");
        }
        return e.exit_status();
    }
    if let Failure::Library(Error::Source { colored, .. }) = &e {
        if ui.color {
            eprint!("{colored}");
        } else {
            eprint!("{e}");
        }
        return 1;
    }
    let message = e.to_string();
    let raised = matches!(
        &e,
        Failure::Library(Error::Runtime(m2cu_runtime::Error::Raised { .. }))
    );
    let prefix = if message.starts_with("error") && !raised {
        ""
    } else {
        "error: "
    };
    eprint!("{prefix}{}", with_newline(&message));
    e.exit_status()
}

/// What the command line reports: library errors, and file problems.
#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error("{0}")]
    Library(#[from] Error),
    #[error("error: {0}")]
    File(String),
    #[error("error: {0}")]
    Usage(String),
    /// A child process already printed its failure; exit with its status.
    #[error("")]
    Reported(u8),
}

impl Failure {
    /// The exit status: 2 for a wrong command line, 1 for every other failure.
    fn exit_status(&self) -> u8 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Reported(code) => *code,
            _ => 1,
        }
    }

    /// The failure as `--format json` prints it (see `m2cu::Error::json`); `None` for one a
    /// child process printed.
    fn json(&self) -> Option<serde_json::Value> {
        Some(match self {
            Failure::Library(e) => e.json(),
            Failure::File(m) => Error::other_json("file", m),
            Failure::Usage(m) => Error::other_json("usage", m),
            Failure::Reported(_) => return None,
        })
    }
}

fn with_newline(s: &str) -> String {
    if s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

fn read_source(common: &Common) -> Result<(String, Options), Failure> {
    let source = source_text::read(&common.file).map_err(Failure::File)?;
    let options = Options {
        file_name: common.file.display().to_string(),
        entry: common.entry.clone(),
        args: common.args.clone(),
        no_bounds_check: common.no_bounds_check,
        deterministic: common.deterministic,
        dialect: common.dialect.dialect(),
        search_path: common.search_path(),
        line_directives: common.line_directives,
        ..Default::default()
    };
    Ok((source, options))
}

fn dispatch(command: Command, ui: Ui) -> Result<(), Failure> {
    match command {
        Command::Translate { written, report } => translate(&written, report.as_deref(), ui),
        Command::Report {
            common,
            nargin,
            output,
        } => html_report(&common, &nargin, output, ui),
        Command::Check {
            common,
            nargin,
            emit,
        } => check(&common, &nargin, emit, ui),
        Command::Mex(w) => mex(&w, ui),
        Command::Parse { file, dialect } => parse(&file, dialect.dialect()),
        Command::Functions { name, markdown } => functions(name.as_deref(), markdown),
        Command::Run {
            common,
            inputs,
            set,
            backend,
            emu,
            output,
            seed,
            threads,
            quick_build,
            verbose,
        } => {
            let run_options = RunOptions {
                build: BuildOptions {
                    optimization: match quick_build {
                        true => Optimization::BuildTime,
                        false => Optimization::Speed,
                    },
                    ..Default::default()
                },
                emu: emu.options(backend)?,
                backend: match backend {
                    BackendArg::Auto => Backend::Auto,
                    BackendArg::Cpu => Backend::Cpu,
                    BackendArg::Gpu => Backend::Gpu,
                    BackendArg::Emu => Backend::Emu,
                },
                threads: threads.map_or(Threads::Auto, Threads::Exactly),
            };
            // Generated code runs in a child process: a crash in it (an out-of-range index
            // under --no-bounds-check) becomes an error message, not a crash of m2cu.
            let ran = m2cu_runtime::isolate::in_child(|| {
                report(
                    run(
                        &common,
                        &RunIo {
                            inputs: inputs.as_deref(),
                            set: &set,
                            output: output.as_deref(),
                            seed,
                            verbose,
                            quiet: ui.quiet,
                        },
                        &run_options,
                    ),
                    ui,
                )
            })
            .map_err(|e| Failure::File(format!("cannot start the run: {e}")))?;
            match ran {
                Ok(0) => Ok(()),
                Ok(code) => Err(Failure::Reported(code)),
                Err(crash) => Err(Failure::File(crash_message(&crash, &common))),
            }
        }
    }
}

/// The `--set` values, computed under an address-space cap of twice the input limit (the value
/// and the runtime's copy of it), so that `--set 'v=rand(1,2^31)'` is MATLAB's "Out of memory."
/// with the limit named, not a machine out of memory.
fn capped_set_values(
    set: &[String],
    options: &m2cu::SetOptions,
) -> Result<Vec<(String, m2cu::Value)>, m2cu::Error> {
    if set.is_empty() {
        return Ok(Vec::new());
    }
    let limit = m2cu_runtime::limits::max_input_bytes();
    let values = {
        let _cap = m2cu_runtime::limits::cap_address_space(limit.bytes.saturating_mul(2));
        m2cu::set_values(set, options)
    };
    values.map_err(|e| match e {
        m2cu::Error::Usage(message) if message.contains("Out of memory") => {
            m2cu::Error::Usage(format!(
                "{message}\nhelp: --set values may take about twice the input limit: {}",
                limit.text()
            ))
        }
        e => e,
    })
}

fn crash_message(crash: &m2cu_runtime::isolate::Crash, common: &Common) -> String {
    let hint = if common.no_bounds_check {
        "; it was built with --no-bounds-check, so an out-of-range index is undefined behaviour: \
         run without --no-bounds-check to get MATLAB's index error"
    } else {
        ""
    };
    format!(
        "the generated program for {} crashed ({}){hint}",
        common.file.display(),
        crash.signal
    )
}

fn translate(w: &Written, report: Option<&Path>, ui: Ui) -> Result<(), Failure> {
    let (source, mut options) = read_source(&w.common)?;
    options.nargin = w.nargin.nargin;
    options.html_report = report.is_some();
    let t = m2cu::translate(&source, &options).map_err(|e| with_error_page(e, report, ui))?;
    let mut files = m2cu::write_translation(&t, &w.out_dir)
        .map_err(|e| Failure::File(format!("cannot write to {}: {e}", w.out_dir.display())))?;
    files.extend(report.map(|path| write_report(&t, path)).transpose()?);
    print_written(&t, &files, ui);
    Ok(())
}

/// `m2cu report`: the HTML report, and the loop report as `translate` prints it.
fn html_report(
    common: &Common,
    nargin: &NarginArg,
    output: Option<PathBuf>,
    ui: Ui,
) -> Result<(), Failure> {
    let (source, mut options) = read_source(common)?;
    options.nargin = nargin.nargin;
    options.html_report = true;
    // Without a translation the entry's name is unknown: the default is named by the file.
    let stem = common
        .file
        .file_stem()
        .map_or_else(|| "m2cu".to_string(), |s| s.to_string_lossy().into_owned());
    let default = PathBuf::from(format!("{stem}_report.html"));
    let t = m2cu::translate(&source, &options)
        .map_err(|e| with_error_page(e, Some(output.as_deref().unwrap_or(&default)), ui))?;
    let path = output.unwrap_or_else(|| PathBuf::from(format!("{}_report.html", t.entry)));
    let written = write_report(&t, &path)?;
    print_written(&t, &[written], ui);
    Ok(())
}

/// A failed translation's error, after writing its HTML page (the errors at their places in the
/// source) to `path` when there is one and the error is the source's; a page that cannot be
/// written is said, the error stays the translation's.
fn with_error_page(e: Error, path: Option<&Path>, ui: Ui) -> Error {
    if let (Some(path), Some(page)) = (path, e.html_report()) {
        match std::fs::write(path, page) {
            Ok(()) if !ui.quiet && !ui.json => {
                eprintln!(
                    "m2cu: wrote {} (the errors, at their places)",
                    path.display()
                )
            }
            Ok(()) => {}
            Err(why) => eprintln!("m2cu: cannot write {}: {why}", path.display()),
        }
    }
    e
}

/// Writes the translation's HTML report to `path`.
fn write_report(t: &m2cu::Translation, path: &Path) -> Result<PathBuf, Failure> {
    let page = t.html_report.as_deref().unwrap_or_default();
    std::fs::write(path, page)
        .map_err(|e| Failure::File(format!("cannot write {}: {e}", path.display())))?;
    Ok(path.to_path_buf())
}

/// The loop report and the files written (`translate`, `mex`), as text or JSON.
fn print_written(t: &m2cu::Translation, files: &[PathBuf], ui: Ui) {
    if ui.json {
        let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let report = serde_json::json!({ "functions": [t.report_json], "files": files });
        println!("{report:#}");
    } else if !ui.quiet {
        print!("{}", t.report);
        for f in files {
            println!("wrote {}", f.display());
        }
    }
}

/// `m2cu mex`: the loop report, then the MEX function built in `out_dir`.
fn mex(w: &Written, ui: Ui) -> Result<(), Failure> {
    let (source, mut options) = read_source(&w.common)?;
    options.nargin = w.nargin.nargin;
    let t = m2cu::translate(&source, &options)?;
    let built = m2cu::build_mex(&t, &w.out_dir, &m2cu::MexOptions::default())?;
    let mut files = built.sources;
    files.push(built.mex_file);
    print_written(&t, &files, ui);
    Ok(())
}

fn check(common: &Common, nargin: &NarginArg, emit: Option<Emit>, ui: Ui) -> Result<(), Failure> {
    let (source, mut options) = read_source(common)?;
    options.nargin = nargin.nargin;
    let t = m2cu::check(&source, &options)?;
    match emit {
        Some(Emit::Ast) => print!("{}", t.ast),
        Some(Emit::Ir) => print!("{}", t.ir),
        None => {}
    }
    if ui.json {
        let report = serde_json::json!({ "functions": [t.report_json] });
        println!("{report:#}");
    } else if !ui.quiet {
        print!("{}", t.report_notes);
        println!("{}", summary(&common.file, &t));
    }
    Ok(())
}

/// `check`'s last line: "fixtures/e2e/minloc.m: minloc checked: 1 loop: 1 kernel".
fn summary(file: &Path, t: &m2cu::Translation) -> String {
    let loops = t.report_json["loops"]
        .as_array()
        .map_or(&[][..], Vec::as_slice);
    let count = |verdict: &str| loops.iter().filter(|l| l["verdict"] == verdict).count();
    let kernels = loops.iter().filter(|l| !l["kernel"].is_null()).count();
    let plural = |n: usize, one: &str, many: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    };
    let mut parts = vec![plural(kernels, "kernel", "kernels")];
    let sequential = count("sequential");
    if sequential > 0 {
        parts.push(format!("{sequential} sequential"));
    }
    format!(
        "{}: {} checked: {}: {}",
        file.display(),
        t.entry,
        plural(loops.len(), "loop", "loops"),
        parts.join(", ")
    )
}

/// `m2cu functions`: the catalog as a list, one entry, or Markdown.
fn functions(name: Option<&str>, markdown: bool) -> Result<(), Failure> {
    use m2cu::catalog;
    if markdown {
        print!("{}", catalog::markdown());
        return Ok(());
    }
    let Some(name) = name else {
        for area in catalog::Area::ALL {
            println!("{}:", area.title());
            for f in catalog::FUNCTIONS.iter().filter(|f| f.area == area) {
                println!("  {:<26} {}", f.name, catalog::classes_text(f));
            }
        }
        println!("\n`m2cu functions NAME` describes one.");
        return Ok(());
    };
    match catalog::find(name) {
        Some(f) => {
            print!("{}", catalog::describe(f));
            Ok(())
        }
        None => Err(Failure::Usage(format!(
            "`{name}` is not among the functions m2cu translates; `m2cu functions` lists them"
        ))),
    }
}

fn parse(file: &Path, dialect: Dialect) -> Result<(), Failure> {
    let source = source_text::read(file).map_err(Failure::File)?;
    let options = Options {
        file_name: file.display().to_string(),
        dialect,
        ..Default::default()
    };
    print!("{}", m2cu::parse_tree(&source, &options)?);
    Ok(())
}

/// What `m2cu run` reads, writes and says besides the function.
struct RunIo<'a> {
    inputs: Option<&'a Path>,
    set: &'a [String],
    output: Option<&'a Path>,
    seed: u64,
    verbose: bool,
    /// `--quiet`: no `m2cu:` notices.
    quiet: bool,
}

fn run(common: &Common, io: &RunIo, run_options: &RunOptions) -> Result<(), Failure> {
    let start = std::time::Instant::now();
    let (source, mut options) = read_source(common)?;
    options.seed = io.seed;
    let mut values = match io.inputs {
        Some(path) => m2cu::read_inputs(path)?,
        None => Vec::new(),
    };
    let set_options = m2cu::SetOptions {
        seed: io.seed,
        build: run_options.build.clone(),
    };
    for (name, value) in capped_set_values(io.set, &set_options)? {
        values.retain(|(n, _)| *n != name);
        values.push((name, value));
    }
    let inputs_time = start.elapsed();
    // The inputs are given: `y = f(a, x, y)` updates `y` in place.
    let result = m2cu::run(&source, &mut values, &options, run_options)?;
    if let Some(notice) = result.notice.as_ref().filter(|_| !io.quiet) {
        eprintln!("{notice}");
    }
    let printing = std::time::Instant::now();
    for (name, value) in &result.outputs {
        print!("{}", with_newline(&m2cu_runtime::display(name, value)));
    }
    if let Some(path) = io.output {
        m2cu::write_outputs(path, &result.outputs)?;
        if !io.quiet {
            eprintln!("m2cu: wrote {}", path.display());
        }
    }
    if io.quiet {
        return Ok(());
    }
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    eprintln!(
        "m2cu: {} backend: build {:.1} ms, run {:.3} ms",
        result.backend,
        ms(result.build_time),
        ms(result.run_time)
    );
    if io.verbose {
        eprintln!(
            "m2cu: time: reading the file and inputs {:.1} ms, translating {:.1} ms, building \
             or loading from the cache {:.1} ms, the call {:.3} ms, printing the outputs {:.1} ms; \
             {:.1} ms in all (this process; starting it and its child are not counted)",
            ms(inputs_time),
            ms(result.translate_time),
            ms(result.build_time.saturating_sub(result.translate_time)),
            ms(result.run_time),
            ms(printing.elapsed()),
            ms(start.elapsed())
        );
    }
    if let Some(transfers) = &result.transfers {
        eprintln!("m2cu: copies: {transfers}");
    }
    Ok(())
}
