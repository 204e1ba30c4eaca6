//! Incremental rendering: a fingerprint of each [`Job`]'s inputs, made
//! without rendering it, so that `vellum serve` renders again only the jobs
//! whose fingerprint changed and carries every other file over from the
//! last build ([`crate::output::Sink::carry_over`]).
//!
//! A fingerprint is an XXH3-64 hash over what the job's output is made of:
//! the site-wide values every page shares (configuration, base URL), the
//! hash of its template and the templates that one uses
//! ([`Templates::hash`]), the corpus counts when that template shows them
//! ([`Templates::shows_counts`]), and the corpus items it shows. A paper's item
//! hash covers its own fields and the names and slugs of its authors and
//! categories, so renaming an author changes every paper page naming
//! them. A term page hashes the papers on it (its first page: all of the
//! term's papers, which its statistics count). Pages that may list any
//! paper (the home page, feeds of the whole site, content pages with
//! shortcodes, `corpus.json`) hash the whole corpus.
//!
//! The sitemap hashes the output files of every listed page, in plan
//! order (with the base URL, they are its permalinks;
//! [`Plan::listed_hash`]).
//!
//! Handed on: one fingerprint per job, and the item hashes
//! ([`ItemHashes`]) the next build takes over for what did not change.

use crate::corpus::{Corpus, PaperDetails, PaperId};
use crate::render::jobs::{FeedKind, Job};
use crate::render::plan::Plan;
use crate::render::site::Site;
use crate::render::templates::{content_template_name, Templates};
use crate::serve::changes::Changes;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use xxhash_rust::xxh3::Xxh3;

/// Item hashes of one build, from which each job's fingerprint is made.
pub struct Fingerprints<'a> {
    site: Site<'a>,
    templates: &'a Templates,
    /// Configuration and base URL.
    base: u64,
    /// The corpus counts of the global `site` value, for the templates
    /// that show them ([`Templates::shows_counts`]).
    counts: u64,
    /// The hashes of every paper and author.
    items: ItemHashes,
    /// Every paper and author, in order, and each author's papers in
    /// listing order.
    corpus: u64,
    /// Every content page (a section lists its pages).
    content: u64,
    /// The output files of the pages the sitemap lists (their paths'
    /// hashes), in plan order.
    listed: u64,
}

/// The hashes of each paper and author of a build, which the next build
/// takes over for the items that did not change.
#[derive(Debug, Clone, Default)]
pub struct ItemHashes {
    /// Per paper: its fields and its authors' and categories' names.
    papers: Vec<u64>,
    /// Per author: what the author's own view and profile show.
    authors: Vec<u64>,
    /// Per author: its papers' hashes in listing order.
    memberships: Vec<u64>,
}

fn hash_of(value: impl Hash) -> u64 {
    let mut hasher = Xxh3::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// XXH3-64 of `words`, each as its eight little-endian bytes: in one call
/// for the few hashes that make up one job's fingerprint (cheaper than a
/// streaming hash), streamed past eight.
fn combine(words: &[u64]) -> u64 {
    let mut bytes = [0u8; 64];
    if words.len() > bytes.len() / 8 {
        let mut hasher = Xxh3::new();
        words
            .iter()
            .for_each(|word| hasher.update(&word.to_le_bytes()));
        return hasher.digest();
    }
    for (chunk, word) in bytes.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    xxhash_rust::xxh3::xxh3_64(&bytes[..8 * words.len()])
}

impl<'a> Fingerprints<'a> {
    /// Hashes every paper (in parallel) and author of `site`, and takes
    /// the hash of the listed pages' paths from `plan`
    /// ([`Plan::listed_hash`]). Given the last build's hashes and
    /// what changed since ([`Changes`]: only listings changed, and the
    /// site kept its shape), only the changed papers and authors are
    /// hashed again.
    pub fn new(
        site: Site<'a>,
        templates: &'a Templates,
        plan: &Plan,
        last: Option<(&ItemHashes, &Changes)>,
    ) -> Fingerprints<'a> {
        let corpus: &Corpus = site.corpus;
        let base = hash_of((format!("{:?}", site.config), site.urls.base_url()));
        let counts = hash_of((
            corpus.papers.len(),
            corpus.authors.len(),
            corpus.years.len(),
            corpus.categories.len(),
        ));
        // What a paper page shows of each author and category, hashed once.
        let author_names: Vec<u64> = corpus
            .authors
            .par_iter()
            .map(|a| hash_of((&a.name, &a.slug)))
            .collect();
        let category_names: Vec<u64> = corpus
            .categories
            .iter()
            .map(|c| hash_of(((&c.code, &c.name, &c.slug), (&c.archive, &c.group))))
            .collect();
        // Most papers share the empty details.
        let no_details = PaperDetails::none();
        let no_details_hash = hash_of(&*no_details);
        // A pinned family name changes the exports and keys of the papers
        // that name its author; pins are few and seldom change.
        let family_names_hash = hash_of(&corpus.family_names);
        let paper_hash = |paper: &crate::corpus::Paper| {
            let mut h = Xxh3::new();
            // A text's HTML and plain forms are made from its source alone.
            let texts = (paper.title.source(), paper.abstract_text.source_hash);
            (&paper.slug, &paper.key, texts, paper.year).hash(&mut h);
            h.write_u64(family_names_hash);
            if Arc::ptr_eq(&paper.details, &no_details) {
                h.write_u64(no_details_hash);
            } else {
                paper.details.hash(&mut h);
            }
            // Counts first: an author cannot pass for a category.
            h.write_usize(paper.authors.len());
            paper
                .authors
                .iter()
                .for_each(|&a| h.write_u64(author_names[a]));
            h.write_usize(paper.categories.len());
            paper
                .categories
                .iter()
                .for_each(|&c| h.write_u64(category_names[c]));
            h.finish()
        };
        let author_hash = |author: &Arc<crate::corpus::Author>| {
            let profile = site.content.profiles.get(&author.slug);
            hash_of((
                (&author.name, &author.sort_name, &author.slug),
                (author.papers.len(), author.claimed_total),
                profile.map(|p| format!("{p:?}")),
            ))
        };
        // Each author's papers in listing order (`corpus.json` lists them
        // so), by their hashes: ids shift whenever a paper moves.
        let membership = |papers: &[u64], author: &crate::corpus::Author| {
            let mut h = Xxh3::new();
            author.papers.iter().for_each(|&p| h.write_u64(papers[p]));
            h.finish()
        };
        let items = match last {
            Some((last, changes)) => {
                let mut items = last.clone();
                let papers: Vec<(usize, u64)> = changes
                    .changed_papers()
                    .into_par_iter()
                    .map(|id| (id, paper_hash(&corpus.papers[id])))
                    .collect();
                for (id, hash) in papers {
                    items.papers[id] = hash;
                }
                for id in changes.changed_authors() {
                    let author = &corpus.authors[id];
                    items.authors[id] = author_hash(author);
                    items.memberships[id] = membership(&items.papers, author);
                }
                items
            }
            None => {
                let papers: Vec<u64> = corpus.papers.par_iter().map(|p| paper_hash(p)).collect();
                let authors = corpus.authors.par_iter().map(author_hash).collect();
                let memberships = corpus
                    .authors
                    .par_iter()
                    .map(|author| membership(&papers, author))
                    .collect();
                ItemHashes {
                    papers,
                    authors,
                    memberships,
                }
            }
        };
        let corpus_hash = hash_of((&items.papers, &items.authors, &items.memberships));
        let content = hash_of(format!("{:?}", site.content.pages));
        Fingerprints {
            listed: plan.listed_hash,
            counts,
            content,
            site,
            templates,
            base,
            items,
            corpus: corpus_hash,
        }
    }

    /// The hashes of the papers and authors, for the next build.
    pub fn into_items(self) -> ItemHashes {
        self.items
    }

    /// The fingerprint of `job`.
    pub fn of(&self, job: &Job) -> u64 {
        let site = &self.site;
        let corpus = site.corpus;
        let papers = |ids: &[PaperId]| {
            let mut h = Xxh3::new();
            ids.iter().for_each(|&p| h.write_u64(self.items.papers[p]));
            h.finish()
        };
        // A term page: its papers, all of them on the first page (which
        // counts them by year, category and co-author).
        let term_page = |ids: &[PaperId], page: usize| {
            let per = site.config.paginate_by;
            let shown = if page == 1 {
                ids
            } else {
                let start = ((page - 1) * per).min(ids.len());
                &ids[start..(start + per).min(ids.len())]
            };
            (ids.len(), page, papers(shown))
        };
        let (template, own): (Option<&str>, u64) = match job {
            Job::Home => (
                Some("index.html"),
                hash_of((
                    (self.corpus, format!("{:?}", site.content.home)),
                    self.templates.hash("partials/paper_list.html"),
                )),
            ),
            Job::AuthorIndex | Job::AuthorLetter(_) => {
                (Some("authors.html"), hash_of(&self.items.authors))
            }
            Job::Author(id, page) => (
                Some("author.html"),
                hash_of((
                    self.items.authors[*id],
                    term_page(&corpus.authors[*id].papers, *page),
                )),
            ),
            Job::YearIndex => (
                Some("years.html"),
                hash_of(
                    corpus
                        .years
                        .iter()
                        .map(|y| (y.year, y.papers.len()))
                        .collect::<Vec<_>>(),
                ),
            ),
            Job::Year(index, page) => {
                let year = &corpus.years[*index];
                (
                    Some("year.html"),
                    hash_of((year.year, term_page(&year.papers, *page))),
                )
            }
            Job::CategoryIndex => (
                Some("categories.html"),
                hash_of(
                    corpus
                        .categories
                        .iter()
                        .map(|c| {
                            (
                                &c.code,
                                &c.name,
                                &c.slug,
                                &c.group,
                                &c.archive,
                                c.papers.len(),
                            )
                        })
                        .collect::<Vec<_>>(),
                ),
            ),
            Job::Category(id, page) => {
                let category = &corpus.categories[*id];
                (
                    Some("category.html"),
                    hash_of((
                        (&category.code, &category.name, &category.slug),
                        (&category.group, &category.archive),
                        term_page(&category.papers, *page),
                    )),
                )
            }
            Job::Paper(id) => (Some("paper.html"), self.items.papers[*id]),
            Job::Content(index) => {
                let page = &site.content.pages[*index];
                let template = content_template_name(page);
                let shortcodes = !page.shortcodes.is_empty();
                (
                    Some(template),
                    hash_of((
                        (self.content, *index),
                        shortcodes.then(|| {
                            (self.corpus, self.templates.hash("partials/paper_list.html"))
                        }),
                    )),
                )
            }
            Job::NotFound => (Some("404.html"), 0),
            // Its description counts the papers.
            Job::Search => (Some("search.html"), hash_of(corpus.papers.len())),
            Job::Alias(path, target) => (Some("redirect.html"), hash_of((path, target))),
            // The site's own `robots.txt` template, if any (its hash is 0
            // when there is none).
            Job::Robots => (Some("robots.txt"), 0),
            Job::Sitemap => (None, self.listed),
            Job::Feed(FeedKind::Site) => (None, self.corpus),
            Job::Feed(FeedKind::Author(id)) => (
                None,
                hash_of((self.items.authors[*id], papers(&corpus.authors[*id].papers))),
            ),
            Job::Feed(FeedKind::Category(id)) => {
                let category = &corpus.categories[*id];
                (
                    None,
                    hash_of((
                        (&category.code, &category.name, &category.slug),
                        papers(&category.papers),
                    )),
                )
            }
            Job::PaperExport(id, export) => (
                None,
                xxhash_rust::xxh3::xxh3_64_with_seed(
                    export.ext().as_bytes(),
                    self.items.papers[*id],
                ),
            ),
            Job::AuthorBib(id) => (None, papers(&corpus.authors[*id].papers)),
            Job::CorpusJson => (None, self.corpus),
        };
        let mut kind = rustc_hash::FxHasher::default();
        std::mem::discriminant(job).hash(&mut kind);
        // No template, a template without counts, one with: distinct words.
        let (template_hash, counts) = match template {
            None => (0, 0),
            Some(name) if self.templates.shows_counts(name) => {
                (self.templates.hash(name), self.counts)
            }
            Some(name) => (self.templates.hash(name), 1),
        };
        combine(&[self.base, kind.finish(), template_hash, counts, own])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combine_hashes_every_word_however_many() {
        let words: Vec<u64> = (1..=12).collect();
        for n in 1..=words.len() {
            let mut bytes = Vec::new();
            words[..n]
                .iter()
                .for_each(|word| bytes.extend(word.to_le_bytes()));
            assert_eq!(
                combine(&words[..n]),
                xxhash_rust::xxh3::xxh3_64(&bytes),
                "{n}"
            );
            // The last word counts: nothing past the eighth is dropped.
            let mut changed = words[..n].to_vec();
            changed[n - 1] += 100;
            assert_ne!(combine(&changed), combine(&words[..n]), "{n}");
        }
    }
}
