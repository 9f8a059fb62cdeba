//! Running translated programs: [`Program`] translates and builds once and is then called any
//! number of times with new inputs (prepare once, execute many); [`run`] does both for one call.
//!
//! Invariants: a [`Program`] is called only with inputs of the types it was prepared for (each
//! call checks them, naming the first input that differs); inputs cross in the entry function's
//! parameter order whatever order they are given in; outputs come back by name in the
//! function's output order.

use std::time::{Duration, Instant};

use m2cu_frontend::types::{Dim, Type};
use m2cu_runtime::{
    CpuLibrary, EmuProgram, GpuProgram, GpuStatus, Offer, OutputSpec, Threads, Transfers,
};

use crate::{BuildOptions, ClassId, EmuOptions, Error, Options, Translation, Value};

/// Which machine runs the program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// The GPU when one is usable, otherwise the CPU (with a notice).
    #[default]
    Auto,
    Cpu,
    Gpu,
    /// The CUDA kernels emulated on CPU threads (needs a C++ compiler; slow, for testing).
    Emu,
}

/// Options of [`run`] and [`Program::prepare`].
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    pub backend: Backend,
    pub build: BuildOptions,
    /// The emulated device of [`Backend::Emu`].
    pub emu: EmuOptions,
    /// How many threads the C path's parallel loops use ([`Backend::Cpu`]): by default the
    /// OpenMP default (`OMP_NUM_THREADS`, else every core) lowered to the cores other
    /// processes leave free.
    pub threads: Threads,
}

/// What [`run`] returns.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Outputs by name, in the function's output order.
    pub outputs: Vec<(String, Value)>,
    /// `"gpu"`, `"cpu"` or `"emu"`.
    pub backend: &'static str,
    /// A one-line notice for the user (e.g. the GPU fallback), if any.
    pub notice: Option<String>,
    /// Time to translate and build (compile, or load from the cache).
    pub build_time: Duration,
    /// The part of `build_time` spent translating (parse, lower, analyze, generate).
    pub translate_time: Duration,
    /// Time of the call itself, transfers included.
    pub run_time: Duration,
    /// The copies between host and device memory of the call, on the GPU and the emulator.
    pub transfers: Option<Transfers>,
}

/// What [`Program::call_timed`] measured of one call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallTiming {
    /// The whole call, as [`Program::call`] takes it (type checks, transfers, kernels).
    pub total: Duration,
    /// On the GPU backend, the summed time of the call's kernels on the device (CUDA events
    /// around each launch, the merges included, the transfers not); `None` on other backends.
    pub kernels: Option<Duration>,
    /// On the GPU and emulator backends, the copies between host and device memory the call
    /// made (counts and bytes each way, and within the device).
    pub transfers: Option<Transfers>,
}

/// The inputs of a call, by name: lent or given.
///
/// Lent inputs (`&inputs`) are read and never changed. Given inputs (`&mut inputs`) are the
/// caller's to give up: an output that is also an input, as `y` in `function y = f(a, x, y)`,
/// may then be computed in the input's memory and returned as it with no copy, leaving
/// [`Value::taken`] (a 0-by-0 double) in its place; the C backend does so where the function
/// only stores into `y`. Other given inputs come back as they were.
#[derive(Debug)]
pub enum Inputs<'a> {
    Lent(&'a [(String, Value)]),
    Given(&'a mut [(String, Value)]),
}

impl Inputs<'_> {
    /// The inputs, by name.
    pub fn as_slice(&self) -> &[(String, Value)] {
        match self {
            Inputs::Lent(inputs) => inputs,
            Inputs::Given(inputs) => inputs,
        }
    }
}

impl<'a> From<&'a [(String, Value)]> for Inputs<'a> {
    fn from(inputs: &'a [(String, Value)]) -> Self {
        Inputs::Lent(inputs)
    }
}

impl<'a> From<&'a Vec<(String, Value)>> for Inputs<'a> {
    fn from(inputs: &'a Vec<(String, Value)>) -> Self {
        Inputs::Lent(inputs)
    }
}

impl<'a, const N: usize> From<&'a [(String, Value); N]> for Inputs<'a> {
    fn from(inputs: &'a [(String, Value); N]) -> Self {
        Inputs::Lent(inputs)
    }
}

impl<'a> From<&'a mut [(String, Value)]> for Inputs<'a> {
    fn from(inputs: &'a mut [(String, Value)]) -> Self {
        Inputs::Given(inputs)
    }
}

impl<'a> From<&'a mut Vec<(String, Value)>> for Inputs<'a> {
    fn from(inputs: &'a mut Vec<(String, Value)>) -> Self {
        Inputs::Given(inputs)
    }
}

/// Inputs in parameter order.
enum Ordered<'a> {
    Lent(Vec<&'a Value>),
    Given(&'a mut [Value]),
}

impl Ordered<'_> {
    fn lent(&self) -> Vec<&Value> {
        match self {
            Ordered::Lent(values) => values.clone(),
            Ordered::Given(values) => values.iter().collect(),
        }
    }
}

/// A translated program, built for one backend and ready to be called.
///
/// ```
/// let source = "function s = total(v)\n  s = 0;\n  for i = 1:numel(v)\n    s = s + v(i);\n  end\nend\n";
/// let options = m2cu::RunOptions { backend: m2cu::Backend::Cpu, ..Default::default() };
/// let v = |x: Vec<f64>| vec![("v".to_string(), m2cu::Value::row(x))];
/// let program = m2cu::Program::prepare(source, &v(vec![1.0, 2.0]), &m2cu::Options::default(), &options).unwrap();
/// for n in [1, 10, 1000] {
///     let outputs = program.call(&v(vec![0.5; n])).unwrap();
///     assert_eq!(outputs[0].1.as_slice::<f64>(), Some(&[n as f64 / 2.0][..]));
/// }
/// ```
pub struct Program {
    translation: Translation,
    /// The types taken from the specimen inputs (those no `arguments` block declares).
    input_types: Vec<(String, Type)>,
    specs: Vec<OutputSpec>,
    /// The outputs that are also inputs (`function y = f(a, x, y)`), offered the input's
    /// memory when the caller gives its inputs.
    offers: Vec<Offer>,
    built: Built,
    notice: Option<String>,
    translate_time: Duration,
    build_time: Duration,
}

enum Built {
    Cpu(CpuLibrary),
    Emu(EmuProgram),
    Gpu(GpuProgram),
}

impl Program {
    /// Translates `source` for inputs like `specimen` (their classes and shapes are the input
    /// types; the values themselves are not used) and builds it for the chosen backend. A 1-by-1
    /// specimen makes a scalar input unless the function indexes it (`x(j)`, `x(end)`: then a
    /// row of any length); give a vector of length 2 for a vector of any length.
    pub fn prepare(
        source: &str,
        specimen: &[(String, Value)],
        options: &Options,
        run_options: &RunOptions,
    ) -> Result<Program, Error> {
        let start = Instant::now();
        let (translation, input_types) = crate::typed_translation(source, specimen, options)?;
        let translate_time = start.elapsed();
        let (backend, notice) = choose_backend(run_options.backend)?;
        let g = &translation.generated;
        let built = match backend {
            "gpu" => Built::Gpu(GpuProgram::load(
                &g.kernels_cu,
                &g.kernel_names,
                &g.gpu_host_c,
                &g.entry,
                &run_options.build,
            )?),
            "emu" => Built::Emu(EmuProgram::load(
                &g.kernels_cu,
                &g.kernel_names,
                &g.gpu_host_c,
                &g.entry,
                &run_options.build,
                &run_options.emu,
            )?),
            _ => Built::Cpu(
                CpuLibrary::build(&g.c_source, &g.entry, &run_options.build)?
                    .with_threads(run_options.threads),
            ),
        };
        let specs = output_specs(&translation);
        let offers = in_place_offers(&translation);
        Ok(Program {
            translation,
            input_types,
            specs,
            offers,
            built,
            notice,
            translate_time,
            build_time: start.elapsed(),
        })
    }

    /// Calls the program; `inputs` must fit the types it was prepared for: the same classes, and
    /// the extents those types fix (a row prepared from a length-2 specimen takes any length,
    /// a matrix keeps its row count). Lend the inputs (`&inputs`), or give them (`&mut inputs`)
    /// to let an output that is also an input take its memory ([`Inputs`]).
    pub fn call<'a>(&self, inputs: impl Into<Inputs<'a>>) -> Result<Vec<(String, Value)>, Error> {
        self.call_with(inputs.into(), |ordered| self.execute(ordered))
    }

    /// [`Program::call`], also returning how long the call took and, on the GPU backend, how
    /// long its kernels ran on the device (for benchmarks; an untimed call records nothing).
    ///
    /// ```
    /// let source = "function s = total(v)\n  s = 0;\n  for i = 1:numel(v)\n    s = s + v(i);\n  end\nend\n";
    /// let options = m2cu::RunOptions { backend: m2cu::Backend::Cpu, ..Default::default() };
    /// let v = vec![("v".to_string(), m2cu::Value::row(vec![1.0, 2.5]))];
    /// let program = m2cu::Program::prepare(source, &v, &m2cu::Options::default(), &options).unwrap();
    /// let (outputs, timing) = program.call_timed(&v).unwrap();
    /// assert_eq!(outputs, program.call(&v).unwrap());
    /// assert!(timing.total > std::time::Duration::ZERO);
    /// assert_eq!(timing.kernels, None); // kernels are timed on the GPU backend only
    /// ```
    pub fn call_timed<'a>(
        &self,
        inputs: impl Into<Inputs<'a>>,
    ) -> Result<(Vec<(String, Value)>, CallTiming), Error> {
        let start = Instant::now();
        let mut kernels = None;
        let outputs = self.call_with(inputs.into(), |ordered| match &self.built {
            Built::Gpu(program) => {
                let (values, time) = program.call_timed(&ordered.lent(), &self.specs)?;
                kernels = Some(time);
                Ok(values)
            }
            _ => self.execute(ordered),
        })?;
        let total = start.elapsed();
        let transfers = match &self.built {
            Built::Gpu(program) => Some(program.last_transfers()),
            Built::Emu(program) => Some(program.last_transfers()),
            Built::Cpu(_) => None,
        };
        Ok((
            outputs,
            CallTiming {
                total,
                kernels,
                transfers,
            },
        ))
    }

    /// Checks and orders `inputs`, runs `execute` on them, and names its outputs.
    fn call_with(
        &self,
        inputs: Inputs,
        execute: impl FnOnce(Ordered) -> m2cu_runtime::Result<Vec<Value>>,
    ) -> Result<Vec<(String, Value)>, Error> {
        self.check_types(inputs.as_slice())?;
        let params = &self.translation.params;
        let values = match inputs {
            Inputs::Lent(inputs) => execute(Ordered::Lent(order_inputs(params, inputs)?)),
            Inputs::Given(inputs) => {
                let places = params
                    .iter()
                    .map(|p| place_of(p, inputs))
                    .collect::<Result<Vec<usize>, Error>>()?;
                let take = |&i: &usize| std::mem::replace(&mut inputs[i].1, Value::taken());
                let mut ordered: Vec<Value> = places.iter().map(take).collect();
                let values = execute(Ordered::Given(&mut ordered));
                for (i, value) in places.into_iter().zip(ordered) {
                    inputs[i].1 = value;
                }
                values
            }
        };
        let values = narrow_outputs(values?, &self.translation.complex_outputs);
        Ok(self
            .translation
            .outputs
            .iter()
            .map(|(n, _)| n.clone())
            .zip(values)
            .collect())
    }

    /// Runs the built program on inputs in parameter order.
    fn execute(&self, ordered: Ordered) -> m2cu_runtime::Result<Vec<Value>> {
        match (&self.built, ordered) {
            (Built::Cpu(library), Ordered::Given(values)) => {
                library.call_given(values, &self.offers, &self.specs)
            }
            (Built::Cpu(library), ordered) => library.call(&ordered.lent(), &self.specs),
            (Built::Emu(program), ordered) => program.call(&ordered.lent(), &self.specs),
            (Built::Gpu(program), ordered) => program.call(&ordered.lent(), &self.specs),
        }
    }

    /// The translation behind the program (generated code, loop report).
    pub fn translation(&self) -> &Translation {
        &self.translation
    }

    /// `"gpu"`, `"cpu"` or `"emu"`.
    pub fn backend(&self) -> &'static str {
        match self.built {
            Built::Cpu(_) => "cpu",
            Built::Emu(_) => "emu",
            Built::Gpu(_) => "gpu",
        }
    }

    /// Whether an output is also an input (`function y = f(a, x, y)`): then a call that is
    /// given its inputs (`&mut inputs`, [`Inputs`]) may compute it in the input's memory.
    pub fn has_in_place_outputs(&self) -> bool {
        !self.offers.is_empty()
    }

    /// A one-line notice for the user (e.g. the GPU fallback), if any.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Time to translate and build (compile, or load from the cache).
    pub fn build_time(&self) -> Duration {
        self.build_time
    }

    /// The part of [`Program::build_time`] spent translating (parse, lower, analyze, generate).
    pub fn translate_time(&self) -> Duration {
        self.translate_time
    }

    fn check_types(&self, inputs: &[(String, Value)]) -> Result<(), Error> {
        let t = &self.translation;
        if let Some((name, _)) = inputs.iter().find(|(n, _)| t.omitted_params.contains(n)) {
            return Err(Error::Usage(format!(
                "input `{name}` was not passed when the program was prepared (nargin {}), so the program does not take it\n\
                 help: prepare another program with a value for `{name}`",
                t.params.len()
            )));
        }
        let typed = |n: &String| self.input_types.iter().any(|(t, _)| t == n);
        if let Some((name, _)) = inputs.iter().find(|(n, v)| v.is_complex() && !typed(n)) {
            return Err(Error::Usage(format!(
                "input `{name}` is complex, but the program was prepared for a real value (its `arguments` block)\n\
                 help: prepare another program with a complex value for `{name}`"
            )));
        }
        for (name, prepared) in &self.input_types {
            let Some((_, value)) = inputs.iter().find(|(n, _)| n == name) else {
                continue;
            };
            let actual = crate::type_of(value);
            if !fits(value, actual, *prepared) {
                return Err(Error::Usage(format!(
                    "input `{name}` is {actual}, but the program was prepared for {prepared}\n\
                     help: prepare another program for inputs of this type"
                )));
            }
        }
        Ok(())
    }
}

/// What the entry of `t` returns: its outputs, then one logical per complex output (see
/// [`Translation::complex_outputs`]).
fn output_specs(t: &Translation) -> Vec<OutputSpec> {
    let outputs =
        t.outputs
            .iter()
            .enumerate()
            .map(|(k, (n, c))| match t.complex_outputs.contains(&k) {
                true => OutputSpec::complex(n.clone()),
                false => OutputSpec::new(n.clone(), *c),
            });
    let kept = t.complex_outputs.iter().map(|&k| {
        OutputSpec::new(
            format!("{} (kept complex)", t.outputs[k].0),
            ClassId::Logical,
        )
    });
    outputs.chain(kept).collect()
}

/// The outputs of a call, without the logicals that follow them: each complex output that
/// Octave does not keep complex is narrowed to real where its imaginary parts are all zero.
fn narrow_outputs(mut values: Vec<Value>, complex: &[usize]) -> Vec<Value> {
    let kept = values.split_off(values.len() - complex.len());
    for (&k, kept) in complex.iter().zip(kept) {
        if kept.as_slice::<bool>() != Some(&[true]) {
            values[k] = std::mem::replace(&mut values[k], Value::scalar(0.0)).narrowed();
        }
    }
    values
}

/// Whether a value of type `actual` can be passed where `prepared` was translated for: the
/// same class, and every extent that `prepared` fixes (a length-1 row fits a row of any length).
fn fits(value: &Value, actual: Type, prepared: Type) -> bool {
    let extents = [
        value.rows(),
        value.cols(),
        value.dims.get(2).copied().unwrap_or(1),
    ];
    let shape = prepared.shape;
    actual.class == prepared.class
        && actual.complex == prepared.complex
        && [shape.rows, shape.cols, shape.pages]
            .iter()
            .zip(extents)
            .all(|(dim, n)| match dim {
                Dim::Known(k) => *k == n as u64,
                Dim::Var => true,
            })
}

/// Translates `source` for the given inputs (their classes and shapes are the input types),
/// builds it for the chosen backend and runs it; given inputs ([`Inputs`]) may hold outputs.
///
/// ```
/// let source = "function s = total(v)\n  s = 0;\n  for i = 1:numel(v)\n    s = s + v(i);\n  end\nend\n";
/// let v = m2cu::Value::row(vec![1.0, 2.0, 3.5]);
/// let options = m2cu::RunOptions { backend: m2cu::Backend::Cpu, ..Default::default() };
/// let result = m2cu::run(source, &[("v".to_string(), v)], &m2cu::Options::default(), &options).unwrap();
/// assert_eq!(result.outputs[0].1.as_slice::<f64>(), Some(&[6.5][..]));
/// ```
///
/// A run-time error of the generated code is a [`CallError`](crate::CallError): MATLAB's
/// message, its [`ErrorCode`](crate::ErrorCode), and where it stopped as data.
///
/// ```
/// let source = "function y = shift(x, k)\n  y = zeros(1, 3);\n  for i = 1:3\n    y(i) = x(i + k);\n  end\nend\n";
/// let inputs = [("x".to_string(), m2cu::Value::row(vec![1.0, 2.0, 3.0])), ("k".to_string(), m2cu::Value::scalar(1.0))];
/// let options = m2cu::Options { file_name: "shift.m".into(), ..Default::default() };
/// let cpu = m2cu::RunOptions { backend: m2cu::Backend::Cpu, ..Default::default() };
/// let Err(m2cu::Error::Runtime(m2cu::RuntimeError::Call(e))) = m2cu::run(source, &inputs, &options, &cpu) else {
///     panic!("x(4) is past the end")
/// };
/// assert_eq!(e.code, Some(m2cu::ErrorCode::IndexRange));
/// assert_eq!(e.message, "Index exceeds the number of array elements. Index must not exceed 3. (`x(i + k)` at shift.m:4:12, i + k = 4)");
/// let at = e.location.unwrap();
/// assert_eq!((at.line, at.column, at.source.as_deref()), (4, 12, Some("x(i + k)")));
/// let subscript = at.subscript.unwrap();
/// assert_eq!((subscript.value, subscript.bound), (Some(4.0), Some(3)));
/// ```
pub fn run<'a>(
    source: &str,
    inputs: impl Into<Inputs<'a>>,
    options: &Options,
    run_options: &RunOptions,
) -> Result<RunResult, Error> {
    let inputs = inputs.into();
    let program = Program::prepare(source, inputs.as_slice(), options, run_options)?;
    let (outputs, timing) = program.call_timed(inputs)?;
    Ok(RunResult {
        outputs,
        backend: program.backend(),
        notice: program.notice.clone(),
        build_time: program.build_time,
        translate_time: program.translate_time,
        run_time: timing.total,
        transfers: timing.transfers,
    })
}

fn choose_backend(requested: Backend) -> Result<(&'static str, Option<String>), Error> {
    match (requested, m2cu_runtime::gpu_status()) {
        (Backend::Cpu, _) => Ok(("cpu", None)),
        (Backend::Emu, _) => Ok(("emu", None)),
        (_, GpuStatus::Available { .. }) => Ok(("gpu", None)),
        (Backend::Gpu, GpuStatus::Unavailable(why)) => Err(Error::Usage(format!(
            "--backend gpu: no usable GPU ({why})\nhelp: use --backend cpu, or --backend auto to fall back to the CPU"
        ))),
        (Backend::Auto, GpuStatus::Unavailable(why)) => {
            Ok(("cpu", Some(format!("m2cu: no usable GPU ({why}); running on the CPU"))))
        }
    }
}

/// The values of `params`, in that order, from `inputs` given by name (borrowed: the inputs
/// cross into the generated code without a copy).
/// Where the input of parameter `p` is in `inputs`.
fn place_of(p: &str, inputs: &[(String, Value)]) -> Result<usize, Error> {
    inputs
        .iter()
        .position(|(n, _)| n == p)
        .ok_or_else(|| missing_input(p))
}

/// The outputs that are also inputs, by position: `y` in `function y = f(a, x, y)`.
fn in_place_offers(t: &Translation) -> Vec<Offer> {
    t.outputs
        .iter()
        .enumerate()
        .filter_map(|(output, (name, _))| {
            let input = t.params.iter().position(|p| p == name)?;
            Some(Offer { output, input })
        })
        .collect()
}

fn missing_input(p: &str) -> Error {
    Error::Usage(format!(
        "input `{p}` has no value\nhelp: pass --set '{p}=...' or --inputs FILE.mat with a variable named `{p}`"
    ))
}

pub(crate) fn order_inputs<'v>(
    params: &[String],
    inputs: &'v [(String, Value)],
) -> Result<Vec<&'v Value>, Error> {
    params
        .iter()
        .map(|p| place_of(p, inputs).map(|i| &inputs[i].1))
        .collect()
}
