//! Atom feeds (RFC 4287), the sitemap (sitemaps.org) and `robots.txt`,
//! written with well-kept XML crates rather than templates so they are
//! always well-formed.
//!
//! Feeds: the site's most recent papers (`/atom.xml`), one per author
//! (`/authors/<slug>/atom.xml`) and one per category
//! (`/categories/<slug>/atom.xml`), each holding at most `feed_limit`
//! entries in the global paper order (year descending, then title).
//! An entry's `published` is the date of v1 and its `updated` that of the
//! latest version where the paper's arXiv record gives them; listings
//! carry only years, so otherwise both are 1 January of its year at 00:00
//! UTC. A feed's `updated` is its latest entry's; no build time appears
//! anywhere. Entry authors are the complete list where known, else the
//! listing owners, with their pages; an author's feed names the first
//! eight and that author ([`shown_in_list`]). Entry ids are the papers'
//! permalinks, so they are unique and stable.

use crate::corpus::{AuthorId, Corpus, Paper, PaperId};
use crate::permalink::Route;
use crate::render::jobs::{FeedKind, Job};
use crate::render::site::Site;
use crate::render::views::shown_in_list;
use atom_syndication::{Category, Entry, Feed, FixedDateTime, Link, Person, Text};
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;
use rayon::prelude::*;
use std::hash::{Hash, Hasher};

/// The page a feed accompanies and the feed's title.
fn feed_page(site: &Site, kind: FeedKind) -> (Route, String) {
    let corpus = site.corpus;
    match kind {
        FeedKind::Site => (Route::Home, site.config.title.clone()),
        FeedKind::Author(id) => {
            let author = &corpus.authors[id];
            (
                Route::Author {
                    slug: author.slug.clone(),
                    page: 1,
                },
                format!("{} · {}", author.name, site.config.title),
            )
        }
        FeedKind::Category(id) => {
            let category = &corpus.categories[id];
            (
                Route::Category {
                    slug: category.slug.clone(),
                    page: 1,
                },
                format!(
                    "{} ({}) · {}",
                    category.name, category.code, site.config.title
                ),
            )
        }
    }
}

/// 1 January of `year`, 00:00 UTC.
pub fn year_date(year: u16) -> FixedDateTime {
    FixedDateTime::parse_from_rfc3339(&format!("{year:04}-01-01T00:00:00Z")).unwrap_or_default()
}

/// A record's date (`2008-04-07`), 00:00 UTC.
fn day_date(day: &str) -> Option<FixedDateTime> {
    FixedDateTime::parse_from_rfc3339(&format!("{day}T00:00:00Z")).ok()
}

/// What a feed entry shows of a paper: an entry is made from this alone
/// (`entry`), and a feed's fingerprint hashes it
/// ([`crate::serve::fingerprint`]).
pub struct EntrySource<'c> {
    paper: &'c Paper,
    /// Its names, the complete list where known, each listing owner's
    /// with the owner's slug.
    credited: Vec<(&'c str, Option<(AuthorId, &'c str)>)>,
    /// Its categories' codes and names.
    categories: Vec<(&'c str, &'c str)>,
}

impl<'c> EntrySource<'c> {
    /// Paper `id`'s entry source.
    pub fn of(corpus: &'c Corpus, id: PaperId) -> EntrySource<'c> {
        let paper = &corpus.papers[id];
        let slug = |a: AuthorId| (a, corpus.authors[a].slug.as_str());
        EntrySource {
            paper,
            credited: corpus
                .credited(paper)
                .map(|(name, owner)| (name, owner.map(slug)))
                .collect(),
            categories: paper
                .categories
                .iter()
                .map(|&c| &corpus.categories[c])
                .map(|c| (c.code.as_str(), c.name.as_str()))
                .collect(),
        }
    }
}

impl Hash for EntrySource<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let paper = self.paper;
        let details = &paper.details;
        (&paper.slug, paper.title.source(), paper.year).hash(state);
        (&details.submitted, &details.revised).hash(state);
        // The summary is made from the abstract's source alone.
        (
            paper.abstract_text.is_empty(),
            paper.abstract_text.source_hash,
        )
            .hash(state);
        (&self.credited, &self.categories).hash(state);
    }
}

/// The entry of `source` in a feed of `kind`.
fn entry(site: &Site, source: &EntrySource, kind: FeedKind) -> Entry {
    let urls = site.urls;
    let paper = source.paper;
    let permalink = urls.permalink(&Route::Paper {
        slug: paper.slug.clone(),
    });
    // v1's date and the latest version's where the arXiv record gives
    // them.
    let details = &paper.details;
    let published = details
        .submitted
        .as_deref()
        .and_then(day_date)
        .unwrap_or_else(|| year_date(paper.year));
    let updated = details
        .revised
        .as_ref()
        .and_then(|(_, d)| day_date(d))
        .unwrap_or(published);
    // An author's feed names the first authors and that author, as their
    // page's list does, so a paper of many listing owners is not all its
    // names in each of their feeds.
    let credited = source
        .credited
        .iter()
        .enumerate()
        .filter(|&(i, (_, owner))| match kind {
            FeedKind::Author(focus) => shown_in_list(i, owner.map(|(a, _)| a), Some(focus)),
            _ => true,
        })
        .map(|(_, name)| name);
    let authors = credited.map(|&(name, owner)| Person {
        name: name.to_string(),
        email: None,
        uri: owner.map(|(_, slug)| {
            urls.permalink(&Route::Author {
                slug: slug.into(),
                page: 1,
            })
        }),
        ..Person::default()
    });
    Entry {
        id: permalink.clone(),
        title: Text::plain(paper.title.plain().to_string()),
        updated,
        published: Some(published),
        authors: authors.collect(),
        categories: source
            .categories
            .iter()
            .map(|&(code, name)| Category {
                term: code.to_string(),
                scheme: None,
                label: Some(name.to_string()),
            })
            .collect(),
        links: vec![alternate(permalink)],
        summary: (!paper.abstract_text.is_empty())
            .then(|| Text::plain(paper.abstract_text.plain().into_owned())),
        ..Entry::default()
    }
}

/// Renders one Atom feed as UTF-8 XML.
pub fn atom(site: &Site, kind: FeedKind) -> Vec<u8> {
    let corpus = site.corpus;
    let urls = site.urls;
    let feed_route = site.route(&Job::Feed(kind));
    let (page_route, title) = feed_page(site, kind);
    let entries: Vec<Entry> = site
        .feed_papers(kind)
        .into_iter()
        .map(|id| entry(site, &EntrySource::of(corpus, id), kind))
        .collect();
    let feed_url = urls.permalink(&feed_route);
    let feed = Feed {
        id: feed_url.clone(),
        title: Text::plain(title),
        updated: entries
            .iter()
            .map(|e| e.updated)
            .max()
            .unwrap_or_else(|| year_date(1970)),
        links: vec![
            Link {
                href: feed_url,
                rel: "self".into(),
                mime_type: Some("application/atom+xml".into()),
                ..Link::default()
            },
            alternate(urls.permalink(&page_route)),
        ],
        lang: Some(site.config.language.clone()),
        entries,
        ..Feed::default()
    };
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = feed.write_to(&mut out);
    out
}

fn alternate(href: String) -> Link {
    Link {
        href,
        rel: "alternate".into(),
        mime_type: Some("text/html".into()),
        ..Link::default()
    }
}

/// The files a sitemap of `listed` pages is written to: `sitemap.xml`
/// alone when they fit in `sitemap_max_urls`, else `sitemap-1.xml`,
/// `sitemap-2.xml`, … and then `sitemap.xml`, their index.
pub fn sitemap_routes(site: &Site, listed: usize) -> Vec<Route> {
    let max = site.config.sitemap_max_urls;
    let parts = if listed <= max {
        0
    } else {
        listed.div_ceil(max)
    };
    (1..=parts)
        .map(|part| Route::SitemapPart { part })
        .chain([Route::Sitemap])
        .collect()
}

/// Makes the sitemap files ([`sitemap_routes`]) of the listed pages of
/// `plan` ([`Job::is_listed_page`], in plan order), each part listing at
/// most `sitemap_max_urls`, and hands each to `put` as it is made (the
/// parts in parallel); returns what `put` returned, the parts in order,
/// then the index. The parts are never held together, nor every page's
/// URL, which grow with the site (measured in 7ed13a0).
pub fn sitemaps<T: Send>(
    site: &Site,
    plan: &[Job],
    put: &(dyn Fn(Route, Vec<u8>) -> T + Sync),
) -> Vec<T> {
    let listed: Vec<&Job> = plan.par_iter().filter(|job| job.is_listed_page()).collect();
    let permalinks = |jobs: &[&Job]| {
        jobs.iter()
            .map(|job| site.urls.permalink(&site.route(job)))
            .collect::<Vec<_>>()
    };
    let mut routes = sitemap_routes(site, listed.len());
    let index = routes.pop().unwrap_or(Route::Sitemap);
    if routes.is_empty() {
        return vec![put(index, urlset(&permalinks(&listed)))];
    }
    let parts: Vec<String> = routes.iter().map(|r| site.urls.permalink(r)).collect();
    let mut put_files: Vec<T> = listed
        .par_chunks(site.config.sitemap_max_urls)
        .zip(routes)
        .map(|(chunk, route)| put(route, urlset(&permalinks(chunk))))
        .collect();
    put_files.push(put(index, xml_list("sitemapindex", "sitemap", &parts)));
    put_files
}

fn urlset(permalinks: &[String]) -> Vec<u8> {
    xml_list("urlset", "url", permalinks)
}

/// `<outer xmlns=…><inner><loc>url</loc></inner>…</outer>`.
fn xml_list(outer: &str, inner: &str, locations: &[String]) -> Vec<u8> {
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 1);
    // Writing to a Vec cannot fail.
    let _ = writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let _ = writer
        .create_element(outer)
        .with_attribute(("xmlns", "http://www.sitemaps.org/schemas/sitemap/0.9"))
        .write_inner_content(|w| {
            for location in locations {
                w.create_element(inner).write_inner_content(|w| {
                    w.create_element("loc")
                        .write_text_content(BytesText::new(location))?;
                    Ok(())
                })?;
            }
            Ok(())
        });
    let mut out = writer.into_inner();
    out.push(b'\n');
    out
}

/// `robots.txt`: allow everything, name the sitemap.
pub fn robots(site: &Site) -> Vec<u8> {
    format!(
        "User-agent: *\nAllow: /\n\nSitemap: {}\n",
        site.urls.permalink(&Route::Sitemap)
    )
    .into_bytes()
}
