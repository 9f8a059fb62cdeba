//! MEX functions (`m2cu mex`, `m2cu::build_mex`) in GNU Octave: every end-to-end fixture built
//! with `mkoctfile --mex` for the types of its stored inputs, then called from one Octave
//! session beside the fixture's own `.m` function (its Octave twin where it has one), which
//! must agree: same classes, sizes and complexity, array elements exactly, floating-point
//! scalars (reductions m2cu may reorder) within a relative 1e-12 (1e-5 for single); a complex
//! output with no nonzero imaginary part comes back real, as Octave turns every such MEX
//! output into a real array (MATLAB does not). Then the
//! errors a MEX call raises: wrong inputs named, run-time errors and the program's own `error`
//! with their identifiers.
//!
//! Needs `octave-cli` and `mkoctfile` (Debian: octave, liboctave-dev); skips without them,
//! fails under `CI=true`.

mod common;

use std::path::Path;
use std::process::Command;

use m2cu::Translation;

fn tools_available() -> bool {
    common::require(common::octave_available(), "octave-cli")
        && common::require(common::mkoctfile_available(), "mkoctfile")
}

/// A fixture translated as `m2cu run` translates it for its stored inputs.
fn translate_for_inputs(name: &str) -> Translation {
    let path = common::e2e_path(name, ".m");
    let options = m2cu::Options {
        file_name: format!("{name}.m"),
        ..common::fixture_options(name)
    };
    let options = m2cu::Options {
        args: Vec::new(),
        nargin: None,
        ..options
    };
    m2cu::translate_for(&common::source(&path), &common::inputs(name), &options)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Builds every translation's MEX function in `dir`, on as many threads as there are cores.
fn build_all(translations: &[(String, Translation)], dir: &Path) {
    let failures = common::failures_in_parallel(
        translations,
        |(name, _)| name.clone(),
        |(name, t)| match m2cu::build_mex(t, dir, &m2cu::MexOptions::default()) {
            Ok(_) => Vec::new(),
            Err(e) => vec![format!("{name}: {e}")],
        },
    );
    assert!(
        failures.is_empty(),
        "MEX builds failed:\n{}",
        failures.join("\n")
    );
}

/// Octave code that calls fixture `name`'s `.m` function and its MEX function with the stored
/// inputs and counts a failure where they differ.
fn compare_in_octave(name: &str, t: &Translation) -> String {
    let function = match common::octave_twin(&common::e2e_path(name, ".m")) {
        Some(_) => format!("{name}_octave"),
        None => name.to_string(),
    };
    let outs = (1..=t.outputs.len())
        .map(|k| format!("m2cu_o{{{k}}}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mex_outs = outs.replace("m2cu_o", "m2cu_x");
    format!(
        "m2cu_I = struct2cell(load('{name}.in.mat'));\n\
         m2cu_o = cell(1, {n}); m2cu_x = cell(1, {n});\n\
         [{outs}] = {function}(m2cu_I{{:}});\n\
         try\n  [{mex_outs}] = {mex}(m2cu_I{{:}});\n  m2cu_compare('{name}', m2cu_o, m2cu_x);\n\
         catch m2cu_e\n  printf('{name}: the MEX call failed: %s\\n', m2cu_e.message); m2cu_failures += 1;\nend\n",
        n = t.outputs.len(),
        mex = m2cu::mex_name(t),
    )
}

/// The comparison of two lists of outputs, as a function file in `dir`.
const COMPARE: &str = "function m2cu_compare(name, expected, actual)
  global m2cu_failures
  for k = 1:numel(expected)
    e = expected{k}; a = actual{k};
    why = '';
    if ~strcmp(class(e), class(a))
      why = sprintf('class %s instead of %s', class(a), class(e));
    elseif ~isequal(size(e), size(a))
      why = sprintf('size %s instead of %s', mat2str(size(a)), mat2str(size(e)));
    elseif iscomplex(e) && ~iscomplex(a) && all(imag(e(:)) == 0)
      % Octave turns every complex array a MEX function returns with no nonzero imaginary
      % part into a real one (MATLAB keeps it complex); the gateway returns it complex.
      if ~isequaln(real(e), a), why = 'real parts differ'; end
    elseif iscomplex(e) ~= iscomplex(a)
      why = 'complexity differs';
    elseif isfloat(e) && isscalar(e)
      tol = 1e-12; if isa(e, 'single'), tol = 1e-5; end
      if ~(isequaln(e, a) || abs(double(a) - double(e)) <= tol * max(abs(double(e)), abs(double(a))))
        why = sprintf('%.17g instead of %.17g', double(a), double(e));
      end
    elseif ~isequaln(e, a)
      why = 'elements differ';
    end
    if ~isempty(why)
      printf('%s: output %d: %s\\n', name, k, why);
      m2cu_failures += 1;
    end
  end
end
";

#[test]
fn every_e2e_fixture_as_a_mex_function_equals_its_m_function() {
    if !tools_available() {
        return;
    }
    let names = common::e2e_fixtures();
    let translations: Vec<(String, Translation)> = names
        .iter()
        .map(|n| (n.clone(), translate_for_inputs(n)))
        .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    build_all(&translations, dir.path());
    std::fs::write(dir.path().join("m2cu_compare.m"), COMPARE).expect("write m2cu_compare.m");
    let mut script = format!(
        "global m2cu_failures; m2cu_failures = 0;\naddpath('{}');\n",
        dir.path().display()
    );
    for (name, t) in &translations {
        script.push_str(&compare_in_octave(name, t));
    }
    script.push_str("printf('failures: %d\\n', m2cu_failures);\n");
    let text = m2cu_runtime::octave::eval(&common::root().join("fixtures/e2e"), &script)
        .unwrap_or_else(|e| panic!("Octave failed:\n{e}"));
    assert!(text.contains("failures: 0\n"), "{text}");
}

/// What a MEX call raises: MATLAB's messages for the call itself, the inputs named where their
/// class, size or complexity is not what the function was translated for, run-time errors with
/// `m2cu:` identifiers, and the program's own `error` with its identifier; its `fprintf` and
/// `warning` print in Octave's command window.
#[test]
fn mex_calls_raise_matlab_errors_with_identifiers() {
    if !tools_available() {
        return;
    }
    let source = "function [s, x] = picksum(v, k)
  arguments
    v (1,:) double
    k (1,1) double
  end
  if k < 0
    error('picksum:negative', 'k must be nonnegative, not %d', k);
  end
  if k == 0
    warning('k is zero');
  end
  fprintf('summing %d elements\\n', numel(v));
  s = 0;
  for i = 1:numel(v)
    s = s + v(i);
  end
  x = v(k);
end
";
    let dir = tempfile::tempdir().expect("temp dir");
    let options = m2cu::Options {
        file_name: "picksum.m".into(),
        ..Default::default()
    };
    let t = m2cu::translate(source, &options).expect("picksum translates");
    m2cu::build_mex(&t, dir.path(), &m2cu::MexOptions::default()).expect("the MEX builds");
    let calls = [
        "[s, x] = picksum_mex([1 2 3], 2); printf('s = %g, x = %g\\n', s, x);",
        "picksum_mex([1 2 3], 5)",
        "picksum_mex([1 2 3], 0)",
        "picksum_mex([1 2 3], -1)",
        "picksum_mex(single([1 2 3]), 1)",
        "picksum_mex([1; 2; 3], 1)",
        "picksum_mex([1 2 3] * 1i, 1)",
        "picksum_mex([1 2 3], 1, 2)",
        "picksum_mex([1 2 3])",
        "[a, b, c] = picksum_mex([1 2 3], 1)",
    ];
    let calls: Vec<String> = calls.iter().map(|c| c.to_string()).collect();
    let text = common::octave_errors(dir.path(), &calls);
    let expected = [
        "summing 3 elements\ns = 6, x = 2\n",
        "m2cu:indexRange | picksum_mex: Index exceeds the number of array elements.",
        "m2cu:indexInvalid | picksum_mex: Array indices must be positive integers or logical values.",
        "picksum:negative | picksum_mex: k must be nonnegative, not -1",
        "m2cu:inputClass | picksum_mex: Input argument 1 (v) must be of class double, but it is of class single.",
        "m2cu:inputSize | picksum_mex: Input argument 1 (v) must be of size 1x:, but it is 3x1.",
        "m2cu:inputComplex | picksum_mex: Input argument 1 (v) must be real, but it is complex.",
        "m2cu:tooManyInputs | picksum_mex: Too many input arguments.",
        "m2cu:notEnoughInputs | picksum_mex: Not enough input arguments.",
        "m2cu:tooManyOutputs | picksum_mex: Too many output arguments.",
    ];
    for line in expected {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
}

/// `m2cu mex` as the README shows it: the loop report, the files it wrote, and a MEX function
/// Octave calls like the MATLAB function.
#[test]
fn the_mex_command_builds_what_octave_calls() {
    if !tools_available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().display().to_string();
    let mut args = vec!["mex", "fixtures/e2e/saxpy.m"];
    args.extend(common::SAXPY_ARGS);
    args.extend(["-o", &out_dir]);
    let o = common::m2cu(&args);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert!(o.status.success(), "{err}");
    assert!(out.contains("parallel -> kernel saxpy_kernel1"), "{out}");
    for file in ["saxpy.c", "saxpy.h", "saxpy_mex.c", "saxpy_mex.mex"] {
        assert!(out.contains(&format!("wrote {out_dir}/{file}\n")), "{out}");
    }
    let text = m2cu_runtime::octave::eval(
        dir.path(),
        "y = saxpy_mex(2, [1 2 3], [10 20 30]); printf('%g ', y);",
    )
    .unwrap_or_else(|e| panic!("Octave failed:\n{e}"));
    assert_eq!(text.trim(), "12 24 36");
}

/// A MEX function with kernels runs its GPU program where the CUDA driver and libnvrtc load:
/// here through the stand-in driver (`tests/cuda_services/driver.c`, kernels on the emulator),
/// whose log shows the kernel launched, with the C program's result. Where no driver loads, it
/// runs the C program, and `M2CU_MEX_BACKEND=gpu` says why it cannot run on the GPU.
#[test]
fn a_mex_function_runs_on_the_gpu_where_the_driver_loads() {
    if !tools_available() || !common::require(m2cu_runtime::nvrtc_available(), "libnvrtc") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().display().to_string();
    let mut args = vec!["mex", "fixtures/e2e/saxpy.m"];
    args.extend(common::SAXPY_ARGS);
    args.extend(["-o", &out_dir, "-q"]);
    let o = common::m2cu(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The kernels of the same translation, on the emulator.
    let options = m2cu::Options {
        args: common::SAXPY_ARGS
            .iter()
            .skip(1)
            .step_by(2)
            .map(|a| a.to_string())
            .collect(),
        ..Default::default()
    };
    let source = common::source(&common::e2e_path("saxpy", ".m"));
    let t = m2cu::translate(&source, &options).expect("saxpy translates");
    let kernels = m2cu_runtime::emu::kernel_library(
        &t.generated.kernels_cu,
        &t.generated.kernel_names,
        &t.generated.entry,
        &m2cu_runtime::BuildOptions::default(),
    )
    .expect("the emulated kernels build");
    let driver = common::stand_in_driver(dir.path());
    let log = dir.path().join("launches.txt");
    let call = "y = saxpy_mex(2, [1 2 3], [10 20 30]); printf('%g ', y);";
    let with_driver = format!(
        "setenv('M2CU_CUDA_DRIVER', '{}'); setenv('M2CU_EMU_KERNELS', '{}'); setenv('M2CU_STAND_IN_LOG', '{}'); setenv('M2CU_CACHE_DIR', '{}'); setenv('M2CU_MEX_BACKEND', 'gpu');\n{call}",
        driver.display(),
        kernels.display(),
        log.display(),
        dir.path().join("cache").display()
    );
    let text = m2cu_runtime::octave::eval(dir.path(), &with_driver)
        .unwrap_or_else(|e| panic!("Octave failed:\n{e}"));
    assert_eq!(text.trim(), "12 24 36");
    let launched = std::fs::read_to_string(&log).expect("the stand-in's log");
    assert!(launched.contains("saxpy_kernel1\n"), "{launched}");
    let without = format!(
        "setenv('M2CU_CUDA_DRIVER', '{}');\n{call}\nsetenv('M2CU_MEX_BACKEND', 'gpu');\ntry\n  saxpy_mex(2, 1, 1);\ncatch e\n  printf('\\n%s | %s\\n', e.identifier, e.message);\nend\n",
        dir.path().join("no-such-driver.so").display()
    );
    let text = m2cu_runtime::octave::eval(dir.path(), &without)
        .unwrap_or_else(|e| panic!("Octave failed:\n{e}"));
    assert!(text.starts_with("12 24 36"), "{text}");
    assert!(
        text.contains("m2cu:noGpu | saxpy_mex: cannot run on the GPU: no CUDA driver ("),
        "{text}"
    );
}

/// Without mkoctfile, `m2cu mex` still writes the sources (MATLAB's `mex` builds them), and
/// says how to get it.
#[test]
fn without_mkoctfile_the_sources_are_written_and_the_error_says_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out_dir = dir.path().display().to_string();
    let o = Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args([
            "mex",
            "fixtures/e2e/vecsum.m",
            "--args",
            "v=double(1,:)",
            "-o",
            &out_dir,
        ])
        .env("MKOCTFILE", dir.path().join("no-such-mkoctfile"))
        .current_dir(common::root())
        .output()
        .expect("m2cu runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("apt-get install liboctave-dev"), "{err}");
    for file in ["vecsum.c", "vecsum.h", "vecsum_mex.c"] {
        assert!(dir.path().join(file).exists(), "{file} not written");
    }
    let gateway = std::fs::read_to_string(dir.path().join("vecsum_mex.c")).unwrap();
    assert!(gateway.contains("mex -R2017b -DM2CU_MEX"), "{gateway}");
}
