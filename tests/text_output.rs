//! Char data in what programs print: `disp`, `fprintf`, `sprintf` messages, `error` and
//! `warning` with char variables (inputs, literals held in variables, text chosen in a
//! `switch`). Each case runs on the C path and on the emulated GPU and must print exactly what
//! Octave 7.3 prints for the same call: standard output, the `warning:` lines, and the `error:`
//! line of a call that stops (an undefined variable's error without Octave's "near line L,
//! column C").

mod common;

use std::path::Path;
use std::process::Command;

use common::m2cu;

/// What a run printed: standard output (with the `error:` line of a failed call appended, as the
/// Octave script prints it) and the warnings.
#[derive(Debug, PartialEq)]
struct Printed {
    stdout: String,
    warnings: Vec<String>,
}

/// Runs `name` (its source in `dir`) through `m2cu run` with `inputs` (`x=EXPR`) on `backend`;
/// what it prints before the value of its first output, `first`.
fn m2cu_prints(dir: &Path, name: &str, inputs: &[&str], first: &str, backend: &str) -> Printed {
    let file = dir.join(format!("{name}.m"));
    let mut args = vec!["run", file.to_str().unwrap(), "--backend", backend];
    for set in inputs {
        args.extend(["--set", set]);
    }
    let o = m2cu(&args);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let mut stdout: String = out
        .split_inclusive('\n')
        .take_while(|l| !l.starts_with(&format!("{first} =")))
        .collect();
    if let Some(line) = err.lines().find(|l| l.starts_with("error: ")) {
        stdout.push_str(&format!("{}\n", without_place(line)));
    }
    Printed {
        stdout,
        warnings: warning_lines(&err),
    }
}

/// m2cu's message without the place it appends to a run-time error (" (`strncmpi(a, b, n)` at
/// prefix.m:4:4)"), which Octave's own message for the same error lacks.
fn without_place(line: &str) -> &str {
    match line.rfind(" (") {
        Some(at) if line.ends_with(')') && line[at..].contains(".m:") => &line[..at],
        _ => line,
    }
}

/// What Octave prints for the same call, asking for all `outputs`, or `None` without Octave.
fn octave_prints(dir: &Path, name: &str, inputs: &[&str], outputs: &[&str]) -> Option<Printed> {
    if !common::require(common::octave_available(), "octave-cli") {
        return None;
    }
    let values: Vec<&str> = inputs
        .iter()
        .map(|set| set.split_once('=').expect("x=EXPR").1)
        .collect();
    let script = format!(
        "try, [{}] = {name}({}); catch e, printf('error: %s\\n', e.message); end",
        outputs.join(", "),
        values.join(", ")
    );
    let o = Command::new("octave-cli")
        .args(["--no-gui", "--quiet", "--norc", "--no-history", "--eval"])
        .arg(&script)
        .current_dir(dir)
        .output()
        .expect("octave-cli runs");
    Some(Printed {
        stdout: without_location(&String::from_utf8_lossy(&o.stdout)),
        warnings: warning_lines(&String::from_utf8_lossy(&o.stderr)),
    })
}

/// Octave's text without the location it appends to an undefined variable's message (`'t'
/// undefined near line 5, column 5`), which m2cu does not reproduce (Octave's column is that of
/// the identifier in some statements, of the `=` in others).
fn without_location(text: &str) -> String {
    text.split_inclusive('\n')
        .map(|line| match line.find(" undefined near line ") {
            Some(at) if line.starts_with("error: '") => format!("{} undefined\n", &line[..at]),
            _ => line.to_string(),
        })
        .collect()
}

/// The `warning: ...` lines of standard error (not Octave's `warning: called from` trace).
fn warning_lines(err: &str) -> Vec<String> {
    err.lines()
        .filter(|l| l.starts_with("warning: ") && *l != "warning: called from")
        .map(str::to_string)
        .collect()
}

/// Writes `source` as `name.m` and checks that every call in `calls` prints what Octave prints,
/// on cpu and emu; `expected_stdout` pins the first call's output (so the test means something
/// without Octave too). The function's only output is `y`.
fn prints_like_octave(name: &str, source: &str, calls: &[&[&str]], expected_stdout: &str) {
    prints_like_octave_with(name, source, &["y"], calls, expected_stdout);
}

/// [`prints_like_octave`] for a function whose outputs are `outputs`.
fn prints_like_octave_with(
    name: &str,
    source: &str,
    outputs: &[&str],
    calls: &[&[&str]],
    expected_stdout: &str,
) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(format!("{name}.m")), source).unwrap();
    for (i, inputs) in calls.iter().enumerate() {
        let cpu = m2cu_prints(dir.path(), name, inputs, outputs[0], "cpu");
        let emu = m2cu_prints(dir.path(), name, inputs, outputs[0], "emu");
        assert_eq!(cpu, emu, "{name} {inputs:?}: cpu and emu print differently");
        if i == 0 {
            assert_eq!(cpu.stdout, expected_stdout, "{name} {inputs:?}");
        }
        if let Some(octave) = octave_prints(dir.path(), name, inputs, outputs) {
            assert_eq!(
                cpu, octave,
                "{name} {inputs:?}: m2cu (left) and Octave (right)"
            );
        }
    }
}

/// `disp` of a char shows the text, never the codes: one character (`c(1)`), a char variable,
/// a slice of one, a char input, a 1-by-1 char input, and an empty char.
#[test]
fn disp_of_char_values_shows_the_text() {
    let source = "function y = showtext(s)
% disp of char scalars, rows and inputs
c = 'abc';
disp(c(1))
disp(c)
disp(c(2:end))
disp(s)
disp(s(end))
e = '';
disp(e)
y = numel(s);
end
";
    prints_like_octave(
        "showtext",
        source,
        &[&["s='hello'"], &["s='q'"]],
        "a\nabc\nbc\nhello\no\n\n",
    );
}

/// `fprintf` `%s`/`%c` of char variables, with widths and precisions, beside numbers.
#[test]
fn fprintf_prints_char_variables() {
    let source = "function y = report(label, n)
% a report line with labels held in variables
unit = 'kg';
fprintf('%s: %d %s\\n', label, n, unit);
fprintf('[%8s|%-6s|%.2s]\\n', label, unit, label);
fprintf('%c-%c\\n', label(1), unit(end));
y = n;
end
";
    prints_like_octave(
        "report",
        source,
        &[&["label='mass'", "n=3"]],
        "mass: 3 kg\n[    mass|kg    |ma]\nm-g\n",
    );
}

/// `%s` of a char variable in the messages of `error`, `warning` and `sprintf`: the text of an
/// input, of a literal held in a variable, and of one chosen in a `switch`.
#[test]
fn messages_print_char_variables() {
    let source = "function y = checked(x, name, mode)
% input checks whose messages name the input and the mode
switch mode
  case 'fast'
    label = 'quick';
  otherwise
    label = 'careful';
end
warning('checked:mode', 'mode %s runs the %s path', mode, label);
disp(sprintf('%s has %d values', name, numel(x)));
if any(x < 0)
  error('checked:neg', 'input %s has negative values (%s mode)', name, label);
end
y = sum(x);
end
";
    prints_like_octave(
        "checked",
        source,
        &[
            &["x=[1 -2 3]", "name='weights'", "mode='fast'"],
            &["x=[1 2]", "name='w'", "mode='slow'"],
        ],
        "weights has 3 values\nerror: input weights has negative values (quick mode)\n",
    );
}

/// A format of one conversion takes the elements of an array in turn (MATLAB's recycling):
/// numbers, a char array's characters with `%c` and its codes with `%d`, a masked selection,
/// logicals, and an empty array (the format once, with nothing converted).
#[test]
fn fprintf_applies_a_one_conversion_format_to_each_element() {
    let source = "function y = each(v, s)
% print every element of a vector and of a text with one fprintf
fprintf('%d ', v); fprintf('\\n');
fprintf('a%5.2fb|', v); fprintf('\\n');
fprintf('<%c>', s); fprintf('\\n');
fprintf('%d,', s); fprintf('\\n');
fprintf('%d\\n', v(v > 100));
fprintf('[%d]\\n', zeros(1, 0));
fprintf('%g;', [true false]); fprintf('\\n');
c = 'abc';
fprintf('%d\\n', c)
fprintf('%s|\\n', c(1:0))
y = 1;
end
";
    prints_like_octave(
        "each",
        source,
        &[&["v=[1 2.5 3]", "s='xyz'"]],
        "1 2.5 3 \na 1.00b|a 2.50b|a 3.00b|\n<x><y><z>\n120,121,122,\n\n[]\n1;0;\n97\n98\n99\n|\n",
    );
}

/// A format of several conversions is recycled over the elements of all its values, in order
/// (MATLAB's rule): one line per column of `[k; v]`, a matrix two elements a line, a scalar then
/// an array, more scalars than conversions; elements that run out inside the format print the
/// text before the next conversion and stop; an empty value takes a conversion and prints
/// nothing; `%d` of a non-integer prints as Octave does.
#[test]
fn fprintf_recycles_a_format_over_all_values() {
    let source = "function y = table(v, A)
% print a table with a format recycled over its values
k = 1:numel(v);
fprintf('%3d %8.4f\\n', [k; v]);
fprintf('%d %d\\n', A);
fprintf('x%d y%d\\n', 7, v);
fprintf('%d %d\\n', 1, 2, 3);
fprintf('|\\n');
fprintf('a%db%dc\\n', A(1, :));
fprintf('|\\n');
fprintf('x%d y%d\\n', v(v > 100));
fprintf('|\\n');
fprintf('%d|%d|%d\\n', 1, v(v > 100), 2);
fprintf('%.2f %d\\n', [v, 4]);
y = 1;
end
";
    prints_like_octave(
        "table",
        source,
        &[&["v=[0.5 1.25 -3]", "A=[8 1 6; 3 5 7]"]],
        "  1   0.5000\n  2   1.2500\n  3  -3.0000\n8 3\n1 5\n6 7\nx7 y0.5\nx1.25 y-3\n1 2\n3 |\na8b1c\na6b|\nx y|\n1||2\n0.50 1.25\n-3.00 4\n",
    );
}

/// A handle chosen at run time is called through a tag: chosen by `if`/`elseif`, kept from
/// before an `if` that may replace it, read in a later branch of the `if` whose earlier branch
/// replaced it (the value before the `if`), and missing on one path (Octave's `'f' undefined`).
#[test]
fn a_handle_chosen_at_run_time_calls_the_chosen_function() {
    let source = "function y = pickrule(p, x)
% handles chosen by branches decided at run time
g = @(t) t + 1;
if p > 2
  g = @(t) t + 2;
end
h = @(t) 0;
if p > 0
  h = @(t) 1;
else
  fprintf('h before = %d\\n', h(0));
end
if p > 0
  f = @(t) t.^2;
elseif p < -5
  f = @(t) -t;
else
  fprintf('no f, g(1) = %d\\n', g(1));
end
fprintf('g(10) = %d, h = %d\\n', g(10), h(0));
fprintf('f(x) = %g\\n', f(x));
y = f(3);
end
";
    prints_like_octave(
        "pickrule",
        source,
        &[
            &["p=3", "x=[1 2]"],
            &["p=1", "x=2"],
            &["p=-6", "x=2"],
            &["p=0", "x=2"],
        ],
        "g(10) = 12, h = 1\nf(x) = 1\nf(x) = 4\n",
    );
}

/// What m2cu cannot print exactly is a located diagnostic (E0115), never other text: a complex
/// array recycled over a format, a precision that cuts a non-ASCII character of a literal, and
/// a format that is not text.
#[test]
fn unsupported_printing_is_a_diagnostic() {
    let cases = [
        "fprintf('%g\\n', v + 1i);",
        "fprintf('%.1s|\\n', '\u{e9}');",
        "f = 3;\nfprintf(f, v);",
        "disp(v + 1i);",
        "disp(zeros(2, 2, 3));",
        "z = v + 1i",
    ];
    let dir = tempfile::tempdir().unwrap();
    for body in cases {
        let source = format!("function y = refused(v)\n{body}\ny = 1;\nend\n");
        let file = dir.path().join("refused.m");
        std::fs::write(&file, source).unwrap();
        let o = m2cu(&["check", file.to_str().unwrap(), "--args", "v=double(1,:)"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{body}: {err}");
        assert!(err.contains("error[E0115]"), "{body}: {err}");
        assert!(err.contains("help:"), "{body}: {err}");
    }
}

/// A variable read on a path that never assigned it stops with Octave's message naming it
/// (`'t' undefined`): after an `if` that skipped it, after a loop that ran zero times, an
/// output a branch skipped, and a variable of a local function (its name in that function).
#[test]
fn an_undefined_variable_is_named() {
    let source = "function [a, b] = partial(x, w)
% reads of variables that some paths leave unassigned
a = 0;
if w == 1
  if x(1) > 0
    t = 5;
  end
  a = t + 1;
elseif w == 2
  for k = 1:numel(x)
    latest = x(k);
  end
  a = latest;
elseif w == 3
  a = helper(x(1));
end
if w ~= 4
  b = 1;
end
end

function r = helper(v)
if v > 0
  my_scale = 2;
end
r = v * my_scale;
end
";
    prints_like_octave_with(
        "partial",
        source,
        &["a", "b"],
        &[
            &["x=-1", "w=1"],
            &["x=zeros(1,0)", "w=2"],
            &["x=-2", "w=3"],
            &["x=1", "w=4"],
            &["x=[1 2]", "w=2"],
        ],
        "error: 't' undefined\n",
    );
}

/// A local function called in a loop starts each call with its variables undefined, as in
/// MATLAB: a variable that an earlier call assigned is not a value in a later one (m2cu once
/// returned `y = 5` here, reading the first call's `s` in the third).
#[test]
fn each_call_of_a_helper_starts_with_its_variables_undefined() {
    let source = "function y = percall(x)
% a helper that assigns s only for positive values, called in a loop
y = 0;
for k = 1:numel(x)
  y = y + f(x(k));
end
end

function r = f(v)
if v > 0
  s = v;
end
r = s;
end
";
    prints_like_octave_with(
        "percall",
        source,
        &["y"],
        &[&["x=[1 2 -3]"], &["x=[1 2 3]"], &["x=-1"]],
        "error: 's' undefined\n",
    );
}

/// `num2str` and `int2str` of a scalar where their text is printed: in `disp([...])` rows, as
/// `%s` values with widths, in one-argument `warning` and `error` messages; values of every
/// magnitude, NaN and Inf, integer classes and logicals, as Octave writes them.
#[test]
fn num2str_and_int2str_print_as_octave_writes_them() {
    let source = "function y = progress(x, k, name)
% progress messages built with num2str and int2str
disp(['iteration ' num2str(k) ' of ' name])
disp(num2str(x))
fprintf('[%s|%8s|%-6s]\\n', num2str(x), num2str(k), int2str(x));
warning(['value ' num2str(x * 1000) ' is large']);
disp(['rounded: ', int2str(x), ', count ', num2str(int16(k)), ', flag ', num2str(x > 1)])
for v = [0.1 -2/3 1e10 123456.789 NaN -Inf 1e-7 2.5 -0.5 1e15+0.5 1e16 -1e20]
  disp(['v = ' num2str(v) ' (' int2str(v) ')'])
end
if x > 100
  error(['x is too large: ' num2str(x)]);
end
y = x;
end
";
    prints_like_octave(
        "progress",
        source,
        &[
            &["x=123.25", "k=3", "name='run'"],
            &["x=pi", "k=12", "name='fit'"],
        ],
        "iteration 3 of run\n123.25\n[123.25|       3|123   ]\nrounded: 123, count 3, flag 1\nv = 0.1 (0)\nv = -0.66667 (-1)\nv = 10000000000 (10000000000)\nv = 123456.789 (123457)\nv = NaN (NaN)\nv = -Inf (-Inf)\nv = 1e-07 (0)\nv = 2.5 (3)\nv = -0.5 (-1)\nv = 1000000000000000 (1000000000000001)\nv = 1e+16 (10000000000000000)\nv = -1e+20 (-100000000000000000000)\nerror: x is too large: 123.25\n",
    );
}

/// `num2str` of a real row where its text is printed, in Octave's column layout: one width for
/// every element from the largest magnitude (`%w.0f` for whole values, `%w.pg` else), NaN and
/// Inf in the columns, the whole text trimmed, in `fprintf` fields and `disp` rows.
#[test]
fn num2str_of_a_row_lays_out_octaves_columns() {
    let source = "function y = coeffs(p, q)
% a fit's coefficients printed as people print them
fprintf('p = [%s]\\n', num2str(p));
disp(['q = [' num2str(q) ']'])
fprintf('<%20s>\\n', num2str([1 -20 300]));
fprintf('[%s] [%s] [%s]\\n', num2str([NaN 1 2]), num2str([0.001 -2.5e-7 3]), num2str([1e16 2]));
fprintf('[%s] [%s] [%s]\\n', num2str(zeros(1, 0)), num2str([Inf -Inf 0.5]), num2str([0 0 0]));
y = numel(p);
end
";
    prints_like_octave(
        "coeffs",
        source,
        &[
            &["p=[1 2 3]", "q=[0.5 1.25 -3.75 1e5/3]"],
            &["p=[-7 12 1e6]", "q=[NaN pi]"],
        ],
        "p = [1  2  3]\nq = [0.5            1.25           -3.75      33333.3333]\n<         1  -20  300>\n[NaN    1    2] [0.001    -2.5e-07           3] [1e+16                      2]\n[] [Inf        -Inf         0.5] [0  0  0]\n",
    );
}

/// A line longer than any fixed buffer prints whole (m2cu cut texts at 1023 bytes before): a
/// long `%s`, a long `num2str` row, a wide field, a long recycled format and a long warning.
#[test]
fn long_texts_print_whole() {
    let source = "function y = longlines(n)
% long lines as reports print them
fprintf('[%s]\\n', repmat('ab', 1, n));
fprintf('%s\\n', num2str(1:n));
fprintf('<%700.3f>\\n', pi);
fprintf('%d,', 1:n);
fprintf('\\n');
warning('values: %s', num2str(1:n));
y = n;
end
";
    let expected = format!(
        "[{}]\n{}\n<{:>700.3}>\n{}\n",
        "ab".repeat(600),
        (1..=600)
            .map(|k| format!("{k:>5}"))
            .collect::<String>()
            .trim_start(),
        std::f64::consts::PI,
        (1..=600).map(|k| format!("{k},")).collect::<String>()
    );
    prints_like_octave("longlines", source, &[&["n=600"]], &expected);
}

/// `strncmp` and `strncmpi` by Octave 7.3's rule (a count past both lengths compares what
/// there is, past one of them is false, a fractional count is truncated, `Inf` compares the
/// whole texts, a count below 1 stops with Octave's error naming the function, a number is
/// never equal to text).
#[test]
fn strncmp_compares_prefixes_as_octave_does() {
    let source = "function y = prefix(a, b, n)
% option matching by prefix, as input checks do it
y = 0;
if strncmpi(a, b, n)
  y = y + 10;
end
if strncmp(a, b, n)
  y = y + 1;
end
if strncmp(a, 'verb', 4)
  y = y + 100;
end
if strncmpi(a, 5, 1)
  y = y + 1000;
end
disp(y)
end
";
    prints_like_octave(
        "prefix",
        source,
        &[
            &["a='abc'", "b='abd'", "n=2"],
            &["a='ab'", "b='ab'", "n=3"],
            &["a='ab'", "b='abc'", "n=3"],
            &["a='VERBOSE'", "b='verbatim'", "n=4"],
            &["a='verbose'", "b='x'", "n=Inf"],
            &["a='abc'", "b='abc'", "n=2.7"],
            &["a='a'", "b='b'", "n=0.5"],
            &["a='a'", "b='b'", "n=NaN"],
            &["a=''", "b=''", "n=1"],
        ],
        "11\n",
    );
}

/// A char variable as the whole message of `error` or `warning` is its text as written (no
/// format, no escapes), and an empty one raises nothing, as `error('')` does.
#[test]
fn a_char_variable_as_the_whole_message() {
    let source = "function y = guard(x, msg)
% a message held in a variable
note = 'checked 50%\\n';
warning(note);
if x < 0
  error(msg);
end
c = 'z';
warning(c);
y = x;
end
";
    prints_like_octave(
        "guard",
        source,
        &[
            &["x=-1", "msg='x must be >= 0 (100%)'"],
            &["x=-1", "msg=''"],
        ],
        "error: x must be >= 0 (100%)\n",
    );
}

/// An input check that always fires for the call's `nargin` stops the call with its message:
/// the statements after it read the input that was not passed, and are not translated (no
/// E0122 at translation), as Octave never reaches them.
#[test]
fn a_nargin_check_that_fires_stops_before_the_omitted_input_is_read() {
    let source = "function y = horner1(p, x)
% evaluates p at x; both are required
if nargin < 2
    error('horner1:nargin', 'Need the coefficients and the points.');
end
y = p(1) * ones(size(x));
for k = 2:numel(p)
    y = y .* x + p(k);
end
end
";
    prints_like_octave(
        "horner1",
        source,
        &[&["p=[2 -6 2 -1]"], &["p=[1 2]", "x=[0 1 2]"]],
        "error: Need the coefficients and the points.\n",
    );
}

/// `%d`, `%i` and `%u` of int64 and uint64 values past 2^53 print every digit, in `fprintf` and
/// in `error`, as Octave does; where the conversion's type cannot hold the value (`%d` of a
/// uint64 above 2^63 - 1, `%u` of a large negative int64) Octave prints `%g`, and so does m2cu.
/// (difftest seed 23 found `error('...%d...', x)` of an int64 near 2^63 printed through a
/// double: `-8680582066029647872` where Octave printed `-8680582066029647983`.)
#[test]
fn wide_integers_print_every_digit() {
    let source = "function y = wideints(a)
% %d, %i and %u of int64 and uint64 values past 2^53
b = a - int64(111);
fprintf('%d %i|%5d|%u\\n', a, b, intmin('int64'), a);
u = uint64(18446744073709551615);
fprintf('%u %d %i\\n', u, u - uint64(2), uint64(intmax('int64')));
y = double(a > 0);
if a < int64(0)
  error('wide:neg', 'value %d is negative', a);
end
end
";
    prints_like_octave(
        "wideints",
        source,
        &[
            &["a=intmax('int64') - int64(5)"],
            &["a=intmin('int64') + int64(17)"],
            &["a=int64(-5)"],
        ],
        "9223372036854775802 9223372036854775691|-9223372036854775808|9223372036854775802\n\
         18446744073709551615 1.84467e+19 9223372036854775807\n",
    );
}

/// Formats made when the program runs (held in a variable, built with `repmat` and `num2str`,
/// an input) are parsed on the host and applied as Octave 7.3 applies them: recycling, values
/// that run out inside the format, empty values, no values, `%s` of a char value (the rest of
/// it) and of character codes, `%d` of fractions and of values past 2^63, `%u %o %x %X`, `*`
/// widths, flags on NaN and Inf, escapes (an unknown one warns), `%%`; as `fprintf`, as a kept
/// `sprintf`, and as `error`'s message (its final newline dropped, an array's elements taking
/// the format in turn). Literal formats that the host applies too: more values than
/// conversions with `%s`, `%c` over a text, `%s` of character codes, 64-bit integers with every
/// digit and `%x`/`%X`. A format Octave rejects
/// stops the call with Octave's error. A literal format's numbers print by the same rules
/// (they printed `%d` of values from 9.2e18 to 2^63 as `%g`, and `%+f` of Inf without its
/// sign, before the two shared them).
#[test]
fn run_time_formats_apply_as_octave_does() {
    let source = r"function y = rtformat(k, fmt)
% formats held in variables, built, and given as input
if k == 2
  fprintf(fmt, 1);
end
if k == 3
  error(fmt, 7);
end
f = '%d,%d;'; fprintf(f, 1, 2, 3); fprintf('\n');
f = 'x%5d y%5d\n'; e = zeros(1, 0); fprintf(f, e); fprintf('|\n');
f = '[%5d]\n'; fprintf(f, e);
f = 'a%db'; fprintf(f); fprintf('\n');
f = 'plain'; fprintf(f, 1, 2); fprintf('\n');
f = '%d|'; fprintf(f, 'ab'); fprintf('\n');
f = '%s-%d|'; fprintf(f, 'ab', 5, 'cd', 6); fprintf('\n');
f = '%s %d|'; fprintf(f, 'ab', 'cd'); fprintf('\n');
f = '%s|'; fprintf(f, [72 105 33 NaN 65]); fprintf('\n');
f = '%d|%i|%d|%d|%d|%d\n'; fprintf(f, 2.5, pi, 2^63, -2^70, 9.3e18, -0);
f = '%5.1d|%-8d|%+d|%05d|% d|%.3d\n'; fprintf(f, 2.25, 2.5, 2.5, 2.5, 3, 7);
f = '%u|%u|%x|%o|%X|%#o|%#x|%x|%x|%u\n'; fprintf(f, -3, 2^63, 255, 8, 255, 8, 255, 2.5, 2^64, 2^65);
f = '%+d|%+f|% f|%-6d|%06.1f|%5.2f|%+5.1e|\n'; fprintf(f, NaN, -Inf, Inf, NaN, NaN, -Inf, Inf);
f = '%*d|%.*f|%*.*f|\n'; fprintf(f, 5, 3, 2, pi, 8, 3, pi);
f = '%d %*d|'; fprintf(f, 1, 2); fprintf('\n');
f = '%c|%5c|%-3c|%c|%s\n'; fprintf(f, 'a', 'b', 'c', 72.5, '');
f = '%5.2s|%.3s|%-6s|%6s|\n'; fprintf(f, '', 'abcdef', 'ab', 'cd');
f = '%%|%d%%|%5%|\n'; fprintf(f, 5);
f = '\t|\x41|\101|\\|\''|\n'; fprintf(f, 1);
f = 'a\qb\n'; fprintf(f);
f = '%d|%g|%d|%f\n'; fprintf(f, int8(-5), single(2.5), true, uint16(7));
fprintf('%d|%d|%d|%+f|%+d|%u|\n', 2^63, -2^70, 9.21e18, Inf, NaN, 2^63);
fprintf('%s: %d|', 'ab', 5, 'cd', 6); fprintf('%c', 'hello'); fprintf('%s|', 72, 105);
fprintf('%d,', intmax('int64') - int64([0 5])); fprintf('%x|%X\n', uint64([18446744073709551615 10]));
if k == 4
  error('rt:bad', 'bad values %d;', [3 4]);
end
A = [1 2 3; 4 5 6];
fprintf([repmat('%6.2f ', 1, size(A, 2)) '\n'], A');
p = 3;
s = sprintf(['%.' num2str(p) 'f'], pi);
disp(s)
s = sprintf(fmt, [1 2 3]);
disp(['<' s '>'])
fprintf(fmt, A);
fprintf('\n');
y = numel(s);
end
";
    prints_like_octave(
        "rtformat",
        source,
        &[
            &["k=1", "fmt='%d:'"],
            &["k=2", "fmt='%q'"],
            &["k=3", "fmt='value %d is bad\\n'"],
            &["k=1", "fmt='(%g,%g) '"],
            &["k=4", "fmt='%d'"],
        ],
        "1,2;3,\nx y|\n[]\na\nplain\n97|98|\nab-5|cd-6|\nab 99|d \nHi!|NaN|A|\n\
         2.5|3.14159|9223372036854775807|-9223372036854775808|9.3e+18|0\n\
         \x20   2|2.5     |+2.5|002.5| 3|007\n\
         -3|9223372036854775808|ff|10|FF|010|0xff|2.5|ffffffffffffffff|3.68935e+19\n\
         +NaN|-Inf|Inf|NaN   |   NaN| -Inf| +Inf|\n\
         \x20   3|3.14|   3.142|\n1 \n\
         a|    b|c  |72.5|\n\
         \x20    |abc|ab    |    cd|\n\
         %|5%|%|\n\
         \t|A|A|\\|'|\n\
         aqb\n\
         -5|2.5|1|7.000000\n\
         9223372036854775807|-9223372036854775808|9210000000000000000|+Inf|+NaN|9223372036854775808|\n\
         ab: 5|cd: 6|helloH|i|9223372036854775807,9223372036854775802,ffffffffffffffff|A\n\
         \x20 1.00   2.00   3.00 \n\
         \x20 4.00   5.00   6.00 \n\
         3.142\n<1:2:3:>\n1:4:2:5:3:6:\n",
    );
}

/// `%s` of a number that is no character code stops with m2cu's error (Octave prints nothing
/// there, MATLAB the number with `%e`): never a silent difference.
#[test]
fn run_time_format_of_a_number_as_text_stops() {
    let dir = tempfile::tempdir().unwrap();
    let source = "function y = numtext(x)\nf = '%s|';\ny = sprintf(f, x);\nend\n";
    std::fs::write(dir.path().join("numtext.m"), source).unwrap();
    for backend in ["cpu", "emu"] {
        let printed = m2cu_prints(dir.path(), "numtext", &["x=2.5"], "y", backend);
        assert_eq!(
            printed.stdout,
            "error: sprintf: m2cu: %s of the number 2.5, which is not a character code (0 to 255): Octave prints nothing there and MATLAB the number with %e; print numbers with %d or %g, or convert them with num2str\n",
            "{backend}"
        );
    }
}

/// `mat2str` and `strrep` (m2cu's own library, written with the run-time formats and char
/// rows): matrices, rows, columns, scalars with and without a precision, logicals, an empty
/// array, NaN and Inf, integer and single classes; overlapping occurrences each replaced
/// (`strrep('2 22 222', '22', '*')`), an empty pattern, a longer replacement; the text as
/// Octave 7.3 writes it.
#[test]
fn mat2str_and_strrep_write_octaves_text() {
    let source = "function out = texts(A, v, b, z, s)
% mat2str and strrep of inputs and literals
disp(mat2str(A))
disp(mat2str(v))
disp(mat2str(pi))
disp(mat2str(pi, 4))
disp(mat2str(b))
disp(mat2str(z))
disp(mat2str([NaN -Inf 1e20 1e-5]))
disp(mat2str(int8([1 -2])))
disp(mat2str(single(0.1)))
disp(mat2str(true))
t = ['x = ' mat2str(v')];
disp(t)
disp(strrep(s, 'aa', 'b'))
disp(strrep(s, ' ', '_'))
disp(strrep(s, 'q', 'xyz'))
disp(strrep(s, '', 'x'))
disp(strrep('2 22 222 2222', '22', '*'))
disp(strrep(s, 'a', 'AA'))
out = numel(t);
end
";
    prints_like_octave_with(
        "texts",
        source,
        &["out"],
        &[&[
            "A=[1 2.5;-3 4]",
            "v=[1 2 3]",
            "b=[true false]",
            "z=zeros(0,3)",
            "s='aaa bab aa'",
        ]],
        "[1 2.5;-3 4]\n[1 2 3]\n3.14159265358979\n3.142\n[true false]\n[]\n\
         [NaN -Inf 1e+20 1e-05]\n[1 -2]\n0.100000001490116\ntrue\nx = [1;2;3]\n\
         bb bab b\naaa_bab_aa\naaa bab aa\naaa bab aa\n2 * ** ***\nAAAAAA bAAb AAAA\n",
    );
}

/// `num2str(x, format)` of a scalar and of a row, as a value, in a concatenation and as `%s`:
/// Octave's `strtrim(sprintf(format, x))` (its one-conversion format taking each element in
/// turn), widths trimmed, integer classes, `%e` and `%+g`.
#[test]
fn num2str_with_a_format_is_octaves_trimmed_sprintf() {
    let source = "function out = n2s(x, v)
% num2str with a format of a scalar and a row
disp(num2str(x, '%.2f'))
disp(['[' num2str(x, '%10.4f') ']'])
disp(num2str(v, '%d,'))
disp(num2str(v, '%6.1f'))
s = num2str(pi, '%8.3e');
fprintf('<%s>\\n', s);
fprintf('<%s> <%12s>\\n', num2str(-x, '%+g'), num2str(x, '%.1f'));
disp(num2str(int8(-7), '%4d'))
t = ['value: ' num2str(x, '%0.3f') ' units'];
disp(t)
out = numel(s);
end
";
    prints_like_octave_with(
        "n2s",
        source,
        &["out"],
        &[&["x=2.5", "v=[1 2 3]"]],
        "2.50\n[2.5000]\n1,2,3,\n1.0   2.0   3.0\n<3.142e+00>\n<-2.5> <         2.5>\n-7\nvalue: 2.500 units\n",
    );
}

/// `disp` of whole arrays, as programs show their results: Octave's `format short` columns
/// (whole numbers, fixed point, `%.4e` with zeros as `0`), chunks of 80 characters under
/// `Columns A through B:`, integer classes and logicals with Octave's widths (`int8(-128)`
/// adds none), char matrices row by row, and empty arrays as `[](RxC)`; one element shows as a
/// scalar. Octave tests for whole numbers in single precision (`3 + 2^-51` shows as `3`).
#[test]
fn disp_of_arrays_lays_out_octaves_columns() {
    let source = r"function y = disparr(x, n)
% disp of arrays, as programs show their results
disp(x)
disp(x')
disp(int16(round(x * 100)))
disp(x > 0)
disp((1:n) / 3)
A = magic(4);
disp(A)
disp(A / 7)
disp([A(:, 1) * 1e6, A(:, 2)])
disp(['ab'; 'cd'])
disp(zeros(0, 3))
disp(uint8([1 2 255]))
disp(int8([-128 5]))
disp([NaN 0.5 -Inf])
disp([2; 3 + 2^-51; 2 + 1.1e-7; -1])
disp([2 + 1.3e-7; 3])
disp(false(1, n))
y = numel(x);
end
";
    prints_like_octave(
        "disparr",
        source,
        &[
            &["x=[1.5 -2 0 3.25]", "n=20"],
            &["x=[1 2 3]", "n=1"],
            &["x=[1e-3; 1e5; NaN]", "n=45"],
        ],
        "\x20  1.5000  -2.0000        0   3.2500\n\
         \x20  1.5000\n\
         \x20 -2.0000\n\
         \x20       0\n\
         \x20  3.2500\n\
         \x20  150  -200     0   325\n\
         \x20 1  0  0  1\n\
         \x20Columns 1 through 8:\n\
         \n\
         \x20  0.3333   0.6667   1.0000   1.3333   1.6667   2.0000   2.3333   2.6667\n\
         \n\
         \x20Columns 9 through 16:\n\
         \n\
         \x20  3.0000   3.3333   3.6667   4.0000   4.3333   4.6667   5.0000   5.3333\n\
         \n\
         \x20Columns 17 through 20:\n\
         \n\
         \x20  5.6667   6.0000   6.3333   6.6667\n\
         \x20  16    2    3   13\n\
         \x20   5   11   10    8\n\
         \x20   9    7    6   12\n\
         \x20   4   14   15    1\n\
         \x20  2.2857   0.2857   0.4286   1.8571\n\
         \x20  0.7143   1.5714   1.4286   1.1429\n\
         \x20  1.2857   1.0000   0.8571   1.7143\n\
         \x20  0.5714   2.0000   2.1429   0.1429\n\
         \x20  1.6000e+07   2.0000e+00\n\
         \x20  5.0000e+06   1.1000e+01\n\
         \x20  9.0000e+06   7.0000e+00\n\
         \x20  4.0000e+06   1.4000e+01\n\
         ab\n\
         cd\n\
         [](0x3)\n\
         \x20   1    2  255\n\
         \x20 -128  5\n\
         \x20     NaN   0.5000     -Inf\n\
         \x20  2\n\
         \x20  3\n\
         \x20  2\n\
         \x20 -1\n\
         \x20  2.0000\n\
         \x20  3.0000\n\
         \x20 0  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0  0\n",
    );
}

/// `strsplit` and `strjoin` as programs use them, against Octave: whitespace by default, a
/// run of delimiters as one (empty pieces only at the ends: 1-by-0 as MATLAB makes them,
/// where Octave's are 0-by-0, so the test prints their lengths, not their sizes), a
/// cell of delimiters tried in order without collapsing, a delimiter given as input (an empty
/// one matches nowhere), `end` in `c{end}`, and the escapes of a literal delimiter translated
/// (`'\t'`). A delimiter with a backslash given at run time stops with m2cu's message, since
/// MATLAB would translate it.
#[test]
fn strsplit_and_strjoin_as_octave_does() {
    let source = r"function y = splits(s, d)
% strsplit and strjoin as programs use them
w = strsplit(s);
fprintf('%d:', numel(w));
for k = 1:numel(w)
  fprintf('[%s]%d', w{k}, numel(w{k}));
end
fprintf('\n');
p = strsplit(s, ',');
for k = 1:numel(p)
  fprintf('<%s>', p{k});
end
fprintf(' last=%s\n', p{end});
q = strsplit(s, {',', ';;', ';'}, 'CollapseDelimiters', false);
for k = 1:length(q)
  fprintf('(%s)%d', q{k}, isempty(q{k}));
end
fprintf('\n');
r = strsplit(s, d);
fprintf('%d pieces at [%s]\n', numel(r), d);
j = strjoin(p, '|');
disp(['<' j '>'])
disp(size(j))
j2 = strjoin(w);
fprintf('%s|%d\n', j2, numel(q));
names = {'alpha', 'beta', 'gamma'};
disp(strjoin(names, ', '))
t = strjoin(r, '\t');
fprintf('%d ', double(t)); fprintf('\n');
y = numel(r);
end
";
    prints_like_octave(
        "splits",
        source,
        &[
            &["s='a, b,,c;;d; e '", "d=' '"],
            &["s='  lead and trail  '", "d=','"],
            &["s=''", "d=','"],
            &["s=',,'", "d=','"],
            &["s='x;;;y'", "d=';;'"],
            &["s='a b'", "d=''"],
        ],
        "4:[a,]2[b,,c;;d;]8[e]1[]0\n\
         <a>< b><c;;d; e > last=c;;d; e \n\
         (a)0( b)0()1(c)0(d)0( e )0\n\
         4 pieces at [ ]\n\
         <a| b|c;;d; e >\n\
         \x20   1   13\n\
         a, b,,c;;d; e |6\n\
         alpha, beta, gamma\n\
         97 44 9 98 44 44 99 59 59 100 59 9 101 9 \n",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("splits.m"), source).unwrap();
    let stopped = m2cu_prints(dir.path(), "splits", &["s='a b'", r"d='\t'"], "y", "cpu");
    let source = "function y = emptypiece(s)\nc = strsplit(s, ',');\nfprintf('%d %d\\n', size(c{end}));\ny = 1;\nend\n";
    std::fs::write(dir.path().join("emptypiece.m"), source).unwrap();
    let matlab = m2cu_prints(dir.path(), "emptypiece", &["s='a,'"], "y", "cpu");
    assert_eq!(
        matlab.stdout, "1 0\n",
        "an empty piece is 1-by-0, as in MATLAB"
    );
    assert!(
        stopped.stdout.ends_with("error: m2cu: a delimiter made when the program runs holds a backslash, whose escape sequence MATLAB translates; write the delimiter as a literal\n"),
        "{}",
        stopped.stdout
    );
}

/// `a && b` where `b` needs statements before it (a reduction) and `a` is a double: the
/// condition holds `a`'s truth, and a NaN stops as Octave stops (was an internal error).
#[test]
fn a_double_before_a_reduction_in_a_condition() {
    let source = r"function y = andreduce(raw, d)
y = 0;
if raw && any(d(:) == 92)
  y = 1;
end
if raw || all(d > 100)
  y = y + 2;
end
fprintf('%d\n', y);
end
";
    prints_like_octave(
        "andreduce",
        source,
        &[
            &["raw=1", r"d='a\b'"],
            &["raw=0", "d='ab'"],
            &["raw=2", "d='ab'"],
        ],
        "3\n",
    );
    // Octave words this error its own way; m2cu gives MATLAB's.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("andreduce.m"), source).unwrap();
    let nan = m2cu_prints(dir.path(), "andreduce", &["raw=NaN", "d='ab'"], "y", "cpu");
    assert_eq!(
        nan.stdout,
        "error: NaN's cannot be converted to logicals.\n"
    );
}

/// A statement without `;` displays its value as Octave does: `name = value` for scalars, char
/// rows and empty arrays, a block between blank lines for matrices (in chunks of 80
/// characters), all of `v` after `v(2) = 7`, each output of `[p, q] = ...`, a variable alone,
/// and `ans = ...` for an expression; `disp(t)` displays nothing more. With `t = 2`, `r` is
/// a row that the first call has as one element.
#[test]
fn statements_without_semicolons_display_values() {
    let source = r"function y = shown(t)
% statements without a semicolon display their values
a = 5
b = int8(-3)
c = true
s = 'abc'
e = ''
z = zeros(1, 0)
m = [1 2; 3 4] * t
cm = ['ab'; 'cd']
x = 1.5;
x
x + t
v = [1 2 3];
v(2) = 7
[p, q] = size(m)
n = NaN
w = single(2.5)
u = uint16([1 2])
k = 1:20
r = m(1, 1:t)
numel(v)
sprintf('%d-%d', p, q)
disp(t)
y = t;
end
";
    prints_like_octave(
        "shown",
        source,
        &[&["t=1"], &["t=2"]],
        "a = 5\n\
         b = -3\n\
         c = 1\n\
         s = abc\n\
         e = \n\
         z = [](1x0)\n\
         m =\n\
         \n\
         \x20  1   2\n\
         \x20  3   4\n\
         \n\
         cm =\n\
         \n\
         ab\n\
         cd\n\
         \n\
         x = 1.5000\n\
         ans = 2.5000\n\
         v =\n\
         \n\
         \x20  1   7   3\n\
         \n\
         p = 2\n\
         q = 2\n\
         n = NaN\n\
         w = 2.5000\n\
         u =\n\
         \n\
         \x20 1  2\n\
         \n\
         k =\n\
         \n\
         \x20Columns 1 through 16:\n\
         \n\
         \x20   1    2    3    4    5    6    7    8    9   10   11   12   13   14   15   16\n\
         \n\
         \x20Columns 17 through 20:\n\
         \n\
         \x20  17   18   19   20\n\
         \n\
         r = 1\n\
         ans = 3\n\
         ans = 2-2\n\
         1\n",
    );
}

/// `str2double` as Octave 7.3 reads text: blanks, commas dropped, a second sign (`--4` is 4),
/// `Inf` in any case, NaN for other text (`1d3`, `infinity`, `1e400`) and for a value that is
/// not text; of a cell of texts and of `strsplit(...)` written in the call, an array. A number
/// of 16 significant digits and a complex one stop with m2cu's message.
#[test]
fn str2double_reads_text_as_octave_does() {
    let source = r"function y = nums(line, s)
% str2double of texts, of a cell of texts, and of strsplit's pieces
v = str2double(s);
fprintf('%.17g\n', v);
parts = strsplit(line, ';');
x = str2double(parts);
fprintf('%g ', x); fprintf('| %d %d\n', size(x, 1), size(x, 2));
w = str2double(strsplit(line, {';', ' '}));
fprintf('%g ', w); fprintf('\n');
for k = 1:numel(parts)
  fprintf('[%s]=%g ', parts{k}, str2double(parts{k}));
end
fprintf('\n');
fprintf('%g %g\n', str2double(5), str2double(''));
y = sum(x(~isnan(x)));
end
";
    prints_like_octave(
        "nums",
        source,
        &[
            &["line='1.5;2,000; -3e2;abc;;Inf'", "s='  -12.25e-1 '"],
            &["line='7'", "s='--4'"],
            &["line='0.1;.5;5.;1e-400'", "s='1d3'"],
            &["line='x'", "s='1e400'"],
            &["line='1 ; 2'", "s='3.14159265358979'"],
            &["line='infinity;pi'", "s='-inf'"],
        ],
        "-1.2250000000000001\n\
         1.5 2000 -300 NaN Inf | 1 5\n\
         1.5 2000 -300 NaN Inf \n\
         [1.5]=1.5 [2,000]=2000 [ -3e2]=-300 [abc]=NaN [Inf]=Inf \n\
         NaN NaN\n",
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nums.m"), source).unwrap();
    for (s, why) in [
        ("s='3.141592653589793'", "more than 15 significant digits"),
        ("s='2+3i'", "complex number"),
    ] {
        let stopped = m2cu_prints(dir.path(), "nums", &["line='1'", s], "y", "cpu");
        assert!(
            stopped.stdout.starts_with("error: m2cu: str2double of a ")
                && stopped.stdout.contains(why),
            "{s}: {}",
            stopped.stdout
        );
    }
}

/// A range bound that is an array (`p(1:eq-1)` after `eq = find(p == '=', 1)`, `for i = 1:k`,
/// `v(k:end)`): its first element, or an empty range when it is empty, as in MATLAB and
/// Octave (was E0103).
#[test]
fn a_range_bound_from_find_with_a_count() {
    let source = r"function y = findbound(p, v)
eq = find(p == '=', 1);
name = p(1:eq-1);
fprintf('[%s] %d\n', name, numel(name));
k = find(v > 2, 1);
s = 0;
for i = 1:k
  s = s + v(i);
end
r = v(k:end);
fprintf('%g %d %d\n', s, numel(r), numel(5:-1:k));
y = numel(name);
end
";
    prints_like_octave(
        "findbound",
        source,
        &[
            &["p='ab=c'", "v=[1 3 5]"],
            &["p='abc'", "v=[1 1]"],
            &["p='=x'", "v=[5 1]"],
        ],
        "[ab] 2\n4 2 4\n",
    );
}

/// Structs of settings kept in one function, as programs keep them: fields assigned one by one
/// and by `struct('name', value, ...)`, nested (`cfg.grid.h`), grown (`hist.vals(end+1)`),
/// read in loops and conditions; each field is a variable of its own (was E0103).
#[test]
fn struct_fields_are_variables_of_their_own() {
    let source = r"function y = settings(n)
opts = struct('tol', 1e-6, 'maxit', n);
opts.name = 'solver';
cfg.grid.nx = 4;
cfg.grid.h = 1 / cfg.grid.nx;
hist.vals = [];
for k = 1:opts.maxit
  hist.vals(end+1) = k * cfg.grid.h;
end
fprintf('%s %g %d %g\n', opts.name, opts.tol, numel(hist.vals), sum(hist.vals));
if cfg.grid.nx > 3
  opts.tol = opts.tol * 10;
end
fprintf('%g\n', opts.tol);
y = sum(hist.vals) + opts.tol;
end
";
    prints_like_octave(
        "settings",
        source,
        &[&["n=5"], &["n=0"]],
        "solver 1e-06 5 3.75\n1e-05\n",
    );
}

/// m2cu's own `strcat` (trailing whitespace of each char argument removed), `strfind`
/// (overlapping matches; `[]` when there are none), `dec2bin`/`dec2hex` (with a length),
/// `bin2dec`/`hex2dec` (spaces skipped, NaN for another character) and `deal`, against Octave.
#[test]
fn text_and_number_conversions_as_octave_does() {
    let source = r"function y = textlib(s, n)
% strcat, strfind, dec2bin, dec2hex, bin2dec, hex2dec and deal as programs use them
name = strcat(s, '_', num2str(n), '.txt ');
fprintf('[%s]\n', name);
fprintf('[%s]\n', strcat('ab ', 'cd ', ' e'));
k = strfind(s, 'a');
fprintf('%d ', k); fprintf('| %d %d %d\n', isempty(k), size(k, 1), size(k, 2));
fprintf('%d\n', numel(strfind('aaaa', 'aa')));
if isempty(strfind(s, 'zz'))
  disp('no zz')
end
b = dec2bin(n);
h = dec2hex(n, 4);
fprintf('%s %s %s\n', b, dec2bin(n, 12), h);
fprintf('%g %g %g %g\n', bin2dec(b), hex2dec(h), hex2dec('ff'), bin2dec('10 10'));
fprintf('%g %g\n', bin2dec('12'), hex2dec('xyz'));
[lo, hi] = deal(0, n);
[p, q] = deal(7);
fprintf('%g %g %g %g\n', lo, hi, p, q);
y = numel(k);
end
";
    prints_like_octave(
        "textlib",
        source,
        &[&["s='banana'", "n=10"], &["s='xyz'", "n=0"], &["s='a'", "n=255"]],
        "[banana_10.txt]\n[abcd e]\n2 4 6 | 0 1 3\n3\nno zz\n1010 000000001010 000A\n10 10 255 10\nNaN NaN\n0 10 7 7\n",
    );
}

/// A struct passed whole to a helper (its fields bound to the parameter's), returned to a
/// variable (`p = beam_props()`, `[c, r] = scaled(p, n)`), copied (`copy = props`), captured by
/// anonymous functions, and replaced with the same fields in a loop, against Octave.
#[test]
fn structs_travel_between_functions() {
    let source = r"function y = structs(n)
% structs passed to helpers, returned, copied, captured and replaced
props = beam_props();
copy = props;
copy.E = 1;
[c, r] = scaled(props, n);
fprintf('%g %g %g %g\n', props.E, copy.E, c, r.total);
fprintf('%d ', r.v); fprintf('\n');
g = @(x) x * props.I + copy.E;
h = @(x) with_props(x, props);
fprintf('%g %g\n', g(2), h(3));
for k = 1:n
  s = step_state(k);
  fprintf('%d:%g ', s.k, s.sq);
end
fprintf('\n');
y = c + r.total;
end

function p = beam_props()
p.E = 200e9;
p.I = 8.33e-6;
end

function [c, r] = scaled(p, n)
c = p.E * n;
r.total = p.I * n;
r.v = 1:2;
r.v(end+1) = n;
p.E = 0;
end

function z = with_props(x, p)
z = x + p.E;
end

function s = step_state(k)
s.k = k;
s.sq = k^2 / 2;
end
";
    prints_like_octave(
        "structs",
        source,
        &[&["n=3"], &["n=0"]],
        "2e+11 1 6e+11 2.499e-05\n1 2 3 \n1.00002 2e+11\n1:0.5 2:2 3:4.5 \n",
    );
}

/// Cells of texts filled by element (`letters{k} = ...` into `cell(size(x))`, an index from
/// `find(..., 1)`), grown from `{}` with `names{end+1}`, a piece of `strsplit` replaced, and
/// `cellfun` with a handle, a function's name and anonymous functions (double and logical
/// results), against Octave; also with no scores (an empty `cell(1, 0)`).
#[test]
fn cells_of_texts_are_filled_and_mapped() {
    let source = r"function n = textcells(scores, t)
% cells of texts filled element by element, grown with end+1, and mapped with cellfun
cuts = [90 80 70 60];
marks = {'A', 'B', 'C', 'D'};
letters = cell(size(scores));
for k = 1:numel(scores)
  g = find(scores(k) >= cuts, 1);
  if isempty(g)
    letters{k} = 'F';
  else
    letters{k} = marks{g};
  end
end
for k = 1:numel(letters)
  fprintf('%s', letters{k});
end
fprintf('\n');
names = {};
for k = 1:3
  names{end+1} = sprintf('item%d', k * 10);
end
names{2} = 'second';
fprintf('%s|', names{1}, names{2}, names{end}); fprintf('%d\n', numel(names));
w = strsplit(t, ' ');
for k = 1:numel(w)
  w{k} = upper(fliplr(w{k}));
end
lens = cellfun(@length, w);
empty = cellfun('isempty', w);
vowels = cellfun(@(s) sum(ismember(s, 'AEIOU')), w);
long = cellfun(@(s) numel(s) > 3, w);
fprintf('%s ', w{1}, w{end}); fprintf('\n');
fprintf('%d ', lens, empty, vowels, long); fprintf('\n');
fprintf('%s %s\n', class(lens), class(long));
n = sum(lens);
end
";
    prints_like_octave_with(
        "textcells",
        source,
        &["n"],
        &[&["scores=[91 78 85 62 55 99]", "t='a quick brown fox'"], &["scores=zeros(1,0)", "t='single'"]],
        "ACBDFA\nitem10|second|item30|3\nA XOF \n1 5 5 3 0 0 0 0 1 2 1 1 0 1 1 0 \ndouble logical\n",
    );
}

/// `global` variables shared by the entry and its helpers, and `persistent` ones kept from
/// call to call with the `if isempty(n)` start (a scalar counter, a grown array), against
/// Octave.
#[test]
fn global_and_persistent_variables_outlive_calls() {
    let source = r"function total = declared(n)
% global and persistent variables as programs use them
global G SCALE
G = 9.81;
SCALE = [1 2 3];
for k = 1:n
  c = tick();
end
fprintf('called %d times\n', c);
h = zeros(1, 3);
for k = 1:3
  h(k) = height_at(k / 2);
end
fprintf('%.4f ', h); fprintf('\n');
fprintf('%g\n', scaled_sum());
s = remember(5);
s = remember(7);
fprintf('%d ', s); fprintf('\n');
total = c + sum(h);
end

function c = tick()
persistent count
if isempty(count)
  count = 0;
end
count = count + 1;
c = count;
end

function y = height_at(t)
global G
y = 100 - 0.5 * G * t^2;
end

function s = scaled_sum()
global SCALE G
s = sum(SCALE) * G;
end

function seen = remember(x)
persistent values
if isempty(values)
  values = [];
end
values(end+1) = x;
seen = values;
end
";
    prints_like_octave_with(
        "declared",
        source,
        &["total"],
        &[&["n=7"], &["n=1"]],
        "called 7 times\n98.7738 95.0950 88.9638 \n58.86\n5 7 \n",
    );
}

/// `tic`, `t = toc`, `id = tic` (uint64) and `toc(id)` read the host's clock; what the
/// program prints does not depend on the times, so it equals Octave's.
#[test]
fn tic_and_toc_time_the_program() {
    let source = r"function total = timing(n)
% tic and toc as programs time their work
tic;
total = 0;
for k = 1:n
  total = total + 1 / k^2;
end
t = toc;
t0 = tic;
for k = 1:3
  total = total + k * 0;
end
e = toc(t0);
if t < 0 || e < 0
  error('the clock went backwards');
end
fprintf('%s %s\n', class(t0), class(e));
fprintf('sum %.6f\n', total);
end
";
    prints_like_octave_with(
        "timing",
        source,
        &["total"],
        &[&["n=1000"]],
        "uint64 double\nsum 1.643935\n",
    );
}

/// `fprintf(format, c{:})` and `sprintf(format, c{:})` apply the format once per text (for an
/// empty cell, the format's text up to its conversion, as Octave), `[c{:}]` joins the texts,
/// and `strcmp`/`strcmpi`/`strncmp` of a cell and a text give a logical array, against Octave.
#[test]
fn all_texts_of_a_cell_print_join_and_compare() {
    let source = r"function n = cslist(t)
% c{:} printed with fprintf and joined with [c{:}]; strcmp and kin of a cell of texts
words = strsplit(t, ' ');
fprintf('<%s>', words{:});
fprintf('\n');
joined = [words{:}];
fprintf('%s\n', joined);
none = {};
fprintf('%s|\n', none{:});
s = sprintf('%s, ', words{:});
fprintf('[%s]\n', s);
fprintf('<%s>', none{:}); fprintf('\n');
e = sprintf('(%s)', none{:});
fprintf('%s\n', e);
same = strcmp(words, 'ab');
folded = strcmpi('AB', words);
prefix = strncmp(words, 'abx', 2);
fprintf('%d ', same, folded, prefix); fprintf('\n');
fprintf('%s\n', class(same));
n = numel(joined) + nnz(same);
end
";
    prints_like_octave_with(
        "cslist",
        source,
        &["n"],
        &[&["t='ab cde f ab'"], &["t='AB'"]],
        "<ab><cde><f><ab>\nabcdefab\n[ab, cde, f, ab, ]\n<\n(\n1 0 0 1 1 0 0 1 1 0 0 1 \nlogical\n",
    );
}

/// Cells of texts as values: `unique(c)`, `c(mask)` and `c(a:b)` selections, `strjoin` and
/// `cellfun` of a selection, a copy `d = c` changed apart, a cell passed to a helper that
/// changes its own copy, and `c(order)` with the order of `sort` of a vector grown from `[]`,
/// against Octave.
#[test]
fn cells_of_texts_as_values() {
    let source = r"function n = cellvalues(t)
% cells of texts as values: unique, a selection by mask and by range, strjoin and cellfun of a
% selection, a copy changed apart, a cell passed to a helper that changes its own copy
w = strsplit(t, ' ');
v = unique(w);
fprintf('[%s]', v{:}); fprintf('\n');
lens = cellfun(@length, w);
longest = w(lens == max(lens));
fprintf('%s\n', strjoin(longest, ', '));
first = w(1:2);
fprintf('%s|', first{:}); fprintf('\n');
fprintf('%s\n', strjoin(w(end:-1:1)));
d = w;
d{1} = 'zz';
fprintf('%s %s %d\n', w{1}, d{1}, count_long(w(2:end), 3) + count_long(d, 2));
vals = [];
for k = 1:numel(w)
  vals(end+1) = numel(w{k});
end
[~, order] = sort(vals);
ranked = w(order);
fprintf('%s ', ranked{:}); fprintf('\n');
n = numel(v) + sum(cellfun(@numel, w(2:end)));
end

function n = count_long(c, k)
n = 0;
for i = 1:numel(c)
  n = n + (numel(c{i}) > k);
end
c{1} = 'changed';
end
";
    prints_like_octave_with(
        "cellvalues",
        source,
        &["n"],
        &[&["t='pear fig apple fig kiwi'"], &["t='one two'"]],
        "[apple][fig][kiwi][pear]\napple\npear|fig|\nkiwi fig apple fig pear\npear zz 6\nfig fig pear kiwi apple \n",
    );
}

/// `disp(num2str(A))` of a matrix shows its rows as Octave's char matrix: one format for
/// every element, the blank columns common to all rows trimmed; with a precision, and with a
/// format (each row formatted, padded to the longest).
#[test]
fn num2str_of_a_matrix_shows_its_rows() {
    let source = r"function y = numtable(A)
% disp(num2str(A)) of a matrix: its rows in one format, common blank columns trimmed; with a
% format, each row formatted and padded, as Octave's char matrix
disp(num2str(A))
disp(num2str(A / 3))
disp(num2str(A, 3))
disp(num2str(-A))
disp(num2str(A, '%8.3f'))
y = sum(A(:));
end
";
    prints_like_octave(
        "numtable",
        source,
        &[&["A=[1 2.5; -3 4]"], &["A=[8 1 6; 3 5 7; 4 9 2]"], &["A=[1e6 NaN; Inf 2]"], &["A=zeros(0, 3)"]],
        " 1         2.5\n-3           4\n0.33333     0.83333\n     -1      1.3333\n 1       2.5\n-3         4\n-1        -2.5\n 3          -4\n 1.000   2.500\n-3.000   4.000\n",
    );
}

/// Anonymous functions capture a cell of texts and a struct as they are when defined: a later
/// `w{1} = ...` or `p.k = ...` changes neither (as first written, the cell was read where it
/// was at the call, a silent difference found while adding the capture).
#[test]
fn anonymous_functions_capture_cells_and_structs_when_defined() {
    let source = r"function n = captures(t)
% anonymous functions capture a cell of texts and a struct as they are when defined
w = strsplit(t);
f = @(k) numel(w{k});
a = f(1);
w{1} = 'longer';
p.k = 2;
g = @(x) x * p.k;
b = g(3);
p.k = 10;
h = @(s) any(strcmp(w, s));
fprintf('%d %d %d %d %d %d\n', a, f(1), g(1), b, h('longer'), h('a'));
n = a + f(1) + g(1) + b;
end
";
    prints_like_octave_with(
        "captures",
        source,
        &["n"],
        &[&["t='a bcd b'"]],
        "1 1 2 6 1 0\n",
    );
}

/// Struct arrays of records (`crate::struct_arrays`): texts and numbers by element, a row that
/// nothing reads back, `[r.value]` and `[r.name]`, `numel`, `length`, `isempty`, `r(end)` and
/// `r(end+1)`, an index from `max`, against Octave (one record, four, five).
#[test]
fn struct_arrays_keep_records_by_field() {
    let source = r"function y = recs(x, n)
% struct arrays of records: numbers and texts by element, [s.f], numel, end, isempty
names = {'ant', 'bee', 'cat', 'dog', 'eel'};
for k = 1:n
    r(k).name = names{k};
    r(k).value = x(k) * 2;
    r(k).row = x(1:k);
    r(k).label = sprintf('%s-%d', names{k}, k);
end
if isempty(r)
    fprintf('none\n');
end
fprintf('%d records\n', numel(r));
vals = [r.value];
[~, best] = max(vals);
fprintf('best %s (%g), last %s\n', r(best).name, r(best).value, r(end).label);
joined = [r.name];
fprintf('%s\n', joined);
r(end+1).value = -1;
r(end).name = 'fox';
r(end).label = 'fox-x';
r(end).row = [];
fprintf('%d: %s %g\n', numel(r), r(end).name, sum([r.value]));
total = 0;
for k = 1:numel(r)
    if r(k).value > 4
        total = total + r(k).value;
        fprintf('%s ', r(k).label);
    end
end
fprintf('\n');
y = total + length(r);
end
";
    prints_like_octave(
        "recs",
        source,
        &[
            &["x=[3 1 4 1 5]", "n=4"],
            &["x=[3 1 4 1 5]", "n=1"],
            &["x=[3 1 4 1 5]", "n=5"],
        ],
        "4 records\nbest cat (8), last dog-4\nantbeecatdog\n5: fox 17\nant-1 cat-3 \n",
    );
}

/// A struct array's element assigned past the next one stops: MATLAB leaves the fields of the
/// elements between empty, which m2cu's fields kept as arrays cannot hold.
#[test]
fn struct_array_gaps_stop() {
    let source = "function y = gap(n)\nfor k = 1:2:n\n    s(k).v = k;\nend\ny = [s.v];\nend\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("gap.m"), source).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .current_dir(dir.path())
        .args(["run", "gap.m", "--set", "n=3", "--backend", "cpu"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("m2cu: s(3).v is assigned before s(2).v"),
        "{stderr}"
    );
}

/// Struct arrays declared empty (`struct('name', {}, ...)`, `struct([])`) and filled with
/// whole scalar structs (`list(end+1) = s`) or by field, a field of letters from a function
/// of the program (a text field found while lowering), against Octave.
#[test]
fn struct_arrays_take_whole_records() {
    let source = r"function y = recs2(scores, n)
% records built as scalar structs and appended whole; an empty struct array declared first
list = struct('name', {}, 'total', {}, 'grade', {}, 'band', {});
fprintf('%d at first\n', numel(list));
for i = 1:n
    s.name = sprintf('st%d', i);
    s.total = sum(scores(i, :));
    if s.total >= 15
        s.grade = 'A';
    else
        s.grade = 'B';
    end
    s.band = band_of(s.total);
    list(end+1) = s;
end
totals = [list.total];
grades = [list.grade];
bands = [list.band];
fprintf('%s %d\n', bands, numel(bands));
fprintf('%s: %s\n', [list.name], grades);
for k = 1:numel(list)
    fprintf('%s %g %s\n', list(k).name, list(k).total, list(k).grade);
end
other = struct([]);
other(1).v = 3;
other(2).v = 4;
y = sum(totals) + sum([other.v]) + numel(other);
end

function b = band_of(t)
% a letter from a program's own function: the field holds texts
bands = 'LMH';
b = bands(min(3, 1 + floor(t / 10)));
end
";
    prints_like_octave(
        "recs2",
        source,
        &[
            &["scores=[1 2 3; 4 5 6; 7 8 9]", "n=3"],
            &["scores=[1 2 3; 4 5 6; 7 8 9]", "n=1"],
        ],
        "0 at first\nLMH 3\nst1st2st3: BAA\nst1 6 B\nst2 15 A\nst3 24 A\n",
    );
}

/// `strtrim`, `upper`, `lower` and `deblank` of cells of texts (`m2cu_cell_map.m`): assigned,
/// read by `strjoin` and `strcmp` in a call, of `strsplit(...)` written in the call, against
/// Octave.
#[test]
fn text_functions_map_cells_of_texts() {
    let source = r"function y = mapc(line)
% strtrim, upper, lower and deblank of cells of texts, assigned and read in a call
parts = strtrim(strsplit(line, ','));
for k = 1:numel(parts)
    fprintf('[%s]', parts{k});
end
fprintf('\n');
loud = upper(parts);
fprintf('%s\n', strjoin(loud, '-'));
fprintf('%s\n', strjoin(lower(strsplit(line, ',')), '|'));
tails = deblank(strsplit(line, ','));
fprintf('<%s>', tails{:});
fprintf('\n');
y = numel(loud) + sum(strcmp(upper(parts), 'BEE'));
end
";
    prints_like_octave(
        "mapc",
        source,
        &[&["line=' ant, Bee  ,cAt ,  '"], &["line='x'"]],
        "[ant][Bee][cAt][]\nANT-BEE-CAT-\n ant| bee  |cat |  \n< ant>< Bee><cAt><>\n",
    );
}

/// The index of `s(k).f = v` is evaluated once, though the gap check and the store both read
/// it: a function of the program in it prints once, as in MATLAB.
#[test]
fn struct_array_index_runs_once() {
    let source = r"function y = sidefx(n)
for k = 1:n
    s(next_id(k)).v = k * 2;
end
y = [s.v];
end

function i = next_id(k)
fprintf('id %d\n', k);
i = k;
end
";
    prints_like_octave("sidefx", source, &[&["n=2"]], "id 1\nid 2\n");
}

/// Cells made anew on every pass of a loop (a line split into fields, a list reset with `{}`
/// and grown with `c{end+1}`), against Octave.
#[test]
fn cells_made_in_loops() {
    let source = r"function y = loopcells(text)
% cells made anew on every pass of a loop: a line split into fields, a list reset and grown
lines = strsplit(text, ';');
y = 0;
for r = 1:numel(lines)
    fields = strsplit(lines{r}, ',');
    kept = {};
    for k = 1:numel(fields)
        f = strtrim(fields{k});
        if ~isempty(f) && ~strcmp(f, '-')
            kept{end+1} = upper(f);
        end
    end
    fprintf('%d: %s\n', r, strjoin(kept, '+'));
    y = y + numel(kept) * 10 + numel(fields);
end
end
";
    prints_like_octave(
        "loopcells",
        source,
        &[&["text='a, b,-;c;d ,e, f,g'"], &["text='x'"]],
        "1: A+B\n2: C\n3: D+E+F+G\n",
    );
}

/// Cells of texts from `arrayfun` and `cellfun` with `'UniformOutput', false` (`@num2str`, an
/// anonymous function), `isequal` of three values, `cat(3, ...)`, against Octave.
#[test]
fn texts_mapped_into_cells_and_pages_joined() {
    let source = r"function y = mapt(x, words)
% cells of texts from arrayfun and cellfun with 'UniformOutput', false; isequal of three
% values; cat(3, ...) of pages
labels = arrayfun(@num2str, x, 'UniformOutput', false);
fprintf('%s\n', strjoin(labels, ' -> '));
tags = arrayfun(@(v) sprintf('<%d>', v), x, 'UniformOutput', false);
fprintf('%s|', tags{:});
fprintf('\n');
parts = strsplit(words, ' ');
loud = cellfun(@(s) [upper(s) '!'], parts, 'uniformoutput', 0);
fprintf('%s\n', strjoin(loud, ' '));
same = isequal(size(x), size(x), [1 numel(x)]);
differ = isequal(x, x, x + 1);
P = cat(3, [1 2; 3 4], [5 6; 7 8], [9 10; 11 12]);
fprintf('%d %d %d %g\n', same, differ, size(P, 3), sum(sum(P(:, :, 2))));
y = numel(labels) + numel(loud) + P(2, 1, 3);
end
";
    prints_like_octave(
        "mapt",
        source,
        &[&["x=[3 14 159]", "words='ab cd e'"], &["x=7", "words='z'"]],
        "3 -> 14 -> 159\n<3>|<14>|<159>|\nAB! CD! E!\n1 0 3 26\n",
    );
}
