//! BibTeX entries ([`crate::input::bibtex`]) as the merge takes them: each
//! entry is a record, filed under every one of its authors who has an
//! author page (one listing-shaped [`ParsedListing`] per `.bib` file and
//! author, plus one with no author for entries none of whose authors has a
//! page), so an entry and a listing record of the same title are one paper,
//! as two listings' records are. What an entry says beyond the record (the
//! complete author list, the citation key, DOI, URL, arXiv identifier,
//! venue) is a [`BibPaper`], applied by [`crate::corpus::overrides`] below
//! a per-paper override and above an arXiv record.
//!
//! Entries of one work (the same arXiv identifier or DOI, whatever their
//! titles) are one paper: a later one takes the first one's title identity.

use crate::corpus::listings::{paper_identity, ParsedListing};
use crate::corpus::NameVariant;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::input::bibtex::{self, BibEntry, BibFile};
use crate::input::config::AuthorPages;
use crate::input::listing::{Listing, Record};
use crate::input::InputFile;
use crate::permalink::slugify;
use crate::text::names::{fold, same_name, NameParts};
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The source name of every entry's record (a listing's is its marker's:
/// `arXiv`, `DBLP`).
pub const SOURCE: &str = "BibTeX";

/// What one entry gives its paper beyond the record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BibPaper {
    /// The `.bib` file, for messages.
    pub file: PathBuf,
    /// 1-based line of the entry.
    pub line: usize,
    /// The entry's citation key, which the paper keeps.
    pub key: String,
    /// The complete author list; `None` when it ends in `and others`.
    pub authors: Option<Vec<String>>,
    /// Authors' names and family names where the entry gives the split
    /// ([`crate::input::bibtex::BibEntry::families`]).
    pub family_names: Vec<(String, String)>,
    /// DOI.
    pub doi: Option<String>,
    /// The `url` field.
    pub url: Option<String>,
    /// arXiv identifier.
    pub arxiv: Option<String>,
    /// Journal or book title.
    pub venue: Option<String>,
}

/// The first entry of each paper, by the paper's title identity.
pub type BibPapers = FxHashMap<Arc<str>, BibPaper>;

/// One `.bib` file's records filed under one author (none: empty), with
/// their papers' identities.
struct Filed {
    file: PathBuf,
    owner: String,
    records: Vec<(Record, Arc<str>)>,
}

impl Filed {
    /// The listing of these records, whose author is their owner.
    fn into_listing(self) -> ParsedListing {
        let Filed {
            file,
            owner,
            records,
        } = self;
        let (records, identities): (Vec<Record>, Vec<Arc<str>>) = records.into_iter().unzip();
        let listing = Listing {
            author: owner,
            author_line: 0,
            count: None,
            records,
            forbidden: Vec::new(),
        };
        ParsedListing::with_identities(file, Arc::new(listing), identities)
    }
}

/// Who of an entry's authors has an author page, and under which name
/// their records are filed (a listing owner's as listed).
struct PageAuthors {
    /// Author slug → the name records are filed under.
    names: FxHashMap<String, String>,
    /// Slugs of authors with a profile (`content/authors/<slug>.md`) not
    /// yet met: the first spelling met is filed.
    profiles: FxHashSet<String>,
    /// Name variants, folded → as declared (the merge files them under
    /// their canonical author).
    variants: FxHashMap<String, String>,
    /// Every author has a page ([`AuthorPages::All`]).
    all: bool,
    /// Listing owners by folded family name, for names written with
    /// initials (`Y. Brun`).
    owners: FxHashMap<String, Vec<String>>,
}

impl PageAuthors {
    /// The authors with pages: the owners of `listings`, the name
    /// `variants`, the authors with a profile (`profiles`, their slugs)
    /// and, with [`AuthorPages::All`], every author.
    fn new(
        listings: &[ParsedListing],
        variants: &[NameVariant],
        profiles: impl Iterator<Item = String>,
        pages: AuthorPages,
    ) -> PageAuthors {
        let mut authors = PageAuthors {
            names: listings
                .iter()
                .map(|l| (slugify(&l.listing.author), l.listing.author.clone()))
                .collect(),
            profiles: profiles.collect(),
            variants: variants
                .iter()
                .map(|v| (fold(&v.variant), v.variant.clone()))
                .collect(),
            all: pages == AuthorPages::All,
            owners: FxHashMap::default(),
        };
        for parsed in listings {
            let owner = &parsed.listing.author;
            let same = authors.owners.entry(family_key(owner)).or_default();
            if !same.contains(owner) {
                same.push(owner.clone());
            }
        }
        authors
    }

    /// The name to file `name`'s records under, or `None` when `name` has
    /// no author page.
    fn owner(&mut self, name: &str) -> Option<String> {
        if let Some(variant) = self.variants.get(&fold(name)) {
            return Some(variant.clone());
        }
        let slug = slugify(name);
        if let Some(known) = self.names.get(&slug) {
            return Some(known.clone());
        }
        let family = family_key(name);
        let mut can = self.owners.get(&family).into_iter().flatten();
        let can: Vec<&String> = can
            .by_ref()
            .filter(|o| same_name(o, name).is_some())
            .take(2)
            .collect();
        if let [only] = can[..] {
            return Some(only.clone());
        }
        if self.all || self.profiles.remove(&slug) {
            self.names.insert(slug, name.to_string());
            return Some(name.to_string());
        }
        None
    }
}

/// Parses every `.bib` file of `files` in parallel, each file's bytes
/// dropped once it is parsed; errors and warnings go to `diagnostics`.
pub fn read_all(files: Vec<InputFile>, diagnostics: &Diagnostics) -> Vec<BibFile> {
    files
        .into_par_iter()
        .filter_map(|(_, shown, bytes)| match bibtex::read(bytes, &shown) {
            Ok(mut bib) => {
                for warning in std::mem::take(&mut bib.warnings) {
                    diagnostics.push(warning);
                }
                Some(bib)
            }
            Err(error) => {
                diagnostics.push(error);
                None
            }
        })
        .collect()
}

/// The records of `files` as listings, after the parsed `listings` (whose
/// owners have pages), with what each paper's first entry gives it. Which
/// authors have pages: the listing owners, the name variants, the authors
/// with a profile (`profiles`, their slugs) and, with
/// [`AuthorPages::All`], every author.
///
/// Memory: an entry filed under several authors is one record each, and
/// only the paper's first record (the one the merge keeps) holds the
/// abstract, the first one any entry of the paper gives.
pub fn listings(
    files: Vec<BibFile>,
    listings: &[ParsedListing],
    variants: &[NameVariant],
    profiles: impl Iterator<Item = String>,
    pages: AuthorPages,
    diagnostics: &Diagnostics,
) -> (Vec<ParsedListing>, BibPapers) {
    // The listings' authors are gathered for the entries' owners: without
    // a BibTeX file, not at all, so a `vellum serve` rebuild of a site
    // without one does not pay for them (measured in 7a9876a).
    if files.is_empty() {
        return (Vec::new(), BibPapers::default());
    }
    let mut filing = Filing {
        authors: PageAuthors::new(listings, variants, profiles, pages),
        work_of: FxHashMap::default(),
        papers: BibPapers::default(),
    };
    // In the merge's order.
    let mut made: Vec<Filed> = Vec::new();
    for file in files {
        let count = file.entries.len();
        let by_owner = filing.by_owner(file.entries, &file.file);
        if count > 0 && by_owner.keys().all(String::is_empty) {
            diagnostics.push(Diagnostic::warning(
                &file.file,
                0,
                format!(
                    "expected an author with an author page among the file's {}, found none, so they are on no author's page; \
                     add a listing or a profile content/authors/<slug>.md for the site's authors, or set `author_pages = \"all\"` in site.toml",
                    crate::diagnostics::counted(count, "entry", "entries")
                ),
            ));
        }
        for (owner, records) in by_owner {
            made.push(Filed {
                file: file.file.clone(),
                owner,
                records,
            });
        }
    }
    keep_first_abstracts(&mut made);
    let made = made.into_iter().map(Filed::into_listing).collect();
    (made, filing.papers)
}

/// What filing the entries of every file builds up.
struct Filing {
    authors: PageAuthors,
    /// The title identity of the first entry with each arXiv id and DOI.
    work_of: FxHashMap<String, Arc<str>>,
    /// What each paper's first entry gives it.
    papers: BibPapers,
}

impl Filing {
    /// The records of one file's `entries` (of `file`) by owner (empty:
    /// none), each with its paper's identity, in file order: an entry is
    /// filed under each of its authors who has a page, only the first of
    /// its records holding its abstract.
    fn by_owner(
        &mut self,
        entries: Vec<BibEntry>,
        file: &std::path::Path,
    ) -> BTreeMap<String, Vec<(Record, Arc<str>)>> {
        let Filing {
            authors,
            work_of,
            papers,
        } = self;
        let mut by_owner: BTreeMap<String, Vec<(Record, Arc<str>)>> = BTreeMap::new();
        for entry in entries {
            let ids = [
                entry
                    .arxiv
                    .as_deref()
                    .map(|id| format!("arxiv:{}", bare_arxiv(id))),
                entry
                    .doi
                    .as_deref()
                    .map(|doi| format!("doi:{}", doi.to_lowercase())),
            ];
            let own: Arc<str> = paper_identity(&entry.title).into();
            let identity = ids
                .iter()
                .flatten()
                .find_map(|id| work_of.get(id).cloned())
                .unwrap_or(own);
            for id in ids.into_iter().flatten() {
                work_of.entry(id).or_insert_with(|| Arc::clone(&identity));
            }
            papers
                .entry(Arc::clone(&identity))
                .or_insert_with(|| bib_paper(file, &entry));
            let mut owners: Vec<String> = entry
                .authors
                .iter()
                .filter_map(|name| authors.owner(name))
                .collect();
            owners.sort_unstable();
            owners.dedup();
            if owners.is_empty() {
                owners.push(String::new());
            }
            let mut record = record(entry);
            // The first owner's record, first in the merge's order, holds it.
            let mut paragraphs = Some(std::mem::replace(
                &mut record.abstract_paragraphs,
                Vec::new().into(),
            ));
            for owner in owners {
                let records = by_owner.entry(owner).or_default();
                let position = records.len();
                let copy = Record {
                    position,
                    abstract_paragraphs: paragraphs.take().unwrap_or_else(|| Vec::new().into()),
                    ..record.clone()
                };
                records.push((copy, Arc::clone(&identity)));
            }
        }
        by_owner
    }
}

/// Leaves each paper's abstract in its first record only, moving the first
/// abstract any of its records holds there.
fn keep_first_abstracts(made: &mut [Filed]) {
    let mut first: FxHashMap<Arc<str>, (usize, usize)> = FxHashMap::default();
    for listing in 0..made.len() {
        for record in 0..made[listing].records.len() {
            let (filed, identity) = &mut made[listing].records[record];
            let identity = Arc::clone(identity);
            let paragraphs = std::mem::replace(&mut filed.abstract_paragraphs, Vec::new().into());
            let (at_listing, at_record) = *first.entry(identity).or_insert((listing, record));
            let kept = &mut made[at_listing].records[at_record].0.abstract_paragraphs;
            if kept.is_empty() {
                *kept = paragraphs;
            }
        }
    }
}

/// The key owners are looked up by: the family name, folded.
fn family_key(name: &str) -> String {
    fold(&NameParts::split(name).family).replace(' ', "")
}

/// `1605.08386v2` → `1605.08386`.
fn bare_arxiv(id: &str) -> &str {
    id.rsplit_once('v')
        .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map_or(id, |(bare, _)| bare)
}

/// The record of `entry`, its position in its listing still to be set.
fn record(entry: BibEntry) -> Record {
    Record {
        source: SOURCE.to_string(),
        year: entry.year.unwrap_or(crate::corpus::UNDATED),
        line: entry.line,
        position: 0,
        title: entry.title,
        title_line: entry.line,
        abstract_paragraphs: entry.abstract_paragraphs.into(),
        abstract_line: entry.line,
        categories: entry.primary_class.into_iter().collect(),
    }
}

/// What `entry` of `file` gives its paper.
fn bib_paper(file: &std::path::Path, entry: &BibEntry) -> BibPaper {
    BibPaper {
        file: file.to_path_buf(),
        line: entry.line,
        key: entry.key.clone(),
        authors: (!entry.more_authors).then(|| entry.authors.clone()),
        family_names: entry
            .authors
            .iter()
            .zip(&entry.families)
            .filter_map(|(name, family)| Some((name.clone(), family.clone()?)))
            .collect(),
        doi: entry.doi.clone(),
        url: entry.url.clone(),
        arxiv: entry.arxiv.clone(),
        venue: entry.venue.clone(),
    }
}
