//! `vellum check`'s link scanner beside lol_html, on every `.html` file of
//! a built site: the time each takes on one thread, and whether they find
//! the same links and anchors on every page.
//!
//! `cargo run --release --manifest-path bench/scan-compare/Cargo.toml -- OUTPUT_DIR`

use scan_reference::{lol_html_scan, scanned};
use std::time::Instant;

#[path = "../../../src/check/scan.rs"]
#[allow(dead_code)]
mod scan;

#[path = "../../../src/check/scan_reference.rs"]
mod scan_reference;

fn main() {
    let root = std::env::args().nth(1).expect("usage: scan-compare OUTPUT_DIR");
    let pages: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "html"))
        .map(|e| (e.path().display().to_string(), std::fs::read(e.path()).unwrap()))
        .collect();
    let bytes: usize = pages.iter().map(|(_, p)| p.len()).sum();
    println!("{} pages, {} MiB", pages.len(), bytes >> 20);
    let start = Instant::now();
    let found: usize = pages.iter().map(|(_, p)| { let (l, i) = lol_html_scan(p); l.len() + i.len() }).sum();
    println!("lol_html  {:>8.2} s  {found} links and anchors", start.elapsed().as_secs_f64());
    let start = Instant::now();
    let found: usize = pages.iter().map(|(_, p)| { let page = scan::scan(p); page.links.len() + page.ids.len() }).sum();
    println!("scanner   {:>8.2} s  {found} links and anchors", start.elapsed().as_secs_f64());
    // noscript: the scanner reads it as markup, lol_html as raw text.
    let differ: Vec<&String> = pages
        .iter()
        .filter(|(_, p)| !p.windows(9).any(|w| w.eq_ignore_ascii_case(b"<noscript")))
        .filter(|(_, p)| scanned(p) != lol_html_scan(p))
        .map(|(path, _)| path)
        .collect();
    let noscript = pages.iter().filter(|(_, p)| p.windows(9).any(|w| w.eq_ignore_ascii_case(b"<noscript"))).count();
    println!("pages that differ: {} (of {} without <noscript>)", differ.len(), pages.len() - noscript);
    for path in differ.iter().take(5) {
        println!("  {path}");
    }
}
