//! BibTeX files (`seeds/**/*.bib`), read with the `biblatex` crate
//! (`@string` abbreviations and `#` concatenation, `crossref` and `xdata`
//! inheritance, `@comment`, brace groups, LaTeX accents, name parts). Hands
//! on one [`BibEntry`] per entry that is a work: it has a title and an
//! author or editor (a year when it has one). The mapping to papers is in `docs/bibtex.md`;
//! [`crate::corpus::bibliography`] turns entries into the merge's records.
//!
//! Bad syntax is an error at its `file:line`; an entry that is no work (a
//! control entry such as `@IEEEtranBSTCTL`, a bare `@misc`, an `@xdata`
//! container) or repeats an earlier entry's key is skipped with a warning
//! at its line. Unknown entry types and fields are kept or ignored.
//!
//! Two forms the crate does not read are rewritten first, byte for byte in
//! place so every offset and line stays: an `@preamble` (LaTeX for the
//! printed bibliography, nothing a page shows) is blanked, and an entry in
//! parentheses (`@string(x = "y")`, which BibTeX allows) gets braces.

use crate::diagnostics::Diagnostic;
use crate::input::content::{is_arxiv_id, is_doi, normalise_arxiv_id, normalise_doi};
use crate::text::plain::{fold_whitespace, one_line};
use biblatex::{
    Bibliography, Chunk, ChunksExt, DateValue, ParseErrorKind, PermissiveType, Person,
    RawBibliography, Spanned,
};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The years an entry may have, inclusive: four digits, as in a `.bib`
/// of older works (a listing of arXiv records starts at 1900).
pub const YEARS: std::ops::RangeInclusive<u16> = 1000..=2100;

/// One entry that is a work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BibEntry {
    /// The citation key (`knuth1984`).
    pub key: String,
    /// 1-based line of the `@type{` that opens it.
    pub line: usize,
    /// The title as LaTeX source, as listings hold titles: accents
    /// resolved, math kept in `$…$`.
    pub title: String,
    /// The authors in order (the editors when there is no author), each
    /// `Given von Family, Jr.`.
    pub authors: Vec<String>,
    /// Each author's family name (`von Family`), in the order of
    /// `authors`, where the entry gives the split: written `Last, First`,
    /// or a family name of several words (`Gabriel {García Márquez}`); a
    /// `First Last` name is split by BibTeX's rule alone, which the name
    /// model reads better (`Giuseppe Di Battista`).
    pub families: Vec<Option<String>>,
    /// Whether the list ends in `and others`: more authors exist.
    pub more_authors: bool,
    /// The year, from `year` or `date`, within [`YEARS`]; `None` when the
    /// entry has none (a warning says so when it has one of another shape).
    pub year: Option<u16>,
    /// The abstract's paragraphs, LaTeX source; empty when none.
    pub abstract_paragraphs: Vec<String>,
    /// The DOI, without a resolver prefix.
    pub doi: Option<String>,
    /// The `url` field, a safe link.
    pub url: Option<String>,
    /// The arXiv identifier (`eprint` with `archivePrefix = {arXiv}`, or an
    /// `eprint` shaped like one).
    pub arxiv: Option<String>,
    /// `primaryClass` / `eprintclass`: the arXiv category.
    pub primary_class: Option<String>,
    /// Where it appeared, as plain text: `journal`, else `booktitle`.
    pub venue: Option<String>,
}

/// One `.bib` file, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BibFile {
    /// Path for messages (`seeds/lab.bib`).
    pub file: PathBuf,
    /// Its works, in file order.
    pub entries: Vec<BibEntry>,
    /// Entries skipped and fields dropped, each at its line.
    pub warnings: Vec<Diagnostic>,
}

/// Whether `path` names a BibTeX file: `*.bib`, in any case.
pub fn is_bibtex(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("bib"))
}

/// Reads the bytes of the `.bib` file shown as `file`: UTF-8 (an error at
/// the first bad byte's line), characters no page may hold replaced with a
/// warning ([`crate::input::chars`]), then [`parse`]d.
///
/// Memory: the bytes become the text the crate reads, copied only when a
/// byte-order mark, a lone carriage return or a forbidden character must
/// go.
pub fn read(bytes: Vec<u8>, file: &Path) -> Result<BibFile, Diagnostic> {
    let bom = crate::input::utf8(&bytes, file)?.len() < bytes.len();
    let mut text = String::from_utf8(bytes).unwrap_or_default();
    if bom {
        text.drain(..'\u{feff}'.len_utf8());
    }
    let fed = match crate::input::chars::line_feeds(&text) {
        std::borrow::Cow::Borrowed(_) => None,
        std::borrow::Cow::Owned(fed) => Some(fed),
    };
    let text = fed.unwrap_or(text);
    let (replaced, found) = match crate::input::chars::replace_forbidden(&text) {
        (std::borrow::Cow::Borrowed(_), found) => (None, found),
        (std::borrow::Cow::Owned(replaced), found) => (Some(replaced), found),
    };
    let mut bib = parse_text(replaced.unwrap_or(text), file)?;
    bib.warnings
        .splice(0..0, crate::input::chars::warnings(file, &found));
    Ok(bib)
}

/// Parses the text of the `.bib` file shown as `file`. Errors: the first
/// syntax error, an undefined `@string` abbreviation, a `crossref` that
/// cannot be resolved, each at its line.
pub fn parse(text: &str, file: &Path) -> Result<BibFile, Diagnostic> {
    parse_text(text.to_string(), file)
}

/// [`parse`] of a text it may change in place.
fn parse_text(text: String, file: &Path) -> Result<BibFile, Diagnostic> {
    // Names compared without case ([`fold_case`]) cost a parse more: done
    // first when the file inherits fields, else only when an abbreviation
    // is not found as written (`month = JAN`, `@string{STOC = …}`).
    let (prepared, shape) = prepare(text);
    if let Some(shape) = shape {
        let (at, message) = match shape {
            Shape::Unclosed(at) => (at, "expected the entry that opens here to be closed, found the end of the file; check that its braces and quotes are balanced".to_string()),
            Shape::TooDeep(at) => (at, format!("expected braces nested at most {MAX_BRACE_DEPTH} deep in an entry, found deeper ones in the entry that opens here")),
        };
        return Err(Diagnostic::error(
            file,
            Lines::new(&prepared).line(at),
            message,
        ));
    }
    let inherits =
        contains_ignoring_case(&prepared, "crossref") || contains_ignoring_case(&prepared, "xdata");
    let prepared = match inherits {
        true => fold_case(prepared),
        false => prepared,
    };
    match parse_prepared(prepared, file) {
        Err((_, Some(prepared))) if !inherits => {
            parse_prepared(fold_case(prepared), file).map_err(|(e, _)| e)
        }
        done => done.map_err(|(e, _)| e),
    }
}

/// Whether `text` holds `word` (lowercase ASCII) in any case.
fn contains_ignoring_case(text: &str, word: &str) -> bool {
    let (bytes, word) = (text.as_bytes(), word.as_bytes());
    let first = [word[0], word[0].to_ascii_uppercase()];
    let mut from = 0;
    while let Some(at) = bytes[from..].iter().position(|b| first.contains(b)) {
        let at = from + at;
        if bytes.len() >= at + word.len() && bytes[at..at + word.len()].eq_ignore_ascii_case(word) {
            return true;
        }
        from = at + 1;
    }
    false
}

/// [`parse`] of the text [`prepare`] made, dropped once the crate has read
/// it; an error for an abbreviation not found hands the text back.
fn parse_prepared(prepared: String, file: &Path) -> Result<BibFile, (Diagnostic, Option<String>)> {
    let lines = Lines::new(&prepared);
    let error = |at: usize, kind: &ParseErrorKind| {
        // An entry left open is reported where it opens.
        let line = match kind {
            ParseErrorKind::UnexpectedEof => {
                prepared.get(..at).and_then(|t| t.rfind('@')).unwrap_or(at)
            }
            _ => at,
        };
        Diagnostic::error(file, lines.line(line), describe(kind, &prepared, at))
    };
    let unknown = |kind: &ParseErrorKind| matches!(kind, ParseErrorKind::UnknownAbbreviation(_));
    let mut raw = match RawBibliography::parse(&prepared) {
        Ok(raw) => raw,
        Err(e) => return Err((error(e.span.start, &e.kind), None)),
    };
    if let Err(e) = check_abbreviations(&raw, &lines, file) {
        return Err((e, None));
    }
    let mut warnings = Vec::new();
    // A key given twice: the first entry wins (as BibTeX's "Repeated
    // entry"), the repeat is skipped.
    let mut first_line: HashMap<String, usize> = HashMap::new();
    raw.entries.retain(|entry| {
        let line = lines.line(entry.span.start);
        let key = entry.v.key.v;
        match first_line.get(&key.to_lowercase()) {
            Some(&first) => {
                warnings.push(Diagnostic::warning(
                    file,
                    line,
                    format!(
                        "expected each citation key once, found `{key}` again (first at line {first}); this entry is skipped: give it another key"
                    ),
                ));
                false
            }
            None => {
                first_line.insert(key.to_lowercase(), line);
                true
            }
        }
    });
    let line_of: HashMap<String, usize> = raw
        .entries
        .iter()
        .map(|e| (e.v.key.v.to_string(), lines.line(e.span.start)))
        .collect();
    let inherits = raw
        .entries
        .iter()
        .any(|e| e.v.fields.iter().any(is_inheritance));
    let resolved: Vec<Result<Works, biblatex::ParseError>> = if inherits {
        let whole = resolve(raw, &lines, file, &mut warnings);
        vec![whole.map(|bibliography| works(bibliography, &line_of, file))]
    } else {
        // Each entry resolves alone: batches in parallel, so only a
        // batch's resolved fields are in memory at once.
        let RawBibliography {
            entries,
            abbreviations,
            ..
        } = raw;
        entries
            .par_chunks(RESOLVE_BATCH)
            .map(|batch| {
                let raw = RawBibliography {
                    preamble: String::new(),
                    entries: batch.to_vec(),
                    abbreviations: abbreviations.clone(),
                };
                Bibliography::from_raw(raw).map(|b| works(b, &line_of, file))
            })
            .collect()
    };
    let mut entries = Vec::new();
    for result in resolved {
        match result {
            Ok((made, found)) => {
                entries.extend(made);
                warnings.extend(found);
            }
            Err(e) => {
                let found = error(e.span.start, &e.kind);
                return Err((found, unknown(&e.kind).then_some(prepared)));
            }
        }
    }
    Ok(BibFile {
        file: file.to_path_buf(),
        entries,
        warnings,
    })
}

/// The most characters one `@string` abbreviation, or one field, may
/// expand to, and the deepest chain of abbreviations naming others.
const MAX_EXPANSION: u64 = 1 << 20;
const MAX_ABBREVIATION_DEPTH: usize = 64;

/// Errors, at the `@string` or entry's line, for abbreviations the crate
/// would expand forever or past any use (it expands each use anew,
/// recursively): one that names itself through others, a chain deeper
/// than [`MAX_ABBREVIATION_DEPTH`], an abbreviation or a field expanding
/// to more than [`MAX_EXPANSION`] characters (`@string{b = a # a}`,
/// doubled forty times, is a terabyte). Linear: each definition is
/// sized once.
fn check_abbreviations(
    raw: &RawBibliography,
    lines: &Lines,
    file: &Path,
) -> Result<(), Diagnostic> {
    let defined = &raw.abbreviations;
    let index: HashMap<&str, usize> = defined
        .iter()
        .enumerate()
        .map(|(i, pair)| (pair.key.v, i))
        .collect();
    let uses = |field: &biblatex::Field| -> (u64, Vec<usize>) {
        let mut own = 0u64;
        let mut names = Vec::new();
        for chunk in field {
            match chunk.v {
                biblatex::RawChunk::Normal(text) => own += text.len() as u64,
                biblatex::RawChunk::Abbreviation(name) => names.extend(index.get(name)),
            }
        }
        (own, names)
    };
    let (own, edges): (Vec<u64>, Vec<Vec<usize>>) =
        defined.iter().map(|pair| uses(&pair.value.v)).unzip();
    let mut size = vec![0u64; edges.len()];
    let mut depth = vec![0usize; edges.len()];
    let at = |i: usize, what: String| {
        Diagnostic::error(file, lines.line(defined[i].key.span.start), what)
    };
    depth_first(
        &edges,
        |node, child| {
            Err(at(node, format!(
                "expected @string `{}` to be defined by text and other abbreviations, found it defined through itself (by `{}`); define it by text",
                defined[node].key.v, defined[child].key.v
            )))
        },
        |node| {
            let children = &edges[node];
            size[node] = children
                .iter()
                .fold(own[node], |s, &c| s.saturating_add(size[c]));
            depth[node] = 1 + children.iter().map(|&c| depth[c]).max().unwrap_or(0);
            if size[node] > MAX_EXPANSION || depth[node] > MAX_ABBREVIATION_DEPTH {
                return Err(at(node, format!(
                    "expected @string `{}` to expand to at most {MAX_EXPANSION} characters through at most {MAX_ABBREVIATION_DEPTH} abbreviations, found more",
                    defined[node].key.v
                )));
            }
            Ok(())
        },
    )?;
    for entry in &raw.entries {
        for pair in &entry.v.fields {
            let (own, names) = uses(&pair.value.v);
            let total = names.iter().fold(own, |s, &c| s.saturating_add(size[c]));
            if total > MAX_EXPANSION {
                return Err(Diagnostic::error(
                    file,
                    lines.line(pair.key.span.start),
                    format!(
                        "expected `{}` of `{}` to expand to at most {MAX_EXPANSION} characters, found more",
                        pair.key.v, entry.v.key.v
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Entries resolved at once when no entry inherits fields.
const RESOLVE_BATCH: usize = 1024;

/// The works of a resolved bibliography, and the warnings of the entries
/// skipped or of their fields left out.
type Works = (Vec<BibEntry>, Vec<Diagnostic>);

/// The works of `bibliography`, each entry at its line in `line_of`, each
/// entry dropped as its work is made.
fn works(bibliography: Bibliography, line_of: &HashMap<String, usize>, file: &Path) -> Works {
    let (mut entries, mut warnings) = (Vec::new(), Vec::new());
    for entry in bibliography.into_vec() {
        let line = line_of.get(&entry.key).copied().unwrap_or(0);
        match work(&entry, line, file, &mut warnings) {
            Ok(work) => entries.push(work),
            Err(why) => warnings.push(Diagnostic::warning(
                file,
                line,
                format!("{why}; the entry `{}` is skipped", entry.key),
            )),
        }
    }
    (entries, warnings)
}

/// Tries to resolve a parent's fields before every inheriting field is
/// dropped ([`resolve`]).
const RESOLVE_TRIES: usize = 8;

/// `raw` with abbreviations and `crossref` / `xdata` inheritance resolved.
/// An inheritance cycle is cut where it closes, with a warning. A parent's
/// field the crate cannot pass on (a `year` such as
/// `{\noopsort{1973a}}{\switchargs{--90}{1968}}`, which it reads as a
/// date) is not passed on, with a warning: the children inherit the rest,
/// the parent keeps it. After [`RESOLVE_TRIES`] such fields, or one that
/// is no field of an entry, no entry inherits anything. Errors: a syntax
/// error of a field (an undefined abbreviation).
fn resolve(
    mut raw: RawBibliography,
    lines: &Lines,
    file: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Bibliography, biblatex::ParseError> {
    cut_cycles(&mut raw, lines, file, warnings);
    limit_inheritance(&mut raw, lines, file, warnings);
    // The entries that lost a field, whose own fields are read apart.
    let mut parents: Vec<String> = Vec::new();
    let own = |mut raw: RawBibliography| {
        for entry in &mut raw.entries {
            entry.v.fields.retain(|pair| !is_inheritance(pair));
        }
        Bibliography::from_raw(raw)
    };
    let original = raw.clone();
    for _ in 0..RESOLVE_TRIES {
        let e = match Bibliography::from_raw(raw.clone()) {
            Ok(mut bibliography) => {
                if !parents.is_empty() {
                    let alone = own(original)?;
                    for key in &parents {
                        if let Some(entry) = alone.get(key) {
                            bibliography.insert(entry.clone());
                        }
                    }
                }
                return Ok(bibliography);
            }
            Err(e) => e,
        };
        let ParseErrorKind::ResolutionError(why) = &e.kind else {
            return Err(e);
        };
        let at = e.span.start;
        let found = raw.entries.iter().enumerate().find_map(|(index, entry)| {
            let field = entry
                .v
                .fields
                .iter()
                .position(|pair| pair.value.span.contains(&at))?;
            Some((index, field))
        });
        let Some((index, field)) = found else {
            break;
        };
        let line = lines.line(raw.entries[index].span.start);
        let entry = &mut raw.entries[index].v;
        let (key, name) = (
            entry.key.v.to_string(),
            entry.fields[field].key.v.to_string(),
        );
        warnings.push(Diagnostic::warning(
            file,
            line,
            format!(
                "expected `{name}` of `{key}` to be well-formed for the entries that inherit it by `crossref` or `xdata`, found {why}; they do not inherit it"
            ),
        ));
        entry.fields.remove(field);
        parents.push(key);
    }
    warnings.push(Diagnostic::warning(
        file,
        0,
        "expected the fields passed on by `crossref` or `xdata` to be well-formed, found more that are not; no entry of the file inherits fields",
    ));
    own(raw)
}

/// Whether `pair` is a `crossref` or `xdata` field.
fn is_inheritance(pair: &biblatex::Pair) -> bool {
    pair.key.v.eq_ignore_ascii_case("crossref") || pair.key.v.eq_ignore_ascii_case("xdata")
}

/// The keys a `crossref` or `xdata` field names.
fn parents<'a>(pair: &'a biblatex::Pair) -> impl Iterator<Item = &'a str> {
    pair.value
        .v
        .iter()
        .filter_map(|chunk| match chunk.v {
            biblatex::RawChunk::Normal(text) => Some(text),
            biblatex::RawChunk::Abbreviation(_) => None,
        })
        .flat_map(|text| text.split(','))
        .map(str::trim)
        .filter(|k| !k.is_empty())
}

/// Walks `edges` depth first from every node in turn, without recursion:
/// `closes(node, child)` for each edge to a node on the walk's path (it
/// closes a cycle; the edge is not followed), `done(node)` once every node
/// it leads to is done (post-order). Linear; stops at the first error.
fn depth_first<E>(
    edges: &[Vec<usize>],
    mut closes: impl FnMut(usize, usize) -> Result<(), E>,
    mut done: impl FnMut(usize) -> Result<(), E>,
) -> Result<(), E> {
    // 0: not seen, 1: on the walk's path, 2: done.
    let mut state = vec![0u8; edges.len()];
    for start in 0..edges.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        state[start] = 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&child) = edges[node].get(*next) {
                *next += 1;
                match state[child] {
                    0 => {
                        state[child] = 1;
                        stack.push((child, 0));
                    }
                    1 => closes(node, child)?,
                    _ => {}
                }
            } else {
                done(node)?;
                state[node] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}

/// Each entry's parents (by `crossref` and `xdata`), as entry indexes.
fn inheritance(raw: &RawBibliography) -> Vec<Vec<usize>> {
    let index: HashMap<&str, usize> = raw
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.v.key.v, i))
        .collect();
    raw.entries
        .iter()
        .map(|e| {
            e.v.fields
                .iter()
                .filter(|pair| is_inheritance(pair))
                .flat_map(parents)
                .filter_map(|k| index.get(k).copied())
                .collect()
        })
        .collect()
}

/// The most entries one entry's resolution may pass through: the crate
/// resolves every parent anew for every child, so a long chain costs far
/// more than its length (measured in 3018882) and a crossref and an xdata
/// to the same parent, repeated forty times, would take forever.
const MAX_INHERITED: u64 = 32;

/// Cuts the inheritance of each entry whose resolution would pass through
/// more than [`MAX_INHERITED`] entries, with a warning; `raw` has no cycle
/// ([`cut_cycles`]). Linear: each entry is counted once, children after
/// parents.
fn limit_inheritance(
    raw: &mut RawBibliography,
    lines: &Lines,
    file: &Path,
    warnings: &mut Vec<Diagnostic>,
) {
    let edges = inheritance(raw);
    let mut work = vec![0u64; edges.len()];
    let mut cut = Vec::new();
    // No cycle is left, so no edge closes one.
    let Ok(()) = depth_first::<std::convert::Infallible>(
        &edges,
        |_, _| Ok(()),
        |node| {
            let total = edges[node]
                .iter()
                .fold(1u64, |w, &p| w.saturating_add(work[p]));
            work[node] = if total > MAX_INHERITED {
                cut.push(node);
                1
            } else {
                total
            };
            Ok(())
        },
    );
    for node in cut {
        let entry = &mut raw.entries[node];
        warnings.push(Diagnostic::warning(
            file,
            lines.line(entry.span.start),
            format!(
                "expected `crossref` and `xdata` of `{}` to lead through at most {MAX_INHERITED} entries, found more; it inherits nothing",
                entry.v.key.v
            ),
        ));
        entry.v.fields.retain(|pair| !is_inheritance(pair));
    }
}

/// Removes each `crossref` or `xdata` field that closes a cycle (`a` names
/// `b`, which names `a`), with a warning: the crate would recurse forever.
/// Linear: a depth-first walk over the entries.
fn cut_cycles(
    raw: &mut RawBibliography,
    lines: &Lines,
    file: &Path,
    warnings: &mut Vec<Diagnostic>,
) {
    let edges = inheritance(raw);
    let mut cut: Vec<(usize, usize)> = Vec::new();
    let Ok(()) = depth_first::<std::convert::Infallible>(
        &edges,
        |node, child| {
            cut.push((node, child));
            Ok(())
        },
        |_| Ok(()),
    );
    for (node, child) in cut {
        let parent = raw.entries[child].v.key.v;
        let entry = &mut raw.entries[node];
        warnings.push(Diagnostic::warning(
            file,
            lines.line(entry.span.start),
            format!(
                "expected `crossref` or `xdata` of `{}` to name an entry that does not lead back to it, found `{parent}`, which does; it inherits nothing from `{parent}`",
                entry.v.key.v
            ),
        ));
        entry
            .v
            .fields
            .retain(|pair| !(is_inheritance(pair) && parents(pair).any(|p| p == parent)));
    }
}

/// The work `entry` (at `line`) describes, or why it is none. Fields that
/// cannot be links or identifiers are dropped with a warning.
fn work(
    entry: &biblatex::Entry,
    line: usize,
    file: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Result<BibEntry, String> {
    if entry.key.trim().is_empty() {
        return Err("expected a citation key after `{`, found none".to_string());
    }
    let title = entry
        .title()
        .ok()
        .map(latex_source)
        .filter(|t| !t.trim().is_empty())
        .ok_or("expected a `title` field, found none")?;
    let authors = authors(entry)?;
    let year = year(entry);
    let written = entry.get("year").or_else(|| entry.get("date"));
    if let (None, Some(written)) = (year, written) {
        warnings.push(Diagnostic::warning(
            file,
            line,
            format!(
                "expected `year` or `date` of `{}` to hold a year from {} to {}, found `{}`; the paper is undated",
                entry.key,
                YEARS.start(),
                YEARS.end(),
                written.format_verbatim()
            ),
        ));
    }
    let links = links(entry, line, file, warnings);
    let venue = ["journal", "journaltitle", "booktitle"]
        .iter()
        .find_map(|name| entry.get(name).map(latex_source))
        .map(|v| {
            crate::text::Text::inline(&v, &mut Vec::new())
                .plain()
                .to_string()
        })
        .filter(|v| !v.is_empty());
    let abstract_paragraphs = entry
        .get("abstract")
        .map(latex_source)
        .map(|text| {
            text.split("\n\n")
                .map(|text| one_line(text).into_owned())
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default();
    Ok(BibEntry {
        key: entry.key.clone(),
        line,
        title: fold_whitespace(title),
        authors: authors.names,
        families: authors.families,
        more_authors: authors.more,
        year,
        abstract_paragraphs,
        doi: links.doi,
        url: links.url,
        arxiv: links.arxiv,
        primary_class: links.primary_class,
        venue,
    })
}

/// The people a [`BibEntry`] lists.
struct Authors {
    names: Vec<String>,
    /// See [`BibEntry::families`].
    families: Vec<Option<String>>,
    /// Whether the list ends in `and others`.
    more: bool,
}

/// The authors of `entry` (its editors when it has no author), or why it
/// names no one.
fn authors(entry: &biblatex::Entry) -> Result<Authors, String> {
    let (people, field) = match entry.author() {
        Ok(people) if !people.is_empty() => (people, "author"),
        _ => match entry.editors() {
            Ok(groups) => (
                groups.into_iter().flat_map(|(people, _)| people).collect(),
                "editor",
            ),
            Err(_) => (Vec::new(), "editor"),
        },
    };
    let more_authors = people.iter().any(is_others);
    // The names as written, to tell `Last, First` from `First Last`.
    let written: Vec<String> = entry
        .get(field)
        .map(|chunks| split_names(&chunks.format_verbatim()))
        .unwrap_or_default();
    let written = (written.len() == people.len()).then_some(written);
    let (authors, families): (Vec<String>, Vec<Option<String>>) = people
        .iter()
        .enumerate()
        .filter(|(_, p)| !is_others(p))
        .map(|(i, p)| {
            let family = family_name(p);
            let comma = written.as_ref().is_some_and(|w| w[i].contains(','));
            let given = comma || family.contains(' ');
            (display_name(p), given.then_some(family))
        })
        .filter(|(n, _)| !n.is_empty())
        .unzip();
    if authors.is_empty() {
        return Err(format!(
            "expected an `author` or `editor` field naming someone, found {}",
            if entry.get(field).is_some() {
                "no name in it"
            } else {
                "neither"
            }
        ));
    }
    Ok(Authors {
        names: authors,
        families,
        more: more_authors,
    })
}

/// The links and identifiers of a [`BibEntry`].
struct Links {
    doi: Option<String>,
    url: Option<String>,
    arxiv: Option<String>,
    primary_class: Option<String>,
}

/// The DOI, URL, arXiv identifier and arXiv category of `entry` (at
/// `line`); each field that cannot be one is dropped with a warning.
fn links(
    entry: &biblatex::Entry,
    line: usize,
    file: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Links {
    let mut dropped = |field: &str, value: &str, expected: &str| {
        warnings.push(Diagnostic::warning(
            file,
            line,
            format!(
                "expected `{field}` of `{}` to be {expected}, found `{}`; it is left out",
                entry.key,
                value.escape_debug()
            ),
        ));
    };
    let verbatim = |name: &str| {
        entry
            .get(name)
            .map(|c| c.format_verbatim().trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let doi = verbatim("doi").map(|d| normalise_doi(&d)).filter(|d| {
        let ok = is_doi(d);
        if !ok {
            dropped("doi", d, "a DOI such as `10.1145/3600006.3613139`");
        }
        ok
    });
    let url = verbatim("url").filter(|u| match crate::safe_url::unsafe_reason(u) {
        Some(reason) => {
            dropped("url", u, &format!("a safe link, not {reason}"));
            false
        }
        None => true,
    });
    let archive = verbatim("archiveprefix").or_else(|| verbatim("eprinttype"));
    let arxiv = verbatim("eprint")
        .filter(|_| {
            archive
                .as_deref()
                .is_none_or(|a| a.eq_ignore_ascii_case("arxiv"))
        })
        .map(|id| normalise_arxiv_id(&id))
        .filter(|id| {
            let ok = is_arxiv_id(id);
            if !ok && archive.is_some() {
                dropped("eprint", id, "an arXiv identifier such as `2405.01234`");
            }
            ok
        });
    let primary_class = arxiv
        .as_ref()
        .and_then(|_| verbatim("primaryclass").or_else(|| verbatim("eprintclass")))
        .filter(|c| !c.contains(char::is_whitespace));
    Links {
        doi,
        url,
        arxiv,
        primary_class,
    }
}

/// The year of `date` (or `year`), within [`YEARS`]; a range gives its
/// start, a literal its last four-digit number (the one printed: in
/// `{\noopsort{1973c}}1981`, 1981).
fn year(entry: &biblatex::Entry) -> Option<u16> {
    let from_date = match entry.date() {
        Ok(PermissiveType::Typed(date)) => match date.value {
            DateValue::At(d) | DateValue::After(d) | DateValue::Before(d) => Some(d.year),
            DateValue::Between(d, _) => Some(d.year),
        },
        _ => None,
    };
    let literal = || {
        let text = entry
            .get("year")
            .or_else(|| entry.get("date"))?
            .format_verbatim();
        let bytes = text.as_bytes();
        (0..bytes.len().saturating_sub(3)).rev().find_map(|i| {
            let digits = &bytes[i..i + 4];
            let alone = |j: Option<&u8>| j.is_none_or(|b| !b.is_ascii_digit());
            (digits.iter().all(u8::is_ascii_digit)
                && alone(i.checked_sub(1).and_then(|j| bytes.get(j)))
                && alone(bytes.get(i + 4)))
            .then(|| text[i..i + 4].parse::<i32>().ok())
            .flatten()
        })
    };
    let within = |year: i32| u16::try_from(year).ok().filter(|y| YEARS.contains(y));
    // A date read as one (`-2000-01-01` is 2001 BC) is not read again as text.
    match from_date {
        Some(year) => within(year),
        None => literal().and_then(within),
    }
}

/// Chunks as the LaTeX source a listing's title would hold: text as it is
/// (the crate resolved accents and dropped grouping braces), a `$` that was
/// text escaped, math between `$`.
fn latex_source(chunks: &[Spanned<Chunk>]) -> String {
    let mut out = String::new();
    for chunk in chunks {
        match &chunk.v {
            Chunk::Normal(text) | Chunk::Verbatim(text) => {
                for c in text.chars() {
                    if c == '$' {
                        out.push('\\');
                    }
                    out.push(c);
                }
            }
            Chunk::Math(math) => {
                out.push('$');
                out.push_str(math);
                out.push('$');
            }
        }
    }
    out
}

/// Whether `person` is the `others` of `and others`.
fn is_others(person: &Person) -> bool {
    person.given_name.is_empty() && person.prefix.is_empty() && person.name == "others"
}

/// A name list split at each ` and ` outside braces, each name with its
/// braces and commas as written.
fn split_names(list: &str) -> Vec<String> {
    let mut names = vec![String::new()];
    let mut depth = 0usize;
    let words: Vec<&str> = list.split_whitespace().collect();
    for word in words {
        let last = names.last_mut().expect("one name at least");
        if depth == 0 && word.eq_ignore_ascii_case("and") {
            names.push(String::new());
            continue;
        }
        for c in word.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        if !last.is_empty() {
            last.push(' ');
        }
        last.push_str(word);
    }
    names
}

/// `von Family`, with braces and control characters dropped.
fn family_name(person: &Person) -> String {
    let name = format!("{} {}", person.prefix.trim(), person.name.trim());
    let clean: String = name
        .chars()
        .filter(|c| !matches!(c, '{' | '}') && !c.is_control())
        .collect();
    fold_whitespace(clean)
}

/// `Given von Family, Jr.`, with braces and control characters dropped.
fn display_name(person: &Person) -> String {
    let mut name = [&person.given_name, &person.prefix, &person.name]
        .iter()
        .map(|part| part.trim())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if !person.suffix.trim().is_empty() {
        name.push_str(", ");
        name.push_str(person.suffix.trim());
    }
    let clean: String = name
        .chars()
        .filter(|c| !matches!(c, '{' | '}') && !c.is_control())
        .collect();
    fold_whitespace(clean)
}

/// What a parse error says, as `expected …, found …`.
fn describe(kind: &ParseErrorKind, text: &str, at: usize) -> String {
    let found = || {
        let rest = text.get(at..).unwrap_or("");
        match rest.chars().next() {
            None => "the end of the file".to_string(),
            Some(c) if c.is_whitespace() => "a space or line break".to_string(),
            Some(c) => format!("`{c}`"),
        }
    };
    match kind {
        ParseErrorKind::UnexpectedEof => {
            "expected the entry that opens here to be closed, found the end of the file; check that its braces and quotes are balanced".to_string()
        }
        ParseErrorKind::Expected(token) => format!("expected {token}, found {}", found()),
        ParseErrorKind::Unexpected(token) => format!("expected a field, found an unexpected {token}"),
        ParseErrorKind::UnknownAbbreviation(name) => format!(
            "expected a defined @string abbreviation, found `{name}`; define it with @string{{{name} = \"...\"}} or put the value in braces"
        ),
        ParseErrorKind::MalformedCommand => format!("expected a complete LaTeX command, found {}", found()),
        ParseErrorKind::DuplicateKey(key) => {
            format!("expected each citation key once, found `{key}` again")
        }
        ParseErrorKind::ResolutionError(e) => {
            format!("expected a `crossref` or `xdata` parent whose fields fit, found {e}")
        }
        other => format!("expected BibTeX, found {other}"),
    }
}

/// Byte offsets to 1-based lines, for offsets asked in any order.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { starts }
    }

    fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset)
    }
}

/// `text` with each `@preamble` blanked and each entry in parentheses
/// given braces, every other byte and every line break where it was.
/// Linear: one pass, each entry's body scanned once.
fn prepare(text: String) -> (String, Option<Shape>) {
    let mut bytes = text.into_bytes();
    let mut shape = None;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'@' {
            i += 1;
            continue;
        }
        let name_start = i + 1;
        let mut j = name_start;
        while j < bytes.len() && (bytes[j].is_ascii_alphanumeric() || bytes[j] == b'_') {
            j += 1;
        }
        let name = String::from_utf8_lossy(&bytes[name_start..j]).to_ascii_lowercase();
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        let Some(&open) = bytes.get(j) else { break };
        if name.is_empty() || !matches!(open, b'{' | b'(') || name == "comment" {
            i = j.max(i + 1);
            continue;
        }
        let (close, deepest) = body_end(&bytes, j);
        if shape.is_none() {
            shape = match close {
                None => Some(Shape::Unclosed(i)),
                Some(_) if deepest > MAX_BRACE_DEPTH => Some(Shape::TooDeep(i)),
                Some(_) => None,
            };
        }
        if name == "preamble" {
            let end = close.map_or(bytes.len(), |c| c + 1);
            for b in &mut bytes[i..end] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
            i = end;
        } else {
            if open == b'(' {
                if let Some(close) = close {
                    bytes[j] = b'{';
                    bytes[close] = b'}';
                }
            }
            // The body is scanned again by the crate, not here: a nested
            // `@` (in an e-mail address) is no entry.
            i = close.map_or(j + 1, |c| c + 1);
        }
    }
    // Only ASCII bytes were changed, each to an ASCII byte.
    (String::from_utf8(bytes).unwrap_or_default(), shape)
}

/// Braces nested deeper than this in an entry are an error: the crate's
/// parse takes time quadratic in the depth, and no bibliography nests
/// groups this deep.
const MAX_BRACE_DEPTH: usize = 100;

/// What [`prepare`] finds wrong with the first entry it cannot hand on,
/// at the offset of its `@`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Its braces or parentheses never close.
    Unclosed(usize),
    /// Its braces nest deeper than [`MAX_BRACE_DEPTH`].
    TooDeep(usize),
}

/// `text` with the names BibTeX compares without case written as the
/// crate, which compares them exactly, finds them, each in place (only the
/// case of ASCII letters changes): every abbreviation name, where defined
/// and where used, lowercased (`@string{STOC = …}` is `sToC`), and each
/// `crossref` / `xdata` key spelled as the entry it names. Text that does
/// not parse is handed back as it is (its error is reported later).
fn fold_case(text: String) -> String {
    fn chunks<'a>(
        field: &'a biblatex::Field,
        abbreviations: bool,
    ) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
        field.iter().filter_map(move |chunk| match chunk.v {
            biblatex::RawChunk::Abbreviation(_) if abbreviations => Some(chunk.span.clone()),
            biblatex::RawChunk::Normal(_) if !abbreviations => Some(chunk.span.clone()),
            _ => None,
        })
    }
    let Ok(raw) = RawBibliography::parse(&text) else {
        return text;
    };
    let keys: HashMap<String, &str> = raw
        .entries
        .iter()
        .rev()
        .map(|entry| (entry.v.key.v.to_ascii_lowercase(), entry.v.key.v))
        .collect();
    // (span, its new spelling)
    let mut changes: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let defined = raw.abbreviations.iter().map(|pair| pair.key.span.clone());
    let in_strings = raw
        .abbreviations
        .iter()
        .flat_map(|pair| chunks(&pair.value.v, true));
    let fields = || raw.entries.iter().flat_map(|entry| entry.v.fields.iter());
    let in_entries = fields().flat_map(|pair| chunks(&pair.value.v, true));
    for span in defined.chain(in_strings).chain(in_entries) {
        if let Some(name) = text.get(span.clone()) {
            changes.push((span, name.to_ascii_lowercase()));
        }
    }
    for pair in fields().filter(|pair| is_inheritance(pair)) {
        for span in chunks(&pair.value.v, false) {
            let Some(value) = text.get(span.clone()) else {
                continue;
            };
            let mut spelled = String::with_capacity(value.len());
            for (i, part) in value.split(',').enumerate() {
                if i > 0 {
                    spelled.push(',');
                }
                let key = part.trim();
                let at = part.find(key).unwrap_or(0);
                let same = keys
                    .get(&key.to_ascii_lowercase())
                    .filter(|known| known.len() == key.len());
                spelled.push_str(&part[..at]);
                spelled.push_str(same.copied().unwrap_or(key));
                spelled.push_str(&part[at + key.len()..]);
            }
            changes.push((span, spelled));
        }
    }
    changes.retain(|(span, new)| text.get(span.clone()).is_some_and(|old| old != new));
    if changes.is_empty() {
        return text;
    }
    drop(raw);
    let mut bytes = text.into_bytes();
    for (span, new) in changes {
        if new.len() == span.len() {
            bytes[span].copy_from_slice(new.as_bytes());
        }
    }
    // Only ASCII letters changed case, whole names replaced by names.
    String::from_utf8(bytes).unwrap_or_default()
}

/// The offset of the delimiter closing the body that opens at `open` (`{`
/// or `(`): the matching one at brace depth 0, outside a quoted value;
/// and the deepest brace nesting inside it.
fn body_end(bytes: &[u8], open: usize) -> (Option<usize>, usize) {
    let closer = if bytes[open] == b'(' { b')' } else { b'}' };
    let (mut depth, mut deepest, mut quoted) = (0usize, 0usize, false);
    for (k, &b) in bytes.iter().enumerate().skip(open + 1) {
        match b {
            b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' if depth > 0 => depth -= 1,
            b'"' if depth == 0 && closer == b')' => quoted = !quoted,
            _ if b == closer && depth == 0 && !quoted => return (Some(k), deepest),
            _ => {}
        }
    }
    (None, deepest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_text(text: &str) -> Result<BibFile, Diagnostic> {
        parse(text, Path::new("seeds/lab.bib"))
    }

    #[test]
    fn entry_becomes_a_work_with_accents_names_and_identifiers() {
        let bib = parse_text(
            r#"@string{acm = "ACM"}
@comment{ not { an entry } }
@article{mueller1999,
  author = {M{\"u}ller, J{\"o}rg and de la Fontaine, Jean and Knuth, Jr., Donald E.},
  title = {The {\'E}cole of $O(n^2)$ {BibTeX}},
  journal = acm # " Trans.",
  year = 1999, month = jan,
  doi = {https://doi.org/10.1145/123.456},
  eprint = {arXiv:1605.08386v2}, archivePrefix = {arXiv}, primaryClass = {cs.DC},
  url = {javascript:alert(1)},
}
"#,
        )
        .unwrap();
        assert_eq!(bib.entries.len(), 1);
        let entry = &bib.entries[0];
        assert_eq!(entry.key, "mueller1999");
        assert_eq!(entry.line, 3);
        assert_eq!(entry.title, "The École of $O(n^2)$ BibTeX");
        assert_eq!(
            entry.authors,
            ["Jörg Müller", "Jean de la Fontaine", "Donald E. Knuth, Jr."]
        );
        assert_eq!(entry.year, Some(1999));
        assert_eq!(entry.venue.as_deref(), Some("ACM Trans."));
        assert_eq!(entry.doi.as_deref(), Some("10.1145/123.456"));
        assert_eq!(entry.arxiv.as_deref(), Some("1605.08386v2"));
        assert_eq!(entry.primary_class.as_deref(), Some("cs.DC"));
        assert_eq!(entry.url, None);
        assert_eq!(bib.warnings.len(), 1);
        assert_eq!(bib.warnings[0].line, 3);
        assert!(bib.warnings[0].message.contains("`url` of `mueller1999`"));
    }

    #[test]
    fn preamble_and_parentheses_are_read() {
        let bib = parse_text(
            "@preamble{ \"\\newcommand{\\noopsort}[1]{} \"\n   # \"\\newcommand{\\x}[2]{#1} \" }\n@string(ieee = \"IEEE\")\n@misc(a1,\n  author = \"A. Person and others\", title = \"On (parens)\", year = \"2001\", howpublished = ieee)\n",
        )
        .unwrap();
        assert_eq!(bib.entries.len(), 1, "{:?}", bib.warnings);
        assert_eq!(bib.entries[0].line, 4);
        assert_eq!(bib.entries[0].title, "On (parens)");
        assert_eq!(bib.entries[0].authors, ["A. Person"]);
        assert!(bib.entries[0].more_authors);
    }

    #[test]
    fn entries_that_are_no_work_are_skipped_at_their_line() {
        let bib = parse_text(
            "@IEEEtranBSTCTL{ctl,\n  CTLuse_alt_spacing = \"yes\"\n}\n@misc{bare, note = {x}}\n@book{a, title = {T}, author = {A B}, year = 2000}\n@book{A, title = {T2}, author = {C D}, year = 2001}\n@book{nodate, title = {T3}, author = {E F}}\n",
        )
        .unwrap();
        let keys: Vec<&str> = bib.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["a", "nodate"]);
        assert_eq!(
            (bib.entries[0].year, bib.entries[1].year),
            (Some(2000), None)
        );
        let found: Vec<(usize, &str)> = bib
            .warnings
            .iter()
            .map(|w| (w.line, w.message.as_str()))
            .collect();
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[0].0, 6);
        assert!(found[0].1.contains("found `A` again (first at line 5)"));
        assert_eq!(found[1].0, 1);
        assert!(found[1]
            .1
            .starts_with("expected a `title` field, found none; the entry `ctl`"));
        assert_eq!(found[2].0, 4);
        let odd = parse_text("@misc{, title = {No key}, author = {A B}, year = 2000}\n@misc{bc, title = {T}, author = {A B}, date = {-2000-01-01}}\n").unwrap();
        assert_eq!(odd.entries.len(), 1);
        assert_eq!(odd.entries[0].year, None);
        assert!(
            odd.warnings[0]
                .message
                .starts_with("expected a citation key after `{`, found none"),
            "{:?}",
            odd.warnings
        );
        assert!(
            odd.warnings[1].message.contains("the paper is undated"),
            "{:?}",
            odd.warnings
        );
    }

    #[test]
    fn syntax_errors_are_at_their_line() {
        let e = parse_text(
            "@book{a, title = {T}, author = {A B}, year = 2000}\n\n@article{b,\n  title = {Open\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.message
                .starts_with("expected the entry that opens here to be closed"),
            "{}",
            e.message
        );
        let e = parse_text("@article{b,\n  title {x},\n}\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (2, "expected equals, found `{`")
        );
        let e = parse_text("@article{b,\n  journal = undefinedjournal,\n}\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("`undefinedjournal`"), "{}", e.message);
    }

    #[test]
    fn abbreviations_that_never_end_are_errors() {
        let e = parse_text(
            "@string{x = x}\n@article{k, title = {T}, author = {A B}, year = 2000, journal = x}\n",
        )
        .unwrap_err();
        assert_eq!(e.line, 1);
        assert!(
            e.message.contains("defined through itself"),
            "{}",
            e.message
        );
        let e = parse_text(
            "@string{a = b}\n@string{b = a}\n@misc{k, title = {T}, author = {A B}, journal = a}\n",
        )
        .unwrap_err();
        assert!(
            e.message.contains("defined through itself"),
            "{}",
            e.message
        );
        // Doubled forty times: a terabyte, refused at once.
        let mut text = String::from("@string{s0 = \"ab\"}\n");
        for i in 1..=40 {
            text.push_str(&format!("@string{{s{i} = s{} # s{}}}\n", i - 1, i - 1));
        }
        text.push_str("@misc{k, title = {T}, author = {A B}, note = s40}\n");
        let started = std::time::Instant::now();
        let e = parse_text(&text).unwrap_err();
        assert!(started.elapsed().as_secs() < 2);
        assert_eq!(e.line, 21, "{}", e.message);
        assert!(
            e.message
                .starts_with("expected @string `s20` to expand to at most"),
            "{}",
            e.message
        );
        // A chain deeper than the crate's stack.
        let mut text = String::from("@string{s0 = \"x\"}\n");
        for i in 1..=100_000 {
            text.push_str(&format!("@string{{s{i} = s{}}}\n", i - 1));
        }
        let e = parse_text(&text).unwrap_err();
        assert_eq!(e.line, 65, "{}", e.message);
    }

    #[test]
    fn inheritance_that_would_take_forever_is_cut() {
        let mut text =
            String::from("@book{e0, title={Base}, author={A B}, year=2000, publisher={P}}\n");
        for i in 1..=40 {
            text.push_str(&format!("@inbook{{e{i}, title={{T{i}}}, author={{A B}}, crossref={{e{}}}, xdata={{e{}}}}}\n", i - 1, i - 1));
        }
        let started = std::time::Instant::now();
        let bib = parse_text(&text).unwrap();
        assert!(started.elapsed().as_secs() < 2);
        assert_eq!(bib.entries.len(), 41);
        // e1..e4 inherit (2, 6, 14, 30 entries passed through), e5 is cut.
        assert_eq!(bib.entries[4].year, Some(2000));
        assert_eq!(bib.entries[5].year, None);
        assert!(bib
            .warnings
            .iter()
            .any(|w| w.line == 6 && w.message.contains("`e5` to lead through at most 32")));
        let mut chain = String::from("@book{c0, title={Base}, author={A B}, year=2000}\n");
        for i in 1..=5000 {
            chain.push_str(&format!(
                "@book{{c{i}, title={{T{i}}}, author={{A B}}, crossref={{c{}}}}}\n",
                i - 1
            ));
        }
        let started = std::time::Instant::now();
        let bib = parse_text(&chain).unwrap();
        assert!(started.elapsed().as_secs() < 5);
        assert_eq!(bib.entries.len(), 5001);
    }

    #[test]
    fn entries_left_open_or_nested_too_deep_are_errors_where_they_open() {
        let e = parse_text("@article{a, title = {T}, author = {A B}, year = 2000\n").unwrap_err();
        assert_eq!(e.line, 1, "{}", e.message);
        assert!(e
            .message
            .starts_with("expected the entry that opens here to be closed"));
        let e = parse_text("@article{a, title = {Unbalanced {brace, author = {A B}, year = 2000}\n\n@article{b, title = {T}, author = {A B}, year = 2000}\n\n@article{c, title = {T}, author = {A B}, year = 2000}\n").unwrap_err();
        assert_eq!(e.line, 1, "{}", e.message);
        let deep = format!(
            "@misc{{k, author = {{A B}},\n title = {{{}x{}}}}}\n",
            "{".repeat(100_000),
            "}".repeat(100_000)
        );
        let started = std::time::Instant::now();
        let e = parse_text(&deep).unwrap_err();
        assert!(started.elapsed().as_secs() < 2);
        assert_eq!(
            (e.line, e.message.as_str()),
            (1, "expected braces nested at most 100 deep in an entry, found deeper ones in the entry that opens here")
        );
    }

    #[test]
    fn prepare_keeps_every_line_and_offset() {
        let text = "@PREAMBLE{\"a\" # \"b\n{c}\"}\n@misc(k, title = \"(x)\" )\nZoë @ x\n";
        let (prepared, shape) = prepare(text.to_string());
        assert_eq!(shape, None);
        assert_eq!(prepared.len(), text.len());
        assert_eq!(prepared.matches('\n').count(), text.matches('\n').count());
        assert!(prepared.contains("@misc{k, title = \"(x)\" }"));
        assert!(!prepared.contains("PREAMBLE"));
        assert!(prepared.ends_with("Zoë @ x\n"));
    }
}
