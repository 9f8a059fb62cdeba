//! `m2cu-mutate`: a mutation fuzzer of the whole pipeline. Seeds are the project's fixtures
//! (`fixtures/**/*.m`); each mutant is one to three token-level mutations of a seed
//! ([`token`]), run through `m2cu check`, `m2cu translate` (the generated C then compiled with
//! `cc`) and, when the seed has an `.in.mat`, `m2cu run --backend cpu` with those inputs, each
//! step a subprocess of the `m2cu` binary under a time limit ([`crate::process`]).
//!
//! A diagnostic, a usage error or a MATLAB run-time error is a fine answer to a mutant. The bugs
//! are: a panic, an internal error, a signal, a step past its time limit, and a C build failure
//! of a program m2cu accepted. Each kind of bug (the kind, the step and a signature of the
//! message) is saved once, with the mutant, the commands and their output.
//!
//! Invariant: mutant K of seed S depends only on (S, K) and the fixture set, so
//! `--seed S --first K --count 1` replays it.

pub mod token;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::process::{run_limited, Finished};

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    pub first: u64,
    /// At most this many mutants (unbounded when `None`: then `seconds` bounds the run).
    pub count: Option<u64>,
    /// Stop starting mutants after this long.
    pub seconds: Option<u64>,
    pub jobs: usize,
    /// The `m2cu` binary.
    pub m2cu: PathBuf,
    /// Where the seeds are (searched recursively for `*.m`).
    pub fixtures: PathBuf,
    /// Where to save one record per kind of bug.
    pub save: Option<PathBuf>,
    /// Time limit of `check` and `translate`; `run` gets three times as long.
    pub step_limit: Duration,
}

/// A seed program and its inputs.
#[derive(Clone, Debug)]
pub struct Seed {
    pub name: String,
    pub source: String,
    /// `--args` specs from the seed's `.in.mat`.
    pub args: Vec<String>,
    pub inputs: Option<PathBuf>,
}

/// A mutant: its source, the file name it is saved under and what was done to it.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub seed: usize,
    pub source: String,
    /// Relative path of the file, sometimes in a folder whose name is hostile to C comments.
    pub path: PathBuf,
    pub mutations: Vec<&'static str>,
}

/// How a mutant fared.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Rejected at check or translate time with a diagnostic.
    Rejected,
    /// Translated and its C compiled; no run (the seed has no inputs).
    Translated,
    /// Ran on the C path.
    Ran,
    /// The run stopped with a MATLAB run-time error or a usage error.
    RunError,
    /// The run ran past its limit, and so did Octave's (the mutant loops forever).
    Endless,
    /// A bug: kind, step and signature.
    Bug(Bug),
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bug {
    pub kind: &'static str,
    pub step: &'static str,
    pub signature: String,
}

/// What a run saw.
#[derive(Debug, Default)]
pub struct Summary {
    pub tried: u64,
    pub rejected: u64,
    pub translated: u64,
    pub ran: u64,
    pub run_errors: u64,
    pub endless: u64,
    /// Per kind of bug: how many mutants hit it, and the first one's index.
    pub bugs: BTreeMap<Bug, (u64, u64)>,
}

/// Every `*.m` under `dir` with `--args` from its `.in.mat` when it has one, sorted by path.
pub fn seeds(dir: &Path) -> Result<Vec<Seed>, String> {
    let mut files = Vec::new();
    collect(dir, &mut files).map_err(|e| format!("{}: {e}", dir.display()))?;
    files.sort();
    Ok(files
        .into_iter()
        .filter_map(|path| {
            let source = std::fs::read_to_string(&path).ok()?;
            let mat = path.with_extension("in.mat");
            let inputs = mat.is_file().then_some(mat);
            let args = inputs.as_deref().map(arg_specs).unwrap_or_default();
            Some(Seed {
                name: path.file_stem()?.to_string_lossy().into_owned(),
                source,
                args,
                inputs,
            })
        })
        .collect())
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "m") {
            out.push(path);
        }
    }
    Ok(())
}

/// `NAME=CLASS(ROWS,COLS)` (`NAME=CLASS` for a scalar) of each 2-D input in a MAT-file.
fn arg_specs(mat: &Path) -> Vec<String> {
    let Ok(values) = m2cu::read_mat_file(mat) else {
        return Vec::new();
    };
    values
        .iter()
        .filter(|(_, v)| v.pages() == 1)
        .map(|(n, v)| match (v.rows(), v.cols()) {
            (1, 1) => format!("{n}={}", v.class().name()),
            (r, c) => format!("{n}={}({r},{c})", v.class().name()),
        })
        .collect()
}

/// Folders whose names end C comments, start trigraphs or are not ASCII.
const HOSTILE_DIRS: [&str; 4] = ["c*", "d??", "e é", "f%"];

/// Mutant `index` of the run with `seed`.
pub fn mutant(seeds: &[Seed], seed: u64, index: u64) -> Mutant {
    let mixed =
        seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    let mut rng = StdRng::seed_from_u64(mixed);
    let which = rng.gen_range(0..seeds.len());
    let donor = token::tokenize(&seeds[rng.gen_range(0..seeds.len())].source);
    let mut tokens = token::tokenize(&seeds[which].source);
    let count = *[1, 1, 1, 2, 2, 3].choose(&mut rng).expect("non-empty");
    let mutations: Vec<&'static str> = (0..count)
        .map(|_| *token::MUTATIONS.choose(&mut rng).expect("non-empty"))
        .collect();
    for m in &mutations {
        token::mutate(&mut rng, &mut tokens, m, &donor);
    }
    let file = PathBuf::from(format!("{}.m", seeds[which].name));
    let path = if rng.gen_bool(0.1) {
        Path::new(HOSTILE_DIRS.choose(&mut rng).expect("non-empty")).join(file)
    } else {
        file
    };
    Mutant {
        seed: which,
        source: token::render(&tokens),
        path,
        mutations,
    }
}

/// Runs the fuzzer; `progress` gets a line now and then.
pub fn run(config: &Config, progress: &(dyn Fn(&str) + Sync)) -> Result<Summary, String> {
    let seeds = seeds(&config.fixtures)?;
    if seeds.is_empty() {
        return Err(format!("no *.m seeds under {}", config.fixtures.display()));
    }
    let summary = Mutex::new(Summary::default());
    let next = AtomicU64::new(config.first);
    let start = Instant::now();
    let end = config.count.map_or(u64::MAX, |c| config.first + c);
    let deadline = config.seconds.map(Duration::from_secs);
    std::thread::scope(|s| {
        for _ in 0..config.jobs.max(1) {
            s.spawn(|| loop {
                if deadline.is_some_and(|d| start.elapsed() >= d) {
                    break;
                }
                let k = next.fetch_add(1, Ordering::SeqCst);
                if k >= end {
                    break;
                }
                let m = mutant(&seeds, config.seed, k);
                let (outcome, log) = pipeline(config, &seeds[m.seed], &m);
                let mut sum = summary.lock().expect("summary lock");
                if let Outcome::Bug(bug) = &outcome {
                    if !sum.bugs.contains_key(bug) {
                        progress(&format!("mutant {k}: {} in {}: {}", bug.kind, bug.step, bug.signature));
                        if let Some(dir) = &config.save {
                            if let Err(e) = save(dir, config.seed, k, &m, bug, &log) {
                                progress(&format!("could not save mutant {k}: {e}"));
                            }
                        }
                    }
                }
                tally(&mut sum, outcome, k);
                if sum.tried % 100 == 0 {
                    progress(&format!(
                        "{} mutants: {} rejected, {} translated, {} ran, {} run errors, {} bugs of {} kinds ({:.0} s)",
                        sum.tried, sum.rejected, sum.translated, sum.ran, sum.run_errors,
                        sum.bugs.values().map(|(n, _)| n).sum::<u64>(), sum.bugs.len(),
                        start.elapsed().as_secs_f64()
                    ));
                }
            });
        }
    });
    Ok(summary.into_inner().expect("summary lock"))
}

fn tally(sum: &mut Summary, outcome: Outcome, k: u64) {
    sum.tried += 1;
    match outcome {
        Outcome::Rejected => sum.rejected += 1,
        Outcome::Translated => sum.translated += 1,
        Outcome::Ran => sum.ran += 1,
        Outcome::RunError => sum.run_errors += 1,
        Outcome::Endless => sum.endless += 1,
        Outcome::Bug(bug) => sum.bugs.entry(bug).or_insert((0, k)).0 += 1,
    }
}

/// Runs the steps on `m` in a fresh folder: the outcome and the log of every step.
pub fn pipeline(config: &Config, seed: &Seed, m: &Mutant) -> (Outcome, Vec<Finished>) {
    let mut log = Vec::new();
    let outcome = steps(config, seed, m, &mut log).unwrap_or_else(|e| {
        Outcome::Bug(Bug {
            kind: "harness",
            step: "setup",
            signature: e,
        })
    });
    (outcome, log)
}

fn steps(
    config: &Config,
    seed: &Seed,
    m: &Mutant,
    log: &mut Vec<Finished>,
) -> Result<Outcome, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let file = dir.path().join(&m.path);
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    std::fs::write(&file, &m.source).map_err(|e| e.to_string())?;
    let file_arg = m.path.to_string_lossy().into_owned();
    let args: Vec<String> = seed
        .args
        .iter()
        .flat_map(|a| ["--args".into(), a.clone()])
        .collect();
    let in_dir = dir.path();
    let check = [vec!["check".into(), file_arg.clone()], args.clone()].concat();
    if let Some(v) = step(config, in_dir, log, "check", check, config.step_limit) {
        return Ok(v);
    }
    let translate = [
        vec![
            "translate".into(),
            file_arg.clone(),
            "-o".into(),
            "out".into(),
        ],
        args,
    ]
    .concat();
    if let Some(v) = step(
        config,
        in_dir,
        log,
        "translate",
        translate,
        config.step_limit,
    ) {
        return Ok(v);
    }
    if let Some(bug) = compile_c(&dir.path().join("out"), log) {
        return Ok(Outcome::Bug(bug));
    }
    let Some(inputs) = &seed.inputs else {
        return Ok(Outcome::Translated);
    };
    let run = vec![
        "run".into(),
        file_arg,
        "--backend".into(),
        "cpu".into(),
        "--inputs".into(),
        inputs.to_string_lossy().into_owned(),
    ];
    Ok(
        match step(config, in_dir, log, "run", run, config.step_limit * 3) {
            Some(Outcome::Rejected) => Outcome::RunError,
            Some(Outcome::Bug(b)) if b.kind == "hang" && octave_hangs(config, m, inputs, log) => {
                Outcome::Endless
            }
            Some(v) => v,
            None => Outcome::Ran,
        },
    )
}

/// Whether Octave, given the same inputs and time, does not finish the mutant either.
fn octave_hangs(config: &Config, m: &Mutant, inputs: &Path, log: &mut Vec<Finished>) -> bool {
    let Some((name, params)) = signature(&m.source) else {
        return false;
    };
    let Ok(dir) = tempfile::tempdir() else {
        return false;
    };
    if std::fs::write(dir.path().join(format!("{name}.m")), &m.source).is_err() {
        return false;
    }
    let script = format!(
        "load('{}'); {name}({});",
        inputs.display(),
        params.join(", ")
    );
    let argv = ["--no-gui", "--quiet", "--norc", "--eval", &script].map(String::from);
    let f = run_limited(
        Path::new("octave-cli"),
        &argv,
        dir.path(),
        config.step_limit * 3,
    );
    let hung = f.timed_out();
    log.push(f);
    hung
}

/// The first function's name and parameters.
fn signature(source: &str) -> Option<(String, Vec<String>)> {
    let line = source
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("function"))?;
    let head = line.strip_prefix("function")?.split('%').next()?;
    let head = head.rsplit('=').next()?;
    let (name, rest) = head.split_once('(').unwrap_or((head, ")"));
    let params = rest.split(')').next()?;
    let params = params
        .split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    Some((name.trim().to_string(), params))
}

/// Runs one `m2cu` step in `dir`, logging it; `Some` ends the mutant (see [`classify`]).
fn step(
    config: &Config,
    dir: &Path,
    log: &mut Vec<Finished>,
    name: &'static str,
    argv: Vec<String>,
    limit: Duration,
) -> Option<Outcome> {
    let finished = run_limited(&config.m2cu, &argv, dir, limit);
    let verdict = classify(name, &finished);
    log.push(finished);
    verdict
}

/// `Some` ends the mutant (a bug, or `Rejected` for any other failure); `None` goes on.
fn classify(step: &'static str, f: &Finished) -> Option<Outcome> {
    let bug = |kind: &'static str, signature: String| {
        Some(Outcome::Bug(Bug {
            kind,
            step,
            signature,
        }))
    };
    if f.timed_out() {
        return bug("hang", String::new());
    }
    if matches!(f.code, Some(126 | 127)) {
        // `timeout` could not run the step: a broken harness, never a rejection.
        return bug(
            "harness",
            normalize(f.stderr.lines().next().unwrap_or_default()),
        );
    }
    if let Some(s) = f.killed_by() {
        return bug("signal", format!("signal {s}"));
    }
    if let Some(line) = f.stderr.lines().find(|l| l.contains("panicked at")) {
        return bug("panic", panic_site(line, &f.stderr));
    }
    if let Some(line) = f.stderr.lines().find(|l| l.contains("internal error")) {
        return bug("internal", normalize(line));
    }
    if f.stderr.contains("C compilation failed") || f.stderr.contains("C++ compilation failed") {
        return bug("build", first_c_error(&f.stderr));
    }
    (f.code != Some(0)).then_some(Outcome::Rejected)
}

/// Compiles the translated C (`out/*.c`) with `cc`; a failure is a bug.
fn compile_c(out: &Path, log: &mut Vec<Finished>) -> Option<Bug> {
    let sources: Vec<PathBuf> = std::fs::read_dir(out)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    for c in sources {
        let argv: Vec<String> = [
            "-std=c99",
            "-fopenmp",
            "-ffp-contract=off",
            "-fsyntax-only",
            "-I.",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([c.file_name()?.to_string_lossy().into_owned()])
        .collect();
        let f = run_limited(Path::new("cc"), &argv, out, Duration::from_secs(60));
        let failed = f.code != Some(0);
        let signature = first_c_error(&f.stderr);
        log.push(f);
        if failed {
            return Some(Bug {
                kind: "build",
                step: "cc translated C",
                signature,
            });
        }
    }
    None
}

/// `file:line` of a panic (the column and message vary with the input).
fn panic_site(line: &str, stderr: &str) -> String {
    let after = line.split("panicked at").nth(1).unwrap_or(line).trim();
    let at = after.trim_end_matches(':');
    let site = at
        .rsplit_once(':')
        .map_or(at, |(file_line, _column)| file_line);
    let message = stderr
        .lines()
        .skip_while(|l| !l.contains("panicked at"))
        .nth(1)
        .unwrap_or("");
    format!("{site}: {}", normalize(message))
}

fn first_c_error(stderr: &str) -> String {
    stderr
        .lines()
        .find(|l| l.contains("error"))
        .map(|l| normalize(l.split("error").nth(1).unwrap_or(l)))
        .unwrap_or_else(|| "(no error line)".into())
}

/// A message with quoted names and numbers blanked, so one bug gives one signature.
fn normalize(text: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '`' | '\'' | '‘' | '’' | '"' => {
                quoted = !quoted;
                out.push('_');
            }
            _ if quoted => {}
            d if d.is_ascii_digit() => {
                if !out.ends_with('N') {
                    out.push('N');
                }
            }
            c => out.push(c),
        }
    }
    out.chars().take(160).collect()
}

fn save(
    dir: &Path,
    seed: u64,
    k: u64,
    m: &Mutant,
    bug: &Bug,
    log: &[Finished],
) -> std::io::Result<()> {
    let case = dir.join(format!(
        "{}-{}-{seed}-{k}",
        bug.kind,
        bug.step.replace(' ', "_")
    ));
    std::fs::create_dir_all(&case)?;
    std::fs::write(case.join("mutant.m"), &m.source)?;
    let mut record = format!(
        "{} in {}: {}\nseed {seed}, mutant {k} (replay: m2cu-mutate --seed {seed} --first {k} --count 1)\nfile {}\nmutations {:?}\n",
        bug.kind, bug.step, bug.signature, m.path.display(), m.mutations
    );
    for f in log {
        record.push_str(&format!(
            "\n$ {}\nexit {:?} signal {:?}\n--- stdout\n{}\n--- stderr\n{}\n",
            f.command, f.code, f.signal, f.stdout, f.stderr
        ));
    }
    std::fs::write(case.join("record.txt"), record)
}
