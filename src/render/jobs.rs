//! What the renderer makes: one [`Job`] per output file (a page, a feed,
//! an export, the sitemap), plain data that names corpus items by index.
//! The plan ([`crate::render::plan`]) lists them; [`crate::render::site::Site::route`]
//! says where each is written.

use crate::corpus::{AuthorId, CategoryId, PaperId};
use crate::permalink::Route;

/// One output the renderer produces. Term pages carry their 1-based pager page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// `index.html`: intro, counts, recent papers.
    Home,
    /// `/authors/`.
    AuthorIndex,
    /// One initial letter's page of the authors index after the first
    /// (a letter of [`crate::corpus::Corpus::initials`]).
    AuthorLetter(char),
    /// One page of one author's papers.
    Author(AuthorId, usize),
    /// `/years/`.
    YearIndex,
    /// One page of one year's papers (index into [`crate::corpus::Corpus::years`]).
    Year(usize, usize),
    /// `/categories/`.
    CategoryIndex,
    /// One page of one category's papers.
    Category(CategoryId, usize),
    /// One paper's page.
    Paper(PaperId),
    /// A content page or section (index into [`crate::input::content::Content::pages`]).
    Content(usize),
    /// `404.html`.
    NotFound,
    /// An Atom feed.
    Feed(FeedKind),
    /// `sitemap.xml`, split into parts under an index when large.
    Sitemap,
    /// `robots.txt`.
    Robots,
    /// A redirect page at an alias path (normalised, see
    /// [`crate::permalink::normalise_alias`]) to a page.
    Alias(String, Route),
    /// One paper's citation file.
    PaperExport(PaperId, Export),
    /// One author's BibTeX file of all their papers.
    AuthorBib(AuthorId),
    /// `corpus.json`: every paper, author, year and category as data.
    CorpusJson,
    /// `/search/`: the search page (the index is built by [`crate::render::search`]).
    Search,
}

impl Job {
    /// The kind of page or file the job writes, for messages: `author`,
    /// `paper`, `home`, …
    pub fn kind_name(&self) -> &'static str {
        match self {
            Job::Home => "home",
            Job::AuthorIndex | Job::AuthorLetter(_) => "authors index",
            Job::Author(..) => "author",
            Job::YearIndex => "years index",
            Job::Year(..) => "year",
            Job::CategoryIndex => "categories index",
            Job::Category(..) => "category",
            Job::Paper(_) => "paper",
            Job::Content(_) => "content",
            Job::NotFound => "404",
            Job::Search => "search",
            Job::Alias(..) => "redirect",
            Job::Feed(_) => "feed",
            Job::Sitemap => "sitemap",
            Job::Robots => "robots.txt",
            Job::PaperExport(..) | Job::AuthorBib(_) => "citation export",
            Job::CorpusJson => "corpus.json",
        }
    }

    /// Whether the job writes a data file made from the corpus: a
    /// citation export or `corpus.json`. Vellum's own code makes it,
    /// without a template, and it cannot fail to render.
    pub fn is_corpus_data(&self) -> bool {
        matches!(
            self,
            Job::PaperExport(..) | Job::AuthorBib(_) | Job::CorpusJson
        )
    }

    /// Whether the job writes an HTML page that belongs in the sitemap.
    pub fn is_listed_page(&self) -> bool {
        !matches!(
            self,
            Job::NotFound
                | Job::Feed(_)
                | Job::Sitemap
                | Job::Robots
                | Job::Alias(..)
                | Job::PaperExport(..)
                | Job::AuthorBib(_)
                | Job::CorpusJson
        )
    }
}

/// Which feed a feed job writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedKind {
    /// The site's most recent papers.
    Site,
    /// One author's papers.
    Author(AuthorId),
    /// One category's papers.
    Category(CategoryId),
}

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
