//! Every runnable fixture on adversarial inputs: NaN, ±Inf, ties at the first, middle and last
//! positions, signed zeros, integer extremes and mixed signs, empty and length-1 vectors,
//! lengths around a warp and a block (31, 32, 33, 1023, 1025), and matrices with one dimension
//! 1 (`common::adversarial` derives them from each fixture's stored inputs).
//!
//! Each variant runs the program translated for the types of the fixture's stored inputs (a
//! row stays a row of any length, so an empty or 1-element row runs the same program); an input
//! whose variant does not fit that type (a matrix cut to one row) gets its own type.
//!
//! Invariants checked for every variant:
//! - when Octave returns outputs, m2cu returns the same on the CPU path and on the emulated GPU,
//!   by `common::difference` (class, size, values; a tolerance only for float scalars, which
//!   may be reordered reductions); on the CPU path, where every loop then runs in MATLAB's
//!   order, zeros must also carry Octave's sign (see [`zero_signs_defined`]);
//! - or m2cu refuses: at translation time with a diagnostic, or at run time with one of the
//!   generated code's messages for a limit of m2cu (never a silently different answer);
//! - when Octave raises an error, m2cu must fail too, and the variant is skipped (it is outside
//!   what the fixture means); a variant Octave does not finish in time (a loop that never
//!   ends on it) is skipped;
//! - at least nine in ten of the variants Octave answers agree (so that refusals cannot
//!   quietly take over).
//!
//! Octave answers all variants of all fixtures of a test in one session; each m2cu run has a
//! time limit, so a program that hangs fails the test instead of stopping it. The emulated GPU
//! reports one multiprocessor (grids of at most 8 blocks, so every launch still has several
//! blocks) and runs a block's threads in turn in `threadIdx` order (`Schedule::InOrder`:
//! deterministic, and much faster than an OS thread per GPU thread).

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::adversarial::{variants, Variant};
use m2cu::{Backend, BuildOptions, Optimization, Options, RunOptions, Value};
use m2cu_frontend::parser::{parse_file_with, ParseOptions};
use m2cu_runtime::octave::{answer_calls, coder_stubs, Answer, Call};
use m2cu_runtime::{Data, EmuOptions, Schedule};

/// How long one Octave call or one m2cu run may take.
const OCTAVE_LIMIT: Duration = Duration::from_secs(3);
const M2CU_LIMIT: Duration = Duration::from_secs(60);

/// A fixture with the inputs its variants are derived from.
struct Fixture {
    name: String,
    path: PathBuf,
    source: String,
    inputs: Vec<(String, Value)>,
    outputs: Vec<String>,
    /// Whether the inputs may change size (no `arguments` block fixes them).
    resizable: bool,
}

impl Fixture {
    fn new(
        path: PathBuf,
        inputs: impl FnOnce(&m2cu_frontend::ast::File) -> Vec<(String, Value)>,
    ) -> Fixture {
        let name = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let source = common::source(&path);
        let dialect = ParseOptions {
            dialect: common::dialect_of(&source),
        };
        let file = parse_file_with(&source, &dialect).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let entry = &file.functions[0];
        let stored = inputs(&file);
        // The first parameters, as many as have a stored input (the call's `nargin`).
        let inputs = entry
            .params
            .iter()
            .map_while(|p| stored.iter().find(|(n, _)| *n == p.name).cloned())
            .collect();
        Fixture {
            name,
            outputs: entry.outputs.iter().map(|o| o.name.clone()).collect(),
            resizable: entry.arguments.is_empty(),
            path,
            source,
            inputs,
        }
    }

    /// The program translated for the types of the stored inputs (as `m2cu translate` would
    /// with their `--args`), where the variant's values fit those types; an input that does not
    /// fit (a matrix cut to one row) gets its own type. Declared inputs keep their declaration.
    fn options(&self, variant: &Variant) -> Options {
        let args = if self.resizable {
            self.inputs
                .iter()
                .zip(&variant.inputs)
                .map(|((name, stored), (_, value))| {
                    let spec = if fits(stored, value) { stored } else { value };
                    common::arg_spec(name, spec)
                })
                .collect()
        } else {
            Vec::new()
        };
        Options {
            file_name: format!("{}.m", self.name),
            args,
            search_path: self.path.parent().into_iter().map(Into::into).collect(),
            dialect: common::dialect_of(&self.source),
            ..Default::default()
        }
    }
}

/// Whether `value` has the shape of the type m2cu gives `stored` (`common::arg_spec`): a scalar,
/// a row, a column, or a fixed number of rows.
fn fits(stored: &Value, value: &Value) -> bool {
    let two_d = value.dims.len() == 2;
    match (stored.rows(), stored.cols()) {
        _ if stored.dims.len() == 3 => value.rows() == stored.rows(),
        (1, 1) => value.is_scalar(),
        (1, _) => two_d && value.rows() == 1,
        (_, 1) => two_d && value.cols() == 1,
        (rows, _) => two_d && value.rows() == rows,
    }
}

fn e2e() -> Vec<Fixture> {
    common::e2e_fixtures()
        .into_iter()
        .map(|name| Fixture::new(common::e2e_path(&name, ".m"), |_| common::inputs(&name)))
        .collect()
}

fn analysis() -> Vec<Fixture> {
    common::analysis_fixtures()
        .into_iter()
        .map(|path| {
            Fixture::new(path, |file| {
                let decls =
                    common::runnable::runnable_inputs(file).expect("runnable analysis fixture");
                decls
                    .iter()
                    .enumerate()
                    .map(|(k, d)| (d.name.name.clone(), common::runnable::input_value(d, k)))
                    .collect()
            })
        })
        .collect()
}

/// The variants are the ones the issue lists, on a float vector, an int8 vector and a matrix.
#[test]
fn variants_hold_the_adversarial_values() {
    let inputs = vec![
        ("v".to_string(), Value::row(vec![3.0, -1.0, 7.0, 2.0, 7.0])),
        ("w".to_string(), Value::row(vec![5i8, -3, 9, 1, 0])),
        (
            "A".to_string(),
            Value::matrix(2, 3, vec![1.0; 6]).expect("matrix"),
        ),
        ("n".to_string(), Value::scalar(4.0)),
    ];
    let all = variants(&inputs, true);
    let find = |label: &str| -> &Variant {
        all.iter()
            .find(|v| v.label == label)
            .unwrap_or_else(|| panic!("no `{label}`"))
    };
    let data = |label: &str, k: usize| find(label).inputs[k].1.data.clone();
    let nan = data("nan", 0);
    let Data::Double(x) = &nan else {
        panic!("double")
    };
    assert!(x[0].is_nan() && x[2].is_nan() && x[4].is_nan() && x[1] == -1.0);
    assert_eq!(
        data("ties", 0),
        Data::Double(vec![7.0, -1.0, 7.0, -1.0, 7.0])
    );
    assert_eq!(
        data("extremes", 1),
        Data::Int8(vec![127, -128, -128, 1, 127])
    );
    assert_eq!(data("mixed", 1), Data::Int8(vec![-5, -3, -9, 1, 0]));
    let zeros = data("zeros", 0);
    let Data::Double(z) = &zeros else {
        panic!("double")
    };
    assert!(z.iter().all(|&x| x == 0.0) && z[0].is_sign_negative() && z[1].is_sign_positive());
    for n in common::adversarial::LENGTHS {
        let v = find(&format!("len={n}"));
        assert_eq!(
            (v.inputs[0].1.dims.clone(), v.inputs[1].1.numel()),
            (vec![1, n], n)
        );
        assert_eq!(v.inputs[2].1.dims, vec![2, 3], "matrices keep their size");
    }
    assert_eq!(find("dim1=1").inputs[2].1.dims, vec![1, 3]);
    assert_eq!(find("dim2=1").inputs[2].1.dims, vec![2, 1]);
    assert!(all.iter().all(|v| v.inputs[3] == inputs[3]), "scalars stay");
}

#[test]
fn e2e_fixtures_agree_with_octave_on_adversarial_inputs() {
    check(e2e());
}

#[test]
fn analysis_fixtures_agree_with_octave_on_adversarial_inputs() {
    check(analysis());
}

/// What became of one variant.
enum Outcome {
    /// Octave answered and m2cu agrees on both backends.
    Agree,
    /// Octave raised an error, and so does m2cu.
    OctaveError,
    OctaveTimeout,
    /// m2cu refuses the program at translation time (with a diagnostic), or stops at run time
    /// with a message naming a limit of m2cu (an empty `max`, expansion of an extent that is 1
    /// only at run time).
    Rejected(String),
    /// A different answer, an error where Octave has an answer, or a run that does not finish.
    Mismatch(String),
}

/// Counts per fixture.
#[derive(Default)]
struct Tally {
    agree: usize,
    octave_error: usize,
    octave_timeout: usize,
    rejected: usize,
    mismatch: usize,
}

fn check(fixtures: Vec<Fixture>) {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let started = Instant::now();
    let cases: Vec<(&Fixture, Variant)> = fixtures
        .iter()
        .flat_map(|f| {
            variants(&f.inputs, f.resizable)
                .into_iter()
                .map(move |v| (f, v))
        })
        .collect();
    let calls: Vec<Call> = cases
        .iter()
        .map(|(f, v)| Call {
            function: f.name.clone(),
            inputs: v.inputs.clone(),
            outputs: f.outputs.clone(),
        })
        .collect();
    let mut files = coder_stubs();
    for f in &fixtures {
        let text = common::octave_source(&f.path);
        let file_name = f.path.file_name().expect("a fixture file name");
        files.push((PathBuf::from(file_name), text));
    }
    add_function_files(&mut files, &fixtures);
    let answers = answer_calls(&files, &calls, OCTAVE_LIMIT).expect("Octave answers");
    let octave_time = started.elapsed();
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut findings = Vec::new();
    for ((fixture, variant), answer) in cases.iter().zip(answers) {
        let tally = tallies.entry(&fixture.name).or_default();
        match judge(fixture, variant, answer) {
            Outcome::Agree => tally.agree += 1,
            Outcome::OctaveError => tally.octave_error += 1,
            Outcome::OctaveTimeout => tally.octave_timeout += 1,
            Outcome::Rejected(why) => {
                tally.rejected += 1;
                eprintln!(
                    "{} [{}]: rejected by m2cu: {}",
                    fixture.name,
                    variant.label,
                    first_line(&why)
                );
            }
            Outcome::Mismatch(why) => {
                tally.mismatch += 1;
                findings.push(format!("{} [{}]: {why}", fixture.name, variant.label));
            }
        }
    }
    let sum = print_summary(&tallies, octave_time, started.elapsed());
    assert!(
        findings.is_empty(),
        "{} mismatches with Octave:\n{}",
        findings.len(),
        findings.join("\n")
    );
    assert!(
        sum.agree * 10 >= (sum.agree + sum.rejected) * 9,
        "m2cu refuses {} of the {} variants Octave answers",
        sum.rejected,
        sum.agree + sum.rejected
    );
}

/// The other `.m` files of the fixtures' folders (functions the fixtures call, such as
/// `scores_range.m` for `normscores`), so that Octave finds them as m2cu does.
fn add_function_files(files: &mut Vec<m2cu_runtime::octave::SourceFile>, fixtures: &[Fixture]) {
    let folders: std::collections::BTreeSet<&std::path::Path> =
        fixtures.iter().filter_map(|f| f.path.parent()).collect();
    for folder in folders {
        for entry in std::fs::read_dir(folder).expect("fixture folder") {
            let path = entry.expect("folder entry").path();
            let Some(name) = path.file_name().map(PathBuf::from) else {
                continue;
            };
            let is_m = name.extension().is_some_and(|e| e == "m");
            let twin = name.to_str().is_some_and(|n| n.ends_with("_octave.m"));
            if is_m && !twin && !files.iter().any(|(n, _)| *n == name) {
                let text = std::fs::read_to_string(&path).expect("function file text");
                files.push((name, text));
            }
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// Prints the counts per fixture and in all; returns the sums.
fn print_summary(tallies: &BTreeMap<&str, Tally>, octave: Duration, total: Duration) -> Tally {
    eprintln!("fixture             agree  octave-error  octave-timeout  rejected  mismatch");
    let mut sum = Tally::default();
    for (name, t) in tallies {
        eprintln!(
            "{name:<18} {:>6}  {:>12}  {:>14}  {:>8}  {:>8}",
            t.agree, t.octave_error, t.octave_timeout, t.rejected, t.mismatch
        );
        sum.agree += t.agree;
        sum.octave_error += t.octave_error;
        sum.octave_timeout += t.octave_timeout;
        sum.rejected += t.rejected;
        sum.mismatch += t.mismatch;
    }
    eprintln!(
        "total: {} variants: {} agree, {} skipped because Octave raised an error (m2cu fails too), \
         {} because Octave did not finish, {} rejected by m2cu, {} mismatches; Octave {:.1} s, all {:.1} s",
        sum.agree + sum.octave_error + sum.octave_timeout + sum.rejected + sum.mismatch,
        sum.agree,
        sum.octave_error,
        sum.octave_timeout,
        sum.rejected,
        sum.mismatch,
        octave.as_secs_f64(),
        total.as_secs_f64(),
    );
    sum
}

fn judge(fixture: &Fixture, variant: &Variant, answer: Answer) -> Outcome {
    let expected = match answer {
        Answer::Outputs(values) => values,
        Answer::Error(message) => {
            return match run(fixture, variant, Backend::Cpu) {
                Err(_) => Outcome::OctaveError,
                Ok(_) => Outcome::Mismatch(format!(
                    "Octave raised an error ({}), m2cu returns outputs",
                    first_line(&message)
                )),
            };
        }
        Answer::Timeout => return Outcome::OctaveTimeout,
    };
    let mut problems = Vec::new();
    for backend in [Backend::Cpu, Backend::Emu] {
        let zero_signs = backend == Backend::Cpu && zero_signs_defined(fixture, variant);
        match run(fixture, variant, backend) {
            Ok(actual) => problems.extend(
                differences(&expected, &actual, zero_signs)
                    .into_iter()
                    .map(|d| format!("{backend:?}: {d}")),
            ),
            Err(RunError::Translate(why)) => return Outcome::Rejected(why),
            Err(RunError::Limit(why)) => return Outcome::Rejected(why),
            Err(RunError::Failed(why)) => problems.push(format!("{backend:?}: {why}")),
        }
    }
    if problems.is_empty() {
        Outcome::Agree
    } else {
        Outcome::Mismatch(problems.join("; "))
    }
}

/// Whether the sign of a zero result is defined for the variant, so that m2cu's CPU path must
/// give Octave's: every loop runs in MATLAB's order there (OpenMP regions fork only at 4096
/// iterations, and no loop of a fixture runs longer than its longest input), and no input
/// translated as an array is 1-by-1 (Octave's `max`/`min` of -0 and +0 take the second
/// operand for scalars and the first array's element for arrays, and m2cu follows the type).
fn zero_signs_defined(fixture: &Fixture, variant: &Variant) -> bool {
    let sizes = fixture.inputs.iter().zip(&variant.inputs);
    sizes.clone().all(|(_, (_, v))| v.numel() < 4096)
        && sizes
            .clone()
            .all(|((_, stored), (_, v))| stored.is_scalar() || !v.is_scalar())
}

/// Whether a run-time error is one of the generated code's errors for a limit of m2cu (not a
/// MATLAB error).
fn is_m2cu_limit(e: &m2cu::Error) -> bool {
    use m2cu::ErrorCode as C;
    // m2cu's own MATLAB library (`frontend/lib`) and its messages name its limits so.
    e.to_string().starts_with("m2cu: ")
        || matches!(
            e,
            m2cu::Error::Runtime(m2cu::RuntimeError::Call(call)) if matches!(
                call.code,
                Some(
                    C::Empty
                        // A complex result of real arguments (`atanh(2)`), which m2cu keeps real.
                        | C::Complex
                        | C::Expand
                        | C::Grow
                        | C::AccumClass
                        | C::EmptyMean
                        | C::EmptyMask
                        | C::EmptyRangeNew
                        | C::DeleteOrientation
                        | C::ArrayfunEmpty
                        | C::ComplexFactor
                        | C::ComplexAllReal
                        | C::MeanOfEmpty
                        // A loop variable read after its loop ran zero times (MATLAB's 1-by-0).
                        | C::EmptyLoop
                        // Results whose shape the static type cannot hold, and the matrix
                        // 2-norm.
                        | C::DiagVector
                        | C::FindShape
                        | C::NormMatrix
                )
            )
        )
}

/// Every output that differs, by name. With `zero_signs`, a zero of the other sign than
/// Octave's is a difference too (elsewhere a reordered `min`/`max` reduction may return either
/// zero of a tie between -0 and +0).
fn differences(
    expected: &[(String, Value)],
    actual: &[(String, Value)],
    zero_signs: bool,
) -> Vec<String> {
    expected
        .iter()
        .filter_map(|(name, want)| {
            let Some((_, got)) = actual.iter().find(|(n, _)| n == name) else {
                return Some(format!("no output `{name}`"));
            };
            let why = common::difference(want, got).or_else(|| {
                zero_signs
                    .then(|| zero_sign_difference(want, got))
                    .flatten()
            })?;
            Some(format!("`{name}`: {why}"))
        })
        .collect()
}

/// Where a floating-point zero has the other sign than Octave's.
fn zero_sign_difference(want: &Value, got: &Value) -> Option<String> {
    let pairs: Vec<(f64, f64)> = match (&want.data, &got.data) {
        (Data::Double(w), Data::Double(g)) => w.iter().copied().zip(g.iter().copied()).collect(),
        (Data::Single(w), Data::Single(g)) => w
            .iter()
            .map(|&x| x as f64)
            .zip(g.iter().map(|&x| x as f64))
            .collect(),
        _ => return None,
    };
    let at = pairs
        .iter()
        .position(|(w, g)| *w == 0.0 && w.is_sign_negative() != g.is_sign_negative())?;
    let (w, g) = pairs[at];
    Some(format!("element {} is {g:?}, Octave has {w:?}", at + 1))
}

enum RunError {
    /// m2cu refused the program at translation time.
    Translate(String),
    /// The program stopped at one of m2cu's limits at run time.
    Limit(String),
    /// The program failed at run time, or did not finish.
    Failed(String),
}

/// Runs the variant on `backend`, giving up after [`M2CU_LIMIT`].
fn run(
    fixture: &Fixture,
    variant: &Variant,
    backend: Backend,
) -> Result<Vec<(String, Value)>, RunError> {
    let run_options = RunOptions {
        backend,
        // The C path built at -O0: the same bits as -O3 (tests/e2e.rs runs every fixture
        // at -O3), and most of this test's time went into -O3 builds.
        build: BuildOptions {
            optimization: Optimization::BuildTime,
            ..Default::default()
        },
        // One multiprocessor, threads taking turns in order: deterministic and fast (the
        // concurrent schedule runs in tests/emu.rs).
        emu: EmuOptions {
            sm_count: 1,
            schedule: Schedule::InOrder,
            lanes: None,
        },
        ..Default::default()
    };
    let ran = common::run_within(
        fixture.source.clone(),
        variant.inputs.clone(),
        fixture.options(variant),
        run_options,
        M2CU_LIMIT,
    );
    match ran {
        Some(Ok(result)) => Ok(result.outputs),
        Some(Err(e @ m2cu::Error::Source { .. })) => Err(RunError::Translate(e.to_string())),
        Some(Err(e)) if is_m2cu_limit(&e) => {
            Err(RunError::Limit(first_line(&e.to_string()).to_string()))
        }
        Some(Err(e)) => Err(RunError::Failed(first_line(&e.to_string()).to_string())),
        None => Err(RunError::Failed(format!(
            "did not finish in {} s",
            M2CU_LIMIT.as_secs()
        ))),
    }
}
