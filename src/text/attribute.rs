//! HTML attribute values read as a browser reads them. On its own, so
//! that `bench/scan-compare` can include it beside the link scanner.

use std::borrow::Cow;

/// An attribute's value as a browser reads it: its character references
/// (`&amp;`, `&#39;`, …) decoded by the standard's rules for attribute
/// values (a legacy reference without its `;` is left as written before
/// `=` or a letter); borrowed when it has none.
pub fn decode_attribute(value: Cow<'_, str>) -> Cow<'_, str> {
    if value.contains('&') {
        htmlize::unescape_attribute(value)
    } else {
        value
    }
}
