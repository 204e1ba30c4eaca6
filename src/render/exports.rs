//! Citation exports of the corpus: each paper as BibTeX, RIS or CSL-JSON
//! (through [`crate::render::cite`]), and `corpus.json`, the whole corpus as data
//! (documented in `docs/scholarly.md`). Called by the renderer
//! ([`crate::render::Renderer`]) and the page contexts per job; hands back file text or bytes.

use crate::corpus::{AuthorId, Corpus, PaperId};
use crate::permalink::Route;
use crate::render::cite::{bibtex, csl_json, ris, CiteRecord};
use crate::render::jobs::Export;
use crate::render::metadata::Metadata;
use crate::render::site::Abstract;
use crate::render::site::Site;
use crate::text::names::NameParts;
use rayon::prelude::*;
use serde::Serialize;
use std::borrow::Cow;

/// One paper in one format: a BibTeX entry, a RIS record, or a CSL-JSON
/// array of one item (pretty-printed). Authors are the complete list when
/// an override gives one, else the listed authors followed by "others".
pub fn paper_export(
    site: &Site,
    names: &AuthorParts,
    id: PaperId,
    export: Export,
    with: Abstract,
) -> String {
    export_of(site, names, id, export, with, usize::MAX)
}

/// Each listed author's name split ([`NameParts`]) for the exports, made
/// when first used: split once a build, not once for each of the
/// author's papers, on every paper page's BibTeX entry (measured in
/// ad6202e).
pub struct AuthorParts {
    parts: Vec<std::sync::OnceLock<NameParts>>,
}

impl AuthorParts {
    /// Room for each author of `corpus`, nothing split yet.
    pub fn new(corpus: &Corpus) -> AuthorParts {
        AuthorParts {
            parts: corpus.authors.iter().map(|_| Default::default()).collect(),
        }
    }

    /// `name` split, as [`Corpus::name_parts`] splits it: the author's
    /// own when `owner` is an author of that very name.
    fn of<'p>(
        &'p self,
        corpus: &Corpus,
        name: &str,
        owner: Option<AuthorId>,
    ) -> Cow<'p, NameParts> {
        match owner.filter(|&a| corpus.authors[a].name == name) {
            Some(a) => Cow::Borrowed(self.parts[a].get_or_init(|| corpus.name_parts(name))),
            None => Cow::Owned(corpus.name_parts(name)),
        }
    }
}

/// Authors a paper's entry in an author's BibTeX file names before `and
/// others`, as INSPIRE's BibTeX does for large collaborations: each of a
/// paper's listing owners has it in their file, so a paper of 450 owners
/// and names would otherwise repeat every name in each of 450 files. The
/// paper's own file ([`paper_export`]) names them all.
pub const AUTHOR_FILE_AUTHORS: usize = 10;

/// Paper `id`'s entry in an author's BibTeX file: as [`paper_export`]'s,
/// the first [`AUTHOR_FILE_AUTHORS`] authors then `and others` when it has
/// more.
fn author_file_entry(site: &Site, names: &AuthorParts, id: PaperId) -> String {
    export_of(
        site,
        names,
        id,
        Export::Bibtex,
        Abstract::Included,
        AUTHOR_FILE_AUTHORS,
    )
}

/// Author `id`'s BibTeX file: each of their papers'
/// [`author_file_entry`], separated by a line break. Runs of
/// [`BIB_RUN`] entries are written in parallel, each into one string, and
/// then joined, so the runs are held beside the file while it is joined
/// (twice its size at the peak: the most prolific author's file is 28 MB
/// at 100,000 papers). One thread writing the whole file was most of a
/// reload of that author's listing in `vellum serve` (measured in
/// be590f9).
pub fn author_bib(site: &Site, names: &AuthorParts, id: AuthorId) -> String {
    let runs: Vec<String> = site.corpus.authors[id]
        .papers
        .par_chunks(BIB_RUN)
        .map(|run| {
            let mut bib = String::new();
            for (n, &paper) in run.iter().enumerate() {
                if n > 0 {
                    bib.push('\n');
                }
                bib.push_str(&author_file_entry(site, names, paper));
            }
            bib
        })
        .collect();
    runs.join("\n")
}

/// How many entries of an author's BibTeX file one task writes.
const BIB_RUN: usize = 256;

/// [`paper_export`] naming at most `most` authors (then "others"). The
/// record is the paper's [`Metadata`], as its page shows it; only the
/// names split into parts and the cut are the exports' own.
fn export_of(
    site: &Site,
    names: &AuthorParts,
    id: PaperId,
    export: Export,
    with: Abstract,
    most: usize,
) -> String {
    let corpus = site.corpus;
    let meta = Metadata::new(site, &corpus.papers[id], with);
    let credited: Vec<(&str, Option<AuthorId>)> = meta.credited().collect();
    let cut = credited.len() > most;
    let authors: Vec<Cow<NameParts>> = credited
        .into_iter()
        .take(most)
        .map(|(name, owner)| names.of(corpus, name, owner))
        .collect();
    let categories = meta.category_codes();
    let url = meta.permalink();
    let pdf = meta.pdf_url();
    let abstract_plain = meta.abstract_text().map(|text| text.plain());
    let record = CiteRecord {
        key: meta.key(),
        title_latex: meta.title_latex(),
        title_plain: meta.title(),
        abstract_plain: abstract_plain.as_deref().unwrap_or_default(),
        authors: &authors,
        authors_complete: meta.authors_complete() && !cut,
        year: meta.year(),
        arxiv_id: meta.arxiv_id(),
        primary_class: categories.first().copied(),
        categories: &categories,
        doi: meta.doi(),
        url: &url,
        pdf: pdf.as_deref(),
        venue: meta.venue(),
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

#[derive(Serialize)]
struct PaperEntry<'a> {
    key: &'a str,
    slug: &'a str,
    url: String,
    title: &'a str,
    title_latex: &'a str,
    #[serde(rename = "abstract")]
    abstract_text: Cow<'a, str>,
    /// `null` when the year is not known.
    year: Option<u16>,
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
/// category; papers are referred to by citation key. Shape in
/// `docs/scholarly.md`. The bytes of [`write_corpus_json`], in memory.
pub fn corpus_json(site: &Site) -> Vec<u8> {
    let mut bytes = Vec::new();
    // Writing to a Vec fails only on a serialiser error, which these plain
    // fields cannot raise.
    let _ = write_corpus_json(site, &mut bytes);
    bytes
}

/// Papers serialised together, in parallel, before they are written: at
/// about 2 KB an entry, a batch holds some 16 MB.
const CORPUS_JSON_BATCH: usize = 8192;

/// Writes `corpus.json` ([`corpus_json`]) to `out` as it is made. Papers
/// are serialised `CORPUS_JSON_BATCH` at a time, so the file is never
/// held whole (at 1,000,000 papers it is 2 GB). (`vellum serve` does not
/// keep each paper's entry between builds: the entries' memory saved no
/// time, measured in 3e12f6c.) Errors: those of `out`.
pub fn write_corpus_json(site: &Site, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let corpus = site.corpus;
    let urls = site.urls;
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
    out.write_all(b"{\"version\":1,\"base_url\":")?;
    serde_json::to_writer(&mut *out, urls.base_url())?;
    out.write_all(b",\"papers\":[")?;
    let mut first = true;
    let mut write_entry = |out: &mut dyn std::io::Write, bytes: &[u8]| {
        if !std::mem::take(&mut first) {
            out.write_all(b",")?;
        }
        out.write_all(bytes)
    };
    for batch in corpus.papers.chunks(CORPUS_JSON_BATCH) {
        let entries: Vec<Vec<u8>> = batch
            .par_iter()
            .map(|p| {
                let meta = Metadata::new(site, p, Abstract::Included);
                let abstract_text = meta.abstract_text().map(|text| text.plain());
                let entry = paper_entry(&meta, abstract_text.unwrap_or_default());
                serde_json::to_vec(&entry).unwrap_or_default()
            })
            .collect();
        for bytes in &entries {
            write_entry(out, bytes)?;
        }
    }
    out.write_all(b"],")?;
    let rest = serde_json::to_vec(&rest)?;
    out.write_all(rest.get(1..).unwrap_or_default())?;
    out.write_all(b"\n")
}

/// A paper's `corpus.json` entry: its [`Metadata`], as its page shows
/// it, with `abstract_text`, its abstract's plain text (empty without
/// one).
fn paper_entry<'a>(meta: &Metadata<'a>, abstract_text: Cow<'a, str>) -> PaperEntry<'a> {
    PaperEntry {
        key: meta.key(),
        slug: meta.slug(),
        url: meta.permalink(),
        title: meta.title(),
        title_latex: meta.title_latex(),
        abstract_text,
        year: meta.year(),
        categories: meta.category_codes(),
        authors: meta.credited().map(|(name, _)| name).collect(),
        authors_complete: meta.authors_complete(),
        arxiv_id: meta.arxiv_id(),
        doi: meta.doi(),
        venue: meta.venue(),
        selected: meta.selected(),
    }
}
