//! What changed between the corpus of the last committed build and this
//! build's, when the site keeps its shape: the same number of papers, the
//! same authors, years and categories (names and slugs) with as many pager
//! pages each. Then every page keeps its path but those of the papers that
//! changed, and a rebuild plans and fingerprints only what changed
//! ([`crate::render::plan::Plan::patched`], [`crate::serve::fingerprint`]).
//!
//! A paper is unchanged when the new corpus holds the very value the old
//! one held at the same id ([`Arc::ptr_eq`]): a patch of the corpus shares
//! every paper it does not change, and copies one it changes while the old
//! corpus still holds it ([`Arc::make_mut`]), which the rebuild cache
//! does. A term is unchanged when it lists the same papers in the same
//! order.

use crate::corpus::{AuthorId, Category, Corpus, PaperId};
use crate::input::content::Content;
use crate::render::jobs::{FeedKind, Job};
use rayon::prelude::*;
use std::sync::Arc;

/// The items of a corpus that differ from the last one's, each a flag by
/// id.
#[derive(Debug)]
pub struct Changes {
    /// Papers that are not the one the same id held.
    pub papers: Vec<bool>,
    /// Authors whose fields or papers differ.
    pub authors: Vec<bool>,
    /// Years (by index) whose papers differ.
    pub years: Vec<bool>,
    /// Categories whose papers differ.
    pub categories: Vec<bool>,
}

impl Changes {
    /// What changed from `old` to `new`, or `None` when the shape of the
    /// site differs (then every page is planned again). `pages_for` gives
    /// the number of pager pages of a term's papers.
    pub fn between(
        old: &Corpus,
        new: &Corpus,
        pages_for: impl Fn(usize) -> usize + Sync,
    ) -> Option<Changes> {
        let same_shape = old.papers.len() == new.papers.len()
            && old.authors.len() == new.authors.len()
            && old.years.len() == new.years.len()
            && old.categories.len() == new.categories.len()
            && old.family_names == new.family_names;
        if !same_shape {
            return None;
        }
        let papers: Vec<bool> = old
            .papers
            .par_iter()
            .zip(&new.papers)
            .map(|(a, b)| !Arc::ptr_eq(a, b))
            .collect();
        // Whether two lists of paper ids name the same papers in order.
        let same_papers = |a: &[PaperId], b: &[PaperId]| {
            a.len() == b.len()
                && a.iter().zip(b).all(|(&x, &y)| {
                    (x == y && !papers[y]) || Arc::ptr_eq(&old.papers[x], &new.papers[y])
                })
        };
        // Per term: whether it changed (`differs`, or its papers); `None`
        // when a term's name (`same_name`) or page count differs.
        let terms = |lists: [&[PaperId]; 2], same_name: bool, differs: bool| {
            let [a, b] = lists;
            (same_name && pages_for(a.len()) == pages_for(b.len()))
                .then(|| differs || !same_papers(a, b))
        };
        let authors = old
            .authors
            .iter()
            .zip(&new.authors)
            .map(|(a, b)| {
                terms(
                    [&a.papers, &b.papers],
                    (&a.name, &a.slug, &a.sort_name) == (&b.name, &b.slug, &b.sort_name),
                    a.claimed_total != b.claimed_total || a.pages != b.pages,
                )
            })
            .collect::<Option<Vec<bool>>>()?;
        let years = old
            .years
            .iter()
            .zip(&new.years)
            .map(|(a, b)| terms([&a.papers, &b.papers], a.year == b.year, false))
            .collect::<Option<Vec<bool>>>()?;
        fn shown(c: &Category) -> [&str; 5] {
            [&c.code, &c.slug, &c.name, &c.group, &c.archive]
        }
        let categories = old
            .categories
            .iter()
            .zip(&new.categories)
            .map(|(a, b)| terms([&a.papers, &b.papers], shown(a) == shown(b), false))
            .collect::<Option<Vec<bool>>>()?;
        Some(Changes {
            papers,
            authors,
            years,
            categories,
        })
    }

    /// Marks changed the authors with a profile and the papers with an
    /// override in `content`: their Markdown links are resolved against
    /// the site's files, which a changed paper's path can change (few
    /// authors and papers have one).
    pub fn mark_linking(&mut self, corpus: &Corpus, content: &Content) {
        if !content.profiles.is_empty() {
            for (id, author) in corpus.authors.iter().enumerate() {
                self.authors[id] |= content.profiles.contains_key(&author.slug);
            }
        }
        if !content.overrides.is_empty() {
            for (id, paper) in corpus.papers.iter().enumerate() {
                self.papers[id] |= content.overrides.contains_key(&paper.slug);
            }
        }
    }

    /// Whether `job` shows or writes something that changed: a changed
    /// paper's page and exports, a changed term's pages, feed and BibTeX
    /// file, and every page of the site as a whole (the home page, the
    /// indexes, content pages, aliases, the site's feed, the sitemap,
    /// `corpus.json`, and the few that show no paper: 404, search,
    /// `robots.txt`).
    pub fn touches(&self, job: &Job) -> bool {
        match *job {
            Job::Paper(id) | Job::PaperExport(id, _) => self.papers[id],
            Job::Author(id, _) | Job::AuthorBib(id) | Job::Feed(FeedKind::Author(id)) => {
                self.authors[id]
            }
            Job::Year(index, _) => self.years[index],
            Job::Category(id, _) | Job::Feed(FeedKind::Category(id)) => self.categories[id],
            Job::Home
            | Job::AuthorIndex
            | Job::AuthorLetter(_)
            | Job::YearIndex
            | Job::CategoryIndex
            | Job::Content(_)
            | Job::NotFound
            | Job::Feed(FeedKind::Site)
            | Job::Sitemap
            | Job::Robots
            | Job::Alias(..)
            | Job::CorpusJson
            | Job::Search => true,
        }
    }

    /// The ids of the changed papers.
    pub fn changed_papers(&self) -> Vec<PaperId> {
        flagged(&self.papers)
    }

    /// The ids of the changed authors.
    pub fn changed_authors(&self) -> Vec<AuthorId> {
        flagged(&self.authors)
    }
}

fn flagged(flags: &[bool]) -> Vec<usize> {
    (0..flags.len()).filter(|&i| flags[i]).collect()
}
