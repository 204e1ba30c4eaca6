//! The bundled site is valid HTML (Nu Html Checker, `vnu-jar` on the
//! machine's Java) and has no axe-core violations in headless Debian
//! chromium, in light and dark schemes. The tools come from
//! `tests/browser/package.json` (`npm ci` there) and Debian's `chromium`;
//! `.ci/run` installs them. Without them the tests are skipped, the
//! reason shown in the summary, except in CI (`CI` set), where a missing
//! tool is a failure ([`crate::common::tools`]).

use crate::common::{bundled_copy, project, tools, vellum};
use std::path::{Path, PathBuf};
use std::process::Command;

fn built_site() -> (crate::common::TempDir, PathBuf) {
    let site = bundled_copy();
    let out = vellum(
        &["build", "--root", site.path().to_str().unwrap(), "--quiet"],
        &[],
    );
    assert!(out.status.success());
    let public = site.path().join("public");
    (site, public)
}

fn vnu(jar: &Path, dir: &Path) -> std::process::Output {
    Command::new("java")
        .args(["-jar"])
        .arg(jar)
        .args(["--errors-only", "--skip-non-html"])
        .arg(dir)
        .output()
        .unwrap()
}

fn every_page_passes_the_nu_html_checker() {
    let jar = tools::vnu_jar();
    let (_site, public) = built_site();
    let pages = walkdir::WalkDir::new(&public)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .count();
    assert!(pages > 50, "{pages} pages");
    let out = vnu(&jar, &public);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The checker does fail on invalid HTML.
    let bad = crate::common::tempdir();
    std::fs::write(
        bad.path().join("index.html"),
        "<!doctype html><html lang=en><title>x</title><p><div></p>",
    )
    .unwrap();
    assert!(!vnu(&jar, bad.path()).status.success());
}

fn axe(script: &Path, dir: &Path, pages: &[&str]) -> std::process::Output {
    Command::new("node")
        .arg(script)
        .arg(dir)
        .args(pages)
        .output()
        .unwrap()
}

fn key_pages_have_no_axe_violations_in_chromium() {
    let script = project().join("tests/browser/axe.mjs");
    let (_site, public) = built_site();
    let pages = [
        "/",
        "/authors/chuan-wu/",
        "/years/2024/",
        "/categories/cs-dc/",
        "/papers/echo-simulating-distributed-training-at-scale/",
    ];
    let out = axe(&script, &public, &pages);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.matches(": 0 violations").count(), 10, "{stdout}");

    // axe does report a page with violations.
    let bad = crate::common::tempdir();
    std::fs::write(
        bad.path().join("index.html"),
        "<!doctype html><html><title>x</title><img src=a.png><a href=/x></a>",
    )
    .unwrap();
    std::fs::write(bad.path().join("404.html"), "").unwrap();
    assert!(!axe(&script, bad.path(), &["/"]).status.success());
}

/// This file's tests, for the harness in `tests/main.rs`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(browser:
        every_page_passes_the_nu_html_checker needs tools::vnu(),
        key_pages_have_no_axe_violations_in_chromium needs tools::chromium(),
    )
}
