//! Parses one publication listing file (the "seed" format, see
//! `docs/listing-format.md`) into a [`Listing`]: the listed author, the
//! optional count line and the records in file order.
//!
//! The parser works on bytes so it can report invalid UTF-8 with a line
//! number, never panics, and stops at the first error of a file with a
//! [`ListingError`] carrying the 1-based line. It hands [`Listing`]s on to
//! [`crate::corpus::listings`], which the merge takes.

use crate::corpus::categories::Taxonomy;
use std::fmt;
use std::sync::Arc;
use unicode_normalization::UnicodeNormalization;

/// The optional banner line some exports start with.
const BANNER: &str = "arXiv subjects";
/// Prefix of the attribution line; the author's name and a full stop follow.
const ATTRIBUTION_PREFIX: &str = "Publications and source records attributed to ";
/// Trailer glued to the count line in real exports, or standing alone.
const LINKED_TRAILER: &str = "Linked to original sources";
/// Marker that may follow a category line (U+2197 NORTH EAST ARROW).
const CATEGORY_ARROW: char = '↗';
/// Valid record years, inclusive; fixed, independent of today's date.
pub const YEARS: std::ops::RangeInclusive<u16> = 1900..=2100;

/// One parsed listing file: one page of one author's publication list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The listed author's name, NFC-normalised with whitespace folded.
    pub author: String,
    /// 1-based line of the author's name.
    pub author_line: usize,
    /// The count line, when present.
    pub count: Option<CountLine>,
    /// The records in file order.
    pub records: Vec<Record>,
    /// Characters no page may hold ([`crate::input::chars`]), each
    /// replaced by U+FFFD before parsing, by line; the build warns of them.
    pub forbidden: crate::input::chars::Found,
}

/// `At least N records · Page K`: the author's total across all pages and
/// this file's page number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CountLine {
    /// `N`: the author's total number of records, across all pages.
    pub total: u32,
    /// `K`: this file's page, 1-based.
    pub page: u32,
    /// 1-based line of the count line.
    pub line: usize,
}

/// One record: a work as listed on this page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Source name from the record marker (`arXiv`, `DBLP`, `bioRxiv`).
    pub source: String,
    /// Year from the record marker, within [`YEARS`].
    pub year: u16,
    /// 1-based line of the record marker.
    pub line: usize,
    /// 0-based position of the record within its file.
    pub position: usize,
    /// The title block, lines joined with single spaces; LaTeX kept verbatim.
    pub title: String,
    /// 1-based line of the title block.
    pub title_line: usize,
    /// Abstract paragraphs (zero or more blocks), each with lines joined;
    /// shared by the records of one paper in `vellum serve`'s cache
    /// ([`crate::serve::cache`]).
    pub abstract_paragraphs: Arc<[String]>,
    /// 1-based line of the first abstract paragraph (the marker's when
    /// there is none).
    pub abstract_line: usize,
    /// Category codes as written: the first is the primary category.
    pub categories: Vec<String>,
}

/// Why a listing file was rejected. Each error carries the 1-based line it
/// points at; its `Display` reads `expected ..., found ...`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListingError {
    /// The file is not UTF-8; `line` holds the first invalid byte.
    #[error("expected UTF-8 text, found the byte 0x{byte:02X}, which is not UTF-8; save the file as UTF-8")]
    InvalidUtf8 {
        /// Line of the first invalid byte.
        line: usize,
        /// The first invalid byte.
        byte: u8,
    },
    /// A block before the first record marker that is one written wrongly:
    /// `arXiv 2022` (a space before the year) or `arXiv` alone.
    #[error("expected a record marker such as `arXiv2024` (the year right after the source, with no space), found `{found}`")]
    MarkerShape {
        /// Line of the block.
        line: usize,
        /// The block, shortened.
        found: String,
    },
    /// No line of the file is a record marker.
    #[error("expected a record marker such as `arXiv2024`, found none in the file")]
    NoRecordMarker {
        /// Always 1.
        line: usize,
    },
    /// The first block (after the optional banner) is a record marker, the
    /// attribution line or the count line rather than a name.
    #[error("expected the author's name as the first block, found `{found}`")]
    NoAuthor {
        /// Line of the block.
        line: usize,
        /// The block, shortened.
        found: String,
    },
    /// The attribution line names somebody other than the listed author.
    #[error("expected the attribution line to name `{expected}`, found `{found}`")]
    WrongAttribution {
        /// Line of the attribution.
        line: usize,
        /// The listed author.
        expected: String,
        /// The name the attribution gives.
        found: String,
    },
    /// A header block that is neither attribution nor count line.
    #[error("expected the attribution line, the count line or a record marker, found `{found}`")]
    UnexpectedHeader {
        /// Line of the block.
        line: usize,
        /// The block, shortened.
        found: String,
    },
    /// A marker-shaped line whose year is not four digits or not in 1900–2100.
    #[error("expected a year from 1900 to 2100 in the record marker, found `{found}`")]
    BadYear {
        /// Line of the marker.
        line: usize,
        /// The marker text.
        found: String,
    },
    /// A marker followed by a category line, another marker or the end of file.
    #[error("expected a title after the record marker, found {found}")]
    NoTitle {
        /// Line of the marker.
        line: usize,
        /// What followed instead.
        found: String,
    },
    /// A record with no category line before the next marker or the end.
    #[error("expected a category line ending the record at line {line}, found {found}")]
    NoCategory {
        /// Line of the record's marker.
        line: usize,
        /// What came instead (`the next marker (line N)` or `the end of the file`).
        found: String,
    },
    /// A block after a record's category line that is not a record marker.
    #[error(
        "expected a record marker such as `arXiv2024` or the end of the file, found `{found}`"
    )]
    ExpectedMarker {
        /// Line of the block.
        line: usize,
        /// The block, shortened.
        found: String,
    },
}

impl ListingError {
    /// The 1-based line this error points at.
    pub fn line(&self) -> usize {
        match self {
            ListingError::InvalidUtf8 { line, .. }
            | ListingError::NoRecordMarker { line }
            | ListingError::MarkerShape { line, .. }
            | ListingError::NoAuthor { line, .. }
            | ListingError::WrongAttribution { line, .. }
            | ListingError::UnexpectedHeader { line, .. }
            | ListingError::BadYear { line, .. }
            | ListingError::NoTitle { line, .. }
            | ListingError::NoCategory { line, .. }
            | ListingError::ExpectedMarker { line, .. } => *line,
        }
    }
}

/// A block: consecutive non-blank lines joined with single spaces.
#[derive(Debug)]
struct Block {
    /// 1-based line of the block's first line.
    line: usize,
    text: String,
}

/// What a block is, as far as the record grammar can tell on its own.
#[derive(Debug, PartialEq, Eq)]
enum BlockKind {
    /// A valid record marker: source and year.
    Marker(String, u16),
    /// Marker-shaped but with a bad year (`arXiv20245`, `arXiv1850`).
    BadMarker,
    /// Every token is a category code.
    Categories(Vec<String>),
    Text,
}

/// Whether `path` names a listing file: `*.txt`, in any case (`seeds/WU.TXT`).
pub fn is_listing(path: &std::path::Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("txt"))
}

/// Parses one listing file.
///
/// Input: the file's bytes (UTF-8, an optional BOM, LF or CRLF line endings).
/// Output: the [`Listing`], or the first [`ListingError`] in file order, which
/// carries its 1-based line. Never panics, whatever the bytes.
pub fn parse(bytes: &[u8]) -> Result<Listing, ListingError> {
    parse_noting_forbidden(bytes).map_err(|(error, _)| error)
}

/// As [`parse`], and a failure also gives the forbidden characters found
/// before it (replaced by U+FFFD, so the error may quote one), to be
/// warned of with the error.
pub fn parse_noting_forbidden(
    bytes: &[u8],
) -> Result<Listing, (ListingError, crate::input::chars::Found)> {
    let text = decode(bytes).map_err(|error| (error, Vec::new()))?;
    let text = crate::input::chars::line_feeds(text);
    let (text, forbidden) = crate::input::chars::replace_forbidden(&text);
    match parse_text(&text) {
        Ok(listing) => Ok(Listing {
            forbidden,
            ..listing
        }),
        Err(error) => Err((error, forbidden)),
    }
}

/// The listing in `text` (line feeds only, no forbidden characters), its
/// `forbidden` empty.
fn parse_text(text: &str) -> Result<Listing, ListingError> {
    let blocks = split_blocks(text);
    let kinds: Vec<BlockKind> = blocks.iter().map(|b| classify(&b.text)).collect();
    let first_marker = kinds
        .iter()
        .position(|k| matches!(k, BlockKind::Marker(..) | BlockKind::BadMarker));
    // A marker written wrongly before the first one (or with none) is what
    // the user meant as a marker: said so at its line.
    let before = first_marker.unwrap_or(blocks.len());
    if let Some(block) = blocks[..before].iter().find(|b| is_near_marker(&b.text)) {
        return Err(ListingError::MarkerShape {
            line: block.line,
            found: block.text.chars().take(60).collect(),
        });
    }
    let Some(first_marker) = first_marker else {
        return Err(ListingError::NoRecordMarker { line: 1 });
    };
    let header = parse_header(&blocks[..first_marker], &blocks[first_marker])?;
    let records = parse_records(&blocks[first_marker..], &kinds[first_marker..])?;
    Ok(Listing {
        author: header.author,
        author_line: header.author_line,
        count: header.count,
        records,
        forbidden: Vec::new(),
    })
}

/// Checks UTF-8 and strips a BOM. Errors: [`ListingError::InvalidUtf8`] with
/// the line of the first invalid byte.
fn decode(bytes: &[u8]) -> Result<&str, ListingError> {
    let text = std::str::from_utf8(bytes).map_err(|e| ListingError::InvalidUtf8 {
        line: crate::input::chars::line_after(&bytes[..e.valid_up_to()]),
        byte: bytes[e.valid_up_to()],
    })?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text))
}

/// Splits text into blocks separated by blank lines (only spaces or tabs);
/// lines are trimmed (which also drops the `\r` of CRLF) and joined with one space.
fn split_blocks(text: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            blocks.extend(current.take());
            continue;
        }
        match current.as_mut() {
            Some(block) => {
                block.text.push(' ');
                block.text.push_str(line);
            }
            None => {
                current = Some(Block {
                    line: index + 1,
                    text: line.to_string(),
                })
            }
        }
    }
    blocks.extend(current);
    blocks
}

fn classify(text: &str) -> BlockKind {
    if let Some(kind) = classify_marker(text) {
        return kind;
    }
    match parse_category_line(text) {
        Some(codes) => BlockKind::Categories(codes),
        None => BlockKind::Text,
    }
}

/// Whether `text` is a record marker written wrongly: `arXiv` alone, or a
/// source word, a space and four digits (`arXiv 2022`).
fn is_near_marker(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let (Some(source), year, None) = (words.next(), words.next(), words.next()) else {
        return false;
    };
    match year {
        None => source.eq_ignore_ascii_case("arxiv"),
        Some(year) => {
            source.chars().all(|c| c.is_ascii_alphabetic())
                && year.len() == 4
                && year.bytes().all(|b| b.is_ascii_digit())
        }
    }
}

/// `^[A-Za-z][A-Za-z.-]*(\d{4})$` is a marker; the same shape with three or
/// more digits that are not a year in [`YEARS`] is a bad marker.
fn classify_marker(text: &str) -> Option<BlockKind> {
    let digits_at = text.find(|c: char| c.is_ascii_digit())?;
    let (source, digits) = text.split_at(digits_at);
    let mut source_chars = source.chars();
    let source_ok = source_chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && source_chars.all(|c| c.is_ascii_alphabetic() || c == '.' || c == '-');
    if !source_ok || digits.len() < 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match digits.parse::<u16>() {
        Ok(year) if digits.len() == 4 && YEARS.contains(&year) => {
            Some(BlockKind::Marker(source.to_string(), year))
        }
        _ => Some(BlockKind::BadMarker),
    }
}

/// Returns the codes when every token of `text` is a category code
/// (`^[a-z][a-z-]*(\.[A-Za-z][A-Za-z-]*)?$`), tokens being separated by
/// whitespace, `;` or `,`, each optionally followed by `↗`, and at least one
/// token has a dot (`cs.DC`) or is an arXiv code or archive (`quant-ph`).
/// The last condition keeps lowercase prose (`see the appendix`) as text.
fn parse_category_line(text: &str) -> Option<Vec<String>> {
    let tokens = || {
        text.split(|c: char| c.is_whitespace() || c == ';' || c == ',')
            .map(|t| t.trim_end_matches(CATEGORY_ARROW))
            .filter(|t| !t.is_empty())
    };
    // Checked before anything is allocated: most blocks are prose.
    if tokens().next().is_none() || !tokens().all(is_category_code) {
        return None;
    }
    let taxonomy = Taxonomy::arxiv();
    tokens()
        .any(|c| c.contains('.') || taxonomy.is_known(c))
        .then(|| tokens().map(str::to_string).collect())
}

/// `^[a-z][a-z-]*(\.[A-Za-z][A-Za-z-]*)?$`
pub fn is_category_code(token: &str) -> bool {
    let (archive, subject) = match token.split_once('.') {
        Some((a, s)) => (a, Some(s)),
        None => (token, None),
    };
    let archive_ok = archive
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase())
        && archive.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
    let subject_ok = subject.is_none_or(|s| {
        s.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && s.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
    });
    archive_ok && subject_ok
}

struct Header {
    author: String,
    author_line: usize,
    count: Option<CountLine>,
}

/// Parses the blocks before the first marker: optional banner, the author's
/// name, then the attribution, the count line and the `Linked to original
/// sources` trailer, each optional.
fn parse_header(blocks: &[Block], first_marker: &Block) -> Result<Header, ListingError> {
    let mut rest = blocks.iter().skip_while(|b| b.text == BANNER);
    let Some(name_block) = rest.next() else {
        return Err(ListingError::NoAuthor {
            line: first_marker.line,
            found: shorten(&first_marker.text),
        });
    };
    if name_block.text.starts_with(ATTRIBUTION_PREFIX)
        || parse_count_line(&name_block.text, name_block.line).is_some()
    {
        return Err(ListingError::NoAuthor {
            line: name_block.line,
            found: shorten(&name_block.text),
        });
    }
    let author = normalise_name(&name_block.text);
    let mut count = None;
    for block in rest {
        if let Some(named) = block.text.strip_prefix(ATTRIBUTION_PREFIX) {
            let named = normalise_name(named.strip_suffix('.').unwrap_or(named));
            if named != author {
                return Err(ListingError::WrongAttribution {
                    line: block.line,
                    expected: author,
                    found: named,
                });
            }
        } else if let Some(parsed) = parse_count_line(&block.text, block.line) {
            count = Some(parsed);
        } else if block.text != LINKED_TRAILER {
            return Err(ListingError::UnexpectedHeader {
                line: block.line,
                found: shorten(&block.text),
            });
        }
    }
    Ok(Header {
        author,
        author_line: name_block.line,
        count,
    })
}

/// `At least N records · Page K`, optionally glued to `Linked to original sources`.
fn parse_count_line(text: &str, line: usize) -> Option<CountLine> {
    let text = text.strip_suffix(LINKED_TRAILER).unwrap_or(text).trim();
    let rest = text.strip_prefix("At least ")?;
    let (total, rest) = rest.split_once(' ')?;
    let rest = rest
        .strip_prefix("records")
        .or_else(|| rest.strip_prefix("record"))?;
    let page = rest
        .trim()
        .strip_prefix('·')?
        .trim()
        .strip_prefix("Page ")?;
    Some(CountLine {
        total: total.parse().ok()?,
        page: page.trim().parse().ok()?,
        line,
    })
}

/// Parses records from the first marker on. `blocks[0]` is a marker or a bad marker.
/// Whether a title shows as nothing: only braces, dollars, backslashes and
/// spaces (`}`, `{}`, `$$`).
fn shows_nothing(title: &str) -> bool {
    title
        .chars()
        .all(|c| matches!(c, '{' | '}' | '$' | '\\' | '~') || c.is_whitespace())
}

fn parse_records(blocks: &[Block], kinds: &[BlockKind]) -> Result<Vec<Record>, ListingError> {
    let mut records = Vec::new();
    let mut i = 0;
    while i < blocks.len() {
        let marker = &blocks[i];
        let (source, year) = match &kinds[i] {
            BlockKind::Marker(source, year) => (source.clone(), *year),
            BlockKind::BadMarker => {
                return Err(ListingError::BadYear {
                    line: marker.line,
                    found: marker.text.clone(),
                })
            }
            _ => {
                return Err(ListingError::ExpectedMarker {
                    line: marker.line,
                    found: shorten(&marker.text),
                })
            }
        };
        let (title, title_line) = match (blocks.get(i + 1), kinds.get(i + 1)) {
            (Some(block), Some(BlockKind::Text)) if shows_nothing(&block.text) => {
                return Err(ListingError::NoTitle {
                    line: block.line,
                    found: format!("`{}`, which shows as nothing", shorten(&block.text)),
                })
            }
            (Some(block), Some(BlockKind::Text)) => (block.text.clone(), block.line),
            (_, Some(BlockKind::Categories(_))) => {
                return Err(ListingError::NoTitle {
                    line: marker.line,
                    found: "a category line".to_string(),
                })
            }
            (Some(block), Some(_)) => {
                return Err(ListingError::NoTitle {
                    line: marker.line,
                    found: format!("the record marker at line {}", block.line),
                })
            }
            _ => {
                return Err(ListingError::NoTitle {
                    line: marker.line,
                    found: "the end of the file".to_string(),
                })
            }
        };
        let mut j = i + 2;
        let mut abstract_paragraphs = Vec::new();
        let abstract_line = match (blocks.get(j), kinds.get(j)) {
            (Some(block), Some(BlockKind::Text)) => block.line,
            _ => marker.line,
        };
        let categories = loop {
            match (blocks.get(j), kinds.get(j)) {
                (Some(block), Some(BlockKind::Text)) => {
                    abstract_paragraphs.push(block.text.clone())
                }
                (Some(_), Some(BlockKind::Categories(codes))) => break codes.clone(),
                (Some(block), Some(BlockKind::BadMarker)) => {
                    return Err(ListingError::BadYear {
                        line: block.line,
                        found: block.text.clone(),
                    })
                }
                (next, _) => {
                    let found = match next {
                        Some(block) => format!("the next marker (line {})", block.line),
                        None => "the end of the file".to_string(),
                    };
                    return Err(ListingError::NoCategory {
                        line: marker.line,
                        found: format!("{found}{}", code_shaped_hint(&blocks[i + 2..j])),
                    });
                }
            }
            j += 1;
        };
        records.push(Record {
            source,
            year,
            line: marker.line,
            position: records.len(),
            title,
            title_line,
            abstract_paragraphs: abstract_paragraphs.into(),
            abstract_line,
            categories,
        });
        i = j + 1;
    }
    Ok(records)
}

/// When the record's last block has only code-shaped tokens but none with
/// a dot or known to arXiv (`cs-dc`), says so: it is the likely culprit.
fn code_shaped_hint(abstract_blocks: &[Block]) -> String {
    match abstract_blocks.last() {
        Some(block)
            if block
                .text
                .split(|c: char| c.is_whitespace() || c == ';' || c == ',')
                .map(|t| t.trim_end_matches(CATEGORY_ARROW))
                .filter(|t| !t.is_empty())
                .all(is_category_code) =>
        {
            format!(
                "; `{}` at line {} is not read as a category line because it names no arXiv code",
                shorten(&block.text),
                block.line
            )
        }
        _ => String::new(),
    }
}

/// NFC normalisation and whitespace folding: the identity of an author name.
pub fn normalise_name(name: &str) -> String {
    crate::text::plain::one_line(name).nfc().collect()
}

/// The first 60 characters of a block, for error messages.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

impl fmt::Display for CountLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "At least {} records · Page {}", self.total, self.page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(body: &str) -> String {
        format!("arXiv subjects\n\nAna Lima\n\nPublications and source records attributed to Ana Lima.\n\nAt least 2 records · Page 1Linked to original sources\n\n{body}")
    }

    #[test]
    fn markers_and_bad_markers() {
        assert_eq!(
            classify_marker("arXiv2024"),
            Some(BlockKind::Marker("arXiv".into(), 2024))
        );
        assert_eq!(
            classify_marker("physics.data-an1999"),
            Some(BlockKind::Marker("physics.data-an".into(), 1999))
        );
        assert_eq!(classify_marker("arXiv20245"), Some(BlockKind::BadMarker));
        assert_eq!(classify_marker("arXiv1850"), Some(BlockKind::BadMarker));
        assert_eq!(classify_marker("arXiv2101"), Some(BlockKind::BadMarker));
        assert_eq!(classify_marker("GPT4"), None);
        assert_eq!(classify_marker("Word2Vec"), None);
        assert_eq!(classify_marker("2024"), None);
        assert_eq!(classify_marker("arXiv 2024"), None);
    }

    #[test]
    fn category_lines() {
        assert_eq!(
            parse_category_line("cs.LG cs.DC; stat.ML"),
            Some(vec!["cs.LG".into(), "cs.DC".into(), "stat.ML".into()])
        );
        assert_eq!(parse_category_line("cs.DC↗"), Some(vec!["cs.DC".into()]));
        assert_eq!(
            parse_category_line("physics.comp-ph, quant-ph ↗"),
            Some(vec!["physics.comp-ph".into(), "quant-ph".into()])
        );
        assert_eq!(parse_category_line("cs.DC is great."), None);
        assert_eq!(parse_category_line("see the appendix"), None);
        assert_eq!(
            parse_category_line("quant-ph"),
            Some(vec!["quant-ph".into()])
        );
        assert_eq!(parse_category_line("Cs.DC"), None);
        assert_eq!(parse_category_line("↗"), None);
    }

    #[test]
    fn count_line_glued_or_alone() {
        let c = parse_count_line("At least 55 records · Page 3Linked to original sources", 7);
        assert_eq!(
            c,
            Some(CountLine {
                total: 55,
                page: 3,
                line: 7
            })
        );
        assert_eq!(
            parse_count_line("At least 1 records · Page 1", 1).map(|c| c.total),
            Some(1)
        );
        assert_eq!(parse_count_line("At most 1 records · Page 1", 1), None);
    }

    #[test]
    fn record_with_paragraphs_and_secondary_categories() {
        let text = listing("arXiv2021\n\nA Title\non two lines\n\nOne.\n\nTwo.\n\ncs.LG cs.DC↗\n");
        let parsed = parse(text.as_bytes()).unwrap();
        assert_eq!(parsed.author, "Ana Lima");
        assert_eq!(parsed.author_line, 3);
        assert_eq!(parsed.records.len(), 1);
        let r = &parsed.records[0];
        assert_eq!((r.source.as_str(), r.year, r.line), ("arXiv", 2021, 9));
        assert_eq!(r.title, "A Title on two lines");
        assert_eq!(*r.abstract_paragraphs, ["One.", "Two."]);
        assert_eq!(r.categories, vec!["cs.LG", "cs.DC"]);
    }

    #[test]
    fn errors_carry_lines() {
        // A marker written wrongly is named as one, at its line, also in a
        // file with no right one.
        for (marker, shown) in [("arXiv 2022", "arXiv 2022"), ("arxiv", "arxiv")] {
            let spaced = listing(&format!("{marker}\n\nT\n\ncs.LG\n"));
            let err = parse(spaced.as_bytes()).unwrap_err();
            assert_eq!(err.line(), 9);
            assert_eq!(
                err.to_string(),
                format!("expected a record marker such as `arXiv2024` (the year right after the source, with no space), found `{shown}`")
            );
        }
        let no_title = listing("arXiv2020\n\ncs.LG↗\n");
        assert_eq!(parse(no_title.as_bytes()).unwrap_err().line(), 9);
        let unknown = listing("arXiv2020\n\nT\n\ncs-dc\n");
        assert_eq!(
            parse(unknown.as_bytes()).unwrap_err().to_string(),
            "expected a category line ending the record at line 9, found the end of the file; `cs-dc` at line 13 is not read as a category line because it names no arXiv code"
        );
        let trailing = listing("arXiv2020\n\nT\n\ncs.LG↗\n\nstray text\n");
        let err = parse(trailing.as_bytes()).unwrap_err();
        assert_eq!(err.line(), 15);
        assert!(err.to_string().starts_with("expected a record marker"));
        let only_marker = "arXiv2020\n\nT\n\ncs.LG\n";
        assert!(matches!(
            parse(only_marker.as_bytes()),
            Err(ListingError::NoAuthor { line: 1, .. })
        ));
        let no_name =
            "Publications and source records attributed to Cy Dee.\n\narXiv2020\n\nT\n\ncs.LG\n";
        assert!(matches!(
            parse(no_name.as_bytes()),
            Err(ListingError::NoAuthor { line: 1, .. })
        ));
        assert_eq!(
            parse(b"a\n\xff\n").unwrap_err(),
            ListingError::InvalidUtf8 {
                line: 2,
                byte: 0xff
            }
        );
        assert_eq!(
            parse(b"a\n\xff\n").unwrap_err().to_string(),
            "expected UTF-8 text, found the byte 0xFF, which is not UTF-8; save the file as UTF-8"
        );
    }
}
