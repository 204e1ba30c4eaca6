//! Incremental rendering: a fingerprint of each [`Job`]'s inputs, made
//! without rendering it, so that `vellum serve` renders again only the jobs
//! whose fingerprint changed and carries every other file over from the
//! last build ([`crate::output::Sink::carry_over`]).
//!
//! A fingerprint is an XXH3-64 hash over what the job's output is made
//! of: the site-wide values it reads (the configuration and base URL for
//! a page a template renders or a feed; the base URL alone for the
//! exports, the generated `robots.txt` and the sitemap), the hash of its
//! template and the templates that one uses ([`Templates::hash`]), the
//! corpus counts when that template shows them
//! ([`Templates::shows_counts`]), the papers it is made of, and its own
//! values (its term, its content page, its profile).
//!
//! The papers come from [`Site::papers_of`], the definition the render
//! reads too: the papers a job shows, hashed as it shows them (a list
//! item with or without its abstract, a feed entry as [`EntrySource`]
//! gives it), the papers its statistics count, by their facets (year,
//! authors' and categories' names, complete author list, selection), and
//! the papers each shortcode lists. A paper's hash covers its fields and
//! the names and slugs of its authors and categories, so renaming an
//! author changes every page listing their papers; its details are
//! hashed whole, so a field only its page shows (a code link) renders
//! its lists again too.
//!
//! The sitemap hashes the output files of every listed page, in plan
//! order (with the base URL, they are its permalinks;
//! [`Plan::listed_hash`]). `corpus.json` hashes every paper and author
//! and each author's papers in listing order.
//!
//! Handed on: one fingerprint per job, and the item hashes
//! ([`ItemHashes`]) the next build takes over for what did not change.

use crate::corpus::{Author, Corpus, Paper, PaperDetails, PaperId};
use crate::render::feeds::EntrySource;
use crate::render::jobs::{FeedKind, Job};
use crate::render::plan::Plan;
use crate::render::site::Abstract;
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
    /// Every author, in order, and each author's papers in listing order:
    /// what `corpus.json` holds besides its papers, which
    /// [`Site::papers_of`] gives it.
    authors: u64,
    /// The base URL, all the exports read of the configuration.
    urls: u64,
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
    /// Per paper: the same but its abstract (whether it has one counts).
    without_abstract: Vec<u64>,
    /// Per paper: what its feed entry shows ([`EntrySource`]).
    entries: Vec<u64>,
    /// Per paper: what statistics count of it (its year, its authors'
    /// and categories' names, its complete author list, its selection).
    facets: Vec<u64>,
    /// Per author: what the author's own view shows (its profile is
    /// hashed with its page).
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

/// What an item's hashes read of the corpus beside the item itself, each
/// hashed once: the names of the authors and categories a paper names,
/// the empty details most papers share, the pinned family names.
struct ItemHasher<'c> {
    corpus: &'c Corpus,
    author_names: Vec<u64>,
    category_names: Vec<u64>,
    no_details: Arc<PaperDetails>,
    no_details_hash: u64,
    /// A pinned family name changes the exports and keys of the papers
    /// that name its author; pins are few and seldom change.
    family_names_hash: u64,
}

/// The hashes of one paper ([`ItemHashes`]).
struct PaperHashes {
    with_abstract: u64,
    without_abstract: u64,
    entry: u64,
    facets: u64,
}

impl<'c> ItemHasher<'c> {
    fn new(corpus: &'c Corpus) -> ItemHasher<'c> {
        let no_details = PaperDetails::none();
        ItemHasher {
            author_names: corpus
                .authors
                .par_iter()
                .map(|a| hash_of((&a.name, &a.slug)))
                .collect(),
            category_names: corpus
                .categories
                .iter()
                .map(|c| hash_of(((&c.code, &c.name, &c.slug), (&c.archive, &c.group))))
                .collect(),
            no_details_hash: hash_of(&*no_details),
            no_details,
            family_names_hash: hash_of(&corpus.family_names),
            corpus,
        }
    }

    /// Its authors' and categories' names, counts first: an author
    /// cannot pass for a category.
    fn names(&self, paper: &Paper, h: &mut Xxh3) {
        h.write_usize(paper.authors.len());
        paper
            .authors
            .iter()
            .for_each(|&a| h.write_u64(self.author_names[a]));
        h.write_usize(paper.categories.len());
        paper
            .categories
            .iter()
            .for_each(|&c| h.write_u64(self.category_names[c]));
    }

    fn paper(&self, id: PaperId) -> PaperHashes {
        let paper = &self.corpus.papers[id];
        let mut h = Xxh3::new();
        // A text's HTML and plain forms are made from its source alone.
        let has_abstract = !paper.abstract_text.is_empty();
        (&paper.slug, &paper.key, paper.title.source(), has_abstract).hash(&mut h);
        paper.year.hash(&mut h);
        h.write_u64(self.family_names_hash);
        if Arc::ptr_eq(&paper.details, &self.no_details) {
            h.write_u64(self.no_details_hash);
        } else {
            paper.details.hash(&mut h);
        }
        self.names(paper, &mut h);
        let without_abstract = h.finish();
        let mut facets = Xxh3::new();
        let details = &paper.details;
        (paper.year, details.selected, &details.complete_authors).hash(&mut facets);
        self.names(paper, &mut facets);
        PaperHashes {
            with_abstract: combine(&[without_abstract, paper.abstract_text.source_hash]),
            without_abstract,
            entry: hash_of(EntrySource::of(self.corpus, id)),
            facets: facets.finish(),
        }
    }

    fn author(&self, author: &Author) -> u64 {
        hash_of((
            (&author.name, &author.sort_name, &author.slug),
            (author.papers.len(), author.claimed_total),
        ))
    }
}

impl ItemHashes {
    /// The hashes of every paper (in parallel) and author of `corpus`.
    fn all(hasher: &ItemHasher) -> ItemHashes {
        let corpus = hasher.corpus;
        let mut items = ItemHashes::default();
        let papers: Vec<PaperHashes> = (0..corpus.papers.len())
            .into_par_iter()
            .map(|id| hasher.paper(id))
            .collect();
        for paper in papers {
            items.papers.push(paper.with_abstract);
            items.without_abstract.push(paper.without_abstract);
            items.entries.push(paper.entry);
            items.facets.push(paper.facets);
        }
        items.authors = corpus
            .authors
            .par_iter()
            .map(|a| hasher.author(a))
            .collect();
        items.memberships = corpus
            .authors
            .par_iter()
            .map(|author| items.membership(author))
            .collect();
        items
    }

    /// The last build's hashes with those of the papers and authors
    /// `changes` names made again.
    fn updated(&self, hasher: &ItemHasher, changes: &Changes) -> ItemHashes {
        let mut items = self.clone();
        let papers: Vec<(PaperId, PaperHashes)> = changes
            .changed_papers()
            .into_par_iter()
            .map(|id| (id, hasher.paper(id)))
            .collect();
        for (id, paper) in papers {
            items.papers[id] = paper.with_abstract;
            items.without_abstract[id] = paper.without_abstract;
            items.entries[id] = paper.entry;
            items.facets[id] = paper.facets;
        }
        for id in changes.changed_authors() {
            let author = &hasher.corpus.authors[id];
            items.authors[id] = hasher.author(author);
            items.memberships[id] = items.membership(author);
        }
        items
    }

    /// An author's papers in listing order (`corpus.json` lists them so),
    /// by their hashes: ids shift whenever a paper moves.
    fn membership(&self, author: &Author) -> u64 {
        let mut h = Xxh3::new();
        author
            .papers
            .iter()
            .for_each(|&p| h.write_u64(self.papers[p]));
        h.finish()
    }
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
        let counts = hash_of((
            corpus.papers.len(),
            corpus.authors.len(),
            corpus.years.len(),
            corpus.categories.len(),
        ));
        let hasher = ItemHasher::new(corpus);
        let items = match last {
            Some((last, changes)) => last.updated(&hasher, changes),
            None => ItemHashes::all(&hasher),
        };
        let authors = hash_of((&items.authors, &items.memberships));
        Fingerprints {
            base: hash_of((format!("{:?}", site.config), site.urls.base_url())),
            urls: hash_of(site.urls.base_url()),
            listed: plan.listed_hash,
            counts,
            site,
            templates,
            items,
            authors,
        }
    }

    /// The hashes of the papers and authors, for the next build.
    pub fn into_items(self) -> ItemHashes {
        self.items
    }

    /// The fingerprint of `job`: the site-wide values it reads, its
    /// template, the papers it is made of as its render reads them
    /// ([`Site::papers_of`]: the hashes of those it shows, of the facets
    /// of those it counts, of those each shortcode lists), and its own
    /// values.
    pub fn of(&self, job: &Job) -> u64 {
        let papers = self.site.papers_of(job);
        let items = &self.items;
        let mut made_of = Xxh3::new();
        let mut add = |ids: &[PaperId], hashes: &[u64]| {
            made_of.write_usize(ids.len());
            ids.iter().for_each(|&p| made_of.write_u64(hashes[p]));
        };
        let shown = match (job, papers.with) {
            (Job::Feed(_), _) => &items.entries,
            (_, Abstract::Included) => &items.papers,
            (_, Abstract::Left) => &items.without_abstract,
        };
        add(&papers.shown, shown);
        add(&papers.counted, &items.facets);
        papers
            .queried
            .iter()
            .for_each(|ids| add(ids, &items.without_abstract));
        let (template, own) = self.own(job);
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
        let base = match job {
            // The exports and the sitemap read the URL map alone of the
            // configuration (and the sitemap its size).
            Job::PaperExport(..) | Job::AuthorBib(_) | Job::CorpusJson => self.urls,
            Job::Sitemap => hash_of((self.urls, self.site.config.sitemap_max_urls)),
            // The generated `robots.txt` names the sitemap's URL; the
            // site's own template reads the global values.
            Job::Robots if !self.templates.contains("robots.txt") => self.urls,
            _ => self.base,
        };
        combine(&[
            base,
            kind.finish(),
            template_hash,
            counts,
            made_of.finish(),
            own,
        ])
    }

    /// The template of `job`, if it has one, and the hash of the values
    /// of its own that are not papers: its term, its content page.
    fn own(&self, job: &Job) -> (Option<&str>, u64) {
        let site = &self.site;
        let corpus = site.corpus;
        let items = &self.items;
        // A term page's pager: its place and the term's size.
        let pager = |ids: &[PaperId], page: usize| (ids.len(), page);
        match job {
            Job::Home => {
                let home = site.content.home.as_ref();
                (
                    Some("index.html"),
                    hash_of((
                        home.map(|page| format!("{page:?}")),
                        home.is_some_and(|page| !page.shortcodes.is_empty())
                            .then(|| self.templates.hash("partials/paper_list.html")),
                    )),
                )
            }
            Job::AuthorIndex | Job::AuthorLetter(_) => {
                (Some("authors.html"), hash_of(&items.authors))
            }
            Job::Author(id, page) => {
                let author = &corpus.authors[*id];
                // Its profile, as its page reads it.
                let profile = site.content.profiles.get(&author.slug);
                (
                    Some("author.html"),
                    hash_of((
                        (items.authors[*id], profile.map(|p| format!("{p:?}"))),
                        pager(&author.papers, *page),
                    )),
                )
            }
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
                    hash_of((year.year, pager(&year.papers, *page))),
                )
            }
            Job::CategoryIndex => (
                Some("categories.html"),
                hash_of(
                    corpus
                        .categories
                        .iter()
                        .map(|c| (c, c.papers.len()))
                        .map(|(c, n)| ((&c.code, &c.name, &c.slug), (&c.group, &c.archive, n)))
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
                        pager(&category.papers, *page),
                    )),
                )
            }
            Job::Paper(_) => (Some("paper.html"), 0),
            Job::Content(index) => {
                let page = &site.content.pages[*index];
                // A section lists its pages.
                let children = page
                    .is_section
                    .then(|| format!("{:?}", site.content.section_children(&page.path)));
                let shortcodes = !page.shortcodes.is_empty();
                (
                    Some(content_template_name(page)),
                    hash_of((
                        (format!("{page:?}"), children),
                        shortcodes.then(|| self.templates.hash("partials/paper_list.html")),
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
            Job::Feed(FeedKind::Site) => (None, 0),
            Job::Feed(FeedKind::Author(id)) => (None, items.authors[*id]),
            Job::Feed(FeedKind::Category(id)) => {
                let category = &corpus.categories[*id];
                (
                    None,
                    hash_of((&category.code, &category.name, &category.slug)),
                )
            }
            Job::PaperExport(_, export) => (None, hash_of(export.ext())),
            Job::AuthorBib(_) => (None, 0),
            Job::CorpusJson => (None, self.authors),
        }
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
