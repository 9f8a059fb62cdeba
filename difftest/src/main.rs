//! `m2cu-difftest`: the differential run from the command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use m2cu_difftest::gen::Features;
use m2cu_difftest::{campaign, fixture, process, setcheck, Config, Target};

/// Generate random MATLAB loop programs, run each in GNU Octave, on m2cu's C path and on its
/// emulated CUDA path, and report every program whose outputs differ (bit for bit, NaN equal
/// to NaN), minimized.
///
/// Case K of seed S is always the same program: `--seed S --first K --count 1` reproduces it.
/// Needs octave-cli, a C compiler and a C++ compiler.
///
/// Example: m2cu-difftest --seed 7 --count 2000 --save-fixtures fixtures/e2e
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    /// Seed of the run.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Index of the first program.
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// Number of programs.
    #[arg(long, default_value_t = 200)]
    count: u64,
    /// Programs per translation unit (one C and one C++ build each).
    #[arg(long, default_value_t = 20)]
    batch: usize,
    /// Batches built and run at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Where m2cu runs each program: cpu, emu-in-order, emu-reverse, emu-concurrent (the
    /// emulated GPU with a block's threads taking turns in threadIdx order, in reverse order,
    /// or running at once as OS threads: slower, races show only by chance).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "cpu,emu-in-order,emu-reverse"
    )]
    targets: Vec<String>,
    /// Report differences as found, without shrinking them.
    #[arg(long)]
    no_minimize: bool,
    /// Write each minimized difference as an e2e fixture in this directory.
    #[arg(long)]
    save_fixtures: Option<PathBuf>,
    /// Also print the first rejection of each diagnostic code.
    #[arg(long, short)]
    verbose: bool,
    /// Print the program with this index and exit.
    #[arg(long)]
    show: Option<u64>,
    /// Guard features to add to a fraction of the programs: zero-trip (loops that may run no
    /// iteration, their variable read after), input-exprs (integer arithmetic with saturation
    /// at the top of the body), names (variables named like C/CUDA keywords and m2cu's own
    /// names); issue 15's masks (`x(x < t) = c`, `sum(x > t)`, `x(x > t)`), index (`x([3 1 3])`,
    /// `h([2 2 1]) = v`), growth (`g(end+1) = v` after `g = []`, `q(k) = v` never preallocated),
    /// chars (char literals compared, converted, switched on); vectors (whole-vector statements
    /// in a row, at the top and in a loop over an input's elements, which m2cu fuses), nargin (optional trailing
    /// parameters with `if nargin < 3, p = 2; end` or `~exist('p', 'var') || isempty(p)`
    /// defaults, called with fewer inputs), errors (input checks with `error(id, fmt, ...)` and
    /// `assert` that fire on some inputs: both sides must stop with the same message and
    /// identifier), while (while loops with counters, break, continue, && and ||); all, none.
    /// With none, the
    /// programs are those of earlier versions, and each feature leaves the programs of the
    /// others unchanged but for what it appends.
    #[arg(long, default_value = "none", value_parser = Features::parse)]
    features: Features,
    /// Instead of programs: check N `m2cu run --set x=EXPR` expressions (integer arithmetic,
    /// random numbers) against Octave through the m2cu binary.
    #[arg(long, value_name = "N")]
    set_exprs: Option<u64>,
    /// The m2cu binary for --set-exprs (default: target/release/m2cu, else target/debug/m2cu).
    #[arg(long)]
    m2cu: Option<PathBuf>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(k) = cli.show {
        print!(
            "{}",
            m2cu_difftest::gen::case_with(cli.seed, k, cli.features).standalone()
        );
        return ExitCode::SUCCESS;
    }
    if let Some(n) = cli.set_exprs {
        return set_exprs(&cli, n);
    }
    let backends = match cli.targets.iter().map(|b| Target::named(b)).collect() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let config = Config {
        seed: cli.seed,
        first: cli.first,
        count: cli.count,
        batch: cli.batch,
        jobs: cli.jobs,
        backends,
        minimize: !cli.no_minimize,
        features: cli.features,
        ..Config::default()
    };
    let summary = match campaign::run(&config, &mut |line| eprintln!("m2cu-difftest: {line}")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    report(&cli, &summary)
}

fn report(cli: &Cli, summary: &m2cu_difftest::Summary) -> ExitCode {
    println!(
        "seed {}, programs {}..{}: {} generated, {} agree with Octave on every backend ({} of them stop with Octave's error)",
        cli.seed,
        cli.first,
        cli.first + cli.count,
        summary.generated,
        summary.compared,
        summary.raised
    );
    for (code, (n, first)) in &summary.rejected {
        println!("  rejected at translate time with {code}: {n}");
        if cli.verbose {
            println!("{first}");
        }
    }
    for (message, (n, first)) in &summary.refused {
        println!("  refused at run time ({n}): {message}");
        if cli.verbose {
            println!("{first}");
        }
    }
    for (name, message) in &summary.octave_errors {
        println!("  Octave error (generator bug) in {name}: {message}");
    }
    for batch in &summary.batch_only {
        println!("BATCH-ONLY DIFFERENCE: {batch}");
    }
    for f in &summary.findings {
        println!(
            "DIFFERENCE on {} in {} (minimized from {} to {} statements): {}\n{}",
            f.backend,
            f.case.name,
            f.case.size(),
            f.minimized.size(),
            f.detail,
            f.minimized.standalone()
        );
        if let Some(dir) = &cli.save_fixtures {
            match fixture::save(dir, f, cli.seed) {
                Ok(path) => println!("  saved {}", path.display()),
                Err(e) => println!("  could not save the fixture: {e}"),
            }
        }
    }
    let clean = summary.findings.is_empty()
        && summary.batch_only.is_empty()
        && summary.octave_errors.is_empty();
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn set_exprs(cli: &Cli, n: u64) -> ExitCode {
    let report =
        process::locate_m2cu(cli.m2cu.clone()).and_then(|m2cu| setcheck::run(&m2cu, cli.seed, n));
    let report = match report {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    println!(
        "seed {}: {} --set expressions, {} agree with Octave, {} refused by m2cu, {} Octave errors, {} differences",
        cli.seed,
        report.tried,
        report.agreed,
        report.refused.len(),
        report.octave_errors,
        report.differences.len()
    );
    for (expr, message) in &report.refused {
        println!("  refused: --set 'x={expr}': {message}");
    }
    for (expr, detail) in &report.differences {
        println!("DIFFERENCE: --set 'x={expr}': {detail}");
    }
    if report.differences.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
