//! Characters no page or feed may hold: the control characters XML 1.0
//! forbids (U+0000 to U+001F but tab, line feed and carriage return), the
//! ones HTML forbids beside them (U+007F to U+009F) and Unicode's
//! noncharacters (U+FFFE, U+FFFF, U+FDD0 to U+FDEF, ...). Every input text
//! (listings, Markdown pages, front matter and `site.toml`, including the
//! escapes of their TOML and YAML strings) has them replaced by U+FFFD,
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
/// Most listings hold none of them, and every byte of every listing is
/// tested (measured in 6bdc5d4 and e7560a9).
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

/// TOML text with forbidden characters replaced: raw ones anywhere, and
/// the escapes of its basic strings (`"…"`, `"""…"""`, keys too) that name
/// one (`\b`, `\f`, `\e`, `\x01`, `\u0008`, `\U0000001B`; each becomes
/// `\uFFFD`, on its line). Literal strings (`'$\beta$'`) have no escapes
/// and are left as written: the strings are found by the TOML parser, so
/// text that only looks like an escape is never changed. Returns the text,
/// the raw characters' lines and the escaped ones' ([`escape_warnings`]).
/// Text the parser rejects keeps its escapes (the error is reported by
/// the reader that parses it next).
pub fn replace_forbidden_toml(text: &str) -> (Cow<'_, str>, Found, Found) {
    let (raw, found) = replace_forbidden(text);
    if !may_name_forbidden(&raw) {
        return (raw, found, Vec::new());
    }
    let Ok(document) = toml::de::DeTable::parse(&raw) else {
        return (raw, found, Vec::new());
    };
    let mut spans = Vec::new();
    escaping_forbidden(&raw, document.get_ref(), &mut spans);
    if spans.is_empty() {
        return (raw, found, Vec::new());
    }
    spans.sort_by_key(|span| span.start);
    let mut out = String::with_capacity(raw.len());
    let mut escaped: Found = Vec::new();
    let (mut from, mut line) = (0, 1);
    for span in spans {
        // Spans the parser gave: in order, apart, on character boundaries;
        // one that is not is left as written rather than trusted.
        if span.start < from || raw.get(span.clone()).is_none() {
            continue;
        }
        line += raw[from..span.start].matches('\n').count();
        out.push_str(&raw[from..span.start]);
        line = replace_escapes(&raw[span.clone()], line, &mut out, &mut escaped);
        from = span.end;
    }
    out.push_str(&raw[from..]);
    (Cow::Owned(out), found, escaped)
}

/// Whether `text` has an escape that may name a forbidden character: an
/// odd run of backslashes before `b`, `f`, `e`, `x`, `u` or `U` (`\\beta`
/// does not, `\beta` does). Only then is the text parsed for its strings:
/// a records file that `vellum enrich` wrote has none.
fn may_name_forbidden(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut run_end = 0;
    memchr::memchr_iter(b'\\', bytes).any(|at| {
        if at < run_end {
            return false;
        }
        run_end = at + bytes[at..].iter().take_while(|&&b| b == b'\\').count();
        (run_end - at) % 2 == 1
            && matches!(
                bytes.get(run_end),
                Some(b'b' | b'f' | b'e' | b'x' | b'u' | b'U')
            )
    })
}

/// The spans of the basic strings, keys and values, of `table` whose
/// value holds a forbidden character.
fn escaping_forbidden(
    raw: &str,
    table: &toml::de::DeTable<'_>,
    spans: &mut Vec<std::ops::Range<usize>>,
) {
    fn basic(
        raw: &str,
        span: std::ops::Range<usize>,
        value: &str,
        spans: &mut Vec<std::ops::Range<usize>>,
    ) {
        if raw.get(span.clone()).is_some_and(|s| s.starts_with('"')) && holds_forbidden(value) {
            spans.push(span);
        }
    }
    fn value(
        raw: &str,
        item: &toml::Spanned<toml::de::DeValue<'_>>,
        spans: &mut Vec<std::ops::Range<usize>>,
    ) {
        match item.get_ref() {
            toml::de::DeValue::String(text) => basic(raw, item.span(), text, spans),
            toml::de::DeValue::Array(items) => items.iter().for_each(|i| value(raw, i, spans)),
            toml::de::DeValue::Table(table) => escaping_forbidden(raw, table, spans),
            _ => {}
        }
    }
    for (key, item) in table.iter() {
        basic(raw, key.span(), key.get_ref(), spans);
        value(raw, item, spans);
    }
}

/// Appends the basic string `source` (from its line `line`) to `out` with
/// each escape that names a forbidden character made `\uFFFD`, noting it
/// in `escaped`; `\\` is skipped, so `\\b` stays text. Returns the line
/// it ends on.
fn replace_escapes(source: &str, mut line: usize, out: &mut String, escaped: &mut Found) -> usize {
    let mut rest = source;
    while let Some(at) = rest.find(['\\', '\n']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix('\n') {
            line += 1;
            out.push('\n');
            rest = after;
            continue;
        }
        let (named, len) = match tail.as_bytes().get(1) {
            Some(b'b') => (Some('\u{8}'), 2),
            Some(b'f') => (Some('\u{c}'), 2),
            Some(b'e') => (Some('\u{1b}'), 2),
            Some(&kind @ (b'x' | b'u' | b'U')) => {
                let digits = match kind {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let named = tail
                    .get(2..2 + digits)
                    .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .and_then(char::from_u32);
                (named, 2 + digits)
            }
            Some(b'\\') => (None, 2),
            _ => (None, 1),
        };
        match named.filter(|&c| is_forbidden(c)) {
            Some(c) => {
                note(escaped, line, c);
                out.push_str("\\uFFFD");
            }
            None => out.push_str(tail.get(..len).unwrap_or(tail)),
        }
        rest = tail.get(len..).unwrap_or("");
    }
    out.push_str(rest);
    line
}

/// The warnings of a TOML file's characters that [`replace_forbidden_toml`]
/// replaced: the raw ones' ([`warnings`]), then the escaped ones'
/// ([`escape_warnings`], with TOML's way to keep a backslash).
pub fn toml_warnings(file: &Path, found: &Found, escaped: &Found) -> Vec<Diagnostic> {
    let mut all = warnings(file, found);
    all.extend(escape_warnings(
        file,
        escaped,
        "or put the value in single quotes",
    ));
    all
}

/// One warning per line of `found`, characters that escapes in `file`
/// name ([`replace_forbidden_toml`], and YAML's in front matter): as
/// [`warnings`], with the escape named and how to write a backslash, as
/// in LaTeX's `\beta`: `\\beta`, or `hint`.
pub fn escape_warnings(file: &Path, found: &Found, hint: &str) -> Vec<Diagnostic> {
    at_most_ten_lines(file, found, |chars| {
        let names: Vec<String> = chars.iter().map(|&c| escape_name(c)).collect();
        format!(
            "expected text, found {}, named by an escape, which no page or feed may hold; it \
             is replaced by U+FFFD. For a backslash, as in LaTeX's `\\beta`, write `\\\\beta` {hint}",
            names.join(", ")
        )
    })
}

/// A forbidden character, with the escape of TOML and YAML that names it
/// for the three that LaTeX commands (`\beta`, `\frac`, `\epsilon`) make:
/// `U+0008 (\b)`.
fn escape_name(c: char) -> String {
    match c {
        '\u{8}' => "U+0008 (`\\b`)".to_string(),
        '\u{c}' => "U+000C (`\\f`)".to_string(),
        '\u{1b}' => "U+001B (`\\e`)".to_string(),
        c => format!("U+{:04X}", c as u32),
    }
}

/// One warning per line of `found` in `file`.
pub fn warnings(file: &Path, found: &Found) -> Vec<Diagnostic> {
    at_most_ten_lines(file, found, |chars| {
        let names: Vec<String> = chars
            .iter()
            .map(|c| format!("U+{:04X}", *c as u32))
            .collect();
        format!(
            "expected text, found the control character or noncharacter {}, which no page \
             or feed may hold; it is replaced by U+FFFD",
            names.join(", ")
        )
    })
}

/// One warning per line of `found` in `file`, saying `message` of its
/// characters, at most [`WARNED_LINES`], then one counting the rest.
fn at_most_ten_lines(
    file: &Path,
    found: &Found,
    message: impl Fn(&[char]) -> String,
) -> Vec<Diagnostic> {
    let mut warnings: Vec<Diagnostic> = (found.iter().take(WARNED_LINES))
        .map(|(line, chars)| Diagnostic::warning(file, *line, message(chars)))
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
    fn toml_escapes_naming_them_are_replaced_in_basic_strings_only() {
        let source = concat!(
            "a = \"x\\u0008y\"\n",
            "b = \"\\\\u0008 stays\"\n",
            "c = \"\\U0000001B \\u00e9\"\n",
            "d = \"$\\beta$ \\f \\e \\x01 \\x41\"\n",
            "e = '$\\beta$ stays'\n",
            "# \"\\b\" in a comment stays\n",
            "f = \"\"\"\nline\\b\n\\x7F\"\"\"\n",
            "[g]\n\"k\\b\" = [\"\\b\", { h = \"\\f\" }]\n",
        );
        let (text, found, escaped) = replace_forbidden_toml(source);
        assert!(found.is_empty());
        assert_eq!(
            text,
            concat!(
                "a = \"x\\uFFFDy\"\n",
                "b = \"\\\\u0008 stays\"\n",
                "c = \"\\uFFFD \\u00e9\"\n",
                "d = \"$\\uFFFDeta$ \\uFFFD \\uFFFD \\uFFFD \\x41\"\n",
                "e = '$\\beta$ stays'\n",
                "# \"\\b\" in a comment stays\n",
                "f = \"\"\"\nline\\uFFFD\n\\uFFFD\"\"\"\n",
                "[g]\n\"k\\uFFFD\" = [\"\\uFFFD\", { h = \"\\uFFFD\" }]\n",
            )
        );
        assert_eq!(
            escaped,
            [
                (1, vec!['\u{8}']),
                (3, vec!['\u{1b}']),
                (4, vec!['\u{8}', '\u{c}', '\u{1b}', '\u{1}']),
                (8, vec!['\u{8}']),
                (9, vec!['\u{7f}']),
                (11, vec!['\u{8}', '\u{c}']),
            ]
        );
        let value: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(value["a"].as_str(), Some("x\u{fffd}y"));
        assert_eq!(
            value["d"].as_str(),
            Some("$\u{fffd}eta$ \u{fffd} \u{fffd} \u{fffd} A")
        );
        assert_eq!(value["e"].as_str(), Some("$\\beta$ stays"));
        assert!(may_name_forbidden("a = \"\\\\\\b\""));
        assert!(!may_name_forbidden("a = \"\\\\beta \\n \\t \\\\\\\\u\""));
        // What the parser rejects keeps its escapes, for its error.
        let broken = "a = \"\\b\"\nb = \n";
        assert_eq!(replace_forbidden_toml(broken).0, broken);
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

    use proptest::strategy::Strategy;

    proptest::proptest! {
        /// Basic strings (keys, values, multi-line, in arrays and tables)
        /// made of escapes, and a literal string: every forbidden
        /// character an escape names is replaced, nothing else changes.
        #[test]
        fn toml_escapes_are_replaced_in_any_basic_string(
            parts in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(vec![
                    "\\b", "\\\\", "\\\\b", "\\f", "\\e", "\\x01", "\\x41", "\\u0001",
                    "\\U0000FFFF", "\\u00e9", "x", "é", "\\n", "\\\"", "\\t",
                ]), 0..6).prop_map(|p| p.concat()),
                4,
            )
        ) {
            let text = format!(
                "a = \"{}\"\nlit = '{}'\n\"{}\" = 1\n[t]\nb = \"\"\"\n{}\"\"\"\nc = [\"{}\"]\n",
                parts[0], parts[0].replace('\'', ""), parts[1], parts[2], parts[3],
            );
            let before: toml::Table = toml::from_str(&text).unwrap();
            let (replaced, _, _) = replace_forbidden_toml(&text);
            let after: toml::Table = toml::from_str(&replaced).unwrap();
            fn strings(value: &toml::Value, out: &mut Vec<String>) {
                match value {
                    toml::Value::String(s) => out.push(s.clone()),
                    toml::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
                    toml::Value::Table(table) => table.iter().for_each(|(k, v)| {
                        out.push(k.clone());
                        strings(v, out);
                    }),
                    _ => {}
                }
            }
            let (mut was, mut is) = (Vec::new(), Vec::new());
            strings(&toml::Value::Table(before), &mut was);
            strings(&toml::Value::Table(after), &mut is);
            // Keys sort anew once replaced: compared in order of their text.
            let mut expected: Vec<String> = was.iter().map(|s| replace_forbidden(s).0.into_owned()).collect();
            expected.sort();
            is.sort();
            proptest::prop_assert_eq!(is, expected);
        }
    }
}
