//! Per-paper overrides (`content/papers/<slug>.md`) applied to
//! the merged corpus, then citation keys.
//!
//! An override names its paper by slug. It may correct the title (the slug
//! and key stay), add identifiers and links, give the complete author list,
//! mark the paper `selected`, or `hidden` (a wrongly attributed record): a
//! hidden paper is removed from the corpus, so no page, feed, index or
//! export lists it, and emptied years and categories go with it. An
//! override naming no paper is a warning. Hands on the same [`Corpus`]
//! shape, ids renumbered when papers were removed.
//!
//! A BibTeX entry ([`crate::corpus::bibliography`]) gives its paper its
//! citation key, the complete author list, DOI, URL, arXiv identifier and
//! venue, each unless the override gives it.
//!
//! The arXiv records of `records/arxiv.toml` ([`Records`], matched by
//! `vellum enrich`) take the same path, below the overrides: a record gives
//! its paper the arXiv identifier, the DOI, the complete author list and
//! the journal reference as venue, each unless the override gives it; an
//! override whose `arxiv` names another identifier, or that says
//! `enrich = false`, drops the record.

use crate::corpus::bibliography::{BibPaper, BibPapers};
use crate::corpus::keys::{assign_keys, citation_key, listed_key};
use crate::corpus::{AuthorId, Corpus, Paper, PaperDetails, PaperId};
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::input::content::{AuthorProfile, PaperOverride};
use crate::input::records::{PaperRecord, Records, RECORDS_FILE};
use crate::text::names::FamilyNames;
use crate::text::Text;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Applies `overrides` (by paper slug) to `corpus`, removes hidden papers
/// and assigns citation keys again. Without overrides the corpus is handed
/// back as it is, shared, not copied: the merge's keys are already unique.
/// Warnings: an override or a record whose slug is no paper's, an empty
/// `authors` list.
pub fn apply(
    corpus: Arc<Corpus>,
    overrides: &BTreeMap<String, PaperOverride>,
    profiles: &BTreeMap<String, AuthorProfile>,
    records: &Records,
    bib: &BibPapers,
    diagnostics: &Diagnostics,
) -> Arc<Corpus> {
    let pinning = profiles.values().any(|p| p.front.family.is_some());
    if overrides.is_empty() && records.papers.is_empty() && bib.is_empty() && !pinning {
        return corpus;
    }
    let mut corpus = Arc::unwrap_or_clone(corpus);
    corpus.family_names = family_names(&corpus, profiles, records, bib, diagnostics);
    reorder_authors(&mut corpus);
    let slugs = PaperSlugs::new(&corpus);
    let changes = overridden(&slugs, overrides, diagnostics);
    let matched = recorded(&slugs, records, overrides, diagnostics);
    // A BibTeX entry's citation key is kept.
    let mut pinned: Vec<Option<String>> = vec![None; corpus.papers.len()];
    for (id, paper) in corpus.papers.iter_mut().enumerate() {
        if let Some(entry) = bib.get(&paper.identity) {
            Arc::make_mut(paper).details = Arc::new(bib_details(entry, PaperDetails::default()));
            pinned[id] = Some(entry.key.clone());
        }
    }
    for (id, record) in matched {
        let paper = &mut corpus.papers[id];
        if same_arxiv(paper.details.arxiv_id.as_deref(), record) {
            let details = Arc::new(record_details(record, (*paper.details).clone()));
            Arc::make_mut(paper).details = details;
        }
    }
    let mut hidden = vec![false; corpus.papers.len()];
    for (id, found) in changes {
        let front = &found.front;
        override_paper(
            Arc::make_mut(&mut corpus.papers[id]),
            found,
            records,
            bib,
            diagnostics,
        );
        if front.key.is_some() {
            pinned[id] = front.key.clone();
        }
        hidden[id] = front.hidden;
    }
    if hidden.contains(&true) {
        remove_papers(&mut corpus, &hidden);
    }
    let pinned = (0..hidden.len())
        .filter(|&id| !hidden[id])
        .map(|id| pinned[id].clone())
        .collect();
    make_keys(&mut corpus, pinned);
    find_complete_owners(&mut corpus);
    Arc::new(corpus)
}

/// The papers of a corpus by slug, and by the slug they had before slugs
/// named the letters of math, for files named by it.
struct PaperSlugs<'a> {
    corpus: &'a Corpus,
    by_slug: FxHashMap<&'a str, PaperId>,
    /// Made only when a file names no paper.
    formers: std::cell::OnceCell<FxHashMap<String, PaperId>>,
}

impl<'a> PaperSlugs<'a> {
    fn new(corpus: &'a Corpus) -> PaperSlugs<'a> {
        let by_slug = corpus
            .papers
            .iter()
            .enumerate()
            .map(|(id, p)| (p.slug.as_str(), id))
            .collect();
        PaperSlugs {
            corpus,
            by_slug,
            formers: std::cell::OnceCell::new(),
        }
    }

    /// The paper whose former slug is `slug`.
    fn former(&self, slug: &str) -> Option<PaperId> {
        self.formers
            .get_or_init(|| {
                self.corpus
                    .former_slugs()
                    .found
                    .into_iter()
                    .map(|(id, s)| (s, id))
                    .collect()
            })
            .get(slug)
            .copied()
    }
}

/// The paper each of `overrides` names, by its slug or, with a warning,
/// its former slug; a warning for each that names no paper.
fn overridden<'o>(
    slugs: &PaperSlugs,
    overrides: &'o BTreeMap<String, PaperOverride>,
    diagnostics: &Diagnostics,
) -> Vec<(PaperId, &'o PaperOverride)> {
    let papers = &slugs.corpus.papers;
    let mut changes: Vec<(PaperId, &PaperOverride)> = Vec::new();
    let mut suggested = 0;
    for (slug, found) in overrides {
        match slugs.by_slug.get(slug.as_str()) {
            Some(&id) => changes.push((id, found)),
            None if let Some(id) = slugs.former(slug) => {
                diagnostics.push(Diagnostic::warning(
                    &found.file,
                    1,
                    format!(
                        "expected the file name to be the paper's slug `{}`, found its former slug `{slug}`; \
                         it is applied: rename the file to content/papers/{}.md",
                        papers[id].slug, papers[id].slug
                    ),
                ));
                changes.push((id, found));
            }
            None => {
                let hint = match suggested < crate::diagnostics::SUGGESTIONS {
                    true => crate::diagnostics::did_you_mean(slug, slugs.by_slug.keys().copied()),
                    false => String::new(),
                };
                suggested += 1;
                diagnostics.push(Diagnostic::warning(
                    &found.file,
                    1,
                    format!("expected the file name to be a paper's slug, found `{slug}`, which no paper has{hint}"),
                ))
            }
        }
    }
    changes
}

/// The papers with a record of `records` and no override, each with its
/// record; a warning for each record named by a former slug or by none.
fn recorded<'r>(
    slugs: &PaperSlugs,
    records: &'r Records,
    overrides: &BTreeMap<String, PaperOverride>,
    diagnostics: &Diagnostics,
) -> Vec<(PaperId, &'r PaperRecord)> {
    let papers = &slugs.corpus.papers;
    let mut matched: Vec<(PaperId, &PaperRecord)> = Vec::new();
    for (slug, record) in &records.papers {
        let line = records.lines.get(slug).copied().unwrap_or(0);
        let id = match slugs.by_slug.get(slug.as_str()) {
            Some(&id) => Some(id),
            None => slugs.former(slug).inspect(|&id| {
                diagnostics.push(Diagnostic::warning(
                    RECORDS_FILE,
                    line,
                    format!(
                        "expected a paper's slug, found `{slug}`, the former slug of `{}`; it is applied: \
                         rename the table to [papers.{}]",
                        papers[id].slug, papers[id].slug
                    ),
                ));
            }),
        };
        let Some(id) = id else {
            diagnostics.push(Diagnostic::warning(
                RECORDS_FILE,
                records.lines.get(slug).copied().unwrap_or(0),
                format!(
                    "expected a paper's slug, found `{slug}`, which no paper has (its title changed?); \
                     run `vellum enrich` again"
                ),
            ));
            continue;
        };
        if !overrides.contains_key(&papers[id].slug) && !overrides.contains_key(slug) {
            matched.push((id, record));
        }
    }
    matched
}

/// Applies the override `found` to `paper`: its title, and its details
/// from the override, then its BibTeX entry in `bib`, then its record in
/// `records` unless the override stops it. Warnings: the title's
/// problems, an empty `authors` list.
fn override_paper(
    paper: &mut Paper,
    found: &PaperOverride,
    records: &Records,
    bib: &BibPapers,
    diagnostics: &Diagnostics,
) {
    let front = &found.front;
    if let Some(title) = &front.title {
        let mut problems = Vec::new();
        paper.title = std::sync::Arc::new(Text::inline(title, &mut problems));
        for problem in problems {
            diagnostics.push(Diagnostic::warning(
                &found.file,
                found.title_line,
                format!("{problem}; it is shown as written"),
            ));
        }
    }
    if front.authors.as_ref().is_some_and(Vec::is_empty) {
        diagnostics.push(Diagnostic::warning(
            &found.file,
            found.authors_line,
            "expected `authors` to list the complete author list, found an empty list; it is ignored",
        ));
    }
    let details = PaperDetails {
        arxiv_id: front.arxiv.clone(),
        doi: front.doi.clone(),
        url: front.url.clone(),
        pdf: front.pdf.clone(),
        code: front.code.clone(),
        venue: front.venue.clone(),
        complete_authors: front.authors.clone().filter(|a| !a.is_empty()),
        selected: front.selected,
        note_html: found.note_html.clone(),
        ..PaperDetails::default()
    };
    let details = match bib.get(&paper.identity) {
        Some(entry) => bib_details(entry, details),
        None => details,
    };
    let stopped = front.enrich == Some(false);
    let record = records
        .papers
        .get(&paper.slug)
        .filter(|record| !stopped && same_arxiv(details.arxiv_id.as_deref(), record));
    paper.details = Arc::new(match record {
        Some(record) => record_details(record, details),
        None => details,
    });
}

/// Gives each paper with a complete author list the listed author of each
/// name on it ([`Corpus::listed_authors`]).
fn find_complete_owners(corpus: &mut Corpus) {
    let owners: Vec<Vec<Option<AuthorId>>> = corpus
        .papers
        .par_iter()
        .map(|paper| match &paper.details.complete_authors {
            Some(names) => corpus.listed_authors(paper, names),
            None => Vec::new(),
        })
        .collect();
    for (paper, owners) in corpus.papers.iter_mut().zip(owners) {
        if paper.complete_owners != owners {
            Arc::make_mut(paper).complete_owners = owners;
        }
    }
}

/// Gives the authors whose family name is pinned their sort name, and
/// puts every author back in author order by the pinned splits (ids
/// renumbered), when any listing owner is pinned.
fn reorder_authors(corpus: &mut Corpus) {
    let names = &corpus.family_names;
    if !corpus.authors.iter().any(|a| names.contains(&a.name)) {
        return;
    }
    for author in &mut corpus.authors {
        if names.contains(&author.name) {
            let sort_name = names.parts(&author.name).sort_name();
            if author.sort_name != sort_name {
                Arc::make_mut(author).sort_name = sort_name;
            }
        }
    }
    let keys: Vec<String> = corpus
        .authors
        .iter()
        .map(|a| names.sort_key(&a.name))
        .collect();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    let mut new_id = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_id[old] = new;
    }
    let old_authors = std::mem::take(&mut corpus.authors);
    corpus.authors = order
        .iter()
        .map(|&old| Arc::clone(&old_authors[old]))
        .collect();
    for paper in &mut corpus.papers {
        if paper.authors.iter().all(|&id| new_id[id] == id) {
            continue;
        }
        let paper = Arc::make_mut(paper);
        for id in &mut paper.authors {
            *id = new_id[*id];
        }
        paper.authors.sort_unstable();
    }
}

/// The family names pinned by author profiles (`family = "..."`), the
/// records file (`family_names`) and BibTeX entries (`Last, First`), a
/// profile's first; a pin that is not a part of its name is warned about
/// and ignored.
fn family_names(
    corpus: &Corpus,
    profiles: &BTreeMap<String, AuthorProfile>,
    records: &Records,
    bib: &BibPapers,
    diagnostics: &Diagnostics,
) -> FamilyNames {
    let mut names = FamilyNames::default();
    let pinned: Vec<(&String, &AuthorProfile, &String)> = profiles
        .iter()
        .filter_map(|(slug, p)| Some((slug, p, p.front.family.as_ref()?)))
        .collect();
    if !pinned.is_empty() {
        let by_slug: FxHashMap<&str, &str> = corpus
            .authors
            .iter()
            .map(|a| (a.slug.as_str(), a.name.as_str()))
            .collect();
        for (slug, profile, family) in pinned {
            // A profile of no author is warned about with its other fields.
            let Some(name) = by_slug.get(slug.as_str()) else {
                continue;
            };
            if !names.pin(name, family) {
                diagnostics.push(Diagnostic::warning(
                    &profile.file,
                    profile.family_line,
                    format!(
                        "expected `family` to be the first or last words of the name `{name}`, \
                         found `{family}`; it is ignored"
                    ),
                ));
            }
        }
    }
    // The first pin of a name stays: a profile's, then a record's. A
    // record pins only names of its authors, and only for a paper of the
    // site (a stale table is warned about elsewhere).
    let slugs: rustc_hash::FxHashSet<&str> = if records.papers.is_empty() {
        Default::default()
    } else {
        corpus.papers.iter().map(|p| p.slug.as_str()).collect()
    };
    for (slug, record) in &records.papers {
        if !slugs.contains(slug.as_str()) {
            continue;
        }
        for (name, family) in &record.family_names {
            if !record.authors.contains(name) {
                diagnostics.push(Diagnostic::warning(
                    RECORDS_FILE,
                    records.lines.get(slug).copied().unwrap_or(0),
                    format!(
                        "expected the names of `family_names` to be among the record's `authors`, \
                         found `{name}`; it is ignored"
                    ),
                ));
                continue;
            }
            if !names.pin(name, family) {
                diagnostics.push(Diagnostic::warning(
                    RECORDS_FILE,
                    records.lines.get(slug).copied().unwrap_or(0),
                    format!(
                        "expected a family name of `{name}` to be its first or last words, \
                         found `{family}`; it is ignored"
                    ),
                ));
            }
        }
    }
    let mut entries: Vec<&BibPaper> = bib.values().collect();
    entries.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    for entry in entries {
        for (name, family) in &entry.family_names {
            names.pin(name, family);
        }
    }
    names
}

/// Whether `record` is of the paper whose identifier (an override's or a
/// BibTeX entry's, its version left out) is `id`; any record is when
/// none is known.
fn same_arxiv(id: Option<&str>, record: &PaperRecord) -> bool {
    id.is_none_or(|id| {
        let bare = id
            .rsplit_once('v')
            .filter(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .map_or(id, |(bare, _)| bare);
        bare == record.arxiv
    })
}

/// `details` (an override's) with what a BibTeX `entry` gives where they
/// give nothing.
fn bib_details(entry: &BibPaper, details: PaperDetails) -> PaperDetails {
    PaperDetails {
        arxiv_id: details.arxiv_id.or_else(|| entry.arxiv.clone()),
        doi: details.doi.or_else(|| entry.doi.clone()),
        url: details.url.or_else(|| entry.url.clone()),
        venue: details.venue.or_else(|| entry.venue.clone()),
        complete_authors: details.complete_authors.or_else(|| entry.authors.clone()),
        ..details
    }
}

/// `details` (an override's) with what `record` gives where they give
/// nothing.
fn record_details(record: &PaperRecord, details: PaperDetails) -> PaperDetails {
    PaperDetails {
        arxiv_id: details.arxiv_id.or_else(|| Some(record.arxiv.clone())),
        doi: details.doi.or_else(|| record.doi.clone()),
        venue: details.venue.or_else(|| record.journal_ref.clone()),
        complete_authors: details
            .complete_authors
            .or_else(|| Some(record.authors.clone())),
        // Dates checked as the records file is read.
        submitted: Some(record.published.clone()),
        revised: (record.version > 1).then(|| (record.version, record.updated.clone())),
        comment: record.comment.clone(),
        journal_ref: record.journal_ref.clone(),
        ..details
    }
}

/// Gives every paper its citation key: a pinned one as given, else
/// [`citation_key`] of its first author's family name (the complete list's
/// first when known, else the first listed author: the merge's key,
/// [`crate::corpus::keys::listed_key`]), its year and its listed title. Keys
/// that would repeat get `a`, `b`, … in paper order.
fn make_keys(corpus: &mut Corpus, pinned: Vec<Option<String>>) {
    let bases: Vec<String> = corpus
        .papers
        .par_iter()
        .zip(&pinned)
        .map(|(paper, pinned)| {
            if let Some(key) = pinned {
                return key.clone();
            }
            match &paper.details.complete_authors {
                // From the listed title's identity, before any correction.
                Some(names) => {
                    let family = corpus.name_parts(&names[0]).family;
                    citation_key(&family, paper.year, &paper.identity)
                }
                None => listed_key(paper, &corpus.authors, &corpus.family_names),
            }
        })
        .collect();
    let all: Vec<PaperId> = (0..bases.len()).collect();
    let is_pinned = |id: PaperId| pinned[id].is_some();
    assign_keys(&mut corpus.papers, |id| &bases[id], is_pinned, &all);
    // A key given twice (by two `.bib` files, or a `.bib` key equal to one
    // made with a suffix): the first pinned use keeps it, then the papers
    // in order; every later one gets the next free suffix.
    let mut taken: rustc_hash::FxHashSet<String> = rustc_hash::FxHashSet::default();
    let mut keeps = vec![false; corpus.papers.len()];
    for id in all.iter().copied().filter(|&id| is_pinned(id)) {
        keeps[id] = taken.insert(corpus.papers[id].key.clone());
    }
    for (id, paper) in corpus.papers.iter_mut().enumerate() {
        if keeps[id] || (!is_pinned(id) && taken.insert(paper.key.clone())) {
            continue;
        }
        let paper = Arc::make_mut(paper);
        let mut n = 0;
        paper.key = loop {
            n += 1;
            let next = format!("{}{}", paper.key, crate::corpus::keys::key_suffix(n));
            if taken.insert(next.clone()) {
                break next;
            }
        };
    }
}

/// Removes the papers marked in `hidden`, renumbering paper and category
/// ids and dropping years and categories left without papers. Authors stay,
/// even with no papers left.
fn remove_papers(corpus: &mut Corpus, hidden: &[bool]) {
    let mut new_id: Vec<Option<PaperId>> = Vec::with_capacity(hidden.len());
    let mut next = 0;
    for &gone in hidden {
        new_id.push((!gone).then(|| {
            next += 1;
            next - 1
        }));
    }
    let remap = |ids: &mut Vec<PaperId>| {
        *ids = ids.iter().filter_map(|&id| new_id[id]).collect();
    };
    let mut index = 0;
    corpus.papers.retain(|_| {
        index += 1;
        !hidden[index - 1]
    });
    for author in &mut corpus.authors {
        if author.papers.iter().any(|&id| new_id[id] != Some(id)) {
            remap(&mut Arc::make_mut(author).papers);
        }
    }
    corpus.years.iter_mut().for_each(|y| remap(&mut y.papers));
    corpus.years.retain(|y| !y.papers.is_empty());
    corpus
        .categories
        .iter_mut()
        .for_each(|c| remap(&mut c.papers));
    let mut category_id: Vec<Option<usize>> = Vec::with_capacity(corpus.categories.len());
    let mut next = 0;
    for category in &corpus.categories {
        category_id.push((!category.papers.is_empty()).then(|| {
            next += 1;
            next - 1
        }));
    }
    corpus.categories.retain(|c| !c.papers.is_empty());
    for paper in &mut corpus.papers {
        let kept: Vec<usize> = paper
            .categories
            .iter()
            .filter_map(|&c| category_id[c])
            .collect();
        if kept != paper.categories {
            Arc::make_mut(paper).categories = kept;
        }
    }
}
