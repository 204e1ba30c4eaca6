//! Characters no page or feed may hold: the control characters XML 1.0
//! forbids (U+0000 to U+001F but tab, line feed and carriage return), the
//! ones HTML forbids beside them (U+007F to U+009F) and Unicode's
//! noncharacters (U+FFFE, U+FFFF, U+FDD0 to U+FDEF, ...). Every input text
//! (listings, Markdown pages, front matter and `site.toml`, including their
//! TOML `\u` escapes) has them replaced by U+FFFD before anything reads it,
//! with a warning at their line, so no feed, sitemap or page can be
//! ill-formed whatever the input.

use crate::diagnostics::Diagnostic;
use std::borrow::Cow;
use std::path::Path;

/// At most this many lines of one file get a warning of their own; one
/// more warning counts the rest.
const WARNED_LINES: usize = 10;

/// `text` with each carriage return that no line feed follows (the line
/// ending of classic Mac OS, which CommonMark reads as one too) made a
/// line feed, so its lines count and parse as its author saw them; CRLF
/// stays. Borrows `text` when it has none.
pub fn line_feeds(text: &str) -> Cow<'_, str> {
    let lone = |(at, _): &(usize, &str)| !text[at + 1..].starts_with('\n');
    if !text.match_indices('\r').any(|m| lone(&m)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (at, _) in text.match_indices('\r').filter(lone) {
        out.push_str(&text[from..at]);
        out.push('\n');
        from = at + 1;
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

/// The 1-based line of the byte after `before` (the bytes before it),
/// which is not a line feed (an invalid UTF-8 byte): line feeds and lone
/// carriage returns ([`line_feeds`]) end lines.
pub fn line_after(before: &[u8]) -> usize {
    let lone_cr = before
        .iter()
        .enumerate()
        .filter(|&(at, &b)| b == b'\r' && before.get(at + 1) != Some(&b'\n'))
        .count();
    1 + before.iter().filter(|&&b| b == b'\n').count() + lone_cr
}

/// Whether `c` may not appear in a page or feed.
pub fn is_forbidden(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
        || matches!(c, '\u{fdd0}'..='\u{fdef}')
        || (c as u32 & 0xfffe) == 0xfffe
}

/// Whether `text` holds a forbidden character, looked for byte by byte:
/// only a character whose UTF-8 starts with an ASCII control byte, 0xC2
/// (U+0080 to U+00BF), 0xEF (U+F000 to U+FFFF) or 0xF0 to 0xF4 (the
/// planes past the first) can be one, so only those are decoded. Eight
/// bytes are tested at once and skipped when none is such a byte ([`may_start_forbidden`]).
/// Most listings hold none of them (measured: a char-by-char scan was 3% of
/// a 100,000-paper build, a byte-by-byte one 5% of the instructions of a
/// 10,000-paper one).
fn holds_forbidden(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let end = (at + 8).min(bytes.len());
        let skip = bytes[at..end]
            .try_into()
            .is_ok_and(|word| !may_start_forbidden(u64::from_le_bytes(word)));
        if !skip {
            for i in at..end {
                let candidate = match bytes[i] {
                    b'\t' | b'\n' | b'\r' => false,
                    0..=0x1f | 0x7f | 0xc2 | 0xef | 0xf0..=0xf4 => true,
                    _ => false,
                };
                // A candidate byte always starts a character: ASCII bytes
                // and leading bytes are never inside another character's.
                if candidate && text[i..].chars().next().is_some_and(is_forbidden) {
                    return true;
                }
            }
        }
        at = end;
    }
    false
}

/// Whether one of the eight bytes of `word` is below 0x20, 0x7F, 0xC2,
/// 0xEF or 0xF0 and above: the bytes that can start a forbidden
/// character (and tab, line feed and carriage return). Exact, by the
/// zero-byte tests of "Bit Twiddling Hacks": a byte of `v` is zero (or of
/// `x` below `n`) when subtracting one (`n`) from it borrows.
fn may_start_forbidden(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS != 0;
    let has_below = |n: u64| word.wrapping_sub(ONES * n) & !word & HIGHS != 0;
    has_below(0x20)
        || has_zero(word ^ (ONES * 0x7f))
        || has_zero(word ^ (ONES * 0xc2))
        || has_zero(word ^ (ONES * 0xef))
        || has_zero((word & (ONES * 0xf0)) ^ (ONES * 0xf0))
}

/// The lines holding forbidden characters (1-based) and the characters
/// found on each, in order.
pub type Found = Vec<(usize, Vec<char>)>;

/// `text` with every forbidden character replaced by U+FFFD, and where
/// they were. Linear; borrows `text` when it holds none.
pub fn replace_forbidden(text: &str) -> (Cow<'_, str>, Found) {
    if !holds_forbidden(text) {
        return (Cow::Borrowed(text), Vec::new());
    }
    let mut found: Found = Vec::new();
    let mut out = String::with_capacity(text.len());
    let mut line = 1;
    for c in text.chars() {
        if is_forbidden(c) {
            note(&mut found, line, c);
            out.push('\u{fffd}');
        } else {
            out.push(c);
        }
        line += usize::from(c == '\n');
    }
    (Cow::Owned(out), found)
}

fn note(found: &mut Found, line: usize, c: char) {
    match found.last_mut() {
        Some((last, chars)) if *last == line => {
            if !chars.contains(&c) {
                chars.push(c);
            }
        }
        _ => found.push((line, vec![c])),
    }
}

/// TOML text with forbidden characters replaced, raw ones and those a
/// `\uXXXX` or `\UXXXXXXXX` escape names (the escape becomes `\uFFFD`).
/// A backslash pair `\\` is skipped, so `\\u0008` stays text.
pub fn replace_forbidden_toml(text: &str) -> (Cow<'_, str>, Found) {
    let (raw, mut found) = replace_forbidden(text);
    if !raw.contains("\\u") && !raw.contains("\\U") {
        return (raw, found);
    }
    let mut out = String::with_capacity(raw.len());
    let mut line = 1;
    let mut rest = &*raw;
    let mut escaped = false;
    while let Some(at) = rest.find(['\\', '\n']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix('\n') {
            line += 1;
            out.push('\n');
            rest = after;
            continue;
        }
        let digits = match tail.as_bytes().get(1) {
            Some(b'u') => 4,
            Some(b'U') => 8,
            Some(b'\\') => {
                out.push_str("\\\\");
                rest = &tail[2..];
                continue;
            }
            _ => 0,
        };
        let named = tail
            .get(2..2 + digits)
            .filter(|hex| digits > 0 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .and_then(char::from_u32)
            .filter(|&c| is_forbidden(c));
        match named {
            Some(c) => {
                escaped = true;
                note(&mut found, line, c);
                out.push_str("\\uFFFD");
                rest = &tail[2 + digits..];
            }
            None => {
                out.push('\\');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    if !escaped {
        return (raw, found);
    }
    found.sort_by_key(|(line, _)| *line);
    (Cow::Owned(out), found)
}

/// One warning per line of `found` in `file` (at most [`WARNED_LINES`],
/// then one counting the rest).
pub fn warnings(file: &Path, found: &Found) -> Vec<Diagnostic> {
    let mut warnings: Vec<Diagnostic> = found
        .iter()
        .take(WARNED_LINES)
        .map(|(line, chars)| {
            let names: Vec<String> = chars
                .iter()
                .map(|c| format!("U+{:04X}", *c as u32))
                .collect();
            Diagnostic::warning(
                file,
                *line,
                format!(
                    "expected text, found the control character or noncharacter {}, which no page \
                     or feed may hold; it is replaced by U+FFFD",
                    names.join(", ")
                ),
            )
        })
        .collect();
    if found.len() > WARNED_LINES {
        warnings.push(Diagnostic::warning(
            file,
            found[WARNED_LINES].0,
            format!(
                "expected text, found control characters or noncharacters on {} more lines; each is replaced by U+FFFD",
                found.len() - WARNED_LINES
            ),
        ));
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_scan_finds_what_the_char_scan_finds() {
        // At each place in an eight-byte word, and in the tail after the
        // last whole word.
        let pads = ["", "abc", "abcdefg", "abcdefgh", "abcdefghijklm"];
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            for pad in pads {
                let text = format!("{pad}{c}cd");
                assert_eq!(
                    holds_forbidden(&text),
                    is_forbidden(c),
                    "U+{:04X} after {pad:?}",
                    c as u32
                );
            }
        }
        let text = "é".repeat(20) + "\u{fffe}";
        assert!(holds_forbidden(&text));
        assert!(!holds_forbidden(&"é\t\n\r°".repeat(20)));
    }

    #[test]
    fn the_word_test_flags_exactly_the_words_with_a_candidate_byte() {
        let candidate = |b: u8| matches!(b, 0..=0x1f | 0x7f | 0xc2 | 0xef | 0xf0..=0xff);
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut word = [b'a'; 8];
                word[at] = b;
                assert_eq!(
                    may_start_forbidden(u64::from_le_bytes(word)),
                    candidate(b),
                    "byte {b:#x} at {at}"
                );
            }
        }
    }

    #[test]
    fn lone_carriage_returns_become_line_feeds_and_crlf_stays() {
        assert!(matches!(line_feeds("a\r\nb\n"), Cow::Borrowed(_)));
        assert_eq!(line_feeds("a\rb\r\nc\r\rd\r"), "a\nb\r\nc\n\nd\n");
        assert_eq!(line_feeds("é\rü"), "é\nü");
        assert_eq!(line_after(b"a\nb\r\nc\rd"), 4);
        assert_eq!(line_after(b"a\r"), 2);
        assert_eq!(line_after(b""), 1);
    }

    #[test]
    fn forbidden_characters() {
        for c in [
            '\0',
            '\u{8}',
            '\u{b}',
            '\u{1b}',
            '\u{7f}',
            '\u{85}',
            '\u{fffe}',
            '\u{ffff}',
            '\u{fdd0}',
            '\u{1fffe}',
        ] {
            assert!(is_forbidden(c), "{c:?}");
        }
        for c in [
            '\t',
            '\n',
            '\r',
            ' ',
            'é',
            '\u{a0}',
            '\u{fffd}',
            '\u{feff}',
            '\u{10000}',
        ] {
            assert!(!is_forbidden(c), "{c:?}");
        }
    }

    #[test]
    fn replaced_with_their_lines() {
        let (text, found) = replace_forbidden("a\nb\u{8}c\u{8}\u{0}\nd\u{ffff}");
        assert_eq!(text, "a\nb\u{fffd}c\u{fffd}\u{fffd}\nd\u{fffd}");
        assert_eq!(found, [(2, vec!['\u{8}', '\0']), (3, vec!['\u{ffff}'])]);
        assert!(matches!(replace_forbidden("clean"), (Cow::Borrowed("clean"), f) if f.is_empty()));
    }

    #[test]
    fn toml_escapes_naming_them_are_replaced_too() {
        let source = "a = \"x\\u0008y\"\nb = \"\\\\u0008 stays\"\nc = \"\\U0000001B \\u00e9\"\n";
        let (text, found) = replace_forbidden_toml(source);
        assert_eq!(
            text,
            "a = \"x\\uFFFDy\"\nb = \"\\\\u0008 stays\"\nc = \"\\uFFFD \\u00e9\"\n"
        );
        assert_eq!(found, [(1, vec!['\u{8}']), (3, vec!['\u{1b}'])]);
        let value: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(value["a"].as_str(), Some("x\u{fffd}y"));
    }

    #[test]
    fn warnings_name_the_code_points_and_stop_after_ten_lines() {
        let (_, found) = replace_forbidden(&"\u{1}\n".repeat(12));
        let shown: Vec<String> = warnings(Path::new("seeds/a.txt"), &found)
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(shown.len(), 11);
        assert_eq!(
            shown[0],
            "seeds/a.txt:1: warning: expected text, found the control character or noncharacter \
             U+0001, which no page or feed may hold; it is replaced by U+FFFD"
        );
        assert_eq!(
            shown[10],
            "seeds/a.txt:11: warning: expected text, found control characters or noncharacters on \
             2 more lines; each is replaced by U+FFFD"
        );
    }
}
