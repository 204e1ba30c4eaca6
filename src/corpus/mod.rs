//! Stage 2, corpus: parsed listings merged into one frozen [`Corpus`].
//!
//! Takes the listings ([`listings`]), the arXiv taxonomy ([`categories`]),
//! the name variants and the per-paper overrides; hands on one
//! `Arc<Corpus>` that every later stage reads and none changes: papers,
//! authors, years and categories, linked by index. [`merge`] makes it,
//! [`overrides`] corrects it, [`keys`] gives each paper its citation key,
//! [`stats`] counts what term pages show.
//!
//! Identity rules (see `docs/listing-format.md`): one [`Author`] per name
//! after NFC normalisation and whitespace folding; one [`Paper`] per title
//! after NFKC normalisation, case folding, removal of LaTeX markup and
//! punctuation, and whitespace folding, so a paper listed by several
//! co-authors is one paper with several authors. When records of one paper
//! disagree (year, categories, abstract), the record from the first file
//! (by path) and position wins, and a warning names both places.
//!
//! Ordering: [`Corpus::papers`] is in the global order (year descending,
//! then title by [`crate::text::names::fold`]), so paper ids compare in that
//! order and every term's list is simply its ids ascending. An author's own
//! list keeps listing order (page number, then position). Authors are
//! ordered by [`crate::text::names::author_sort_key`], categories by group then
//! code, years newest first.
//!
//! Patching: `vellum serve` keeps its last merge ([`merge::Merge`]). When an edit
//! changes a few listings and no listing comes, goes or changes author, only
//! the papers those listings held or hold are made again; those whose place
//! changes are moved to it in the global order (only the ids between move),
//! and what depends on them is made again from the kept parts: the slugs
//! that collide with theirs (slugs depend only on the colliding titles,
//! never on order), the author's pages and papers, the moved ids in the
//! authors' lists, the category and year terms. The result equals a
//! merge of the same listings, warnings included.
//!
//! The corpus is handed on, read-only, to [`crate::render`].

pub mod bibliography;
pub mod categories;
pub mod keys;
pub mod listings;
pub mod merge;
pub mod overrides;
pub mod query;
pub mod stats;

use crate::text::names::{family_key, same_name};
use crate::text::{Abstract, Text};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Index into [`Corpus::papers`]; lower ids come first in the global order.
pub type PaperId = usize;
/// Index into [`Corpus::authors`], in author order.
pub type AuthorId = usize;
/// Index into [`Corpus::categories`], in category order.
pub type CategoryId = usize;

/// One work, however many listings hold it.
#[derive(Debug, Clone)]
pub struct Paper {
    /// Unique URL slug (see [`crate::permalink::assign_unique_slugs`]).
    pub slug: String,
    /// The listed title's [`listings::paper_identity`], shared by all its records.
    pub identity: Arc<str>,
    /// The title, from the chosen record; shared with `vellum serve`'s
    /// text memo.
    pub title: Arc<Text>,
    /// The abstract (possibly empty), from the chosen record; shared like
    /// the title.
    pub abstract_text: Arc<Abstract>,
    /// Year, from the chosen record; [`UNDATED`] for a BibTeX entry with
    /// none (such a paper has no year term, no date in its metadata and
    /// no feed entry, and sorts after every dated paper).
    pub year: u16,
    /// Categories, primary first, aliases resolved, no repeats.
    pub categories: Vec<CategoryId>,
    /// Known authors: the owners of the listings holding the paper, in author order.
    pub authors: Vec<AuthorId>,
    /// Citation key, unique in the corpus (`chu2024optimizing`,
    /// `chu2024optimizinga`). From the merge: the key made from the first
    /// known author, the year and the listed title ([`keys::listed_key`]), with
    /// `a`, `b`, … in paper order where it repeats; [`crate::corpus::overrides::apply`]
    /// makes them again when an override gives an author list or a key.
    pub key: String,
    /// What a per-paper override adds; without one, every paper shares
    /// one empty value ([`PaperDetails::none`]).
    pub details: Arc<PaperDetails>,
    /// For each name of the complete author list
    /// ([`PaperDetails::complete_authors`]), the listing owner it names
    /// ([`Corpus::listed_authors`]); found once as overrides are applied,
    /// not on every page that shows the name. Empty without the list.
    pub complete_owners: Vec<Option<AuthorId>>,
}

/// [`Paper::year`] of a paper whose year is not known.
pub const UNDATED: u16 = 0;

impl Paper {
    /// The year, when known.
    pub fn known_year(&self) -> Option<u16> {
        (self.year != UNDATED).then_some(self.year)
    }
}

/// Identifiers, links and notes of a paper from its override
/// (`content/papers/<slug>.md`); all empty without one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct PaperDetails {
    /// arXiv identifier (`2405.01234`).
    pub arxiv_id: Option<String>,
    /// DOI (`10.1145/3600006.3613139`).
    pub doi: Option<String>,
    /// Publisher's page.
    pub url: Option<String>,
    /// PDF link.
    pub pdf: Option<String>,
    /// Code repository link.
    pub code: Option<String>,
    /// Venue (`NeurIPS 2024`).
    pub venue: Option<String>,
    /// The complete author list, when an override gives one; otherwise the
    /// known authors are only the listing owners, and others exist.
    pub complete_authors: Option<Vec<String>>,
    /// Shown among selected publications.
    pub selected: bool,
    /// The override's note, rendered Markdown; empty when none.
    pub note_html: String,
    /// From the arXiv record: the date of v1 (`2008-04-07`).
    pub submitted: Option<String>,
    /// From the arXiv record: the latest version and its date, when there
    /// is more than v1.
    pub revised: Option<(u32, String)>,
    /// From the arXiv record: the authors' comment (`20 pages, 3 figures`).
    pub comment: Option<String>,
    /// From the arXiv record: the journal reference (the venue, unless an
    /// override gives one).
    pub journal_ref: Option<String>,
}

impl PaperDetails {
    /// The details of a paper without an override, shared by all of them.
    pub fn none() -> Arc<PaperDetails> {
        static NONE: std::sync::LazyLock<Arc<PaperDetails>> =
            std::sync::LazyLock::new(|| Arc::new(PaperDetails::default()));
        Arc::clone(&NONE)
    }
}

/// A name variant to merge: listings whose author is `variant` belong to
/// the author whose name or slug is `canonical`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameVariant {
    /// Canonical author: a display name or an author slug.
    pub canonical: String,
    /// The variant name as listings write it (`C. Wu`).
    pub variant: String,
    /// Where the variant is declared, for warnings.
    pub file: PathBuf,
    /// 1-based line of the declaration.
    pub line: usize,
}

/// One listing page of an author, as found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingPage {
    /// The listing file.
    pub file: Arc<Path>,
    /// Page number from the count line.
    pub page: Option<u32>,
}

/// One listed author.
#[derive(Debug, Clone)]
pub struct Author {
    /// Display name, NFC.
    pub name: String,
    /// `Family, Given` form used in indexes (`Chu, Xiaowen`).
    pub sort_name: String,
    /// Unique URL slug.
    pub slug: String,
    /// Papers in listing order (page, then position), no repeats.
    pub papers: Vec<PaperId>,
    /// The largest "At least N records" of the author's count lines.
    pub claimed_total: Option<u32>,
    /// The author's listing files, by page then path.
    pub pages: Vec<ListingPage>,
}

impl Author {
    /// Whether the listing is known to hold fewer records than the author has.
    pub fn is_partial(&self) -> bool {
        self.claimed_total
            .is_some_and(|total| (total as usize) > self.papers.len())
    }
}

/// One arXiv category term.
#[derive(Debug, Clone)]
pub struct Category {
    /// Canonical code (`cs.DC`).
    pub code: String,
    /// Display name; the code when unknown.
    pub name: String,
    /// Archive display name (`Computer Science`); empty when unknown.
    pub archive: String,
    /// Group display name (`Computer Science`), `Other` when unknown.
    pub group: String,
    /// Whether the code is in the arXiv taxonomy.
    pub known: bool,
    /// URL slug (`cs-dc`).
    pub slug: String,
    /// Papers with this category, primary or secondary, in global order.
    pub papers: Vec<PaperId>,
}

/// One year term.
#[derive(Debug, Clone)]
pub struct Year {
    /// The year.
    pub year: u16,
    /// Papers of that year, in global order.
    pub papers: Vec<PaperId>,
}

/// The whole corpus, frozen after [`Corpus::build`].
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    /// Papers in global order.
    pub papers: Vec<Arc<Paper>>,
    /// Authors in author order.
    pub authors: Vec<Arc<Author>>,
    /// Categories by group, then code.
    pub categories: Vec<Category>,
    /// Years, newest first.
    pub years: Vec<Year>,
    /// Family names pinned where the name model would split a name
    /// otherwise ([`Corpus::name_parts`]).
    pub family_names: crate::text::names::FamilyNames,
}

/// Authors an authors index shows on one page; past this the index is
/// split into one page per initial letter ([`Corpus::initials`]), so it
/// stays usable at tens of thousands of authors.
pub const AUTHORS_ON_ONE_INDEX: usize = 1000;

/// One initial letter of the authors index: the authors whose family
/// name starts with it, in author (family-name) order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Initial {
    /// `A` to `Z` (accents folded), or `#` for any other start.
    pub letter: char,
    /// The authors.
    pub authors: Vec<AuthorId>,
}

/// The id of an initial `letter` as a path segment and anchor: `a`, or
/// `other` for `#`.
pub fn initial_id(letter: char) -> String {
    if letter == '#' {
        "other".to_string()
    } else {
        letter.to_ascii_lowercase().to_string()
    }
}

impl Corpus {
    /// The papers whose slug changed when slugs began to name the letters
    /// of math, with their former slugs.
    pub fn former_slugs(&self) -> crate::permalink::FormerSlugs {
        let titles: Vec<_> = (0..self.papers.len())
            .map(|id| self.title_slug(id))
            .collect();
        crate::permalink::FormerSlugs::new(&titles)
    }

    /// Paper `id`'s title and slug, as [`crate::permalink::FormerSlugs`]
    /// works from them.
    pub fn title_slug(&self, id: PaperId) -> crate::permalink::TitleSlug<'_> {
        let paper = &self.papers[id];
        crate::permalink::TitleSlug {
            source: paper.title.source(),
            html: paper.title.html(),
            plain: paper.title.plain(),
            slug: &paper.slug,
        }
    }

    /// `name` split into given names, particles and family name: by its
    /// pinned family name (a record's, a BibTeX entry's or a profile's),
    /// else by the name model.
    pub fn name_parts(&self, name: &str) -> crate::text::names::NameParts {
        self.family_names.parts(name)
    }

    /// The authors index's letters, `A` to `Z` then `#`, those that have
    /// authors; time linear in the authors.
    pub fn initials(&self) -> Vec<Initial> {
        let mut by_letter: std::collections::BTreeMap<char, Vec<AuthorId>> = Default::default();
        for (id, author) in self.authors.iter().enumerate() {
            // `sort_name` is `Family, Given`; a family name is one word.
            let family = author.sort_name.split(", ").next().unwrap_or_default();
            let letter = crate::text::names::fold(family)
                .chars()
                .next()
                .filter(char::is_ascii_lowercase)
                .map_or('#', |c| c.to_ascii_uppercase());
            by_letter.entry(letter).or_default().push(id);
        }
        // `#` sorts before `A`; it goes last, as in most indexes.
        let other = by_letter.remove(&'#');
        by_letter
            .into_iter()
            .chain(other.map(|authors| ('#', authors)))
            .map(|(letter, authors)| Initial { letter, authors })
            .collect()
    }

    /// Whether the authors index is one page per initial letter.
    pub fn authors_by_letter(&self) -> bool {
        self.authors.len() > AUTHORS_ON_ONE_INDEX
    }

    /// The complete author list of `paper`, when known: each name as
    /// written there, with the listing owner it names.
    pub fn complete_authors<'a>(
        &self,
        paper: &'a Paper,
    ) -> Option<impl Iterator<Item = (&'a str, Option<AuthorId>)>> {
        let names = paper.details.complete_authors.as_ref()?;
        Some(
            names
                .iter()
                .map(String::as_str)
                .zip(paper.complete_owners.iter().copied()),
        )
    }

    /// For each name of `names` (the complete author list of `paper`), the
    /// author of `paper` with a page (a listing owner) it names: the one of
    /// that name, else the only one the name can be written for (`Y. Brun`
    /// for Yuriy Brun, [`crate::text::names::same_name`]). Kept in
    /// [`Paper::complete_owners`]. Each name's family name is folded once
    /// ([`family_key`]) and given names are compared only where it agrees.
    pub fn listed_authors(&self, paper: &Paper, names: &[String]) -> Vec<Option<AuthorId>> {
        let owners: Vec<(AuthorId, &str, String)> = paper
            .authors
            .iter()
            .map(|&a| {
                let name = self.authors[a].name.as_str();
                (a, name, family_key(name))
            })
            .collect();
        names
            .iter()
            .map(|name| {
                if let Some(&(a, ..)) = owners.iter().find(|o| o.1 == name) {
                    return Some(a);
                }
                let key = family_key(name);
                let mut can = owners
                    .iter()
                    .filter(|o| o.2 == key && same_name(o.1, name).is_some());
                let first = can.next()?.0;
                can.next().is_none().then_some(first)
            })
            .collect()
    }

    /// A paper's authors as its pages, feeds and exports credit them: the
    /// complete list when a record or override gives one, each name with
    /// the listing owner it names ([`Corpus::complete_authors`]), else the
    /// listing owners.
    pub fn credited<'a>(
        &'a self,
        paper: &'a Paper,
    ) -> impl Iterator<Item = (&'a str, Option<AuthorId>)> + 'a {
        let complete = self.complete_authors(paper);
        let listed = complete.is_none().then(|| {
            paper
                .authors
                .iter()
                .map(|&a| (self.authors[a].name.as_str(), Some(a)))
        });
        complete
            .into_iter()
            .flatten()
            .chain(listed.into_iter().flatten())
    }

    /// A paper's author names for citing and searching
    /// ([`Corpus::credited`]).
    pub fn author_names<'a>(&'a self, paper: &'a Paper) -> Vec<&'a str> {
        self.credited(paper).map(|(name, _)| name).collect()
    }

    /// A paper's category codes, primary first.
    pub fn category_codes<'a>(&'a self, paper: &Paper) -> Vec<&'a str> {
        paper
            .categories
            .iter()
            .map(|&c| self.categories[c].code.as_str())
            .collect()
    }
}
