//! The records file, `records/arxiv.toml`: the arXiv record `vellum
//! enrich` matched to each paper, by paper slug, sorted, so `git diff`
//! shows what a run changed. Builds read only this file (they stay offline
//! and deterministic); a per-paper override in `content/papers/` wins over
//! it, field by field.

use crate::diagnostics::Diagnostic;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The file, relative to the site root.
pub const RECORDS_FILE: &str = "records/arxiv.toml";

/// The comment the file starts with.
const HEADER: &str = "# Written by `vellum enrich`: the arXiv record matched to each paper, by the
# paper's slug. Builds read only this file. To correct a paper, give it an
# override in content/papers/<slug>.md (its fields win); to drop a match,
# remove its table here or set `arxiv` in the override.
";

/// What the file holds of one paper's record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperRecord {
    /// The arXiv identifier, without version (`1605.08386`).
    pub arxiv: String,
    /// The latest version (`2` for v2).
    pub version: u32,
    /// The record's title (LaTeX as arXiv has it).
    pub title: String,
    /// The complete author list, in the record's order.
    pub authors: Vec<String>,
    /// Category codes, the primary first.
    pub categories: Vec<String>,
    /// The date of v1, `YYYY-MM-DD`.
    pub published: String,
    /// The date of the latest version, `YYYY-MM-DD`.
    pub updated: String,
    /// The DOI of the published version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    /// Where it was published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal_ref: Option<String>,
    /// The authors' comment (`20 pages, 3 figures`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Family names the record gives (arXiv's `authors_parsed`) where the
    /// name model would split the name otherwise (`"Nguyen Van Anh" =
    /// "Nguyen"`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub family_names: BTreeMap<String, String>,
}

/// The records by paper slug, and the line of each one's table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Records {
    /// By paper slug.
    pub papers: BTreeMap<String, PaperRecord>,
    /// The 1-based line of each paper's table, by slug.
    pub lines: BTreeMap<String, usize>,
}

/// The file as read: each record with its span, for its line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    papers: BTreeMap<String, toml::Spanned<PaperRecord>>,
}

/// The file as written.
#[derive(Serialize)]
struct FileOut<'a> {
    papers: &'a BTreeMap<String, PaperRecord>,
}

impl Records {
    /// Reads `records/arxiv.toml` under `root`; none when the file is
    /// absent. Forbidden characters ([`crate::input::chars`]), raw or as
    /// `\u` escapes, become U+FFFD with a warning at their line. Errors at
    /// their `file:line`: TOML syntax, a missing or unknown field, an
    /// identifier, DOI or date of the wrong shape, a URL field that is not
    /// a safe link.
    pub fn load(root: &Path) -> Result<(Records, Vec<Diagnostic>), Diagnostic> {
        let shown = Path::new(RECORDS_FILE);
        let bytes = match std::fs::read(root.join(RECORDS_FILE)) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((Records::default(), Vec::new()))
            }
            Err(e) => {
                return Err(Diagnostic::error(
                    shown,
                    0,
                    format!("expected a readable file, found {e}"),
                ))
            }
        };
        let text = crate::input::chars::line_feeds(crate::input::utf8(&bytes, shown)?);
        let (text, found, escaped) = crate::input::chars::replace_forbidden_toml(&text);
        let records = Records::parse(&text, shown)?;
        let warnings = crate::input::chars::toml_warnings(shown, &found, &escaped);
        Ok((records, warnings))
    }

    /// Parses the text of a records file shown as `shown`.
    pub fn parse(text: &str, shown: &Path) -> Result<Records, Diagnostic> {
        let line_at = |offset: usize| 1 + text[..offset.min(text.len())].matches('\n').count();
        let tables = tables(text).map_err(|e| {
            let line = e.span().map_or(0, |s| line_at(s.start));
            Diagnostic::error(
                shown,
                line,
                format!(
                    "expected a records file written by `vellum enrich`, found {}",
                    e.message()
                ),
            )
        })?;
        // Each table's line, the newlines counted once over the text
        // (counting from the start for each would be quadratic).
        let mut starts: Vec<(usize, &str)> = tables
            .iter()
            .map(|(slug, (start, _))| (*start, slug.as_str()))
            .collect();
        starts.sort_unstable();
        let mut lines = BTreeMap::new();
        let (mut line, mut counted) = (1, 0);
        for (offset, slug) in starts {
            let offset = offset.min(text.len());
            line += text.as_bytes()[counted..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            counted = offset;
            lines.insert(slug.to_string(), line);
        }
        let papers: BTreeMap<String, PaperRecord> = tables
            .into_iter()
            .map(|(slug, (_, record))| (slug, record))
            .collect();
        for (slug, record) in &papers {
            let line = lines.get(slug).copied().unwrap_or(0);
            let wrong = |what: &str, found: &str| {
                Diagnostic::error(
                    shown,
                    line,
                    format!("expected {what} in the record of `{slug}`, found `{}`; run `vellum enrich` again or remove the table", found.escape_debug()),
                )
            };
            let versioned = record
                .arxiv
                .rsplit_once('v')
                .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
            if !crate::input::content::is_arxiv_id(&record.arxiv) || versioned {
                return Err(wrong(
                    "an arXiv identifier without version such as `2405.01234`",
                    &record.arxiv,
                ));
            }
            if let Some(doi) = &record.doi {
                if !crate::input::content::is_doi(doi) {
                    return Err(wrong("a DOI such as `10.1145/3600006.3613139`", doi));
                }
            }
            for date in [&record.published, &record.updated] {
                if !is_date(date) {
                    return Err(wrong("a date `YYYY-MM-DD`", date));
                }
            }
            if record.authors.is_empty() {
                return Err(wrong("a non-empty `authors` list", "[]"));
            }
        }
        Ok(Records { papers, lines })
    }

    /// The text of the file holding `papers`: the header, then one table
    /// per paper, sorted by slug.
    pub fn to_text(papers: &BTreeMap<String, PaperRecord>) -> String {
        let body = toml::to_string(&FileOut { papers }).unwrap_or_default();
        format!("{HEADER}\n{body}")
    }
}

/// Each paper's record by slug, with the offset in `text` where its
/// table starts. A file of more than [`PART`] bytes is parsed in parts, in
/// parallel, split before the tables of papers (lines `[papers.<slug>]`
/// of a bare key) when [`parts_are_safe`]; when a part fails, or a
/// paper's table falls in two parts, the whole text is parsed at once,
/// for its error and its line.
fn tables(text: &str) -> Result<BTreeMap<String, (usize, PaperRecord)>, toml::de::Error> {
    let parse = |part: &str, offset: usize| {
        toml::from_str::<File>(part).map(|file| {
            file.papers
                .into_iter()
                .map(|(slug, record)| (slug, (offset + record.span().start, record.into_inner())))
                .collect::<BTreeMap<_, _>>()
        })
    };
    let bounds = part_bounds(text);
    if bounds.len() < 3 || !parts_are_safe(text) {
        return parse(text, 0);
    }
    let parts: Vec<_> = bounds
        .par_windows(2)
        .map(|w| parse(&text[w[0]..w[1]], w[0]).ok())
        .collect();
    let mut tables = BTreeMap::new();
    for part in parts {
        let Some(part) = part else {
            return parse(text, 0);
        };
        for (slug, table) in part {
            if tables.insert(slug, table).is_some() {
                return parse(text, 0);
            }
        }
    }
    Ok(tables)
}

/// Whether the parts of `text` may be parsed apart: every table header is
/// a paper's (`[papers.`…), none an array of tables, and only comments and
/// blank lines come before the first. Otherwise a rule that spans parts
/// (`[papers]` defined twice, an inline `papers = { … }` extended by a
/// later header) could pass unseen. A line of a multi-line string that
/// looks like a header only makes the answer no more often.
fn parts_are_safe(text: &str) -> bool {
    let mut headed = false;
    for line in text.lines() {
        let line = line.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if line.starts_with('[') {
            if !line.starts_with("[papers.") {
                return false;
            }
            headed = true;
        } else if !(headed || line.is_empty() || line.starts_with('#')) {
            return false;
        }
    }
    true
}

/// Bytes of a records file parsed as one part (about 2,800 papers).
const PART: usize = 1 << 20;

/// Where the parts of `text` begin, then its length: `0`, then the start
/// of the first paper's table line at least [`PART`] bytes after the
/// last bound, and so on. A table line is `[papers.` a bare key (ASCII
/// letters, digits, `_` and `-`) and `]`, so never a subtable's.
fn part_bounds(text: &str) -> Vec<usize> {
    const HEAD: &str = "\n[papers.";
    let is_table = |line: &str| {
        line.strip_suffix(']').is_some_and(|key| {
            !key.is_empty()
                && key
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
    };
    let mut bounds = vec![0];
    let mut from = PART;
    while from < text.len() {
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let Some(found) = text[from..].find(HEAD) else {
            break;
        };
        let start = from + found + 1;
        let key_start = start + HEAD.len() - 1;
        let line_end = text[key_start..]
            .find('\n')
            .map_or(text.len(), |n| key_start + n);
        if is_table(text[key_start..line_end].trim_end()) {
            bounds.push(start);
            from = start + PART;
        } else {
            from = line_end;
        }
    }
    bounds.push(text.len());
    bounds
}

/// `YYYY-MM-DD`.
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> PaperRecord {
        PaperRecord {
            arxiv: "1605.08386".into(),
            version: 1,
            title: "Heat-bath random walks with Markov bases".into(),
            authors: vec!["Caprice Stanley".into(), "Tobias Windisch".into()],
            categories: vec!["math.CO".into(), "math.ST".into()],
            published: "2016-05-26".into(),
            updated: "2016-05-26".into(),
            doi: None,
            journal_ref: None,
            comment: Some("20 pages, 3 figures".into()),
            family_names: BTreeMap::new(),
        }
    }

    #[test]
    fn the_file_reads_back_what_was_written_and_names_bad_values_at_their_table() {
        let mut papers = BTreeMap::new();
        papers.insert(
            "heat-bath-random-walks-with-markov-bases".to_string(),
            record(),
        );
        let text = Records::to_text(&papers);
        assert!(
            text.contains(
                "[papers.heat-bath-random-walks-with-markov-bases]\narxiv = \"1605.08386\"\n"
            ),
            "{text}"
        );
        let read = Records::parse(&text, Path::new(RECORDS_FILE)).unwrap();
        assert_eq!(read.papers, papers);
        assert_eq!(read.lines["heat-bath-random-walks-with-markov-bases"], 6);
        let bad = text.replace("2016-05-26", "26 May 2016");
        assert_eq!(
            Records::parse(&bad, Path::new(RECORDS_FILE))
                .unwrap_err()
                .to_string(),
            "records/arxiv.toml:6: error: expected a date `YYYY-MM-DD` in the record of \
             `heat-bath-random-walks-with-markov-bases`, found `26 May 2016`; run `vellum enrich` \
             again or remove the table"
        );
        let unknown = text.replace("version = 1", "version = 1\npdf = \"javascript:x\"");
        let error = Records::parse(&unknown, Path::new(RECORDS_FILE))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("records/arxiv.toml:9: error: expected a records file written by `vellum enrich`, found unknown field `pdf`"), "{error}");
    }

    #[test]
    fn a_long_file_parsed_in_parts_reads_as_the_whole_with_each_table_at_its_line() {
        let mut papers = BTreeMap::new();
        for i in 0..8000 {
            let mut paper = record();
            paper.title = format!("Caf\u{e9} na\u{ef}ve walks {i}");
            if i % 7 == 0 {
                paper
                    .family_names
                    .insert("Nguyen Van Anh".into(), "Nguyen".into());
            }
            papers.insert(format!("walks-{i:05}"), paper);
        }
        let text = Records::to_text(&papers);
        assert!(text.len() > 2 * PART, "{}", text.len());
        assert!(text.contains("[papers.walks-00007.family_names]\n"));
        let bounds = part_bounds(&text);
        assert!(bounds.len() > 3, "{bounds:?}");
        for &b in &bounds[1..bounds.len() - 1] {
            assert!(
                text[b..].starts_with("[papers.walks-"),
                "{}",
                &text[b..b + 40]
            );
            assert!(!text[b..]
                .split('\n')
                .next()
                .unwrap()
                .contains(".family_names"));
        }
        let read = Records::parse(&text, Path::new(RECORDS_FILE)).unwrap();
        assert_eq!(read.papers, papers);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(read.lines.len(), 8000);
        for (slug, &line) in &read.lines {
            assert_eq!(lines[line - 1], format!("[papers.{slug}]"));
        }
        // An error in a later part is named at its line in the whole file.
        let at = text.find("[papers.walks-07000]").unwrap();
        let line = 1 + text[..at].matches('\n').count();
        let bad = format!(
            "{}{}",
            &text[..at],
            text[at..].replacen("version = 1", "version = \"one\"", 1)
        );
        let error = Records::parse(&bad, Path::new(RECORDS_FILE))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with(&format!("records/arxiv.toml:{}: error: expected a records file written by `vellum enrich`, found invalid type", line + 2)), "{error}");
        // A paper's table given twice, in two parts, is the whole file's
        // error, not a silent overwrite.
        let twice = format!("{text}\n[papers.walks-00001]\narxiv = \"1605.08386\"\n");
        let error = Records::parse(&twice, Path::new(RECORDS_FILE))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("records/arxiv.toml:"), "{error}");
        assert!(error.contains("duplicate"), "{error}");
        // Rules that span parts are the whole file's: `[papers]` defined
        // twice, and an inline `papers` table extended by the headers.
        let whole_error = |text: &str| {
            let parsed = toml::from_str::<File>(text).map(|_| ()).unwrap_err();
            let at = parsed.span().unwrap().start;
            format!(":{}: error:", 1 + text[..at].matches('\n').count())
        };
        let inline = "{ arxiv = \"1605.08386\", version = 1, title = \"T\", authors = [\"A B\"], categories = [\"math.CO\"], published = \"2016-05-26\", updated = \"2016-05-26\" }";
        let redefined = format!("[papers]\na = {inline}\n{text}\n[papers]\nb = {inline}\n");
        let extended = format!("papers = {{ a = {inline} }}\n{text}");
        for bad in [redefined, extended] {
            assert!(part_bounds(&bad).len() > 3);
            assert!(!parts_are_safe(&bad));
            let error = Records::parse(&bad, Path::new(RECORDS_FILE))
                .unwrap_err()
                .to_string();
            assert!(error.contains(&whole_error(&bad)), "{error}");
        }
        // Comments, a byte order mark and CRLF line ends before the first
        // table keep the parts.
        assert!(parts_are_safe(&format!("\u{feff}# records\r\n\r\n{text}")));
    }

    #[test]
    fn forbidden_characters_become_u_fffd_with_a_warning_at_their_line() {
        let mut papers = BTreeMap::new();
        let slug = "heat-bath-random-walks-with-markov-bases";
        papers.insert(slug.to_string(), record());
        let text = Records::to_text(&papers)
            .replace("Caprice Stanley", "Caprice\u{1} Stanley")
            .replace("20 pages", "20 \\u0085pages");
        let root = std::env::temp_dir().join(format!("vellum-records-{}", std::process::id()));
        std::fs::create_dir_all(root.join("records")).unwrap();
        std::fs::write(root.join(RECORDS_FILE), &text).unwrap();
        let (records, warnings) = Records::load(&root).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
        let paper = &records.papers[slug];
        assert_eq!(paper.authors[0], "Caprice\u{fffd} Stanley");
        assert_eq!(
            paper.comment.as_deref(),
            Some("20 \u{fffd}pages, 3 figures")
        );
        let warnings: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].starts_with("records/arxiv.toml:10: warning: expected text, found the control character or noncharacter U+0001"), "{warnings:?}");
        assert!(warnings[1].starts_with("records/arxiv.toml:14: warning: expected text, found U+0085, named by an escape, which no page or feed may hold; it is replaced by U+FFFD. For a backslash, as in LaTeX's `\\beta`, write `\\\\beta` or put the value in single quotes"), "{warnings:?}");
    }
}
