//! Translation of large and deeply nested sources ([`Stress`]) ends, on a test thread's 2 MiB
//! stack, with a translation or with the diagnostic of the limit it passes: never a stack
//! overflow, never exponential time. Times are not asserted (they are measured by
//! `m2cu-bench --translate`); a generous watchdog only catches hangs.

use std::sync::mpsc;
use std::time::Duration;

use m2cu_bench::translate::Stress;

/// Long enough for a debug build on a loaded machine; only a hang takes longer.
const WATCHDOG: Duration = Duration::from_secs(120);

/// Translates `source` on a thread with the default 2 MiB stack, under the watchdog; the
/// rendered error on failure.
fn translate(source: String) -> Result<m2cu::Translation, String> {
    let (send, receive) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let result = m2cu::translate(&source, &m2cu::Options::default());
            let _ = send.send(result.map_err(|e| e.to_string()));
        })
        .expect("a test thread starts");
    receive
        .recv_timeout(WATCHDOG)
        .expect("translation ends before the watchdog")
}

fn translates(stress: Stress) {
    if let Err(e) = translate(stress.source()) {
        panic!("{} does not translate:\n{e}", stress.name());
    }
}

fn refused(stress: Stress, code: &str, message: &str) {
    match translate(stress.source()) {
        Ok(_) => panic!("{} translates; expected {code}", stress.name()),
        Err(e) => assert!(
            e.contains(&format!("error[{code}]")) && e.contains(message),
            "{}: expected {code} `{message}`, got:\n{e}",
            stress.name()
        ),
    }
}

#[test]
fn doubling_calls_inline_up_to_the_size_budget() {
    translates(Stress::DoublingCalls(14));
    refused(
        Stress::DoublingCalls(24),
        "E0131",
        "the program inlines to more than 1000000 statements and expressions",
    );
}

/// An error in a function inlined at a million calls is reported once, and the budget still
/// ends the inlining (m2cu-mutate seed 1, mutant 1988: each copy reported the error again, and
/// `check` ran past its time limit).
#[test]
fn an_error_in_a_doubled_callee_is_reported_once() {
    let source =
        Stress::DoublingCalls(24)
            .source()
            .replacen("  y = x * 2;", "  plot(x);\n  y = x * 2;", 1);
    assert!(
        source.contains("plot(x)"),
        "the stress source changed shape"
    );
    let e = translate(source).expect_err("an unsupported `plot` call");
    assert_eq!(e.matches("error[E0103]").count(), 1, "{e}");
    assert!(e.contains("error[E0131]"), "{e}");
}

#[test]
fn chained_calls_nest_up_to_the_call_depth_limit() {
    translates(Stress::ChainedCalls(100));
    refused(
        Stress::ChainedCalls(1700),
        "E0130",
        "local-function calls nest more than 100 deep",
    );
}

#[test]
fn long_loop_bodies_translate() {
    translates(Stress::LongLoop(4000));
    translates(Stress::ArrayLoop(4000));
}

#[test]
fn deep_expressions_translate_up_to_the_parser_limits() {
    translates(Stress::Parens(199));
    translates(Stress::LongSum(499));
    refused(Stress::Parens(10_000), "E0029", "nesting too deep");
    refused(
        Stress::LongSum(100_000),
        "E0029",
        "expression nested too deeply",
    );
}

#[test]
fn long_elseif_chains_translate_up_to_the_arm_limit() {
    translates(Stress::ElseifChain(2000));
    refused(
        Stress::ElseifChain(5000),
        "E0029",
        "too many `elseif` or `case` arms",
    );
}

#[test]
fn nested_blocks_translate_up_to_the_depth_limit() {
    translates(Stress::NestedIfs(199));
    translates(Stress::NestedLoops(100));
    refused(Stress::NestedIfs(2000), "E0029", "nesting too deep");
}

/// A local whose name starts with `m2cu` (the generated temporaries' prefix) once made the
/// namer loop forever.
#[test]
fn a_local_named_like_the_generated_temporaries_is_renamed() {
    let source = "function y = top(x)\n  arguments\n    x (1,1) double\n  end\n  m2cux = x + 1;\n  y = m2cux;\nend\n";
    let t = translate(source.into()).expect("it translates");
    assert!(t.generated.c_source.contains("v_m2cux = (x + 1.0)"));
}
