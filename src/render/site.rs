//! The read-only view every renderer shares: configuration, URL map,
//! corpus and content, and where each job's output goes.

use crate::corpus::Corpus;
use crate::input::config::Config;
use crate::input::content::Content;
use crate::permalink::{Route, UrlMap};
use crate::render::jobs::{FeedKind, Job};

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

impl Site<'_> {
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
}
