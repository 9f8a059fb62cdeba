//! MAT-file tests: files written by Octave are read; files written here are loaded by Octave and
//! compared with Octave's own values; error cases; a hand-built big-endian file.

use super::*;
use crate::testutil::{octave, octave_probe, tool_available};
use crate::value::{Data, Element};

/// Six sample elements per class, with extremes, NaN and infinities where the class has them.
fn samples() -> Vec<Data> {
    vec![
        Data::Double(vec![
            1.5,
            -2.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.1,
        ]),
        Data::Single(vec![1.5, -2.25, f32::NAN, f32::INFINITY, 3.4e38, 1e-7]),
        Data::Int8(vec![i8::MIN, i8::MAX, 0, -1, 5, 100]),
        Data::Int16(vec![i16::MIN, i16::MAX, 0, -1, 5, 1000]),
        Data::Int32(vec![i32::MIN, i32::MAX, 0, -1, 5, 100_000]),
        Data::Int64(vec![i64::MIN, i64::MAX, 0, -1, 5, 1 << 40]),
        Data::Uint8(vec![0, u8::MAX, 1, 2, 3, 200]),
        Data::Uint16(vec![0, u16::MAX, 1, 2, 3, 60000]),
        Data::Uint32(vec![0, u32::MAX, 1, 2, 3, 4_000_000_000]),
        Data::Uint64(vec![0, u64::MAX, 1, 2, 3, 1 << 60]),
        Data::Logical(vec![true, false, true, true, false, false]),
        Data::Char("abcdef".encode_utf16().collect()),
        Data::ComplexDouble(vec![
            [1.5, -2.0],
            [f64::NAN, 1.0],
            [f64::INFINITY, f64::NEG_INFINITY],
            [-0.0, 0.25],
            [3.0, f64::NAN],
            [0.1, 1e300],
        ]),
    ]
}

/// An Octave expression for a 1×6 row holding `data`.
fn octave_literal(data: &Data) -> String {
    fn num(x: f64) -> String {
        match x {
            x if x.is_nan() => "NaN".into(),
            x if x.is_infinite() => if x > 0.0 { "Inf" } else { "-Inf" }.into(),
            x => format!("{x:?}"),
        }
    }
    fn ints<T: ToString + PartialEq + Copy>(cls: &str, v: &[T], min: T, max: T) -> String {
        let items: Vec<String> = v
            .iter()
            .map(|&x| match x {
                x if x == min => format!("intmin('{cls}')"),
                x if x == max => format!("intmax('{cls}')"),
                x => x.to_string(),
            })
            .collect();
        format!("{cls}([{}])", items.join(" "))
    }
    match data {
        Data::Double(v) => format!(
            "[{}]",
            v.iter().map(|&x| num(x)).collect::<Vec<_>>().join(" ")
        ),
        Data::Single(v) => format!(
            "single([{}])",
            v.iter()
                .map(|&x| num(x.into()))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        Data::Int8(v) => ints("int8", v, i8::MIN, i8::MAX),
        Data::Int16(v) => ints("int16", v, i16::MIN, i16::MAX),
        Data::Int32(v) => ints("int32", v, i32::MIN, i32::MAX),
        Data::Int64(v) => ints("int64", v, i64::MIN, i64::MAX),
        Data::Uint8(v) => ints("uint8", v, u8::MIN, u8::MAX),
        Data::Uint16(v) => ints("uint16", v, u16::MIN, u16::MAX),
        Data::Uint32(v) => ints("uint32", v, u32::MIN, u32::MAX),
        Data::Uint64(v) => ints("uint64", v, u64::MIN, u64::MAX),
        Data::Logical(v) => {
            let bits: Vec<&str> = v.iter().map(|&b| if b { "1" } else { "0" }).collect();
            format!("logical([{}])", bits.join(" "))
        }
        Data::Char(v) => format!("'{}'", String::from_utf16_lossy(v)),
        Data::ComplexDouble(v) => {
            let part = |k: usize| v.iter().map(|z| num(z[k])).collect::<Vec<_>>().join(" ");
            format!("complex([{}], [{}])", part(0), part(1))
        }
    }
}

/// Elements `idx` of `data`, in that order.
fn pick(data: &Data, idx: &[usize]) -> Data {
    macro_rules! pick {
        ($($class:ident),*) => {
            match data {
                $(Data::$class(v) => Data::$class(idx.iter().map(|&i| v[i]).collect()),)*
                Data::ComplexDouble(z) => Data::ComplexDouble(idx.iter().map(|&i| z[i]).collect()),
            }
        };
    }
    pick!(Double, Single, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Logical, Char)
}

/// Every shape of every class: (variable name, Octave expression over `v`, expected value).
fn cases() -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for data in samples() {
        let cls = if data.is_complex() {
            "complex"
        } else {
            data.class().name()
        };
        let all: Vec<usize> = (0..6).collect();
        let shapes: [(&str, &str, Vec<usize>, &[usize]); 9] = [
            ("scalar", "v(1)", vec![1, 1], &[0]),
            ("row", "v", vec![1, 6], &all),
            ("col", "v(:)", vec![6, 1], &all),
            ("mat", "reshape(v, 2, 3)", vec![2, 3], &all),
            ("empty", "reshape(v(1:0), 0, 0)", vec![0, 0], &[]),
            ("empty03", "reshape(v(1:0), 0, 3)", vec![0, 3], &[]),
            ("cube", "reshape(v, 1, 3, 2)", vec![1, 3, 2], &all),
            (
                "pages",
                "reshape(v([6 1]), 1, 1, 2)",
                vec![1, 1, 2],
                &[5, 0],
            ),
            ("empty203", "reshape(v(1:0), 2, 0, 3)", vec![2, 0, 3], &[]),
        ];
        for (shape, expr, dims, idx) in shapes {
            let name = format!("x_{cls}_{shape}");
            // Octave narrows a complex value with no nonzero imaginary part (the empties).
            let value = Value::new(dims, pick(&data, idx)).unwrap().narrowed();
            out.push((
                name.clone(),
                format!("v = {}; {name} = {expr};", octave_literal(&data)),
                value,
            ));
        }
    }
    out
}

/// Values compared by their Debug text, so NaN equals NaN.
fn assert_same(name: &str, got: &Value, want: &Value) {
    assert_eq!(format!("{got:?}"), format!("{want:?}"), "variable {name}");
}

#[test]
fn octave_files_read_and_our_files_load_in_octave() {
    if !tool_available("mat::octave", octave_probe()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cases = cases();
    let make: String = cases
        .iter()
        .map(|(_, s, _)| s.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    octave(
        dir.path(),
        &format!("{make}\nsave('-v7', 'oct7.mat', 'x_*');\nsave('-v6', 'oct6.mat', 'x_*');"),
    );
    for file in ["oct7.mat", "oct6.mat"] {
        let vars = read_mat(dir.path().join(file)).unwrap();
        assert_eq!(vars.len(), cases.len(), "{file}");
        for (name, _, want) in &cases {
            let got = &vars.iter().find(|(n, _)| n == name).unwrap().1;
            assert_same(name, got, want);
        }
    }
    let ours: Vec<(String, Value)> = cases
        .iter()
        .map(|(n, _, v)| (n.clone(), v.clone()))
        .collect();
    write_mat(dir.path().join("ours7.mat"), &ours).unwrap();
    std::fs::write(
        dir.path().join("ours6.mat"),
        write_mat_bytes(&ours, MatFormat::V6).unwrap(),
    )
    .unwrap();
    let check = "ref = load('oct7.mat'); names = fieldnames(ref);
        for f = {'ours7.mat', 'ours6.mat'}
          got = load(f{1}); n = 0;
          for k = 1:numel(names)
            a = got.(names{k}); b = ref.(names{k});
            if strcmp(class(a), class(b)) && isequal(size(a), size(b)) && isequaln(a, b) && iscomplex(a) == iscomplex(b)
              n = n + 1;
            else
              printf('mismatch %s %s: %s %s %d vs %s %s %d\\n', f{1}, names{k}, class(a), mat2str(size(a)), iscomplex(a), class(b), mat2str(size(b)), iscomplex(b));
            end
          end
          printf('%s %d of %d\\n', f{1}, n, numel(fieldnames(got)));
        end";
    let report = octave(dir.path(), check);
    let total = cases.len();
    assert_eq!(
        report.trim(),
        format!("ours7.mat {total} of {total}\nours6.mat {total} of {total}"),
    );
}

/// Octave 7.3 declares a char column of up to 4 characters (its data one small element) 4 bytes
/// longer than it writes it in a compressed file: the column reads all the same.
#[test]
fn octave_char_columns_read() {
    if !tool_available("mat::octave_char_columns", octave_probe()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    octave(
        dir.path(),
        "letter = ['B'; 'C'; 'A']; two = ['x'; 'y']; row = 'abc'; save('-v7', 'c.mat', 'letter', 'two', 'row');",
    );
    let vars = read_mat(dir.path().join("c.mat")).unwrap();
    let text = |units: &str| Data::Char(units.encode_utf16().collect());
    let want = [
        ("letter", Value::new(vec![3, 1], text("BCA")).unwrap()),
        ("two", Value::new(vec![2, 1], text("xy")).unwrap()),
        ("row", Value::new(vec![1, 3], text("abc")).unwrap()),
    ];
    for (name, value) in want {
        let got = &vars.iter().find(|(n, _)| n == name).unwrap().1;
        assert_same(name, got, &value);
    }
}

#[test]
fn unsupported_octave_variables_are_named_in_errors() {
    if !tool_available("mat::octave_errors", octave_probe()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    octave(
        dir.path(),
        "z = single([1+2i 3]); save('-v7', 'z.mat', 'z'); t = zeros(2,1,2,3); save('-v7', 't.mat', 't');
         c = {1, 2}; save('-v6', 'c.mat', 'c'); s.a = 1; save('-v7', 's.mat', 's');
         x = 1; save('x.txt', 'x');",
    );
    let err = |f: &str| read_mat(dir.path().join(f)).unwrap_err().to_string();
    assert!(
        err("z.mat").contains("variable 'z' is complex single; m2cu's complex values are double"),
        "{}",
        err("z.mat")
    );
    assert!(
        err("t.mat").contains("variable 't' has 4 dimensions (2×1×2×3); m2cu supports 2-D and 3-D"),
        "{}",
        err("t.mat")
    );
    assert!(
        err("c.mat").contains("variable 'c' is a cell array"),
        "{}",
        err("c.mat")
    );
    assert!(
        err("s.mat").contains("variable 's' is a struct"),
        "{}",
        err("s.mat")
    );
    assert!(
        err("x.txt").contains("Octave text file"),
        "{}",
        err("x.txt")
    );
}

/// The column-major elements 1..=n as `T`.
fn counting<T: Element>(n: usize, from: fn(u8) -> T) -> Vec<T> {
    (1..=n).map(|k| from(k as u8)).collect()
}

#[test]
fn three_d_arrays_cross_with_octave() {
    if !tool_available("mat::octave_3d", octave_probe()) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    octave(
        dir.path(),
        "A = reshape(int16(1:24), 2, 3, 4); B = reshape((1:12) / 4, 3, 1, 4);
         save('-v7', 'a7.mat', 'A', 'B'); save('-v6', 'a6.mat', 'A', 'B');",
    );
    let a = Value::new(vec![2, 3, 4], Data::Int16(counting(24, i16::from))).unwrap();
    let b_data = counting(12, |k| f64::from(k) / 4.0);
    let b = Value::new(vec![3, 1, 4], Data::Double(b_data)).unwrap();
    for file in ["a7.mat", "a6.mat"] {
        let vars = read_mat(dir.path().join(file)).unwrap();
        assert_eq!(
            vars,
            vec![("A".into(), a.clone()), ("B".into(), b.clone())],
            "{file}"
        );
    }
    // Written here: 3-D values, and a 2×3×1 value, which is 2-D.
    let flat = Value::new(vec![2, 3, 1], Data::Uint8(counting(6, u8::from))).unwrap();
    let vars = vec![
        ("A".to_string(), a),
        ("B".to_string(), b),
        ("F".to_string(), flat),
    ];
    write_mat(dir.path().join("o7.mat"), &vars).unwrap();
    let v6 = write_mat_bytes(&vars, MatFormat::V6).unwrap();
    std::fs::write(dir.path().join("o6.mat"), v6).unwrap();
    let report = octave(
        dir.path(),
        "for f = {'o7.mat', 'o6.mat'}
           s = load(f{1});
           a = isa(s.A, 'int16') && isequal(s.A, reshape(int16(1:24), 2, 3, 4));
           b = isa(s.B, 'double') && isequal(s.B, reshape((1:12) / 4, 3, 1, 4));
           c = isa(s.F, 'uint8') && isequal(s.F, uint8([1 3 5; 2 4 6]));
           printf('%s %d %d %d %s\\n', f{1}, a, b, c, mat2str(size(s.F)));
         end",
    );
    assert_eq!(report, "o7.mat 1 1 1 [2 3]\no6.mat 1 1 1 [2 3]\n");
}

#[test]
fn bad_dimension_elements_are_errors() {
    let file = |dims: &[i32], data: &[u8]| {
        let mut body = Vec::new();
        let put = |out: &mut Vec<u8>, ty: u32, payload: &[u8]| {
            out.extend_from_slice(&ty.to_le_bytes());
            out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
            out.extend_from_slice(payload);
            out.resize(out.len() + (8 - payload.len() % 8) % 8, 0);
        };
        put(&mut body, MI_UINT32, &[9, 0, 0, 0, 0, 0, 0, 0]); // mxUINT8_CLASS
        let dims: Vec<u8> = dims.iter().flat_map(|d| d.to_le_bytes()).collect();
        put(&mut body, MI_INT32, &dims);
        put(&mut body, MI_INT8, b"v");
        put(&mut body, MI_UINT8, data);
        let mut bytes = write_mat_bytes(&[], MatFormat::V6).unwrap();
        put(&mut bytes, MI_MATRIX, &body);
        read_mat_bytes(&bytes)
    };
    let ok = file(&[1, 2, 2], &[1, 2, 3, 4]).unwrap();
    assert_eq!(
        ok[0].1,
        Value::new(vec![1, 2, 2], Data::Uint8(vec![1, 2, 3, 4])).unwrap()
    );
    let flat = file(&[2, 2, 1], &[1, 2, 3, 4]).unwrap();
    assert_eq!(flat[0].1.dims, vec![2, 2]);
    let err = |dims: &[i32], data: &[u8]| file(dims, data).unwrap_err().to_string();
    assert_eq!(
        err(&[1, 2, 1, 2], &[1, 2, 3, 4]),
        "variable 'v' has 4 dimensions (1×2×1×2); m2cu supports 2-D and 3-D values only"
    );
    assert!(err(&[4], &[1, 2, 3, 4]).contains("has 1 dimensions (4)"));
    assert!(err(&[2, -1, 2], &[]).contains("dimension -1"));
    assert_eq!(
        err(&[2, 2, 2], &[1, 2, 3, 4]),
        "variable 'v': dimensions 2×2×2 do not match the 4 elements the data holds"
    );
    let huge = err(&[i32::MAX, i32::MAX, i32::MAX], &[1]);
    assert!(huge.contains("more than 2^64 bytes"), "{huge}");
    assert!(huge.contains("M2CU_MAX_INPUT_BYTES"), "{huge}");
}

#[test]
fn a_variable_stored_twice_has_its_last_value() {
    let one = |x: f64| {
        let vars = [("x".to_string(), Value::scalar(x))];
        write_mat_bytes(&vars, MatFormat::V7).unwrap()
    };
    let mut bytes = one(1.0);
    bytes.extend_from_slice(&one(2.0)[128..]);
    let vars = read_mat_bytes(&bytes).unwrap();
    assert_eq!(vars, vec![("x".to_string(), Value::scalar(2.0))]);
}

#[test]
fn round_trip_without_octave() {
    let mut vars: Vec<(String, Value)> = cases().into_iter().map(|(n, _, v)| (n, v)).collect();
    vars.push(("utf".into(), Value::char_row("héllo ∑")));
    for format in [MatFormat::V6, MatFormat::V7] {
        let back = read_mat_bytes(&write_mat_bytes(&vars, format).unwrap()).unwrap();
        assert_eq!(back.len(), vars.len());
        for ((n1, v1), (n2, v2)) in vars.iter().zip(&back) {
            assert_eq!(n1, n2);
            assert_same(n1, v2, v1);
        }
    }
}

#[test]
fn writer_rejects_bad_names() {
    let v = Value::scalar(1.0);
    for bad in ["", "1x", "a b", "_x", &"a".repeat(64)] {
        let err = write_mat_bytes(&[(bad.to_string(), v.clone())], MatFormat::V7).unwrap_err();
        assert!(
            err.to_string().contains("not a valid MATLAB variable name"),
            "{err}"
        );
    }
    let twice = [("a".to_string(), v.clone()), ("a".to_string(), v)];
    assert!(write_mat_bytes(&twice, MatFormat::V6).is_err());
}

#[test]
fn reads_big_endian_with_small_elements() {
    fn be_element(out: &mut Vec<u8>, ty: u32, payload: &[u8]) {
        out.extend_from_slice(&ty.to_be_bytes());
        out.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        out.extend_from_slice(payload);
        out.resize(out.len() + (8 - payload.len() % 8) % 8, 0);
    }
    let mut body = Vec::new();
    be_element(&mut body, MI_UINT32, &[0, 0, 0, 13, 0, 0, 0, 0]); // mxUINT32_CLASS
    be_element(&mut body, MI_INT32, &[0, 0, 0, 1, 0, 0, 0, 2]);
    body.extend_from_slice(&((1u32 << 16) | MI_INT8).to_be_bytes()); // small: name "k"
    body.extend_from_slice(b"k\0\0\0");
    be_element(&mut body, MI_UINT16, &[0x12, 0x34, 0xff, 0xff]); // stored narrower than class
    let mut file = b"MATLAB 5.0 MAT-file".to_vec();
    file.resize(124, b' ');
    file.extend_from_slice(&[0x01, 0x00, b'M', b'I']);
    be_element(&mut file, MI_MATRIX, &body);
    let vars = read_mat_bytes(&file).unwrap();
    assert_eq!(
        vars,
        vec![("k".to_string(), Value::row(vec![0x1234u32, 0xffff]))]
    );
}

#[test]
fn header_errors_are_helpful() {
    let mut v73 = b"MATLAB 7.3 MAT-file".to_vec();
    v73.resize(128, 0);
    let err = read_mat_bytes(&v73).unwrap_err().to_string();
    assert!(err.contains("7.3 (HDF5)"), "{err}");
    assert!(read_mat_bytes(b"short")
        .unwrap_err()
        .to_string()
        .contains("too short"));
    let mut noise = vec![b'x'; 200];
    noise[126] = 0;
    assert!(read_mat_bytes(&noise)
        .unwrap_err()
        .to_string()
        .contains("endian"));
}
