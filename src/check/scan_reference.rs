//! What [`super::scan`] is held to: lol_html, an HTML rewriter built on
//! the standard's tokenizer, finding the same links and anchors. Used by
//! the scanner's tests and by `bench/scan-compare`, which includes this
//! file and `scan.rs` by path.

use lol_html::{element, HtmlRewriter, Settings};
use std::borrow::Cow;
use std::cell::RefCell;

/// The links (`href`, `src`) and anchors (`id`, an `<a>`'s `name`)
/// lol_html finds in `html`, in the order [`super::scan::scan`] gives them,
/// decoded as it decodes them (lol_html gives values as written).
pub fn lol_html_scan(html: &[u8]) -> (Vec<String>, Vec<String>) {
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
    // After an error (`<select><style>`), `end` would panic.
    if rewriter.write(html).is_ok() {
        let _ = rewriter.end();
    } else {
        drop(rewriter);
    }
    let decoded = |values: Vec<String>| {
        values
            .into_iter()
            .map(|v| htmlize::unescape_attribute(v).into_owned())
            .collect()
    };
    (decoded(links.into_inner()), decoded(ids.into_inner()))
}

/// What [`super::scan::scan`] finds in `html`, in the same form.
pub fn scanned(html: &[u8]) -> (Vec<String>, Vec<String>) {
    let page = super::scan::scan(html);
    let owned = |v: Vec<Cow<str>>| v.into_iter().map(Cow::into_owned).collect();
    (owned(page.links), owned(page.ids))
}
