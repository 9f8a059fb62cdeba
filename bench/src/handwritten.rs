//! The hand-written C baseline (`handwritten.c`): compiled per benchmark run with the system C
//! compiler into a temporary directory at each [`Level`], loaded with libloading, and called on
//! the same data as m2cu.
//!
//! Invariants: the function pointers in [`HandWritten`] are valid while it lives (it owns the
//! library and its directory); a [`Call`] borrows its read-only inputs and owns what the C
//! writes (saxpy's `y` is a copy of the input, updated in place by every run, so timed runs
//! after the first see a different `y` but the same work); [`Call::outputs`] after one run are
//! the workload's results on the inputs the call was made from.

use std::path::Path;
use std::process::Command;

use libloading::Library;
use m2cu::Value;

use crate::workloads::{Workload, STENCIL_STEPS};

type ReduceFn = unsafe extern "C" fn(*const f64, i64) -> f64;
type MinLocFn = unsafe extern "C" fn(*const f64, i64, *mut f64, *mut f64);
type HistogramFn = unsafe extern "C" fn(*const u8, i64, *mut f64);
type SaxpyFn = unsafe extern "C" fn(f64, *const f64, *mut f64, i64);
type RowSumFn = unsafe extern "C" fn(*const f64, i64, i64, *mut f64);
type PrefixFn = unsafe extern "C" fn(*const f64, i64, *mut f64);
type StencilFn = unsafe extern "C" fn(*const f64, i64, i64, i64, *mut f64, *mut f64);

const SOURCE: &str = include_str!("handwritten.c");

/// The flags of every build; `-ffp-contract=off` as on m2cu's C path, so that results are
/// MATLAB's.
const FLAGS: [&str; 4] = ["-std=c99", "-ffp-contract=off", "-fPIC", "-shared"];

/// How hard the compiler optimizes the hand-written C.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// `-O2`: the build a C programmer would write.
    Plain,
    /// `-O3 -march=native`: the compiler's best on this machine.
    Tuned,
}

impl Level {
    fn flags(self) -> &'static [&'static str] {
        match self {
            Level::Plain => &["-O2"],
            Level::Tuned => &["-O3", "-march=native"],
        }
    }
}

/// The loaded baseline library.
pub struct HandWritten {
    sum: ReduceFn,
    max: ReduceFn,
    count: ReduceFn,
    minloc: MinLocFn,
    histogram: HistogramFn,
    saxpy: SaxpyFn,
    rowsum: RowSumFn,
    prefix: PrefixFn,
    stencil: StencilFn,
    _library: Library,
    _dir: tempfile::TempDir,
}

/// The compiler command: `$CC`, else `cc`.
fn compiler() -> String {
    std::env::var("CC")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| "cc".to_string())
}

impl HandWritten {
    /// Compiles `handwritten.c` at `level` and loads it.
    pub fn build(level: Level) -> Result<HandWritten, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
        let source = dir.path().join("handwritten.c");
        std::fs::write(&source, SOURCE).map_err(|e| format!("{}: {e}", source.display()))?;
        let object = dir.path().join("libhandwritten.so");
        compile(&source, &object, level)?;
        // SAFETY: loading runs no initialisers beyond the C runtime's; the file is ours.
        let library = unsafe { Library::new(&object) }
            .map_err(|e| format!("loading {}: {e}", object.display()))?;
        // SAFETY: each type matches the definition in handwritten.c.
        unsafe {
            Ok(HandWritten {
                sum: symbol(&library, "hw_sum")?,
                max: symbol(&library, "hw_max")?,
                count: symbol(&library, "hw_count")?,
                minloc: symbol(&library, "hw_minloc")?,
                histogram: symbol(&library, "hw_histogram")?,
                saxpy: symbol(&library, "hw_saxpy")?,
                rowsum: symbol(&library, "hw_rowsum")?,
                prefix: symbol(&library, "hw_prefix")?,
                stencil: symbol(&library, "hw_stencil")?,
                _library: library,
                _dir: dir,
            })
        }
    }

    /// A call of `workload`'s C function on `inputs` (as made by [`Workload::inputs`]).
    pub fn call<'a>(
        &self,
        workload: Workload,
        inputs: &'a [(String, Value)],
    ) -> Result<Call<'a>, String> {
        let kernel = match workload {
            Workload::Sum => Kernel::Reduce(self.sum, doubles(inputs, "x")?, 0.0),
            Workload::Max => Kernel::Reduce(self.max, doubles(inputs, "x")?, 0.0),
            Workload::Count => Kernel::Reduce(self.count, doubles(inputs, "x")?, 0.0),
            Workload::MinLoc => Kernel::MinLoc(self.minloc, doubles(inputs, "x")?, [0.0; 2]),
            Workload::Histogram => {
                Kernel::Histogram(self.histogram, bytes(inputs, "b")?, vec![0.0; 256])
            }
            Workload::Saxpy => Kernel::Saxpy(
                self.saxpy,
                scalar(inputs, "a")?,
                doubles(inputs, "x")?,
                doubles(inputs, "y")?.to_vec(),
            ),
            Workload::RowSum => {
                let a = input(inputs, "A")?;
                let x = doubles(inputs, "A")?;
                Kernel::RowSum(self.rowsum, x, a.cols(), vec![0.0; a.rows()])
            }
            Workload::Prefix => {
                let x = doubles(inputs, "x")?;
                Kernel::Prefix(self.prefix, x, vec![0.0; x.len()])
            }
            Workload::Stencil => {
                let u = input(inputs, "u")?;
                let x = doubles(inputs, "u")?;
                Kernel::Stencil(
                    self.stencil,
                    x,
                    [u.rows(), u.cols()],
                    [vec![0.0; x.len()], vec![0.0; x.len()]],
                )
            }
        };
        Ok(Call { kernel })
    }
}

/// # Safety
/// `T` must be the C function's type.
unsafe fn symbol<T: Copy>(library: &Library, name: &str) -> Result<T, String> {
    library
        .get::<T>(name.as_bytes())
        .map(|s| *s)
        .map_err(|e| format!("handwritten.c: {name}: {e}"))
}

fn compile(source: &Path, object: &Path, level: Level) -> Result<(), String> {
    let cc = compiler();
    let mut words = cc.split_whitespace();
    let program = words.next().unwrap_or("cc");
    let output = Command::new(program)
        .args(words)
        .args(FLAGS)
        .args(level.flags())
        .arg(source)
        .arg("-o")
        .arg(object)
        .output()
        .map_err(|e| format!("cannot run the C compiler `{cc}` ({e}); install one or set $CC"))?;
    if !output.status.success() {
        return Err(format!(
            "compiling the hand-written C with `{cc}` failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(())
}

fn input<'a>(inputs: &'a [(String, Value)], name: &str) -> Result<&'a Value, String> {
    inputs
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
        .ok_or_else(|| format!("the hand-written C needs an input `{name}`"))
}

fn doubles<'a>(inputs: &'a [(String, Value)], name: &str) -> Result<&'a [f64], String> {
    input(inputs, name)?
        .as_slice::<f64>()
        .ok_or_else(|| format!("input `{name}` must be double"))
}

fn scalar(inputs: &[(String, Value)], name: &str) -> Result<f64, String> {
    doubles(inputs, name)?
        .first()
        .copied()
        .ok_or_else(|| format!("input `{name}` must not be empty"))
}

fn bytes<'a>(inputs: &'a [(String, Value)], name: &str) -> Result<&'a [u8], String> {
    input(inputs, name)?
        .as_slice::<u8>()
        .ok_or_else(|| format!("input `{name}` must be uint8"))
}

/// One workload's function with its inputs and the buffers it writes.
enum Kernel<'a> {
    Reduce(ReduceFn, &'a [f64], f64),
    MinLoc(MinLocFn, &'a [f64], [f64; 2]),
    Histogram(HistogramFn, &'a [u8], Vec<f64>),
    Saxpy(SaxpyFn, f64, &'a [f64], Vec<f64>),
    /// The matrix's elements and columns, and the sums (one per row).
    RowSum(RowSumFn, &'a [f64], usize, Vec<f64>),
    Prefix(PrefixFn, &'a [f64], Vec<f64>),
    /// The grid, its rows and columns, the result and the other grid.
    Stencil(StencilFn, &'a [f64], [usize; 2], [Vec<f64>; 2]),
}

/// A prepared call of the baseline; see the module doc.
pub struct Call<'a> {
    kernel: Kernel<'a>,
}

impl Call<'_> {
    /// Runs the C function once.
    pub fn run(&mut self) {
        // SAFETY: every pointer is to a live buffer of the length passed with it (`h` has 256
        // elements, saxpy's `y` as many as `x`, which `Workload::inputs` makes equal; a row
        // sum's matrix has rows * cols elements; a stencil's grids are the input's size).
        unsafe {
            match &mut self.kernel {
                Kernel::Reduce(f, x, out) => *out = f(x.as_ptr(), x.len() as i64),
                Kernel::MinLoc(f, x, [m, k]) => f(x.as_ptr(), x.len() as i64, m, k),
                Kernel::Histogram(f, b, h) => f(b.as_ptr(), b.len() as i64, h.as_mut_ptr()),
                Kernel::Saxpy(f, a, x, y) => {
                    let n = x.len().min(y.len()) as i64;
                    f(*a, x.as_ptr(), y.as_mut_ptr(), n)
                }
                Kernel::RowSum(f, a, cols, s) => {
                    f(a.as_ptr(), s.len() as i64, *cols as i64, s.as_mut_ptr())
                }
                Kernel::Prefix(f, x, c) => f(x.as_ptr(), x.len() as i64, c.as_mut_ptr()),
                Kernel::Stencil(f, u0, [m, n], [u, v]) => f(
                    u0.as_ptr(),
                    *m as i64,
                    *n as i64,
                    STENCIL_STEPS as i64,
                    u.as_mut_ptr(),
                    v.as_mut_ptr(),
                ),
            }
        }
    }

    /// The results of the last run, in the MATLAB function's output order and shapes.
    pub fn outputs(&self) -> Vec<Value> {
        match &self.kernel {
            Kernel::Reduce(_, _, s) => vec![Value::scalar(*s)],
            Kernel::MinLoc(_, _, [m, k]) => vec![Value::scalar(*m), Value::scalar(*k)],
            Kernel::Histogram(_, _, h) => vec![Value::row(h.clone())],
            Kernel::Saxpy(_, _, _, y) => vec![Value::row(y.clone())],
            Kernel::RowSum(_, _, _, s) => {
                vec![Value::matrix(s.len(), 1, s.clone()).expect("a column")]
            }
            Kernel::Prefix(_, _, c) => vec![Value::row(c.clone())],
            Kernel::Stencil(_, _, [m, n], [u, _]) => {
                vec![Value::matrix(*m, *n, u.clone()).expect("the grid's shape")]
            }
        }
    }
}
