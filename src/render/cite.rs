//! Citation formats.
//!
//! Takes what the site knows about one paper (a [`CiteRecord`]) and renders it
//! in the three formats reference managers import: BibTeX ([`bibtex`]), RIS
//! ([`ris`]) and CSL-JSON ([`csl_json`]). It also makes the paper's citation
//! key ([`crate::corpus::keys::citation_key`]). It hands on plain `String`s (BibTeX, RIS) and one
//! `serde_json::Value` CSL item; writing files, wrapping items in arrays and
//! making keys unique across the site are the caller's job.
//!
//! Honest citation metadata: the site only knows its own listed authors of a
//! paper. When [`CiteRecord::authors_complete`] is false, every format says
//! that more authors exist:
//! - BibTeX: the author list ends with `and others` (rendered "et al." by
//!   BibTeX/biblatex styles).
//! - RIS: a final `AU  - others` line (Zotero and other importers take it as
//!   one more author named "others").
//! - CSL-JSON: a final `{"literal": "others"}` name, the form pandoc produces
//!   from BibTeX's `and others`. CSL has no "et al." marker in item data;
//!   citeproc-js renders the literal as a name, e.g. `Chu, X., Wu, C., &
//!   others`.
//!
//! Format decisions:
//! - BibTeX is always `@misc` (as arXiv's own export): the site has no
//!   booktitle, pages or publisher for a venue, so the venue goes into `note`.
//!   arXiv data goes into `eprint`, `archivePrefix`, `primaryClass`.
//! - RIS uses `TY  - UNPB` (unpublished work), lines end with CRLF (`\r\n`) as
//!   the RIS specification asks, and the arXiv id goes into `AN` (accession
//!   number, `arXiv:ID`) with `DB  - arXiv` (database name).
//! - CSL-JSON uses `type: "article"`, the CSL 1.0.2 type for preprints, with
//!   `genre: "Preprint"`, `publisher: "arXiv"` and `number: "arXiv:ID"` when
//!   the arXiv id is known (as Zotero exports its preprints).

use crate::text::plain::one_line;
use serde_json::{json, Map, Value};
use std::fmt::Write;

/// A person's name, split by the site's name model
/// ([`crate::text::names::NameParts`]: given names, particles, family name).
pub use crate::text::names::NameParts as Person;

/// What an export needs to know of one paper: the site makes it from
/// the paper's [`crate::render::metadata::Metadata`], the values its
/// pages show; the names split into parts are the exports' own.
#[derive(Debug, Clone)]
pub struct CiteRecord<'a> {
    /// Citation key, from [`crate::corpus::keys::citation_key`] (made unique by the caller), e.g. `"chu2024optimizing"`.
    pub key: &'a str,
    /// The title as listed: arXiv-style LaTeX-ish text (may hold `$math$`, `\textbf{}`, bare `%`, `&`, `_`, `<`, `~`).
    pub title_latex: &'a str,
    /// Plain-text rendering of the title (no markup, `$` or backslashes), for RIS and CSL.
    pub title_plain: &'a str,
    /// Plain-text abstract; may be empty (then no abstract field is written).
    pub abstract_plain: &'a str,
    /// Known authors, in order.
    pub authors: &'a [std::borrow::Cow<'a, Person>],
    /// `false`: `authors` holds only the authors known to the site and others exist.
    pub authors_complete: bool,
    /// Year of the (first) version, e.g. `2024`; `None` when not known.
    pub year: Option<u16>,
    /// arXiv identifier without prefix or version, e.g. `"2405.01234"`.
    pub arxiv_id: Option<&'a str>,
    /// arXiv primary category code, e.g. `"cs.DC"`.
    pub primary_class: Option<&'a str>,
    /// arXiv category codes, e.g. `["cs.DC", "cs.LG"]`, exported as keywords.
    pub categories: &'a [&'a str],
    /// DOI without resolver prefix, e.g. `"10.1145/3600006.3613145"`.
    pub doi: Option<&'a str>,
    /// Absolute URL of the paper's page on the site (always present).
    pub url: &'a str,
    /// Absolute URL of the PDF.
    pub pdf: Option<&'a str>,
    /// Where the paper appeared, e.g. `"NeurIPS 2024"`.
    pub venue: Option<&'a str>,
}

/// LaTeX's special characters, which BibTeX fields escape.
const LATEX_SPECIAL_BYTES: &[u8] = b"\\{}<>^~%&#_$";

/// [`LATEX_SPECIAL_BYTES`] as a set.
const LATEX_SPECIAL: u128 = crate::text::ascii_set(LATEX_SPECIAL_BYTES);

/// Appends plain text for a braced BibTeX field to `out`: on one line,
/// every LaTeX special character a command or escape, so the result has
/// balanced braces.
fn push_latex_plain(out: &mut String, s: &str) {
    push_latex_escaped(out, &one_line(s));
}

/// Appends `line` (on one line already) to `out`, LaTeX's special
/// characters escaped.
fn push_latex_escaped(out: &mut String, line: &str) {
    let mut rest = line;
    while let Some(at) = next_latex_special(rest.as_bytes()) {
        out.push_str(&rest[..at]);
        match rest.as_bytes()[at] {
            b'\\' => out.push_str("\\textbackslash{}"),
            b'{' => out.push_str("\\textbraceleft{}"),
            b'}' => out.push_str("\\textbraceright{}"),
            b'<' => out.push_str("\\textless{}"),
            b'>' => out.push_str("\\textgreater{}"),
            b'^' => out.push_str("\\textasciicircum{}"),
            b'~' => out.push_str("\\textasciitilde{}"),
            c => {
                out.push('\\');
                out.push(char::from(c));
            }
        }
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// Where the first of [`LATEX_SPECIAL_BYTES`] is in `bytes`. Runs of 32 bytes
/// are passed over whole, each byte compared with `==` and `|`, which
/// compiles to vector instructions, not a test of each byte: every
/// abstract in an author's BibTeX file is searched (measured in be590f9).
fn next_latex_special(bytes: &[u8]) -> Option<usize> {
    let mut start = 0;
    for run in bytes.chunks_exact(32) {
        let mut any = 0u8;
        for &b in run {
            for &special in LATEX_SPECIAL_BYTES {
                any |= u8::from(b == special);
            }
        }
        if any != 0 {
            break;
        }
        start += 32;
    }
    let special = |b: &u8| crate::text::in_ascii_set(LATEX_SPECIAL, *b);
    bytes[start..].iter().position(special).map(|at| start + at)
}

/// Finds `$...$` spans (non-empty content, unescaped dollars).
/// Returns `ends[i] = Some(j)` when a span starts at `i` and its closing `$` is at `j`.
fn math_spans(chars: &[char]) -> Vec<Option<usize>> {
    let mut ends = vec![None; chars.len()];
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '$' => {
                let mut j = i + 1;
                while j < chars.len() && chars[j] != '$' {
                    j += if chars[j] == '\\' { 2 } else { 1 };
                }
                if j < chars.len() && j > i + 1 {
                    ends[i] = Some(j);
                    i = j + 1;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    ends
}

/// Marks the raw braces in `chars[from..to]` that have a partner (skipping
/// `\{`, `\}` and the given math spans); index `i` of the result is
/// `chars[from + i]`, so the work is linear in the span, not the text.
fn matched_braces(chars: &[char], from: usize, to: usize, math: &[Option<usize>]) -> Vec<bool> {
    let mut matched = vec![false; to.saturating_sub(from)];
    let mut open = Vec::new();
    let mut i = from;
    while i < to {
        match chars[i] {
            '\\' => i += 1,
            '$' => i = math[i].unwrap_or(i),
            '{' => open.push(i),
            '}' => {
                if let Some(o) = open.pop() {
                    matched[o - from] = true;
                    matched[i - from] = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    matched
}

/// Math content between the dollars, with braces made balanced and `%`, `&`, `#` escaped.
fn latex_math(chars: &[char], from: usize, to: usize, math: &[Option<usize>]) -> String {
    let matched = matched_braces(chars, from, to, math);
    let mut out = String::new();
    let mut i = from;
    while i < to {
        let c = chars[i];
        match c {
            '\\' if i + 1 < to => {
                match chars[i + 1] {
                    '{' => out.push_str("\\lbrace{}"),
                    '}' => out.push_str("\\rbrace{}"),
                    next => {
                        out.push('\\');
                        out.push(next);
                    }
                }
                i += 1;
            }
            '\\' => out.push_str("\\backslash{}"),
            '{' if !matched[i - from] => out.push_str("\\lbrace{}"),
            '}' if !matched[i - from] => out.push_str("\\rbrace{}"),
            '%' | '&' | '#' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// Escapes a LaTeX-ish title for a braced BibTeX field and protects capitals.
///
/// Keeps `$math$` (wrapped in braces), commands and balanced brace groups;
/// escapes `%`, `&`, `#`, `_`, `<`, `>`, `^`, stray `$`, a `~` that starts a
/// word, and unbalanced braces. At brace level 0, a word (run of alphanumeric
/// characters) is wrapped in braces when it has an uppercase letter after its
/// first character, or when it is not the first word and starts uppercase.
fn latex_title(src: &str) -> String {
    let line = one_line(src);
    // Most titles hold none of LaTeX's special characters: no math, brace
    // groups or escapes to find, only words to brace, so they skip the
    // general case's character vectors (measured in 3efc2f4).
    if next_latex_special(line.as_bytes()).is_none() {
        let mut out = String::with_capacity(line.len() + 16);
        let mut seen_word = false;
        let mut rest = &*line;
        while let Some(start) = rest.find(char::is_alphanumeric) {
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            let end = rest
                .find(|c: char| !c.is_alphanumeric())
                .unwrap_or(rest.len());
            push_title_word(&mut out, &rest[..end], true, &mut seen_word);
            rest = &rest[end..];
        }
        out.push_str(rest);
        return out;
    }
    let chars: Vec<char> = line.chars().collect();
    let math = math_spans(&chars);
    let matched = matched_braces(&chars, 0, chars.len(), &math);
    let mut out = String::with_capacity(line.len() + 16);
    let mut depth = 0usize;
    let mut seen_word = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(end) = math[i] {
            let inner = latex_math(&chars, i + 1, end, &math);
            if depth == 0 {
                out.push_str(&format!("{{${inner}$}}"));
            } else {
                out.push_str(&format!("${inner}$"));
            }
            seen_word = true;
            i = end + 1;
            continue;
        }
        match c {
            '\\' => match chars.get(i + 1) {
                Some(n) if n.is_ascii_alphabetic() => {
                    let mut j = i + 1;
                    while j < chars.len() && chars[j].is_ascii_alphabetic() {
                        j += 1;
                    }
                    let cmd: String = chars[i..j].iter().collect();
                    // BibTeX leaves control sequences alone only inside `{\...}`.
                    if depth == 0 && cmd.chars().any(|c| c.is_ascii_uppercase()) {
                        out.push_str(&format!("{{{cmd}}}"));
                    } else {
                        out.push_str(&cmd);
                    }
                    i = j;
                    continue;
                }
                Some('{') => out.push_str("\\textbraceleft{}"),
                Some('}') => out.push_str("\\textbraceright{}"),
                Some(n) => {
                    out.push('\\');
                    out.push(*n);
                }
                None => out.push_str("\\textbackslash{}"),
            },
            '{' if matched[i] => {
                depth += 1;
                out.push('{');
            }
            '}' if matched[i] => {
                depth -= 1;
                out.push('}');
            }
            '{' => out.push_str("\\textbraceleft{}"),
            '}' => out.push_str("\\textbraceright{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            // A `~` glued to the previous word is a LaTeX tie (`Fig.~1`); else "approximately".
            '~' if i == 0 || chars[i - 1] == ' ' => out.push_str("\\textasciitilde{}"),
            '%' | '&' | '#' | '_' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_alphanumeric() => {
                let mut j = i;
                while j < chars.len() && chars[j].is_alphanumeric() {
                    j += 1;
                }
                let word: String = chars[i..j].iter().collect();
                push_title_word(&mut out, &word, depth == 0, &mut seen_word);
                i = j;
                continue;
            }
            _ => out.push(c),
        }
        // Two-character escapes consumed their second character.
        i += if c == '\\' { 2 } else { 1 };
    }
    out
}

/// Appends a word of a title (a run of alphanumeric characters), in braces
/// at brace level 0 (`top`) when it has an uppercase letter after its
/// first character, or when it is not the first word and starts uppercase,
/// so that BibTeX styles keep its case.
fn push_title_word(out: &mut String, word: &str, top: bool, seen_word: &mut bool) {
    let mut chars = word.chars();
    let starts_upper = chars.next().is_some_and(char::is_uppercase);
    let inner_upper = chars.any(char::is_uppercase);
    let braced = top && (inner_upper || (*seen_word && starts_upper));
    if braced {
        out.push('{');
    }
    out.push_str(word);
    if braced {
        out.push('}');
    }
    *seen_word = true;
}

/// Appends a URL or DOI for a BibTeX field to `out`: braces, backslashes
/// and spaces percent-encoded.
fn push_bib_verbatim(out: &mut String, s: &str) {
    let mut rest = s.trim();
    while let Some(at) = rest
        .bytes()
        .position(|b| matches!(b, b'\\' | b'{' | b'}' | b' '))
    {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'\\' => "%5C",
            b'{' => "%7B",
            b'}' => "%7D",
            _ => "%20",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// Appends one author in BibTeX's `von Last, First` form to `out`.
fn push_bib_name(out: &mut String, p: &Person) {
    let particles = one_line(&p.particles);
    let family = one_line(&p.family);
    push_latex_escaped(out, &particles);
    if !family.is_empty() {
        if !particles.is_empty() {
            out.push(' ');
        }
        // Braces keep commas, spaces and a lone "and" from splitting the
        // family name.
        let braced = family.contains([',', ' ']);
        if braced {
            out.push('{');
        }
        push_latex_escaped(out, &family);
        if braced {
            out.push('}');
        }
    }
    if !p.given.trim().is_empty() {
        out.push_str(", ");
        push_latex_plain(out, &p.given);
    }
}

/// BibTeX entry for one paper, e.g.
///
/// ```text
/// @misc{chu2024optimizing,
///   title = {Optimizing {LLM} Training},
///   author = {Chu, Xiaowen and others},
///   ...
/// }
/// ```
///
/// Always `@misc`; fields in this order when present: `title` (LaTeX kept,
/// escaped, capitals protected), `author` (`von Last, First` joined with
/// ` and `, ending `and others` when the list is incomplete; omitted when no
/// author is known), `year` (when known), `eprint`/`archivePrefix`/`primaryClass` (when the
/// arXiv id is known), `doi`, `url`, `note` (venue), `abstract`. Values are in
/// braces with balanced braces; two-space indent, `\n` line ends, no trailing
/// newline after the closing `}`.
pub fn bibtex(r: &CiteRecord) -> String {
    let mut out = String::with_capacity(320 + r.abstract_plain.len());
    out.push_str("@misc{");
    out.extend(
        r.key
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || "-_:.".contains(*c)),
    );
    // Each field on its own line, after a comma; its value written into
    // the entry, not made apart as a `String` per value (measured in
    // b23f03c).
    let field = |out: &mut String, name: &str, value: &dyn Fn(&mut String)| {
        out.extend([",\n  ", name, " = {"]);
        value(out);
        out.push('}');
    };
    field(&mut out, "title", &|out| {
        out.push_str(&latex_title(r.title_latex))
    });
    if !r.authors.is_empty() {
        field(&mut out, "author", &|out| {
            for (i, person) in r.authors.iter().enumerate() {
                if i > 0 {
                    out.push_str(" and ");
                }
                push_bib_name(out, person);
            }
            if !r.authors_complete {
                out.push_str(" and others");
            }
        });
    }
    if let Some(year) = r.year {
        field(&mut out, "year", &|out| {
            let _ = write!(out, "{year}");
        });
    }
    if let Some(id) = r.arxiv_id {
        field(&mut out, "eprint", &|out| push_bib_verbatim(out, id));
        field(&mut out, "archivePrefix", &|out| out.push_str("arXiv"));
        if let Some(class) = r.primary_class {
            field(&mut out, "primaryClass", &|out| {
                push_latex_plain(out, class)
            });
        }
    }
    if let Some(doi) = r.doi {
        field(&mut out, "doi", &|out| push_bib_verbatim(out, doi));
    }
    field(&mut out, "url", &|out| push_bib_verbatim(out, r.url));
    if let Some(venue) = r.venue {
        field(&mut out, "note", &|out| push_latex_plain(out, venue));
    }
    if !r.abstract_plain.trim().is_empty() {
        field(&mut out, "abstract", &|out| {
            push_latex_plain(out, r.abstract_plain)
        });
    }
    out.push_str("\n}");
    out
}

/// One person as RIS wants it: `von Last, First` (`Last` alone without given name).
fn ris_name(p: &Person) -> String {
    let family = match p.particles.trim().is_empty() {
        true => one_line(&p.family).into_owned(),
        false => one_line(&format!("{} {}", p.particles, p.family)).into_owned(),
    };
    match one_line(&p.given) {
        given if given.is_empty() => family,
        given => format!("{family}, {given}"),
    }
}

/// RIS record for one paper; lines end with CRLF (`\r\n`).
///
/// Tags in order when present: `TY  - UNPB`, `ID` (key), `TI` (plain title),
/// `AU` per author (`von Last, First`; a final `AU  - others` when the list is
/// incomplete), `PY` (year), `AB`, `T2` (venue), `KW` per category, `DO`,
/// `UR` (site page), `L1` (PDF), `DB  - arXiv` and `AN  - arXiv:ID` (arXiv
/// id), then `ER  - `. Values are folded to one line; empty values are left out.
pub fn ris(r: &CiteRecord) -> String {
    let mut lines: Vec<(&str, String)> = vec![("TY", "UNPB".into()), ("ID", r.key.into())];
    lines.push(("TI", r.title_plain.into()));
    for p in r.authors {
        lines.push(("AU", ris_name(p)));
    }
    if !r.authors_complete {
        lines.push(("AU", "others".into()));
    }
    lines.push(("PY", r.year.map(|y| y.to_string()).unwrap_or_default()));
    lines.push(("AB", r.abstract_plain.into()));
    if let Some(venue) = r.venue {
        lines.push(("T2", venue.into()));
    }
    for cat in r.categories {
        lines.push(("KW", cat.to_string()));
    }
    lines.push(("DO", r.doi.unwrap_or_default().into()));
    lines.push(("UR", r.url.into()));
    lines.push(("L1", r.pdf.unwrap_or_default().into()));
    if let Some(id) = r.arxiv_id {
        lines.push(("DB", "arXiv".into()));
        lines.push(("AN", format!("arXiv:{id}")));
    }
    let mut out = String::new();
    for (tag, value) in lines {
        let value = one_line(&value);
        if !value.is_empty() {
            out.push_str(&format!("{tag}  - {value}\r\n"));
        }
    }
    out.push_str("ER  - \r\n");
    out
}

/// One CSL-JSON name object: `family`, `given`, `non-dropping-particle`.
fn csl_name(p: &Person) -> Value {
    let mut name = Map::new();
    name.insert("family".into(), one_line(&p.family).into());
    if !p.given.trim().is_empty() {
        name.insert("given".into(), one_line(&p.given).into());
    }
    if !p.particles.trim().is_empty() {
        // "van der Berg" is cited and shown with its particle, so non-dropping.
        name.insert(
            "non-dropping-particle".into(),
            one_line(&p.particles).into(),
        );
    }
    Value::Object(name)
}

/// One CSL-JSON item (CSL 1.0.2) for the paper; the caller wraps items in an array.
///
/// Keys: `id` (key), `type: "article"`, `title` (plain), `author` (name
/// objects; a final `{"literal": "others"}` when the list is incomplete),
/// `issued: {"date-parts": [[year]]}` (when the year is known), `URL` (site page), and when known
/// `abstract`, `DOI`, `container-title` (venue), `keyword` (categories joined
/// with `", "`), and for arXiv papers `genre: "Preprint"`, `publisher:
/// "arXiv"`, `number: "arXiv:ID"`.
pub fn csl_json(r: &CiteRecord) -> Value {
    let mut authors: Vec<Value> = r.authors.iter().map(|p| csl_name(p)).collect();
    if !r.authors_complete {
        authors.push(json!({ "literal": "others" }));
    }
    let mut item = Map::new();
    item.insert("id".into(), r.key.into());
    item.insert("type".into(), "article".into());
    item.insert("title".into(), one_line(r.title_plain).into());
    item.insert("author".into(), authors.into());
    if let Some(year) = r.year {
        item.insert("issued".into(), json!({ "date-parts": [[year]] }));
    }
    item.insert("URL".into(), r.url.into());
    let abstract_text = one_line(r.abstract_plain);
    if !abstract_text.is_empty() {
        item.insert("abstract".into(), abstract_text.into());
    }
    if let Some(doi) = r.doi {
        item.insert("DOI".into(), doi.into());
    }
    if let Some(venue) = r.venue {
        item.insert("container-title".into(), one_line(venue).into());
    }
    if !r.categories.is_empty() {
        item.insert("keyword".into(), r.categories.join(", ").into());
    }
    if let Some(id) = r.arxiv_id {
        item.insert("genre".into(), "Preprint".into());
        item.insert("publisher".into(), "arXiv".into());
        item.insert("number".into(), format!("arXiv:{id}").into());
    }
    Value::Object(item)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    /// [`push_bib_name`] of `p`, alone.
    fn bib_name(p: &Person) -> String {
        let mut out = String::new();
        push_bib_name(&mut out, p);
        out
    }

    #[test]
    fn the_next_latex_special_is_found_at_any_position() {
        // Each byte at each position of a text longer than two runs of
        // 32, found where it is a special character and only there.
        for b in 0..=255u8 {
            let special = LATEX_SPECIAL_BYTES.contains(&b);
            for at in [0, 5, 31, 32, 33, 63, 64, 70] {
                let mut text = vec![b'a'; 71];
                text[at] = b;
                let expected = special.then_some(at);
                assert_eq!(next_latex_special(&text), expected, "{b} at {at}");
            }
        }
        let mut out = String::new();
        push_latex_escaped(&mut out, &format!("{}_x{}", "a".repeat(40), "b".repeat(40)));
        assert_eq!(out, format!("{}\\_x{}", "a".repeat(40), "b".repeat(40)));
    }

    const HOSTILE: &str = r"50% of {GPUs} & <5% cost_x $O(n^2)$ \textbf{Fast}";

    fn person(given: &str, particles: &str, family: &str) -> Person {
        Person {
            given: given.into(),
            particles: particles.into(),
            family: family.into(),
        }
    }

    fn authors() -> Vec<Cow<'static, Person>> {
        vec![
            Cow::Owned(person("Xiaowen", "", "Chu")),
            Cow::Owned(person("Anna", "van der", "Berg")),
        ]
    }

    /// A paper with every field set and a complete author list.
    fn full<'a>(authors: &'a [Cow<'a, Person>]) -> CiteRecord<'a> {
        CiteRecord {
            key: "chu2024fusionllm",
            title_latex: "FusionLLM: Optimizing MoE Training on GPUs",
            title_plain: "FusionLLM: Optimizing MoE Training on GPUs",
            abstract_plain: "We train\nlarge models 50% cheaper & faster.",
            authors,
            authors_complete: true,
            year: Some(2024),
            arxiv_id: Some("2405.01234"),
            primary_class: Some("cs.DC"),
            categories: &["cs.DC", "cs.LG"],
            doi: Some("10.48550/arXiv.2405.01234"),
            url: "https://vellum.example/papers/chu2024fusionllm/",
            pdf: Some("https://arxiv.org/pdf/2405.01234"),
            venue: Some("NeurIPS 2024"),
        }
    }

    /// The same paper known only through the site's authors, without DOI, PDF, venue or abstract.
    fn partial<'a>(authors: &'a [Cow<'a, Person>]) -> CiteRecord<'a> {
        CiteRecord {
            authors_complete: false,
            doi: None,
            pdf: None,
            venue: None,
            abstract_plain: "",
            ..full(authors)
        }
    }

    /// A hostile LaTeX title, no arXiv data.
    fn hostile<'a>(authors: &'a [Cow<'a, Person>]) -> CiteRecord<'a> {
        CiteRecord {
            key: "berg2023gpus",
            title_latex: HOSTILE,
            title_plain: "50% of GPUs & <5% cost_x O(n^2) Fast",
            year: Some(2023),
            arxiv_id: None,
            primary_class: None,
            categories: &[],
            ..partial(authors)
        }
    }

    #[test]
    fn bibtex_complete_authors() {
        let a = authors();
        assert_eq!(
            bibtex(&full(&a)),
            "@misc{chu2024fusionllm,\n\
             \x20 title = {{FusionLLM}: {Optimizing} {MoE} {Training} on {GPUs}},\n\
             \x20 author = {Chu, Xiaowen and van der Berg, Anna},\n\
             \x20 year = {2024},\n\
             \x20 eprint = {2405.01234},\n\
             \x20 archivePrefix = {arXiv},\n\
             \x20 primaryClass = {cs.DC},\n\
             \x20 doi = {10.48550/arXiv.2405.01234},\n\
             \x20 url = {https://vellum.example/papers/chu2024fusionllm/},\n\
             \x20 note = {NeurIPS 2024},\n\
             \x20 abstract = {We train large models 50\\% cheaper \\& faster.}\n\
             }"
        );
    }

    #[test]
    fn bibtex_incomplete_authors() {
        let a = authors();
        assert_eq!(
            bibtex(&partial(&a)),
            "@misc{chu2024fusionllm,\n\
             \x20 title = {{FusionLLM}: {Optimizing} {MoE} {Training} on {GPUs}},\n\
             \x20 author = {Chu, Xiaowen and van der Berg, Anna and others},\n\
             \x20 year = {2024},\n\
             \x20 eprint = {2405.01234},\n\
             \x20 archivePrefix = {arXiv},\n\
             \x20 primaryClass = {cs.DC},\n\
             \x20 url = {https://vellum.example/papers/chu2024fusionllm/}\n\
             }"
        );
    }

    #[test]
    fn bibtex_hostile_title() {
        let a = authors();
        assert_eq!(
            bibtex(&hostile(&a)),
            "@misc{berg2023gpus,\n\
             \x20 title = {50\\% of {GPUs} \\& \\textless{}5\\% cost\\_x {$O(n^2)$} \\textbf{Fast}},\n\
             \x20 author = {Chu, Xiaowen and van der Berg, Anna and others},\n\
             \x20 year = {2023},\n\
             \x20 url = {https://vellum.example/papers/chu2024fusionllm/}\n\
             }"
        );
    }

    #[test]
    fn title_edge_cases() {
        let cases = [
            (
                "Unbalanced { brace and } stray }",
                r"Unbalanced { brace and } stray \textbraceright{}",
            ),
            (
                r"Costs $5 and \$6 ~10x less, see Fig.~2",
                r"Costs \$5 and \$6 \textasciitilde{}10x less, see {Fig}.~2",
            ),
            (
                r"The \LaTeX{} Companion^2",
                r"The {\LaTeX}{} {Companion}\textasciicircum{}2",
            ),
            (
                r"Sets \{x\} and $\{y$ # 100%",
                r"Sets \textbraceleft{}x\textbraceright{} and {$\lbrace{}y$} \# 100\%",
            ),
            ("ends with \\", r"ends with \textbackslash{}"),
            ("a\nmulti-line\r\n  title", "a multi-line title"),
            ("3D Über-fast iPhone", "{3D} {Über}-fast {iPhone}"),
            (
                "Scaling GPUs: A Study of ZeRO, in 2024",
                "Scaling {GPUs}: {A} {Study} of {ZeRO}, in 2024",
            ),
            ("  ", ""),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(latex_title(input), want, "input: {input:?}");
            // A title without special characters takes the fast path;
            // with one after it, the general case gives the same words.
            if next_latex_special(input.as_bytes()).is_none() {
                let general = latex_title(&format!("{input} %"));
                let want = format!("{want} \\%");
                assert_eq!(general.trim_start(), want.trim_start(), "{input:?}");
            }
        }
    }

    #[test]
    fn bibtex_names() {
        assert_eq!(bib_name(&person("", "", "Sukarno")), "Sukarno");
        assert_eq!(
            bib_name(&person("", "de", "la Fontaine")),
            "de {la Fontaine}"
        );
        assert_eq!(
            bib_name(&person("J. R. R.", "", "Tolkien")),
            "Tolkien, J. R. R."
        );
        assert_eq!(bib_name(&person("Ana", "", "Pérez_&")), r"Pérez\_\&, Ana");
        assert_eq!(
            bib_name(&person("Ana", "", "García Márquez")),
            "{García Márquez}, Ana"
        );
        // Spacing folded, no space left where a part is missing.
        assert_eq!(bib_name(&person("", " van  der ", "")), "van der");
        assert_eq!(bib_name(&person("", "", " Das\n")), "Das");
        assert_eq!(
            ris_name(&person("Ana ", "", "  de  Souza ")),
            "de Souza, Ana"
        );
        assert_eq!(ris_name(&person("", " van", "Berg")), "van Berg");
    }

    /// Raw `{`/`}` balance as BibTeX counts it (backslashes do not escape).
    fn braces_balanced(s: &str) -> bool {
        let mut depth = 0i32;
        for c in s.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth < 0 {
                return false;
            }
        }
        depth == 0
    }

    #[test]
    fn bibtex_parses_back() {
        use biblatex::{Bibliography, ChunksExt, EntryType};
        let a = authors();
        let bib = Bibliography::parse(&bibtex(&partial(&a))).expect("parses");
        assert_eq!(bib.len(), 1);
        let entry = bib.get("chu2024fusionllm").expect("entry");
        assert_eq!(entry.entry_type, EntryType::Misc);
        assert_eq!(
            entry.title().unwrap().format_verbatim(),
            "FusionLLM: Optimizing MoE Training on GPUs"
        );
        let names: Vec<(String, String, String)> = entry
            .author()
            .unwrap()
            .into_iter()
            .map(|p| (p.prefix, p.name, p.given_name))
            .collect();
        let own = |p: &str, n: &str, g: &str| (p.to_string(), n.to_string(), g.to_string());
        assert_eq!(
            names,
            [
                own("", "Chu", "Xiaowen"),
                own("van der", "Berg", "Anna"),
                own("", "others", "")
            ]
        );
        assert_eq!(entry.get("year").unwrap().format_verbatim(), "2024");
        assert_eq!(entry.eprint().unwrap(), "2405.01234");
        assert_eq!(entry.eprint_type().unwrap().format_verbatim(), "arXiv");
        assert_eq!(entry.eprint_class().unwrap().format_verbatim(), "cs.DC");

        let complete = Bibliography::parse(&bibtex(&full(&a))).unwrap();
        let entry = complete.get("chu2024fusionllm").unwrap();
        assert_eq!(entry.author().unwrap().last().unwrap().name, "Berg");

        let bib = Bibliography::parse(&bibtex(&hostile(&a))).unwrap();
        let entry = bib.get("berg2023gpus").expect("hostile entry");
        assert!(entry.title().unwrap().format_verbatim().contains("cost"));
        assert_eq!(entry.author().unwrap().len(), 3);
    }

    #[test]
    fn bibtex_never_breaks_the_entry() {
        let titles = [
            "{",
            "}",
            "}{",
            "a { b",
            "$",
            "$$",
            "$$x$$",
            "$a{$ b}",
            "\\",
            "\\{",
            "x\\}",
            "@misc{evil,",
            "100%$",
            "~",
            "^_^",
            "$x$$",
            "{$}$",
        ];
        let a = authors();
        for title in titles {
            let r = CiteRecord {
                title_latex: title,
                abstract_plain: title,
                ..full(&a)
            };
            let out = bibtex(&r);
            assert!(braces_balanced(&out), "unbalanced for {title:?}: {out}");
            let bib = biblatex::Bibliography::parse(&out)
                .unwrap_or_else(|e| panic!("no parse for {title:?}: {e:?}\n{out}"));
            assert_eq!(bib.len(), 1, "{title:?}");
        }
    }

    #[test]
    fn ris_complete_and_incomplete() {
        let a = authors();
        assert_eq!(
            ris(&full(&a)),
            "TY  - UNPB\r\n\
             ID  - chu2024fusionllm\r\n\
             TI  - FusionLLM: Optimizing MoE Training on GPUs\r\n\
             AU  - Chu, Xiaowen\r\n\
             AU  - van der Berg, Anna\r\n\
             PY  - 2024\r\n\
             AB  - We train large models 50% cheaper & faster.\r\n\
             T2  - NeurIPS 2024\r\n\
             KW  - cs.DC\r\n\
             KW  - cs.LG\r\n\
             DO  - 10.48550/arXiv.2405.01234\r\n\
             UR  - https://vellum.example/papers/chu2024fusionllm/\r\n\
             L1  - https://arxiv.org/pdf/2405.01234\r\n\
             DB  - arXiv\r\n\
             AN  - arXiv:2405.01234\r\n\
             ER  - \r\n"
        );
        assert_eq!(
            ris(&partial(&a)),
            "TY  - UNPB\r\n\
             ID  - chu2024fusionllm\r\n\
             TI  - FusionLLM: Optimizing MoE Training on GPUs\r\n\
             AU  - Chu, Xiaowen\r\n\
             AU  - van der Berg, Anna\r\n\
             AU  - others\r\n\
             PY  - 2024\r\n\
             KW  - cs.DC\r\n\
             KW  - cs.LG\r\n\
             UR  - https://vellum.example/papers/chu2024fusionllm/\r\n\
             DB  - arXiv\r\n\
             AN  - arXiv:2405.01234\r\n\
             ER  - \r\n"
        );
    }

    #[test]
    fn ris_hostile_title_and_mononym() {
        let a = [Cow::Owned(person("", "", "Sukarno"))];
        assert_eq!(
            ris(&hostile(&a)),
            "TY  - UNPB\r\n\
             ID  - berg2023gpus\r\n\
             TI  - 50% of GPUs & <5% cost_x O(n^2) Fast\r\n\
             AU  - Sukarno\r\n\
             AU  - others\r\n\
             PY  - 2023\r\n\
             UR  - https://vellum.example/papers/chu2024fusionllm/\r\n\
             ER  - \r\n"
        );
    }

    #[test]
    fn csl_complete_authors() {
        let a = authors();
        assert_eq!(
            csl_json(&full(&a)),
            serde_json::json!({
                "id": "chu2024fusionllm",
                "type": "article",
                "title": "FusionLLM: Optimizing MoE Training on GPUs",
                "author": [
                    {"family": "Chu", "given": "Xiaowen"},
                    {"family": "Berg", "given": "Anna", "non-dropping-particle": "van der"}
                ],
                "issued": {"date-parts": [[2024]]},
                "URL": "https://vellum.example/papers/chu2024fusionllm/",
                "abstract": "We train large models 50% cheaper & faster.",
                "DOI": "10.48550/arXiv.2405.01234",
                "container-title": "NeurIPS 2024",
                "keyword": "cs.DC, cs.LG",
                "genre": "Preprint",
                "publisher": "arXiv",
                "number": "arXiv:2405.01234"
            })
        );
    }

    #[test]
    fn csl_incomplete_authors_and_hostile_title() {
        let a = authors();
        assert_eq!(
            csl_json(&hostile(&a)),
            serde_json::json!({
                "id": "berg2023gpus",
                "type": "article",
                "title": "50% of GPUs & <5% cost_x O(n^2) Fast",
                "author": [
                    {"family": "Chu", "given": "Xiaowen"},
                    {"family": "Berg", "given": "Anna", "non-dropping-particle": "van der"},
                    {"literal": "others"}
                ],
                "issued": {"date-parts": [[2023]]},
                "URL": "https://vellum.example/papers/chu2024fusionllm/"
            })
        );
    }

    /// `tests/cite/fixtures/items.json` (read by `tests/cite/csl.test.mjs`) must equal the current
    /// output. Regenerate with `UPDATE_CSL_FIXTURE=1 cargo test`.
    #[test]
    fn csl_fixture_is_current() {
        let a = authors();
        let items = serde_json::Value::Array(vec![csl_json(&full(&a)), csl_json(&hostile(&a))]);
        let text = serde_json::to_string_pretty(&items).unwrap() + "\n";
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/cite/fixtures/items.json"
        );
        if std::env::var_os("UPDATE_CSL_FIXTURE").is_some() {
            std::fs::write(path, &text).expect("write fixture");
        }
        let on_disk = std::fs::read_to_string(path).expect("fixture exists");
        assert_eq!(on_disk, text, "run UPDATE_CSL_FIXTURE=1 cargo test");
    }
}
