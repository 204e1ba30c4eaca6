//! A paper's metadata, each value defined once for every output that
//! shows it: the template fields ([`crate::render::views`]), the exports
//! ([`crate::render::exports`]) and the paper page's scholarly metadata
//! ([`crate::render::scholar`]). Takes a paper of the frozen corpus and
//! hands on borrowed values (strings of the paper, URLs made on request).

use crate::corpus::{AuthorId, Paper};
use crate::permalink::Route;
use crate::render::site::{Abstract, Site};

/// A paper's metadata as every output shows it: the template fields of
/// [`crate::render::views::PAPER_FIELDS`] (through
/// [`crate::render::views::PaperValues`]), the exports (BibTeX, RIS,
/// CSL-JSON and `corpus.json`, [`crate::render::exports`]) and the paper
/// page's JSON-LD ([`crate::render::scholar`]). Each value that more than
/// one of them shows is defined here once, so a page and an export cannot
/// disagree on it; what only one output has (a list's byline, BibTeX's
/// escaping, RIS's tags, CSL's name parts) is made there, from these.
#[derive(Clone, Copy)]
pub struct Metadata<'a> {
    site: Site<'a>,
    paper: &'a Paper,
    with: Abstract,
}

impl<'a> Metadata<'a> {
    /// The metadata of `paper` of `site`'s corpus, with its abstract when
    /// `with` is [`Abstract::Included`].
    pub fn new(site: &Site<'a>, paper: &'a Paper, with: Abstract) -> Metadata<'a> {
        Metadata {
            site: *site,
            paper,
            with,
        }
    }

    /// The citation key (`chu2024optimizing`).
    pub fn key(&self) -> &'a str {
        &self.paper.key
    }

    /// The slug of the paper's page.
    pub fn slug(&self) -> &'a str {
        &self.paper.slug
    }

    /// The route of the paper's page.
    fn route(&self) -> Route {
        Route::Paper {
            slug: self.paper.slug.clone(),
        }
    }

    /// The URL of the paper's page, from the site's root (`paper.url`).
    pub fn url(&self) -> String {
        self.site.urls.url(&self.route())
    }

    /// The absolute URL of the paper's page, as exports and the page's
    /// metadata cite it.
    pub fn permalink(&self) -> String {
        self.site.urls.permalink(&self.route())
    }

    /// The title as plain text (no markup, `$` or backslashes).
    pub fn title(&self) -> &'a str {
        self.paper.title.plain()
    }

    /// The title as listed, LaTeX-ish (`$math$`, `\textbf{}`): what
    /// BibTeX escapes and `corpus.json` hands on, neither of which a page
    /// shows (it shows [`Metadata::title`] and the title's HTML).
    pub fn title_latex(&self) -> &'a str {
        self.paper.title.source()
    }

    /// The year, when known.
    pub fn year(&self) -> Option<u16> {
        self.paper.known_year()
    }

    /// Where the paper appeared (`NeurIPS 2024`), when known.
    pub fn venue(&self) -> Option<&'a str> {
        self.paper.details.venue.as_deref()
    }

    /// Whether an override marks the paper selected.
    pub fn selected(&self) -> bool {
        self.paper.details.selected
    }

    /// The paper's authors as the site credits them: each name as written
    /// and the listing owner it names ([`crate::corpus::Corpus::credited`]).
    pub fn credited(&self) -> impl Iterator<Item = (&'a str, Option<AuthorId>)> + 'a {
        self.site.corpus.credited(self.paper)
    }

    /// Whether [`Metadata::credited`] is the complete author list (a
    /// record or override gives it), not only the listing owners.
    pub fn authors_complete(&self) -> bool {
        self.paper.details.complete_authors.is_some()
    }

    /// The category codes, primary first.
    pub fn category_codes(&self) -> Vec<&'a str> {
        self.site.corpus.category_codes(self.paper)
    }

    /// The arXiv identifier, without prefix or version (`2405.01234`).
    pub fn arxiv_id(&self) -> Option<&'a str> {
        self.paper.details.arxiv_id.as_deref()
    }

    /// The arXiv abstract page.
    pub fn arxiv_url(&self) -> Option<String> {
        self.arxiv_id()
            .map(|id| format!("https://arxiv.org/abs/{id}"))
    }

    /// The PDF ([`pdf_url`]).
    pub fn pdf_url(&self) -> Option<String> {
        pdf_url(self.paper)
    }

    /// The DOI, without resolver prefix (`10.1145/3600006.3613145`).
    pub fn doi(&self) -> Option<&'a str> {
        self.paper.details.doi.as_deref()
    }

    /// The DOI's resolver URL.
    pub fn doi_url(&self) -> Option<String> {
        self.doi().map(|doi| format!("https://doi.org/{doi}"))
    }

    /// The abstract, when the metadata is asked for with it
    /// ([`Abstract::Included`]) and the paper has one.
    pub fn abstract_text(&self) -> Option<&'a crate::text::Abstract> {
        let text = &*self.paper.abstract_text;
        (self.with == Abstract::Included && !text.is_empty()).then_some(text)
    }
}

/// The PDF link: the override's, else arXiv's when the id is known.
pub fn pdf_url(paper: &Paper) -> Option<String> {
    paper.details.pdf.clone().or_else(|| {
        paper
            .details
            .arxiv_id
            .as_ref()
            .map(|id| format!("https://arxiv.org/pdf/{id}"))
    })
}
