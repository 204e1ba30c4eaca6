//! `vellum check`'s link scanner beside lol_html, on every `.html` file of
//! a built site: the time each takes on one thread, and whether they find
//! the same links and anchors on every page.
//!
//! `cargo run --release --manifest-path bench/scan-compare/Cargo.toml -- OUTPUT_DIR`

use lol_html::{element, HtmlRewriter, Settings};
use std::cell::RefCell;
use std::time::Instant;

#[path = "../../../src/check/scan.rs"]
#[allow(dead_code)]
mod scan;

/// The links and anchors lol_html finds: each element's `href` and `src`,
/// its `id`, and an `<a>`'s `name`.
fn lol_html_scan(html: &[u8]) -> (Vec<String>, Vec<String>) {
    let links = RefCell::new(Vec::new());
    let ids = RefCell::new(Vec::new());
    let settings = Settings::new()
        .append_element_content_handler(element!("[href], [src]", |el| {
            for attribute in ["href", "src"] {
                links.borrow_mut().extend(el.get_attribute(attribute));
            }
            Ok(())
        }))
        .append_element_content_handler(element!("[id]", |el| {
            ids.borrow_mut().extend(el.get_attribute("id"));
            Ok(())
        }))
        .append_element_content_handler(element!("a[name]", |el| {
            ids.borrow_mut().extend(el.get_attribute("name"));
            Ok(())
        }));
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    if rewriter.write(html).is_ok() {
        let _ = rewriter.end();
    } else {
        drop(rewriter);
    }
    (links.into_inner(), ids.into_inner())
}

fn scanned(html: &[u8]) -> (Vec<String>, Vec<String>) {
    let page = scan::scan(html);
    let owned = |v: Vec<std::borrow::Cow<str>>| v.into_iter().map(|c| c.into_owned()).collect();
    (owned(page.links), owned(page.ids))
}

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
