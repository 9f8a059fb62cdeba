//! CPU-path tests: hand-written C that follows the m2cu ABI, built with `cc` into a temporary
//! cache directory.

use std::path::Path;

use super::*;
use crate::abi::{M2cuArray, M2cuGpu};
use crate::value::{ClassId, Data};
use crate::Error;

fn opts(dir: &Path) -> BuildOptions {
    BuildOptions {
        cache_dir: Some(dir.to_path_buf()),
        ..BuildOptions::default()
    }
}

const PRELUDE: &str = r#"
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "m2cu_abi.h"
void m2cu_release(void *data) { free(data); }
static m2cu_array make(int64_t r, int64_t c, int64_t p, size_t size) {
    m2cu_array a;
    a.dims[0] = r; a.dims[1] = c; a.dims[2] = p;
    a.data = malloc((size_t)(r * c * p) * size);
    return a;
}
static int64_t numel(const m2cu_array *a) { return a->dims[0] * a->dims[1] * a->dims[2]; }
"#;

const SCALE_SUM: &str = r#"
int scale_sum(const m2cu_array *in, m2cu_array *out, char *err, size_t err_len) {
    if (numel(&in[1]) != 1) {
        /* The message, and after its NUL the record of m2cu_message (see call_error.rs). */
        int n = snprintf(err, err_len, "k must be a scalar");
        snprintf(err + n + 1, err_len - n - 1, "\x1e%d\x1e%d\x1e%d\x1e%d\x1e%d\x1e%s", 1 + 256 * 9, 0, 0, 0, 0, "k\x1fscale.m:3:5");
        return 1;
    }
    const double *x = in[0].data;
    double k = *(const double *)in[1].data;
    int64_t n = numel(&in[0]);
    out[0] = make(in[0].dims[0], in[0].dims[1], in[0].dims[2], sizeof(double));
    out[1] = make(1, 1, 1, sizeof(double));
    out[2] = make(1, 1, 1, sizeof(bool));
    double *y = out[0].data, s = 0;
    #pragma omp parallel for reduction(+:s)
    for (int64_t i = 0; i < n; i++) { y[i] = x[i] * k; s += y[i]; }
    *(double *)out[1].data = s;
#ifdef _OPENMP
    *(bool *)out[2].data = true;
#else
    *(bool *)out[2].data = false;
#endif
    return 0;
}
"#;

fn scale_sum_outputs() -> Vec<OutputSpec> {
    vec![
        OutputSpec::new("y", ClassId::Double),
        OutputSpec::new("s", ClassId::Double),
        OutputSpec::new("omp", ClassId::Logical),
    ]
}

/// The `scale_sum` test program, built into `cache`.
fn scale_sum_library(cache: &std::path::Path) -> CpuLibrary {
    CpuLibrary::build(&format!("{PRELUDE}{SCALE_SUM}"), "scale_sum", &opts(cache)).unwrap()
}

#[test]
fn builds_and_calls_with_openmp() {
    let dir = tempfile::tempdir().unwrap();
    let lib = scale_sum_library(dir.path());
    assert_eq!(lib.entry(), "scale_sum");
    let x = Value::matrix(2, 3, (1..=6).map(f64::from).collect()).unwrap();
    let out = lib
        .call(&[x, Value::scalar(0.5)], &scale_sum_outputs())
        .unwrap();
    let y = Value::matrix(2, 3, vec![0.5, 1.0, 1.5, 2.0, 2.5, 3.0]).unwrap();
    assert_eq!(out, vec![y, Value::scalar(10.5), Value::scalar(true)]);
    let empty = lib
        .call(
            &[Value::zeros(ClassId::Double, 0, 3), Value::scalar(2.0)],
            &scale_sum_outputs(),
        )
        .unwrap();
    assert_eq!(empty[0], Value::zeros(ClassId::Double, 0, 3));
    assert_eq!(empty[1], Value::scalar(0.0));
    let cube = |k: f64| {
        Value::new(
            vec![2, 1, 3],
            Data::Double((1..=6).map(|i| k * f64::from(i)).collect()),
        )
        .unwrap()
    };
    let out = lib
        .call(&[cube(1.0), Value::scalar(2.0)], &scale_sum_outputs())
        .unwrap();
    assert_eq!(out[..2], [cube(2.0), Value::scalar(42.0)]);
}

#[test]
fn generated_errors_and_bad_arguments_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let lib = scale_sum_library(dir.path());
    let err = lib
        .call(
            &[Value::scalar(1.0), Value::row(vec![1.0, 2.0])],
            &scale_sum_outputs(),
        )
        .unwrap_err();
    let Error::Call(call) = err else {
        panic!("not a call error: {err}")
    };
    assert_eq!(call.message, "k must be a scalar");
    assert_eq!(call.code, Some(crate::ErrorCode::IndexRange));
    let at = call.location.expect("the record's place");
    assert_eq!((at.file.as_str(), at.line, at.column), ("scale.m", 3, 5));
    assert_eq!(at.source.as_deref(), Some("k"));
}

#[test]
fn compile_errors_carry_compiler_output_and_missing_entries_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let err = CpuLibrary::build(
        "int broken(void) { return nope; }",
        "broken",
        &opts(dir.path()),
    )
    .err()
    .unwrap();
    match &err {
        Error::Compile { stderr, .. } => assert!(stderr.contains("nope"), "{stderr}"),
        other => panic!("expected a compile error, got {other}"),
    }
    let err = CpuLibrary::build(&format!("{PRELUDE}{SCALE_SUM}"), "other", &opts(dir.path()))
        .err()
        .unwrap();
    assert!(err.to_string().contains("does not export `other`"), "{err}");
    let missing = BuildOptions {
        compiler: Some("/nonexistent/cc".into()),
        openmp: false,
        ..opts(dir.path())
    };
    let err = CpuLibrary::build("int f;", "f", &missing).err().unwrap();
    assert!(
        err.to_string().contains("cannot run the C compiler"),
        "{err}"
    );
}

#[test]
fn every_class_crosses_the_abi() {
    let source = format!(
        "{PRELUDE}
        static const size_t SIZES[11] = {{8, 4, 1, 2, 4, 8, 1, 2, 4, 8, 1}};
        int echo(const m2cu_array *in, m2cu_array *out, char *err, size_t err_len) {{
            for (int k = 0; k < 11; k++) {{
                out[k] = make(in[k].dims[0], in[k].dims[1], in[k].dims[2], SIZES[k]);
                memcpy(out[k].data, in[k].data, (size_t)numel(&in[k]) * SIZES[k]);
            }}
            return 0;
        }}"
    );
    let dir = tempfile::tempdir().unwrap();
    let lib = CpuLibrary::build(&source, "echo", &opts(dir.path())).unwrap();
    let inputs = vec![
        Value::row(vec![1.5, f64::NAN, -0.0]),
        Value::column(vec![1.5f32, -2.0]),
        Value::row(vec![i8::MIN, i8::MAX]),
        Value::new(vec![1, 2, 2], Data::Int16(vec![i16::MIN, 7, 0, i16::MAX])).unwrap(),
        Value::matrix(2, 2, vec![i32::MIN, 1, 2, i32::MAX]).unwrap(),
        Value::row(vec![i64::MIN, i64::MAX]),
        Value::row(vec![0u8, 255]),
        Value::scalar(u16::MAX),
        Value::row(vec![u32::MAX, 0]),
        Value::row(vec![u64::MAX, 1]),
        Value::new(vec![1, 1, 3], Data::Logical(vec![true, false, true])).unwrap(),
    ];
    let specs: Vec<OutputSpec> = inputs
        .iter()
        .map(|v| OutputSpec::new(v.class().name(), v.class()))
        .collect();
    let out = lib.call(&inputs, &specs).unwrap();
    assert_eq!(format!("{out:?}"), format!("{inputs:?}"));
}

#[test]
fn rust_mirrors_match_the_c_layout() {
    let source = format!(
        "{PRELUDE}
        #include <stddef.h>
        int layout(const m2cu_array *in, m2cu_array *out, char *err, size_t err_len) {{
            int64_t v[] = {{sizeof(m2cu_array), offsetof(m2cu_array, dims), sizeof(m2cu_gpu),
                offsetof(m2cu_gpu, sm_count), offsetof(m2cu_gpu, alloc),
                offsetof(m2cu_gpu, launch), offsetof(m2cu_gpu, copy), sizeof(bool)}};
            out[0] = make(1, 8, 1, sizeof(int64_t));
            memcpy(out[0].data, v, sizeof v);
            return 0;
        }}"
    );
    let dir = tempfile::tempdir().unwrap();
    let lib = CpuLibrary::build(&source, "layout", &opts(dir.path())).unwrap();
    let out = lib
        .call::<Value>(&[], &[OutputSpec::new("v", ClassId::Int64)])
        .unwrap();
    use std::mem::{offset_of, size_of};
    let rust = [
        size_of::<M2cuArray>(),
        offset_of!(M2cuArray, dims),
        size_of::<M2cuGpu>(),
        offset_of!(M2cuGpu, sm_count),
        offset_of!(M2cuGpu, alloc),
        offset_of!(M2cuGpu, launch),
        offset_of!(M2cuGpu, copy),
        size_of::<bool>(),
    ];
    let rust: Vec<i64> = rust.iter().map(|&x| x as i64).collect();
    assert_eq!(out[0].data, Data::Int64(rust));
}

#[test]
fn builds_are_cached_and_safe_to_race() {
    let dir = tempfile::tempdir().unwrap();
    let source = format!("{PRELUDE}{SCALE_SUM}");
    let paths: Vec<std::path::PathBuf> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..2)
            .map(|_| s.spawn(|| CpuLibrary::build(&source, "scale_sum", &opts(dir.path()))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap().unwrap().path().to_path_buf())
            .collect()
    });
    assert_eq!(paths[0], paths[1]);
    let modified = std::fs::metadata(&paths[0]).unwrap().modified().unwrap();
    let again = CpuLibrary::build(&source, "scale_sum", &opts(dir.path())).unwrap();
    assert_eq!(again.path(), paths[0]);
    assert_eq!(
        std::fs::metadata(again.path()).unwrap().modified().unwrap(),
        modified
    );
    let no_omp = BuildOptions {
        openmp: false,
        ..opts(dir.path())
    };
    let serial = CpuLibrary::build(&source, "scale_sum", &no_omp).unwrap();
    assert_ne!(serial.path(), paths[0]);
    let out = serial
        .call(
            &[Value::scalar(1.0), Value::scalar(1.0)],
            &scale_sum_outputs(),
        )
        .unwrap();
    assert_eq!(out[2], Value::scalar(false));
}
