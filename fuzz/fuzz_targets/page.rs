//! A Markdown page and a `site.toml` of any bytes: read without a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let file = (
        "p.md".to_string(),
        std::path::PathBuf::from("content/p.md"),
        bytes.to_vec(),
    );
    let diagnostics = vellum::diagnostics::Diagnostics::new();
    let _ = vellum::input::content::load(&[file], false, &diagnostics);
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = vellum::input::config::Config::parse(text, std::path::Path::new("site.toml"));
    }
});
