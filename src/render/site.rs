//! The read-only view every renderer shares: configuration, URL map,
//! corpus and content, and where each job's output goes.

use crate::corpus::{query, Corpus, PaperId};
use crate::input::config::Config;
use crate::input::content::Content;
use crate::permalink::{Route, UrlMap};
use crate::render::jobs::{FeedKind, Job};
use std::borrow::Cow;

/// What every stage of rendering reads: configuration, URL map, corpus and content.
#[derive(Clone, Copy)]
pub struct Site<'a> {
    /// The resolved configuration.
    pub config: &'a Config,
    /// The URL map for the configured base URL.
    pub urls: &'a UrlMap,
    /// The frozen corpus.
    pub corpus: &'a Corpus,
    /// The content pages and profiles.
    pub content: &'a Content,
}

impl<'a> Site<'a> {
    /// The route a job writes.
    pub fn route(&self, job: &Job) -> Route {
        match *job {
            Job::Home => Route::Home,
            Job::AuthorIndex => Route::AuthorIndex,
            Job::AuthorLetter(letter) => Route::AuthorLetter {
                id: crate::corpus::initial_id(letter),
            },
            Job::Author(id, page) => Route::Author {
                slug: self.corpus.authors[id].slug.clone(),
                page,
            },
            Job::YearIndex => Route::YearIndex,
            Job::Year(index, page) => Route::Year {
                year: self.corpus.years[index].year,
                page,
            },
            Job::CategoryIndex => Route::CategoryIndex,
            Job::Category(id, page) => Route::Category {
                slug: self.corpus.categories[id].slug.clone(),
                page,
            },
            Job::Paper(id) => Route::Paper {
                slug: self.corpus.papers[id].slug.clone(),
            },
            Job::Content(index) => Route::Content {
                path: self.content.pages[index].path.clone(),
            },
            Job::NotFound => Route::NotFound,
            Job::Feed(FeedKind::Site) => Route::SiteFeed,
            Job::Feed(FeedKind::Author(id)) => Route::AuthorFeed {
                slug: self.corpus.authors[id].slug.clone(),
            },
            Job::Feed(FeedKind::Category(id)) => Route::CategoryFeed {
                slug: self.corpus.categories[id].slug.clone(),
            },
            Job::Sitemap => Route::Sitemap,
            Job::Robots => Route::Robots,
            Job::Alias(ref path, _) => Route::Alias { path: path.clone() },
            Job::PaperExport(id, export) => Route::PaperExport {
                slug: self.corpus.papers[id].slug.clone(),
                ext: export.ext(),
            },
            Job::AuthorBib(id) => Route::AuthorBib {
                slug: self.corpus.authors[id].slug.clone(),
            },
            Job::CorpusJson => Route::CorpusJson,
            Job::Search => Route::Search,
        }
    }

    /// Pager pages of a term with `items` papers (at least one).
    pub fn pages_for(&self, items: usize) -> usize {
        items.div_ceil(self.config.paginate_by).max(1)
    }

    /// The places of pager page `page` of a list of `items`.
    pub fn page_range(&self, items: usize, page: usize) -> std::ops::Range<usize> {
        let per = self.config.paginate_by;
        let start = (page - 1) * per;
        start.min(items)..(start + per).min(items)
    }

    /// The papers the output of `job` is made of, as its render reads
    /// them and its fingerprint hashes them
    /// ([`crate::serve::fingerprint`]): one definition, so that a page
    /// cannot show a paper its fingerprint does not cover.
    pub fn papers_of(&self, job: &Job) -> PagePapers<'a> {
        let corpus = self.corpus;
        // A term's pager page shows its range; the first one's statistics
        // count all of the term's papers.
        let term = |papers: &'a [PaperId], page: usize, with| PagePapers {
            shown: Cow::Borrowed(&papers[self.page_range(papers.len(), page)]),
            with,
            counted: Cow::Borrowed(if page == 1 { papers } else { &[] }),
            queried: Vec::new(),
        };
        let shown = |shown: Cow<'a, [PaperId]>| PagePapers {
            shown,
            with: Abstract::Included,
            counted: Cow::Borrowed(&[]),
            queried: Vec::new(),
        };
        match *job {
            Job::Home => PagePapers {
                queried: self.queried(self.content.home.as_ref()),
                ..shown((0..corpus.papers.len().min(self.config.home_recent)).collect())
            },
            Job::Author(id, page) => term(&corpus.authors[id].papers, page, Abstract::Included),
            Job::Year(index, page) => term(&corpus.years[index].papers, page, Abstract::Left),
            Job::Category(id, page) => term(&corpus.categories[id].papers, page, Abstract::Left),
            Job::Paper(id) | Job::PaperExport(id, _) => shown(vec![id].into()),
            Job::Content(index) => PagePapers {
                queried: self.queried(Some(&self.content.pages[index])),
                ..shown(Cow::Borrowed(&[]))
            },
            Job::Feed(kind) => shown(self.feed_papers(kind).into()),
            Job::AuthorBib(id) => shown(Cow::Borrowed(&corpus.authors[id].papers)),
            Job::CorpusJson => shown((0..corpus.papers.len()).collect()),
            Job::AuthorIndex
            | Job::AuthorLetter(_)
            | Job::YearIndex
            | Job::CategoryIndex
            | Job::NotFound
            | Job::Search
            | Job::Alias(..)
            | Job::Robots
            | Job::Sitemap => shown(Cow::Borrowed(&[])),
        }
    }

    /// The papers each `{{ papers(...) }}` shortcode of `page` lists. A
    /// shortcode naming an author or category the site does not have
    /// lists nothing: [`query::check`] reported it before the render.
    fn queried(&self, page: Option<&crate::input::content::ContentPage>) -> Vec<Vec<PaperId>> {
        page.map_or_else(Vec::new, |page| {
            let papers = |q| query::papers(self.corpus, q).unwrap_or_default();
            page.shortcodes.iter().map(papers).collect()
        })
    }

    /// The papers of a feed: at most `feed_limit`, in global order; an
    /// undated paper has no date to give its entry and is left out.
    pub fn feed_papers(&self, kind: FeedKind) -> Vec<PaperId> {
        let corpus = self.corpus;
        let limit = self.config.feed_limit;
        let dated = |id: &PaperId| corpus.papers[*id].known_year().is_some();
        match kind {
            FeedKind::Site => (0..corpus.papers.len()).filter(dated).take(limit).collect(),
            FeedKind::Author(id) => {
                let mut ids = corpus.authors[id].papers.clone();
                ids.sort_unstable();
                ids.retain(dated);
                ids.truncate(limit);
                ids
            }
            FeedKind::Category(id) => corpus.categories[id]
                .papers
                .iter()
                .copied()
                .filter(dated)
                .take(limit)
                .collect(),
        }
    }
}

/// Whether a paper's value carries its abstract: the export files and
/// the lists of author pages and the home page do; the Cite block on the
/// paper page, which shows the abstract beside it, and other lists do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Abstract {
    /// With the abstract.
    Included,
    /// Without it.
    Left,
}

/// The papers a job's output is made of ([`Site::papers_of`]).
pub struct PagePapers<'a> {
    /// The papers whose values it shows (as list items, its paper,
    /// entries or records), in order.
    pub shown: Cow<'a, [PaperId]>,
    /// Whether it shows their abstracts.
    pub with: Abstract,
    /// The papers its statistics count (by year, category and
    /// co-author): a term's first page counts all of the term's papers.
    pub counted: Cow<'a, [PaperId]>,
    /// The papers of each of its shortcodes (without their abstracts),
    /// which select them by author, year, category and selection among
    /// all papers.
    pub queried: Vec<Vec<PaperId>>,
}
