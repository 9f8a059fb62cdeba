//! `fixtures/check/err/*.m`: each must fail to translate, and its rendered diagnostics are
//! snapshotted. `fixtures/check/ok/*.m`: each must translate without errors (input types from
//! its `arguments` block), and its IR and loop report are snapshotted.
//! A `% m2cu-entry: NAME` line selects the entry function.

mod common;

use std::path::PathBuf;

fn files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::root().join(dir))
        .expect("fixture dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "m"))
        .collect();
    v.sort();
    v
}

fn options(path: &std::path::Path, source: &str) -> m2cu::Options {
    let entry = source
        .lines()
        .find_map(|l| l.strip_prefix("% m2cu-entry:"))
        .map(|e| e.trim().to_string());
    m2cu::Options {
        file_name: path.file_name().unwrap().to_string_lossy().into_owned(),
        entry,
        ..Default::default()
    }
}

#[test]
fn err_fixtures_render_their_diagnostics() {
    for path in files("fixtures/check/err") {
        let source = common::source(&path);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        match m2cu::check(&source, &options(&path, &source)) {
            Ok(_) => panic!("{name}: expected errors"),
            Err(m2cu::Error::Source { rendered, .. }) => {
                let code = name.split('_').next().unwrap();
                assert!(
                    rendered.contains(&format!("error[{code}]")),
                    "{name}: {rendered}"
                );
                insta::assert_snapshot!(format!("check_err_{name}"), rendered);
            }
            Err(e) => panic!("{name}: unexpected error kind: {e}"),
        }
    }
}

#[test]
fn ok_fixtures_translate() {
    for path in files("fixtures/check/ok") {
        let source = common::source(&path);
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let t = m2cu::check(&source, &options(&path, &source))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        insta::assert_snapshot!(
            format!("check_ok_{name}"),
            format!("{}\n{}", t.ir, t.report)
        );
    }
}
