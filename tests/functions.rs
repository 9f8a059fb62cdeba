//! The list of functions m2cu translates (`m2cu_frontend::catalog`) against what m2cu does:
//! each example translates for exactly the classes its entry lists, and `docs/FUNCTIONS.md` is
//! the table's text.

use m2cu::catalog::{self, Function, Kind};

/// The example of `f` as a function of `x` and `M` of class `kind`, `n` and `s`.
fn translate(f: &Function, kind: Kind) -> Result<m2cu::Translation, m2cu::Error> {
    let source = format!("function y = example(x, M, n, s)\n{}\nend\n", f.example);
    let class = kind.spec_class();
    let options = m2cu::Options {
        file_name: format!("{}.m", f.name.replace('.', "_")),
        args: vec![
            format!("x={class}(1,:)"),
            format!("M={class}(:,:)"),
            "n=double".into(),
            "s=char(1,:)".into(),
        ],
        ..Default::default()
    };
    m2cu::translate(&source, &options)
}

fn error_text(e: &m2cu::Error) -> String {
    e.to_string().lines().take(6).collect::<Vec<_>>().join("\n")
}

#[test]
fn each_example_translates_for_the_classes_listed_and_no_others() {
    let mut wrong = Vec::new();
    for f in catalog::FUNCTIONS {
        let kinds: Vec<Kind> = match f.classes {
            Some(_) => Kind::ALL.to_vec(),
            None => vec![Kind::Double],
        };
        for kind in kinds {
            let expected = f.classes.is_none_or(|listed| listed.contains(&kind));
            match (translate(f, kind), expected) {
                (Ok(_), true) | (Err(_), false) => {}
                (Ok(_), false) => wrong.push(format!(
                    "{} translates for {} but does not list it",
                    f.name,
                    kind.word()
                )),
                (Err(e), true) => wrong.push(format!(
                    "{} lists {} but is refused:\n{}",
                    f.name,
                    kind.word(),
                    error_text(&e)
                )),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn docs_functions_md_is_the_catalog() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/FUNCTIONS.md");
    let written = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        written == catalog::markdown(),
        "docs/FUNCTIONS.md is not the catalog's text: run\n  cargo run --release -- functions --markdown > docs/FUNCTIONS.md"
    );
}
