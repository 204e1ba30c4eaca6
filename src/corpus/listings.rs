//! The listings as the merge takes them: each file read and parsed
//! ([`crate::input::listing`]) into a [`ParsedListing`] with what the
//! merge derives from each record alone. [`read_all`] reads them in
//! parallel, a chunk at a time, so the raw files are never all in memory.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::input::listing::{self, Listing};
use crate::input::read_file;
use crate::text::Abstract;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use unicode_normalization::UnicodeNormalization;
use xxhash_rust::xxh3::xxh3_64;

/// A listing file handed to [`crate::corpus::Corpus::build`]: its path as shown in
/// messages (relative to the site root), its parsed content and what the
/// merge derives from each record alone. `vellum serve` caches it whole, so
/// an unchanged listing costs the merge no conversion or hashing.
#[derive(Debug, Clone)]
pub struct ParsedListing {
    /// Path for messages, e.g. `seeds/chuan-wu.txt` (shared by the
    /// copies `vellum serve` hands on from build to build).
    pub file: Arc<Path>,
    /// The parsed file, shared with `vellum serve`'s cache.
    pub listing: Arc<Listing>,
    /// One per record, in the listing's order. This and the next are
    /// derived from `listing` alone, and made again with it.
    pub keys: Arc<[RecordKeys]>,
    /// The records whose title reads like an abstract, by position
    /// ([`check_titles`] warns of them on every build, a rebuild of
    /// `vellum serve` without reading every record again).
    pub abstract_like_records: Box<[usize]>,
}

/// What the merge derives from one record alone.
#[derive(Debug, Clone)]
pub struct RecordKeys {
    /// The title's [`paper_identity`]: records with the same one are one paper.
    pub identity: Arc<str>,
    /// [`Abstract::source_hash`] of the abstract's paragraphs, which
    /// records of one paper are compared by.
    pub abstract_hash: u64,
    /// XXH3-64 of the title as listed and of the abstract's first
    /// paragraph: a title equal to a record's first paragraph is that
    /// record's abstract, its own title line missing ([`check_titles`]).
    pub title_hash: u64,
    /// See [`RecordKeys::title_hash`]; `None` without an abstract.
    pub lead_hash: Option<u64>,
}

impl ParsedListing {
    /// `listing`, parsed from `file`, with its records' keys.
    pub fn new(file: PathBuf, listing: Arc<Listing>) -> ParsedListing {
        let identities = listing
            .records
            .iter()
            .map(|record| paper_identity(&record.title).into())
            .collect();
        ParsedListing::with_identities(file, listing, identities)
    }

    /// `listing` with its records' paper identities given, one per record
    /// (BibTeX entries of one work share the first one's,
    /// [`crate::corpus::bibliography`]).
    pub fn with_identities(
        file: PathBuf,
        listing: Arc<Listing>,
        identities: Vec<Arc<str>>,
    ) -> ParsedListing {
        let keys = listing
            .records
            .iter()
            .zip(identities)
            .map(|(record, identity)| RecordKeys {
                identity,
                abstract_hash: Abstract::source_hash(&record.abstract_paragraphs),
                title_hash: xxh3_64(record.title.as_bytes()),
                lead_hash: record
                    .abstract_paragraphs
                    .first()
                    .map(|p| xxh3_64(p.as_bytes())),
            })
            .collect();
        let abstract_like_records = (listing.records.iter().enumerate())
            .filter(|(_, record)| reads_like_an_abstract(&record.title))
            .map(|(at, _)| at)
            .collect();
        ParsedListing {
            file: file.into(),
            listing,
            keys,
            abstract_like_records,
        }
    }

    /// Drops the abstract of every record whose paper `seen` already holds
    /// (by [`RecordKeys::identity`]) and adds the others' identities.
    /// Called on listings in path order, this strips every record but each
    /// paper's first (by file, then position): the one [`crate::corpus::Corpus::build`]
    /// keeps. The merge compares the others by [`RecordKeys::abstract_hash`]
    /// alone, so warnings and output are unchanged. Only for a listing
    /// nothing else holds (a build without `vellum serve`'s cache); others
    /// are left whole.
    pub fn forget_repeated_abstracts(&mut self, seen: &mut FxHashSet<Arc<str>>) {
        let Some(listing) = Arc::get_mut(&mut self.listing) else {
            return;
        };
        for (record, keys) in listing.records.iter_mut().zip(self.keys.iter()) {
            if !seen.insert(Arc::clone(&keys.identity)) {
                record.abstract_paragraphs = Vec::new().into();
            }
        }
    }
}

/// A title this long or longer that equals another record's first
/// abstract paragraph is that record's abstract ([`check_titles`]); a
/// shorter one may equal some paragraph by chance.
const LONG_TITLE: usize = 60;

/// The hashes [`check_titles`] compares, counted over a set of listings
/// and kept up to date as listings come and go: `vellum serve` keeps them
/// for the listings of its last parse, so a rebuild learns whether any
/// title can be another record's abstract from the listings that changed,
/// not from a map of every record's first paragraph.
#[derive(Debug, Default)]
pub struct TitleHashes {
    /// [`RecordKeys::lead_hash`] of every record with an abstract.
    leads: FxHashMap<u64, u32>,
    /// [`RecordKeys::title_hash`] of every record with a long title.
    titles: FxHashMap<u64, u32>,
    /// How many hashes are in both: while none, no title is an abstract.
    shared: usize,
}

impl TitleHashes {
    /// Whether some long title's hash is also a first paragraph's: only
    /// then can [`check_titles`] find a title that is an abstract.
    pub fn may_clash(&self) -> bool {
        self.shared > 0
    }

    /// Counts the listings of `now` that are not in `before` and stops
    /// counting those of `before` not in `now` (a listing is the same when
    /// it shares its parsed file, as the cache hands it on; one held twice
    /// counts twice): one walk of both in path order, reading the records
    /// of the changed listings only. Out of order, the walk counts more
    /// listings out and in again than it needs to, but counts the same.
    pub fn update<'a>(
        &mut self,
        before: impl Iterator<Item = &'a ParsedListing>,
        now: impl Iterator<Item = &'a ParsedListing>,
    ) {
        let (mut before, mut now) = (before.peekable(), now.peekable());
        loop {
            let (b, n) = (before.peek().copied(), now.peek().copied());
            let order = match (b, n) {
                (None, None) => return,
                (Some(b), Some(n)) if Arc::ptr_eq(&b.listing, &n.listing) => {
                    before.next();
                    now.next();
                    continue;
                }
                (Some(b), Some(n)) => b.file.cmp(&n.file),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
            };
            if let (Some(gone), true) = (b, order.is_le()) {
                self.count(gone, false);
                before.next();
            }
            if let (Some(came), true) = (n, order.is_ge()) {
                self.count(came, true);
                now.next();
            }
        }
    }

    fn count(&mut self, parsed: &ParsedListing, add: bool) {
        let records = parsed.listing.records.iter().zip(parsed.keys.iter());
        for (record, keys) in records {
            if let Some(lead) = keys.lead_hash {
                change(&mut self.leads, &self.titles, &mut self.shared, lead, add);
            }
            if record.title.len() >= LONG_TITLE {
                let title = keys.title_hash;
                change(&mut self.titles, &self.leads, &mut self.shared, title, add);
            }
        }
    }
}

/// One more (`add`) or one less of `hash` in `counts`; `shared` follows
/// when `hash` comes into or goes out of `counts` while `other` holds it.
fn change(
    counts: &mut FxHashMap<u64, u32>,
    other: &FxHashMap<u64, u32>,
    shared: &mut usize,
    hash: u64,
    add: bool,
) {
    let in_other = other.contains_key(&hash);
    match (counts.entry(hash), add) {
        (Entry::Occupied(mut held), true) => *held.get_mut() += 1,
        (Entry::Vacant(slot), true) => {
            slot.insert(1);
            *shared += usize::from(in_other);
        }
        (Entry::Occupied(held), false) if *held.get() == 1 => {
            held.remove();
            *shared -= usize::from(in_other);
        }
        (Entry::Occupied(mut held), false) => *held.get_mut() -= 1,
        (Entry::Vacant(_), false) => {}
    }
}

/// Titles that are not titles, in every listing: an error for a title
/// of 60 bytes or more equal to another record's first abstract
/// paragraph (the title line is missing, so the abstract took its place),
/// naming that record; a warning for a title that reads like an abstract
/// (over 300 characters and more than two sentences;
/// [`ParsedListing::abstract_like_records`]). `may_clash` false
/// ([`TitleHashes::may_clash`]) says no long title equals any record's
/// first paragraph, so the first check, linear in the records, is left
/// out, and only the warnings found at parse are given again.
pub fn check_titles(listings: &[ParsedListing], may_clash: bool, diagnostics: &Diagnostics) {
    let leads = may_clash.then(|| {
        let records = listings.iter().map(|parsed| parsed.keys.len()).sum();
        let mut leads: FxHashMap<u64, (usize, usize)> =
            FxHashMap::with_capacity_and_hasher(records, Default::default());
        for (index, parsed) in listings.iter().enumerate() {
            for (record, keys) in parsed.keys.iter().enumerate() {
                if let Some(lead) = keys.lead_hash {
                    leads.entry(lead).or_insert((index, record));
                }
            }
        }
        leads
    });
    listings.par_iter().enumerate().for_each(|(index, parsed)| {
        // The records whose title is another's abstract: an error, and
        // no warning besides.
        let mut abstracts = Vec::new();
        if let Some(leads) = &leads {
            let records = parsed.listing.records.iter().zip(parsed.keys.iter());
            for (position, (record, keys)) in records.enumerate() {
                // A short title may equal some paragraph by chance; a record
                // may open its abstract with its own title.
                let abstract_of = (record.title.len() >= LONG_TITLE)
                    .then(|| leads.get(&keys.title_hash))
                    .flatten()
                    .filter(|&&found| found != (index, position));
                if let Some(&(other, at)) = abstract_of {
                    let (other, other_record) =
                        (&listings[other], &listings[other].listing.records[at]);
                    diagnostics.push(Diagnostic::error(
                        &parsed.file,
                        record.title_line,
                        format!(
                            "expected a title after the record marker at line {}, found the abstract of `{}` ({}:{}); add the title line above it",
                            record.line,
                            other_record.title,
                            other.file.display(),
                            other_record.line
                        ),
                    ));
                    abstracts.push(position);
                }
            }
        }
        for &at in &parsed.abstract_like_records {
            let record = &parsed.listing.records[at];
            if !abstracts.contains(&at) {
                diagnostics.push(Diagnostic::warning(
                    &parsed.file,
                    record.title_line,
                    format!(
                        "expected a title, found {} characters in {} sentences, which reads like an abstract; check that the title line is not missing",
                        record.title.chars().count(),
                        sentences(&record.title)
                    ),
                ));
            }
        }
    });
}

/// Over 300 characters and more than two sentences.
fn reads_like_an_abstract(title: &str) -> bool {
    title.len() > 300 && title.chars().count() > 300 && sentences(title) > 2
}

/// Sentences: each `.`, `?` or `!` followed by a space and an uppercase
/// letter ends one, and the text after the last is one more.
fn sentences(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    1 + chars
        .windows(3)
        .filter(|w| matches!(w[0], '.' | '?' | '!') && w[1] == ' ' && w[2].is_uppercase())
        .count()
}

impl ParsedListing {
    /// The listing in `bytes`, read from `file` (a path for messages).
    /// Errors: the parse error, at its line of `file`, after the warnings
    /// of the forbidden characters the file holds (replaced by U+FFFD, so
    /// the error may quote one: the warnings say where it came from).
    pub fn parse(file: PathBuf, bytes: &[u8]) -> Result<ParsedListing, Vec<Diagnostic>> {
        match listing::parse_noting_forbidden(bytes) {
            Ok(listing) => Ok(ParsedListing::new(file, Arc::new(listing))),
            Err((e, found)) => {
                let mut problems = crate::input::chars::warnings(&file, &found);
                problems.push(Diagnostic::error(&file, e.line(), e.to_string()));
                Err(problems)
            }
        }
    }
}

/// Listing files parsed at once (in parallel) between two passes that
/// strip repeated records ([`ParsedListing::forget_repeated_abstracts`]).
const PARSE_CHUNK: usize = 512;

/// Reads and parses every listing of `paths` (under `root`'s `seeds/`) in
/// parallel, one file's bytes at a time per thread; errors go to
/// `diagnostics`. Files are parsed in path order, `PARSE_CHUNK` at a
/// time, and each record repeating an earlier record's paper loses its
/// abstract ([`ParsedListing::forget_repeated_abstracts`]).
pub fn read_all(paths: &[PathBuf], root: &Path, diagnostics: &Diagnostics) -> Vec<ParsedListing> {
    let dir = root.join("seeds");
    // In path order, a chunk at a time: a record repeating an earlier
    // one's paper gives up its abstract once its chunk is parsed, so the
    // repeats' abstracts (about two thirds of all) never accumulate
    // (measured in 84dde8c).
    let mut sorted: Vec<&PathBuf> = paths.iter().collect();
    sorted.sort();
    let mut seen = FxHashSet::default();
    let mut parsed = Vec::with_capacity(paths.len());
    for chunk in sorted.chunks(PARSE_CHUNK) {
        let start = parsed.len();
        parsed.par_extend(chunk.par_iter().filter_map(|path| {
            let read = read_file(path, &dir, root)
                .map_err(|d| vec![d])
                .and_then(|(_, shown, bytes)| ParsedListing::parse(shown, &bytes));
            read.map_err(|problems| problems.into_iter().for_each(|d| diagnostics.push(d)))
                .ok()
        }));
        for listing in &mut parsed[start..] {
            listing.forget_repeated_abstracts(&mut seen);
        }
    }
    parsed
}

/// LaTeX commands that only format their argument: dropped from identities.
const FORMATTING_COMMANDS: &[&str] = &[
    "textbf",
    "textit",
    "emph",
    "texttt",
    "textsc",
    "textrm",
    "textsf",
    "underline",
    "text",
    "mathrm",
    "mathbf",
    "mathit",
    "mathsf",
    "mathtt",
    "mathcal",
    "mathbb",
    "boldsymbol",
    "url",
];

/// The identity of a title: NFKC, case-folded, formatting commands
/// (`\textbf`), braces, `$` and backslashes removed (other command names,
/// such as `\alpha`, stay as words), punctuation as spaces, whitespace folded.
pub fn paper_identity(title: &str) -> String {
    let normal: String = if title.is_ascii() {
        title.to_ascii_lowercase()
    } else {
        caseless::default_case_fold_str(&title.nfkc().collect::<String>())
    };
    let mut out = String::with_capacity(normal.len());
    let mut chars = normal.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            // A control word (`\alpha`) or a control symbol (`\&`).
            let mut word = String::new();
            while let Some(&next) = chars.peek().filter(|c| c.is_alphabetic()) {
                word.push(next);
                chars.next();
            }
            if word.is_empty() {
                chars.next();
            } else if !FORMATTING_COMMANDS.contains(&word.as_str()) {
                out.push(' ');
                out.push_str(&word);
            }
            out.push(' ');
        } else if c.is_alphanumeric() {
            out.push(c);
        } else {
            out.push(' ');
        }
    }
    crate::text::plain::fold_whitespace(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_that_fails_to_parse_still_warns_of_its_forbidden_characters() {
        let bytes = "Ana Lima\n\nPublications and source records attributed to Ana Lima.\n\n\
                     At least 1 records · Page 1\n\nLinked to original sources\n\narXiv2024\n\n\
                     Fast\u{7f} Graphs\n\nAn abstract.\n\ncs.DS\n\n\u{1}\n";
        let Err(problems) = ParsedListing::parse(PathBuf::from("seeds/ana.txt"), bytes.as_bytes())
        else {
            panic!("expected a parse error");
        };
        let problems: Vec<String> = problems.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            problems,
            [
                "seeds/ana.txt:11: warning: expected text, found the control character or \
                 noncharacter U+007F, which no page or feed may hold; it is replaced by U+FFFD",
                "seeds/ana.txt:17: warning: expected text, found the control character or \
                 noncharacter U+0001, which no page or feed may hold; it is replaced by U+FFFD",
                "seeds/ana.txt:17: error: expected a record marker such as `arXiv2024` or the \
                 end of the file, found `\u{fffd}`",
            ]
        );
    }

    #[test]
    fn title_hashes_count_each_listing_holding_a_hash() {
        let title = "A Study of Graph Partitioning at the Scale of Whole Continents";
        let listing = |name: &str, title: &str, lead: &str| {
            let text = format!(
                "{name}\n\nPublications and source records attributed to {name}.\n\n\
                 At least 1 records \u{b7} Page 1\n\narXiv2019\n\n{title}\n\n{lead}\n\ncs.DS\n"
            );
            ParsedListing::parse(format!("seeds/{name}.txt").into(), text.as_bytes()).unwrap()
        };
        // Two records with the long title, one whose abstract opens with it.
        let ana = listing("Ana", title, "We partition graphs.");
        let mei = listing("Mei", title, "We partition graphs.");
        let bo = listing("Bo", "Short Title", title);
        let mut hashes = TitleHashes::default();
        let none: [&ParsedListing; 0] = [];
        hashes.update(none.iter().copied(), [&ana, &mei].into_iter());
        assert!(!hashes.may_clash());
        hashes.update([&ana, &mei].into_iter(), [&ana, &mei, &bo].into_iter());
        assert!(hashes.may_clash());
        assert_eq!(
            (hashes.leads.len(), hashes.titles.len(), hashes.shared),
            (2, 1, 1)
        );
        hashes.update([&ana, &mei, &bo].into_iter(), [&mei, &bo].into_iter());
        assert!(hashes.may_clash(), "Mei's record still has the title");
        hashes.update([&mei, &bo].into_iter(), [&bo].into_iter());
        assert!(!hashes.may_clash());
        assert_eq!(
            (hashes.leads.len(), hashes.titles.len(), hashes.shared),
            (1, 0, 0)
        );
        // A listing parsed again is another listing, even with equal text.
        let bo_again = listing("Bo", "Short Title", title);
        hashes.update([&bo].into_iter(), [&bo_again].into_iter());
        assert_eq!(
            (
                hashes.leads.len(),
                hashes.leads[&bo.keys[0].lead_hash.unwrap()]
            ),
            (1, 1)
        );
        // One parsed file held twice counts twice, and once when let go once.
        let lead = bo.keys[0].lead_hash.unwrap();
        hashes.update([&bo_again].into_iter(), [&bo_again, &bo_again].into_iter());
        assert_eq!(hashes.leads[&lead], 2);
        hashes.update([&bo_again, &bo_again].into_iter(), [&bo_again].into_iter());
        assert_eq!(hashes.leads[&lead], 1);
    }

    #[test]
    fn identity_ignores_case_punctuation_and_latex() {
        assert_eq!(
            paper_identity("Fast Graphs: A Study"),
            "fast graphs a study"
        );
        assert_eq!(
            paper_identity("Fast graphs - a study"),
            "fast graphs a study"
        );
        assert_eq!(
            paper_identity(r"\textbf{LPZero}: ${\mathrm{MoS}}_{2}$ Ｆｕｌｌ"),
            "lpzero mos 2 full"
        );
        assert_ne!(paper_identity("Zoë"), paper_identity("Zoe"));
        assert_ne!(
            paper_identity(r"$\alpha$-Divergence Training"),
            paper_identity(r"$\beta$-Divergence Training")
        );
        assert_eq!(paper_identity("Straße"), paper_identity("STRASSE"));
    }
}
