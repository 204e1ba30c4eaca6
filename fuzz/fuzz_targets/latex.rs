//! LaTeX of any text: rendered without a panic or a stack overflow.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = vellum::text::latex::render(text);
});
