//! `m2cu-mutate`: the mutation fuzzer of the whole pipeline from the command line.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use m2cu_difftest::mutate::{self, Config};
use m2cu_difftest::process::locate_m2cu;

/// Mutate the fixtures token by token and run each mutant through `m2cu check`, `translate`
/// (compiling the generated C with cc) and `run --backend cpu`, each a subprocess with a time
/// limit. Reports panics, internal errors, signals, hangs and C build failures of programs m2cu
/// accepted; diagnostics and MATLAB run-time errors are fine.
///
/// Mutant K of seed S is always the same: `--seed S --first K --count 1` replays it.
///
/// Example: m2cu-mutate --seconds 1800 --jobs 2 --save fuzz/mutants
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Index of the first mutant.
    #[arg(long, default_value_t = 0)]
    first: u64,
    /// Number of mutants (default: until --seconds).
    #[arg(long)]
    count: Option<u64>,
    /// Stop starting mutants after this many seconds (default 600 when --count is absent).
    #[arg(long)]
    seconds: Option<u64>,
    /// Mutants run at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// The m2cu binary (default: target/release/m2cu, else target/debug/m2cu).
    #[arg(long)]
    m2cu: Option<PathBuf>,
    /// Where the seed files are.
    #[arg(long, default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures"))]
    fixtures: PathBuf,
    /// Save one record (mutant, commands, output) per kind of bug in this directory.
    #[arg(long)]
    save: Option<PathBuf>,
    /// Time limit of check and translate in seconds (run gets three times as long).
    #[arg(long, default_value_t = 20)]
    step_limit: u64,
    /// Print mutant K and exit.
    #[arg(long)]
    show: Option<u64>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(k) = cli.show {
        return match mutate::seeds(&cli.fixtures) {
            Ok(seeds) if !seeds.is_empty() => {
                let m = mutate::mutant(&seeds, cli.seed, k);
                println!(
                    "% {} {:?} in {}",
                    seeds[m.seed].name,
                    m.mutations,
                    m.path.display()
                );
                print!("{}", m.source);
                ExitCode::SUCCESS
            }
            Ok(_) => fail("no seeds".into()),
            Err(e) => fail(e),
        };
    }
    let m2cu = match locate_m2cu(cli.m2cu.clone()) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    eprintln!("m2cu-mutate: driving {}", m2cu.display());
    let config = Config {
        seed: cli.seed,
        first: cli.first,
        count: cli.count,
        seconds: cli.seconds.or(cli.count.is_none().then_some(600)),
        jobs: cli.jobs,
        m2cu,
        fixtures: cli.fixtures.clone(),
        save: cli.save.clone(),
        step_limit: Duration::from_secs(cli.step_limit),
    };
    let summary = match mutate::run(&config, &|line| eprintln!("m2cu-mutate: {line}")) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    println!(
        "seed {}, mutants {}..{}",
        cli.seed,
        cli.first,
        cli.first + summary.tried
    );
    println!("| outcome | mutants |\n|---|---|");
    println!("| tried | {} |", summary.tried);
    println!("| rejected (diagnostic) | {} |", summary.rejected);
    println!(
        "| translated, C compiled (no inputs to run) | {} |",
        summary.translated
    );
    println!("| ran on the C path | {} |", summary.ran);
    println!("| run-time or usage error | {} |", summary.run_errors);
    println!("| loops forever (so does Octave) | {} |", summary.endless);
    for (bug, (n, first)) in &summary.bugs {
        println!(
            "| BUG {} in {}: {} (first: mutant {first}) | {n} |",
            bug.kind, bug.step, bug.signature
        );
    }
    if summary.bugs.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn fail(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}
