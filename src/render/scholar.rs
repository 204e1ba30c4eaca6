//! Citation metadata of a paper page, for search engines and reference
//! managers: Google Scholar `citation_*` meta tags, OpenGraph tags and a
//! schema.org `ScholarlyArticle` JSON-LD block. Called by [`crate::render`]
//! for each paper page; hands back tag lists and a script-safe JSON string.
//!
//! Honesty rule: listings carry no co-author lists, so a paper's known
//! authors are only the owners of the listings that hold it. Scholar's
//! `citation_author` tags are emitted only when an override gives the
//! complete author list; otherwise none, so no one is credited alone with a
//! paper they share with unlisted co-authors.

use crate::corpus::Paper;
use crate::permalink::Route;
use crate::render::site::Site;
use serde::Serialize;
use serde_json::{json, Value};

/// One `<meta>` tag: `name` (or `property` for OpenGraph) and `content`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MetaTag {
    /// `citation_title`, `og:title`, …
    pub name: &'static str,
    /// The value, plain text (the template escapes it).
    pub content: String,
}

fn tag(name: &'static str, content: impl Into<String>) -> MetaTag {
    MetaTag {
        name,
        content: content.into(),
    }
}

/// Google Scholar tags: `citation_title`, `citation_author` (each, only
/// with a complete author list), `citation_publication_date` (v1's date
/// where the arXiv record gives it, else the year),
/// `citation_abstract`, `citation_arxiv_id`, `citation_doi`,
/// `citation_pdf_url` and `citation_abstract_html_url`, those last when
/// known. `abstract_plain` is the abstract's plain text ([`crate::text::Abstract::plain`]).
pub fn citation_tags(site: &Site, paper: &Paper, abstract_plain: &str) -> Vec<MetaTag> {
    let mut tags = vec![tag("citation_title", paper.title.plain.as_str())];
    if let Some(names) = &paper.details.complete_authors {
        tags.extend(names.iter().map(|n| tag("citation_author", n.as_str())));
    }
    // The date of v1 where the record gives it, as Scholar writes dates.
    let date = paper
        .details
        .submitted
        .as_ref()
        .map(|d| d.replace('-', "/"));
    if let Some(date) = date.or_else(|| paper.known_year().map(|y| y.to_string())) {
        tags.push(tag("citation_publication_date", date));
    }
    if !paper.abstract_text.is_empty() {
        tags.push(tag("citation_abstract", abstract_plain));
    }
    let details = &paper.details;
    if let Some(id) = &details.arxiv_id {
        tags.push(tag("citation_arxiv_id", id.as_str()));
    }
    if let Some(doi) = &details.doi {
        tags.push(tag("citation_doi", doi.as_str()));
    }
    if let Some(pdf) = pdf_url(paper) {
        tags.push(tag("citation_pdf_url", pdf));
    }
    // A record's journal reference names a journal; an override's venue
    // is taken for a conference.
    if let Some(venue) = &details.venue {
        let name = match details.journal_ref.as_ref() == Some(venue) {
            true => "citation_journal_title",
            false => "citation_conference_title",
        };
        tags.push(tag(name, venue.as_str()));
    }
    tags.push(tag(
        "citation_abstract_html_url",
        site.urls.permalink(&paper_route(paper)),
    ));
    tags
}

/// OpenGraph tags: `og:type` (article), `og:title`, `og:description`,
/// `og:url` and `og:site_name`.
pub fn open_graph(site: &Site, paper: &Paper, description: &str) -> Vec<MetaTag> {
    vec![
        tag("og:type", "article"),
        tag("og:title", paper.title.plain.as_str()),
        tag("og:description", description),
        tag("og:url", site.urls.permalink(&paper_route(paper))),
        tag("og:site_name", site.config.title.as_str()),
    ]
}

/// The schema.org `ScholarlyArticle` of a paper as JSON text that is safe
/// inside `<script type="application/ld+json">`: `<`, `>` and `&` are
/// written as `\u003c`, `\u003e`, `\u0026`, so no text can end the element.
/// Authors are `Person`s with their author page URL when they are listed
/// authors (the complete list when an override gives one).
/// `abstract_plain` is the abstract's plain text.
pub fn json_ld(site: &Site, paper: &Paper, abstract_plain: &str) -> String {
    let corpus = site.corpus;
    let person = |name: &str, url: Option<String>| {
        let mut p = json!({"@type": "Person", "name": name});
        if let Some(url) = url {
            p["url"] = Value::from(url);
        }
        p
    };
    let author_url = |id: usize| {
        site.urls.permalink(&Route::Author {
            slug: corpus.authors[id].slug.clone(),
            page: 1,
        })
    };
    let authors: Vec<Value> = match &paper.details.complete_authors {
        Some(names) => names
            .iter()
            .map(|name| person(name, corpus.listed_author(paper, name).map(author_url)))
            .collect(),
        None => paper
            .authors
            .iter()
            .map(|&id| person(&corpus.authors[id].name, Some(author_url(id))))
            .collect(),
    };
    let keywords: Vec<&str> = paper
        .categories
        .iter()
        .map(|&c| corpus.categories[c].name.as_str())
        .collect();
    let mut article = json!({
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "headline": paper.title.plain,
        "name": paper.title.plain,
        "author": authors,
        "keywords": keywords,
        "url": site.urls.permalink(&paper_route(paper)),
    });
    let published = paper.details.submitted.clone();
    if let Some(date) = published.or_else(|| paper.known_year().map(|y| y.to_string())) {
        article["datePublished"] = Value::from(date);
    }
    if !paper.abstract_text.is_empty() {
        article["abstract"] = Value::from(abstract_plain);
    }
    let details = &paper.details;
    let mut identifiers = Vec::new();
    let mut same_as = Vec::new();
    if let Some(id) = &details.arxiv_id {
        identifiers.push(json!({"@type": "PropertyValue", "propertyID": "arXiv", "value": id}));
        same_as.push(format!("https://arxiv.org/abs/{id}"));
    }
    if let Some(doi) = &details.doi {
        identifiers.push(json!({"@type": "PropertyValue", "propertyID": "DOI", "value": doi}));
        same_as.push(format!("https://doi.org/{doi}"));
    }
    if !identifiers.is_empty() {
        article["identifier"] = Value::from(identifiers);
        article["sameAs"] = Value::from(same_as);
    }
    if let Some(venue) = &details.venue {
        article["isPartOf"] = Value::from(venue.as_str());
    }
    if let Some((_, date)) = &details.revised {
        article["dateModified"] = Value::from(date.as_str());
    }
    script_safe(&article.to_string())
}

/// JSON text with `<`, `>` and `&` escaped as JSON unicode escapes (they
/// can only occur inside strings, where the escapes mean the same).
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
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

fn paper_route(paper: &Paper) -> Route {
    Route::Paper {
        slug: paper.slug.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_safe_keeps_json_meaning() {
        let text = json!({"a": "</script><b>&"}).to_string();
        let safe = script_safe(&text);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        let back: Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["a"], "</script><b>&");
    }
}
