//! The HTML report (`m2cu report`, `translate --report`, `Options::html_report`): every e2e
//! fixture's page is self-contained and its links resolve; the code it shows is the code
//! `translate` writes; its text is snapshotted; headless Chromium renders it.

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;

use common::{e2e_fixtures, fixture_options, root, source};

/// The translation of e2e fixture `name` with its report.
fn with_report(name: &str) -> m2cu::Translation {
    let options = m2cu::Options {
        html_report: true,
        ..fixture_options(name)
    };
    m2cu::translate(&source(&common::e2e_path(name, ".m")), &options)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The translation of `fixtures/analysis/NAME.m` (types from its `arguments` block) with its
/// report.
fn analysis_report(name: &str) -> m2cu::Translation {
    let path = root().join(format!("fixtures/analysis/{name}.m"));
    let options = m2cu::Options {
        file_name: format!("{name}.m"),
        html_report: true,
        ..Default::default()
    };
    m2cu::translate(&source(&path), &options).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The values of every `attribute="..."` in `html`.
fn attribute_values<'a>(html: &'a str, attribute: &str) -> Vec<&'a str> {
    let key = format!(" {attribute}=\"");
    html.match_indices(&key)
        .filter_map(|(at, _)| {
            let rest = &html[at + key.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

/// What is wrong with a report page: duplicate ids, links to no id, anything loaded from
/// elsewhere, a loop or kernel of the translation missing.
fn problems(html: &str, t: &m2cu::Translation) -> Vec<String> {
    let mut problems = page_problems(html);
    let loops = t.report_json["loops"].as_array().map_or(0, Vec::len);
    let badges = html.matches("<div class=\"badge ").count();
    if badges != loops {
        problems.push(format!("{loops} loops but {badges} verdict badges"));
    }
    for k in &t.generated.kernels {
        let card = format!("<div class=\"kernel\" id=\"kernel-{}\">", k.name);
        if !html.contains(&card) {
            problems.push(format!("no card for kernel {}", k.name));
        }
        if !html.contains(&format!(">{}.kernels.cu:", t.entry)) {
            problems.push(format!("kernel {} has no link to its definition", k.name));
        }
    }
    problems
}

#[test]
fn every_fixture_report_is_self_contained_and_its_links_resolve() {
    let mut failures = Vec::new();
    for name in e2e_fixtures() {
        let t = with_report(&name);
        let html = t.html_report.as_deref().expect("asked for the report");
        failures.extend(
            problems(html, &t)
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_report_is_made_only_when_asked_for() {
    let t = common::translate_fixture("minloc");
    assert!(t.html_report.is_none());
}

/// The code on the page is the code `translate` writes: the line directives whose places make
/// the links are left out, and nothing else changes.
#[test]
fn the_code_shown_is_the_code_written() {
    for name in ["minloc", "agebands", "saxpy", "grow"] {
        let plain = common::translate_fixture(name);
        let options = m2cu::Options {
            line_directives: true,
            ..fixture_options(name)
        };
        let traced = m2cu::translate(&source(&common::e2e_path(name, ".m")), &options).unwrap();
        let sources = m2cu_frontend::sources::SourceMap::new(&format!("{name}.m"), "");
        let pairs = [
            (&traced.generated.kernels_cu, &plain.generated.kernels_cu),
            (&traced.generated.c_source, &plain.generated.c_source),
            (&traced.generated.gpu_host_c, &plain.generated.gpu_host_c),
        ];
        for (k, (traced, plain)) in pairs.into_iter().enumerate() {
            let (code, origins) = m2cu_codegen::trace::line_origins(traced, &sources);
            assert_eq!(&code, plain, "{name}: the text without directives differs");
            assert_eq!(origins.len(), code.lines().count());
            // The CPU program has every statement.
            let c_source = k == 1;
            assert!(
                !c_source || origins.iter().any(Option::is_some),
                "{name}: no line is placed"
            );
        }
    }
}

/// The page's text, as a reader sees it without the generated code (whose text the codegen
/// snapshots hold): tags left out, cells and blocks on their own lines.
fn page_text(html: &str) -> String {
    let end = html.find("<section id=\"code\">").unwrap_or(html.len());
    let body = &html[html.find("<body>").expect("a body")..end];
    let mut text = String::new();
    let mut in_tag = false;
    let mut tag = String::new();
    for c in body.chars() {
        match (in_tag, c) {
            (false, '<') => {
                in_tag = true;
                tag.clear();
            }
            (true, '>') => {
                in_tag = false;
                let closes_block = [
                    "/tr", "/div", "/h1", "/h2", "/h3", "/p", "/dt", "/dd", "/pre",
                ]
                .iter()
                .any(|t| tag == *t)
                    || tag.starts_with("div ")
                    || tag.starts_with("span class=\"why");
                if closes_block {
                    text.push('\n');
                } else if tag == "/td" || tag == "/th" {
                    text.push_str(" | ");
                }
            }
            (true, c) => tag.push(c),
            (false, c) => text.push(c),
        }
    }
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&amp;", "&");
    text.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn report_text() {
    let pages = [
        ("minloc", with_report("minloc")),
        ("grow", with_report("grow")),
        ("plan_lu", analysis_report("plan_lu")),
        ("plan_rowsums", analysis_report("plan_rowsums")),
    ];
    for (name, t) in pages {
        let html = t.html_report.as_deref().unwrap();
        insta::assert_snapshot!(format!("report_{name}"), page_text(html));
    }
}

/// Every error fixture (parse and check) has a page: self-contained, its links resolving, each
/// diagnostic under its line with its code, and its place marked.
#[test]
fn every_failed_translation_has_an_error_page() {
    let mut failures = Vec::new();
    for path in common::fixture_files("parse/err")
        .into_iter()
        .chain(common::fixture_files("check/err"))
    {
        let source = source(&path);
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let entry = source
            .lines()
            .find_map(|l| l.strip_prefix("% m2cu-entry:"))
            .map(|e| e.trim().to_string());
        let options = m2cu::Options {
            file_name: name.clone(),
            entry,
            html_report: true,
            ..Default::default()
        };
        let error = match m2cu::translate(&source, &options) {
            Err(e @ m2cu::Error::Source { .. }) => e,
            Err(e) => panic!("{name}: not a source error: {e}"),
            Ok(_) => panic!("{name}: translated"),
        };
        let m2cu::Error::Source { diagnostics, .. } = &error else {
            unreachable!("matched above")
        };
        let page = error.html_report().expect("a source error has a page");
        failures.extend(
            page_problems(&page)
                .into_iter()
                .map(|p| format!("{name}: {p}")),
        );
        for d in diagnostics.iter() {
            let head = format!("[{}]: {}", d.code, escaped(&d.message));
            if !page.contains(&head) {
                failures.push(format!("{name}: no `{head}` under its line"));
            }
        }
        if !page.contains("<u class=\"error\"") {
            failures.push(format!("{name}: no place marked"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `text` as the page writes it (askama's HTML escaping).
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#x27;")
}

/// A failed translation's page from the command line: `m2cu report` writes it where the
/// report would go, says so, and fails with the errors.
#[test]
fn report_writes_the_error_page_of_a_file_that_does_not_translate() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = root().join("fixtures/check/err/E0102_misspelt_accumulator.m");
    let out = Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .arg("report")
        .arg(&fixture)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error[E0102]"), "{stderr}");
    assert!(
        stderr
            .contains("wrote E0102_misspelt_accumulator_report.html (the errors, at their places)"),
        "{stderr}"
    );
    let page =
        std::fs::read_to_string(dir.path().join("E0102_misspelt_accumulator_report.html")).unwrap();
    let marked =
        "<u class=\"error\" title=\"E0102: undefined variable or function `totl`\">totl</u>";
    assert!(page.contains(marked), "{page}");
    assert!(page_problems(&page).is_empty());
}

/// Duplicate ids, links to no id, and anything loaded from elsewhere.
fn page_problems(html: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let ids = attribute_values(html, "id");
    let unique: HashSet<&str> = ids.iter().copied().collect();
    if unique.len() != ids.len() {
        problems.push("an id is used twice".to_string());
    }
    for href in attribute_values(html, "href") {
        match href.strip_prefix('#') {
            Some(id) if unique.contains(id) => {}
            Some(id) => problems.push(format!("link to a missing id `{id}`")),
            None => problems.push(format!("link out of the page: `{href}`")),
        }
    }
    for external in [
        "<script", "<link", "<img", "<iframe", " src=", "url(", "@import",
    ] {
        if html.contains(external) {
            problems.push(format!("the page loads something: `{external}`"));
        }
    }
    problems
}

/// Chromium's path, or why there is none.
fn chromium() -> Result<String, String> {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Ok(o) = Command::new(name).arg("--version").output() {
            if o.status.success() {
                return Ok(name.to_string());
            }
        }
    }
    Err("no chromium on PATH; install it with `apt-get install chromium`".into())
}

/// Runs headless Chromium on `page` with `args`, in a profile of its own; its standard output.
fn headless(browser: &str, page: &Path, args: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed on {}: {}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Headless Chromium parses each page into the document we wrote (every source line a row,
/// every kernel a card, the sections in place) and paints it.
#[test]
fn chromium_renders_the_report() {
    let browser = chromium();
    if !common::require(browser.clone().map(drop), "chromium") {
        return;
    }
    let browser = browser.unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, t) in [
        ("minloc", with_report("minloc")),
        ("plan_lu", analysis_report("plan_lu")),
    ] {
        let page = dir.path().join(format!("{name}.html"));
        std::fs::write(&page, t.html_report.as_deref().unwrap()).unwrap();
        let dom = headless(&browser, &page, &["--dump-dom"]);
        for section in ["source", "loops", "kernels", "notes", "code"] {
            assert!(
                dom.contains(&format!("<section id=\"{section}\">")),
                "{name}: Chromium's document has no {section} section"
            );
        }
        let entry_lines = dom.matches("<tr id=\"s0-").count();
        let source_lines = std::fs::read_to_string(root().join(match name {
            "minloc" => "fixtures/e2e/minloc.m",
            _ => "fixtures/analysis/plan_lu.m",
        }))
        .unwrap()
        .lines()
        .count();
        assert_eq!(entry_lines, source_lines, "{name}: a row per source line");
        for k in &t.generated.kernels {
            assert!(
                dom.contains(&format!("id=\"kernel-{}\"", k.name)),
                "{name}: {}",
                k.name
            );
        }
        let png = dir.path().join(format!("{name}.png"));
        let screenshot = format!("--screenshot={}", png.display());
        headless(&browser, &page, &[&screenshot, "--window-size=1200,1600"]);
        let image = std::fs::read(&png).expect("a screenshot");
        assert!(image.starts_with(b"\x89PNG"), "{name}: not a PNG");
        assert!(
            image.len() > 20_000,
            "{name}: an empty page ({} bytes)",
            image.len()
        );
    }
    // The page of a file that does not translate.
    let path = root().join("fixtures/check/err/E0102_misspelt_accumulator.m");
    let options = m2cu::Options {
        file_name: "E0102_misspelt_accumulator.m".into(),
        ..Default::default()
    };
    let error = m2cu::translate(&source(&path), &options).unwrap_err();
    let page = dir.path().join("errors.html");
    std::fs::write(&page, error.html_report().unwrap()).unwrap();
    let dom = headless(&browser, &page, &["--dump-dom"]);
    assert!(dom.contains("<section id=\"errors\">"), "{dom}");
    assert!(dom.contains("<div class=\"problem\">error[E0102]"), "{dom}");
}

/// `m2cu report` writes the page (by default `<entry>_report.html`) and prints the loop
/// report; `translate --report` writes it beside the code.
#[test]
fn the_commands_write_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let m2cu = env!("CARGO_BIN_EXE_m2cu");
    let fixture = root().join("fixtures/e2e/saxpy.m");
    let out = Command::new(m2cu)
        .arg("report")
        .arg(&fixture)
        .args(common::SAXPY_ARGS)
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("-> kernel saxpy_kernel1"), "{stdout}");
    assert!(stdout.contains("wrote saxpy_report.html"), "{stdout}");
    let page = std::fs::read_to_string(dir.path().join("saxpy_report.html")).unwrap();
    assert!(page.contains("id=\"kernel-saxpy_kernel1\""));

    let report = dir.path().join("r.html");
    let out = Command::new(m2cu)
        .arg("translate")
        .arg(&fixture)
        .args(common::SAXPY_ARGS)
        .arg("-o")
        .arg(dir.path().join("gen"))
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("r.html"));
    assert_eq!(std::fs::read_to_string(&report).unwrap(), page);
    assert!(dir.path().join("gen/saxpy.kernels.cu").exists());
}
