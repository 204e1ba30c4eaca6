//! A listing of any bytes: parsed without a panic; every title and
//! abstract paragraph of an accepted one rendered without a panic, and
//! holding no character a page or feed may not.
#![no_main]
use libfuzzer_sys::fuzz_target;
use vellum::input::chars::is_forbidden;

fuzz_target!(|bytes: &[u8]| {
    if let Ok(listing) = vellum::input::listing::parse(bytes) {
        for record in &listing.records {
            let texts = std::iter::once(&record.title).chain(&record.abstract_paragraphs);
            for text in texts {
                assert!(!text.chars().any(is_forbidden), "{text:?}");
                let rendered = vellum::text::latex::render(text);
                assert!(!rendered.html.chars().any(is_forbidden));
            }
        }
    }
});
