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

use crate::corpus::{AuthorId, Paper};
use crate::permalink::Route;
use crate::render::metadata::{pdf_url, Metadata};
use crate::render::site::Abstract;
use crate::render::site::Site;
use serde::Serialize;
use serde_json::value::RawValue;

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
/// `citation_arxiv_id`, `citation_doi` and `citation_pdf_url`, those
/// last when known. No `citation_abstract`: Scholar reads the abstract
/// from the page, where it is once; no `citation_abstract_html_url`: it
/// was the page's own URL, which the canonical link gives.
pub fn citation_tags(paper: &Paper) -> Vec<MetaTag> {
    let mut tags = vec![tag("citation_title", paper.title.plain())];
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
    tags
}

/// OpenGraph tags: `og:type` (article), `og:title`, `og:description`,
/// `og:url` and `og:site_name`.
pub fn open_graph(site: &Site, paper: &Paper, description: &str) -> Vec<MetaTag> {
    let meta = Metadata::new(site, paper, Abstract::Left);
    vec![
        tag("og:type", "article"),
        tag("og:title", meta.title()),
        tag("og:description", description),
        tag("og:url", meta.permalink()),
        tag("og:site_name", site.config.title.as_str()),
    ]
}

/// A paper page's metadata for its `<head>`, as the default theme printed
/// it with tera: each of `citation` as `<meta name="…" content="…">` and
/// each of `open_graph` as `<meta property="…" content="…">`, a line
/// each, then `json_ld` in its `<script>` element. Made here once,
/// where tera looped over the tags on every paper page (measured in
/// 092fb91).
pub fn head_html(citation: &[MetaTag], open_graph: &[MetaTag], json_ld: &str) -> String {
    let mut out = String::with_capacity(1024 + json_ld.len());
    for (attribute, tags) in [("name", citation), ("property", open_graph)] {
        for tag in tags {
            out.extend(["<meta ", attribute, "=\""]);
            crate::text::push_escaped_html(&mut out, tag.name);
            out.push_str("\" content=\"");
            crate::text::push_escaped_html(&mut out, &tag.content);
            out.push_str("\">\n");
        }
    }
    out.extend([
        "<script type=\"application/ld+json\">",
        json_ld,
        "</script>",
    ]);
    out
}

/// The schema.org `ScholarlyArticle` of a paper as JSON text that is safe
/// inside `<script type="application/ld+json">`: `<`, `>` and `&` are
/// written as `\u003c`, `\u003e`, `\u0026`, so no text can end the element.
/// Authors are `Person`s with their author page URL when they are listed
/// authors (the complete list when an override gives one). It has no
/// `abstract`: the page shows it once, the meta description (shared by
/// Open Graph) summarises it, and the exports carry it.
pub fn json_ld<'p>(
    site: &Site,
    paper: &Paper,
    person: &dyn Fn(AuthorId) -> Option<&'p RawValue>,
) -> String {
    let corpus = site.corpus;
    let meta = Metadata::new(site, paper, Abstract::Left);
    let author_url = |id: usize| {
        site.urls.permalink(&Route::Author {
            slug: corpus.authors[id].slug.clone(),
            page: 1,
        })
    };
    // A listed author under their own name is their `Person` made once
    // ([`person_json`]), not serialised again on every paper (measured in
    // a429894).
    let author: Vec<Credited> = meta
        .credited()
        .map(|(name, owner)| {
            let own = owner.filter(|&a| corpus.authors[a].name == name);
            match own.and_then(person) {
                Some(json) => Credited::Known(json),
                None => Credited::Named(Person::new(name, owner.map(author_url))),
            }
        })
        .collect();
    let details = &paper.details;
    let mut identifier = Vec::new();
    if let Some(id) = meta.arxiv_id() {
        identifier.push(PropertyValue::new("arXiv", id));
    }
    if let Some(doi) = meta.doi() {
        identifier.push(PropertyValue::new("DOI", doi));
    }
    let same_as = [meta.arxiv_url(), meta.doi_url()].into_iter().flatten();
    let article = ScholarlyArticle {
        context: "https://schema.org",
        kind: "ScholarlyArticle",
        author,
        date_modified: details.revised.as_ref().map(|(_, date)| date.as_str()),
        date_published: details
            .submitted
            .clone()
            .or_else(|| meta.year().map(|y| y.to_string())),
        headline: meta.title(),
        identifier,
        is_part_of: meta.venue(),
        keywords: paper
            .categories
            .iter()
            .map(|&c| corpus.categories[c].name.as_str())
            .collect(),
        name: meta.title(),
        same_as: same_as.collect(),
        url: meta.permalink(),
    };
    // Room for a typical entry at once: grown from serde_json's 128
    // bytes, it was copied eight times a paper.
    let mut json = Vec::with_capacity(1024);
    match serde_json::to_writer(&mut json, &article) {
        Ok(()) => script_safe(std::str::from_utf8(&json).unwrap_or_default()),
        Err(_) => String::new(),
    }
}

/// A schema.org `ScholarlyArticle`, its keys in byte order as a JSON
/// object of serde_json writes them.
#[derive(Serialize)]
struct ScholarlyArticle<'a> {
    #[serde(rename = "@context")]
    context: &'static str,
    #[serde(rename = "@type")]
    kind: &'static str,
    author: Vec<Credited<'a>>,
    #[serde(rename = "dateModified", skip_serializing_if = "Option::is_none")]
    date_modified: Option<&'a str>,
    #[serde(rename = "datePublished", skip_serializing_if = "Option::is_none")]
    date_published: Option<String>,
    headline: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    identifier: Vec<PropertyValue<'a>>,
    #[serde(rename = "isPartOf", skip_serializing_if = "Option::is_none")]
    is_part_of: Option<&'a str>,
    keywords: Vec<&'a str>,
    name: &'a str,
    #[serde(rename = "sameAs", skip_serializing_if = "Vec::is_empty")]
    same_as: Vec<String>,
    url: String,
}

/// Author `id`'s schema.org `Person` under their own name, with their
/// author page, as JSON ([`json_ld`] takes it as it is).
pub fn person_json(site: &Site, id: AuthorId) -> Option<Box<RawValue>> {
    let author = &site.corpus.authors[id];
    let url = site.urls.permalink(&Route::Author {
        slug: author.slug.clone(),
        page: 1,
    });
    serde_json::value::to_raw_value(&Person::new(&author.name, Some(url))).ok()
}

/// A name of a paper's author list in its JSON-LD.
#[derive(Serialize)]
#[serde(untagged)]
enum Credited<'a> {
    /// A listed author's [`person_json`].
    Known(&'a RawValue),
    /// Any other name.
    Named(Person<'a>),
}

/// A schema.org `Person`: a name, and the author page when there is one.
#[derive(Serialize)]
struct Person<'a> {
    #[serde(rename = "@type")]
    kind: &'static str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<String>,
}

impl<'a> Person<'a> {
    fn new(name: &'a str, url: Option<String>) -> Person<'a> {
        Person {
            kind: "Person",
            name,
            url,
        }
    }
}

/// A schema.org `PropertyValue`: an identifier of a scheme (arXiv, DOI).
#[derive(Serialize)]
struct PropertyValue<'a> {
    #[serde(rename = "@type")]
    kind: &'static str,
    #[serde(rename = "propertyID")]
    property_id: &'static str,
    value: &'a str,
}

impl<'a> PropertyValue<'a> {
    fn new(property_id: &'static str, value: &'a str) -> PropertyValue<'a> {
        PropertyValue {
            kind: "PropertyValue",
            property_id,
            value,
        }
    }
}

/// JSON text with `<`, `>` and `&` escaped as JSON unicode escapes (they
/// can only occur inside strings, where the escapes mean the same).
fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut rest = json;
    while let Some(at) = memchr::memchr3(b'<', b'>', b'&', rest.as_bytes()) {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'<' => "\\u003c",
            b'>' => "\\u003e",
            _ => "\\u0026",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    #[test]
    fn script_safe_keeps_json_meaning() {
        let text = json!({"a": "</script><b>&"}).to_string();
        let safe = script_safe(&text);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        let back: Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["a"], "</script><b>&");
    }
}
