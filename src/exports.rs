//! Citation exports of the corpus: each paper as BibTeX, RIS or CSL-JSON
//! (through [`crate::cite`]), and `corpus.json`, the whole corpus as data
//! (documented in `docs/scholarly.md`). Called by [`crate::render`] per
//! job; hands back file text or bytes.

use crate::cite::{bibtex, csl_json, ris, CiteRecord};
use crate::corpus::PaperId;
use crate::memo::Memo;
use crate::names::NameParts;
use crate::permalink::Route;
use crate::render::Site;
use rayon::prelude::*;
use serde::Serialize;
use std::hash::{Hash, Hasher};

/// A citation export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Export {
    /// BibTeX, `.bib`.
    Bibtex,
    /// RIS, `.ris`.
    Ris,
    /// CSL-JSON (an array of one item), `.json`.
    Csl,
}

impl Export {
    /// Every format, in the order pages show them.
    pub const ALL: [Export; 3] = [Export::Bibtex, Export::Ris, Export::Csl];

    /// The file extension without the dot.
    pub fn ext(self) -> &'static str {
        match self {
            Export::Bibtex => "bib",
            Export::Ris => "ris",
            Export::Csl => "json",
        }
    }
}

/// Whether an export carries the abstract: the files do; the Cite block
/// on the paper page, which shows the abstract beside it, does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abstract {
    /// With the abstract.
    Included,
    /// Without it.
    Left,
}

/// One paper in one format: a BibTeX entry, a RIS record, or a CSL-JSON
/// array of one item (pretty-printed). Authors are the complete list when
/// an override gives one, else the listed authors followed by "others".
pub fn paper_export(site: &Site, id: PaperId, export: Export, with: Abstract) -> String {
    let corpus = site.corpus;
    let paper = &corpus.papers[id];
    let authors: Vec<NameParts> = corpus
        .author_names(paper)
        .into_iter()
        .map(NameParts::split)
        .collect();
    let categories = corpus.category_codes(paper);
    let url = site.urls.permalink(&Route::Paper {
        slug: paper.slug.clone(),
    });
    let details = &paper.details;
    let pdf = crate::scholar::pdf_url(paper);
    let record = CiteRecord {
        key: &paper.key,
        title_latex: &paper.title.source,
        title_plain: &paper.title.plain,
        abstract_plain: match with {
            Abstract::Included => &paper.abstract_text.plain,
            Abstract::Left => "",
        },
        authors: &authors,
        authors_complete: details.complete_authors.is_some(),
        year: paper.year,
        arxiv_id: details.arxiv_id.as_deref(),
        primary_class: categories.first().copied(),
        categories: &categories,
        doi: details.doi.as_deref(),
        url: &url,
        pdf: pdf.as_deref(),
        venue: details.venue.as_deref(),
    };
    match export {
        Export::Bibtex => bibtex(&record),
        Export::Ris => ris(&record),
        Export::Csl => {
            let items = serde_json::Value::Array(vec![csl_json(&record)]);
            serde_json::to_string_pretty(&items).unwrap_or_default() + "\n"
        }
    }
}

/// `corpus.json` without its papers, which are serialised apart (in
/// parallel) and written between `base_url` and `authors`.
#[derive(Serialize)]
struct CorpusRest<'a> {
    authors: Vec<AuthorEntry<'a>>,
    years: Vec<YearEntry>,
    categories: Vec<CategoryEntry<'a>>,
}

#[derive(Serialize, Hash)]
struct PaperEntry<'a> {
    key: &'a str,
    slug: &'a str,
    url: String,
    title: &'a str,
    title_latex: &'a str,
    #[serde(rename = "abstract")]
    abstract_text: &'a str,
    year: u16,
    categories: Vec<&'a str>,
    authors: Vec<&'a str>,
    authors_complete: bool,
    arxiv_id: Option<&'a str>,
    doi: Option<&'a str>,
    venue: Option<&'a str>,
    selected: bool,
}

#[derive(Serialize)]
struct AuthorEntry<'a> {
    name: &'a str,
    sort_name: &'a str,
    slug: &'a str,
    url: String,
    papers: Vec<&'a str>,
}

#[derive(Serialize)]
struct YearEntry {
    year: u16,
    papers: usize,
}

#[derive(Serialize)]
struct CategoryEntry<'a> {
    code: &'a str,
    name: &'a str,
    archive: &'a str,
    group: &'a str,
    slug: &'a str,
    papers: usize,
}

/// `corpus.json`: every visible paper (global order), author, year and
/// category; papers are referred to by citation key. Shape in `docs/scholarly.md`.
/// With a `memo` (`vellum serve`), a paper entry whose fields hash as in
/// the previous build is not serialised again.
///
/// Memory: the file is made in one buffer of exactly its size. Without a
/// memo the entries are measured first (in parallel) and then written
/// straight into it, so no entry is held apart (at 100,000 papers, 206 MB
/// of entries and a growing buffer briefly added 680 MB to the build).
pub fn corpus_json(site: &Site, memo: Option<&Memo<std::sync::Arc<[u8]>>>) -> Vec<u8> {
    let corpus = site.corpus;
    let urls = site.urls;
    let entry = |p| paper_entry(site, p);
    let rest = CorpusRest {
        authors: corpus
            .authors
            .iter()
            .map(|a| AuthorEntry {
                name: &a.name,
                sort_name: &a.sort_name,
                slug: &a.slug,
                url: urls.permalink(&Route::Author {
                    slug: a.slug.clone(),
                    page: 1,
                }),
                papers: a
                    .papers
                    .iter()
                    .map(|&p| corpus.papers[p].key.as_str())
                    .collect(),
            })
            .collect(),
        years: corpus
            .years
            .iter()
            .map(|y| YearEntry {
                year: y.year,
                papers: y.papers.len(),
            })
            .collect(),
        categories: corpus
            .categories
            .iter()
            .map(|c| CategoryEntry {
                code: &c.code,
                name: &c.name,
                archive: &c.archive,
                group: &c.group,
                slug: &c.slug,
                papers: c.papers.len(),
            })
            .collect(),
    };
    // The compact JSON of {"version", "base_url", "papers", ...rest}.
    let mut head = b"{\"version\":1,\"base_url\":".to_vec();
    head.extend(serde_json::to_vec(urls.base_url()).unwrap_or_default());
    head.extend(b",\"papers\":[");
    let rest = serde_json::to_vec(&rest).unwrap_or_default();
    let rest = rest.get(1..).unwrap_or_default();
    let file = |entries: usize| {
        let separators = corpus.papers.len().saturating_sub(1);
        let mut bytes = Vec::with_capacity(head.len() + entries + separators + 2 + rest.len() + 1);
        bytes.extend_from_slice(&head);
        bytes
    };
    let finish = |mut bytes: Vec<u8>| {
        bytes.extend(b"],");
        bytes.extend_from_slice(rest);
        bytes.push(b'\n');
        bytes
    };
    match memo {
        Some(memo) => {
            let papers: Vec<std::sync::Arc<[u8]>> = corpus
                .papers
                .par_iter()
                .map(|p| {
                    let entry = entry(p);
                    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
                    entry.hash(&mut hasher);
                    memo.get_or_make(hasher.finish(), || {
                        serde_json::to_vec(&entry).unwrap_or_default().into()
                    })
                })
                .collect();
            memo.finish_build();
            let mut bytes = file(papers.iter().map(|p| p.len()).sum());
            for (i, paper) in papers.iter().enumerate() {
                if i > 0 {
                    bytes.push(b',');
                }
                bytes.extend_from_slice(paper);
            }
            finish(bytes)
        }
        None => {
            let entries = corpus
                .papers
                .par_iter()
                .map(|p| {
                    let mut counter = ByteCounter(0);
                    serde_json::to_writer(&mut counter, &entry(p)).map_or(0, |()| counter.0)
                })
                .sum();
            let mut bytes = file(entries);
            for (i, paper) in corpus.papers.iter().enumerate() {
                if i > 0 {
                    bytes.push(b',');
                }
                // Writing to a Vec fails only on a serialiser error, which
                // these plain fields cannot raise.
                let _ = serde_json::to_writer(&mut bytes, &entry(paper));
            }
            finish(bytes)
        }
    }
}

/// A paper's `corpus.json` entry.
fn paper_entry<'a>(site: &Site<'a>, p: &'a crate::corpus::Paper) -> PaperEntry<'a> {
    let corpus = site.corpus;
    PaperEntry {
        key: &p.key,
        slug: &p.slug,
        url: site.urls.permalink(&Route::Paper {
            slug: p.slug.clone(),
        }),
        title: &p.title.plain,
        title_latex: &p.title.source,
        abstract_text: &p.abstract_text.plain,
        year: p.year,
        categories: corpus.category_codes(p),
        authors: corpus.author_names(p),
        authors_complete: p.details.complete_authors.is_some(),
        arxiv_id: p.details.arxiv_id.as_deref(),
        doi: p.details.doi.as_deref(),
        venue: p.details.venue.as_deref(),
        selected: p.details.selected,
    }
}

/// An [`std::io::Write`] that only counts the bytes written to it.
struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
