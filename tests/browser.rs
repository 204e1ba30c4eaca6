//! The bundled site is valid HTML (Nu Html Checker, `vnu-jar` on the
//! machine's Java) and has no axe-core violations in headless Debian
//! chromium, in light and dark schemes. The tools come from
//! `tests/browser/package.json` (`npm ci` there) and Debian's `chromium`;
//! `.ci/run` installs them. Without them the tests are skipped with a
//! notice, except in CI (`CI` set), where a missing tool is a failure.

mod common;

use common::{bundled_copy, project, vellum};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tool at `path`, or `None` (skip) outside CI; panics in CI.
fn tool(path: PathBuf, what: &str) -> Option<PathBuf> {
    let present = path.exists();
    common::tool_present(present, &format!("{what} at {}", path.display())).then_some(path)
}

fn built_site() -> (tempfile::TempDir, PathBuf) {
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

#[test]
fn every_page_passes_the_nu_html_checker() {
    let Some(jar) = tool(
        project().join("tests/browser/node_modules/vnu-jar/build/dist/vnu.jar"),
        "vnu.jar",
    ) else {
        return;
    };
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
    let bad = tempfile::tempdir().unwrap();
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

#[test]
fn key_pages_have_no_axe_violations_in_chromium() {
    let Some(_) = tool(PathBuf::from("/usr/bin/chromium"), "Debian's chromium") else {
        return;
    };
    let Some(_) = tool(
        project().join("tests/browser/node_modules/playwright-core"),
        "playwright-core",
    ) else {
        return;
    };
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
    let bad = tempfile::tempdir().unwrap();
    std::fs::write(
        bad.path().join("index.html"),
        "<!doctype html><html><title>x</title><img src=a.png><a href=/x></a>",
    )
    .unwrap();
    std::fs::write(bad.path().join("404.html"), "").unwrap();
    assert!(!axe(&script, bad.path(), &["/"]).status.success());
}
