//! The bundled site is valid HTML (Nu Html Checker, `vnu-jar` on the
//! machine's Java), has no axe-core violations in headless Debian
//! chromium, in light and dark schemes, and keeps the theme's layout. The tools come from
//! `tests/browser/package.json` (`npm ci` there) and Debian's `chromium`;
//! `.ci/run` installs them. Without them the tests are skipped, the
//! reason shown in the summary, except in CI (`CI` set), where a missing
//! tool is a failure ([`crate::common::tools`]).

use crate::common::{bundled_copy, project, tools, vellum};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The paper of 34 authors of the arXiv fixture snapshot (1707.08567),
/// whose page shows 30 of them and "+4 more".
const LONG_BYLINE_PAGE: &str =
    "/papers/proceedings-of-workshop-aew10-concepts-in-information-theory-and-communications/";

/// The bundled site, with two more listings: one whose abstract holds
/// display math (a fraction in stretched brackets), and one with the
/// paper of [`LONG_BYLINE_PAGE`], matched to its record by `vellum enrich`
/// from the fixture snapshot.
fn built_site() -> (crate::common::TempDir, PathBuf) {
    let site = bundled_copy();
    let listings = [
        (
            "Ana Lima",
            "Rates of Convergence for Sparse Training",
            2023,
            "The error falls as $$\\left(\\frac{\\log n}{n}\\right)^{1/2}$$ for $n$ samples, as $\\Theta(\\sqrt{n})$ bounds predict.",
            "cs.LG",
        ),
        (
            "Kees A. Schouhamer Immink",
            "Proceedings of Workshop AEW10: Concepts in Information Theory and Communications",
            2017,
            "The 10th Asia-Europe workshop in \"Concepts in Information Theory and Communications\" AEW10 was held in Boppard, Germany on June 21-23, 2017. It is based on a longstanding cooperation between Asian and European scientists. The first workshop was held in Eindhoven, the Netherlands in 1989. The idea of the workshop is threefold: 1) to improve the communication between the scientist in the different parts of the world; 2) to exchange knowledge and ideas; and 3) to pay a tribute to a well respected and special scientist.",
            "cs.IT",
        ),
    ];
    for (author, title, year, abstract_text, category) in listings {
        let file = format!("seeds/{}.txt", vellum::permalink::slugify(author));
        let listing = crate::common::listing(author, &[(title, year, abstract_text, category)]);
        crate::common::write(site.path(), &file, &listing);
    }
    let root = site.path().to_str().unwrap();
    let snapshot = project().join("tests/fixtures/arxiv-api/snapshot.jsonl");
    let out = vellum(
        &[
            "enrich",
            "--root",
            root,
            "--arxiv-snapshot",
            snapshot.to_str().unwrap(),
        ],
        &[],
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("matched 1 of "),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let out = vellum(&["build", "--root", root, "--quiet"], &[]);
    assert!(out.status.success());
    let public = site.path().join("public");
    let page = public.join(LONG_BYLINE_PAGE.trim_start_matches('/'));
    let page = std::fs::read_to_string(page.join("index.html")).unwrap();
    assert!(page.contains("<summary>+4 more</summary>"), "{page}");
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

/// A page of every kind of the site of [`built_site`]: home, the term
/// indexes and a term of each, a paper (one with math), search with
/// results, a content page and the 404 page.
const EVERY_KIND: [&str; 12] = [
    "/",
    "/authors/",
    "/authors/chuan-wu/",
    "/years/",
    "/years/2024/",
    "/categories/",
    "/categories/cs-dc/",
    "/papers/echo-simulating-distributed-training-at-scale/",
    "/papers/rates-of-convergence-for-sparse-training/",
    "/search/?q=training",
    "/about/",
    "/no-such-page/",
];

fn every_page_kind_has_no_axe_violations_in_chromium() {
    let script = project().join("tests/browser/axe.mjs");
    let (_site, public) = built_site();
    let args = ["tests/browser/axe.mjs", public.to_str().unwrap()];
    let pages = [&args[..], &EVERY_KIND[..], &[LONG_BYLINE_PAGE]].concat();
    let stdout = crate::common::node(&pages, &[]);
    assert_eq!(
        stdout.matches(": 0 violations").count(),
        2 * (EVERY_KIND.len() + 1),
        "{stdout}"
    );

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

/// The theme's layout in chromium ([`tests/browser/layout.mjs`]): the
/// header is one row at 1280 px on every page kind, the first paper of an
/// author page is on a phone's first screen, the papers-per-year table is
/// a table, display math stretches its brackets, and a long byline's
/// "+N more" follows its last name shown.
fn the_theme_keeps_its_layout_in_chromium() {
    let (_site, public) = built_site();
    let public = public.to_str().unwrap();
    let args = [
        "tests/browser/layout.mjs",
        public,
        "/authors/chuan-wu/",
        "/papers/rates-of-convergence-for-sparse-training/",
        LONG_BYLINE_PAGE,
    ];
    let stdout = crate::common::node(&[&args[..], &EVERY_KIND[..]].concat(), &[]);
    assert_eq!(
        stdout.matches("ok: ").count(),
        EVERY_KIND.len() + 5,
        "{stdout}"
    );
}

/// This file's tests, for the harness in `tests/main.rs`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(browser:
        every_page_passes_the_nu_html_checker needs tools::vnu(),
        every_page_kind_has_no_axe_violations_in_chromium needs tools::chromium(),
        the_theme_keeps_its_layout_in_chromium needs tools::chromium(),
    )
}
