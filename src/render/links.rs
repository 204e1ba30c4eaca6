//! Links written in Markdown (content pages, the home page's intro, author
//! profiles, per-paper notes), made to work under any base URL once the
//! site's files are known (after the plan):
//!
//! | written | becomes |
//! |---|---|
//! | `@/group/members.md` (Zola's internal link) | the page's URL, `/papers/group/members/`; a missing file is an error at its line |
//! | `../members.md`, `people.md#x` (relative to the Markdown file, as in an editor or on GitHub) | the page's URL; a missing file is an error at its line |
//! | `/authors/x/`, `/cv.pdf` (root-relative, to a page or file of the site) | the same under the base URL's path, `/papers/authors/x/` |
//! | `/~user/cv.pdf` (root-relative, to nothing of the site) | left as written, with a warning at its line that suggests `@/` |
//! | anything else (`https://…`, `mailto:`, `#x`, `photo.jpg`) | left as written |
//!
//! Links in raw HTML inside the Markdown (`<a href>`, `<img src>`, …) are
//! treated the same and reported at their Markdown line.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::input::content::Content;
use crate::permalink::{Route, UrlMap};
use crate::render::plan::Plan;
use crate::render::site::Site;
use crate::text::escape_html;
use lol_html::{element, HtmlRewriter, Settings};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::Path;

/// What a link becomes.
#[derive(Debug, PartialEq, Eq)]
enum Resolved {
    /// Left as written.
    Same,
    /// Written anew.
    Rewritten(String),
    /// An error: the file it names is not there.
    Missing(String),
    /// Left as written, with a warning: a root-relative link to nothing of
    /// the site.
    Outside(String),
}

/// Resolves the links of Markdown files against the site's files.
pub struct Links<'a> {
    /// The base URL's path, `/` or `/papers/`.
    base_path: String,
    /// Whether a path is an output file of the site
    /// (`authors/x/index.html`, `cv.pdf`): the plan's or a static file.
    is_file: Box<dyn Fn(&str) -> bool + 'a>,
    /// Each content page's URL (root-relative, under the base path), by its
    /// Markdown file relative to `content/` (`group/members.md`).
    pages: FxHashMap<String, String>,
}

impl<'a> Links<'a> {
    /// The resolver for the content of `site`, whose output files are
    /// those of `plan` and the `statics`.
    pub fn new(site: Site<'a>, plan: &'a Plan, statics: &'a FxHashSet<String>) -> Links<'a> {
        let pages = page_urls(site.content, |route| site.urls.url(route));
        Links {
            base_path: site.urls.url(&Route::Home),
            is_file: Box::new(move |file| {
                statics.contains(file) || plan.job_of(&site, file).is_some()
            }),
            pages,
        }
    }

    /// `html`, rendered from the Markdown file `source` whose links (as
    /// written, with their lines) are `links`, with its links resolved;
    /// problems go to `diagnostics`, once per link.
    pub fn rewrite(
        &self,
        html: &str,
        source: &Path,
        links: &[(String, usize)],
        diagnostics: &Diagnostics,
    ) -> String {
        let Some(from) = content_relative(source) else {
            return html.to_string();
        };
        let mut decided: FxHashMap<String, Option<String>> = FxHashMap::default();
        for (link, line) in links {
            if decided.contains_key(link) {
                continue;
            }
            let new = match self.resolve(link, &from) {
                Resolved::Same => None,
                Resolved::Rewritten(new) => Some(new),
                Resolved::Missing(why) => {
                    diagnostics.push(Diagnostic::error(source, *line, why));
                    None
                }
                Resolved::Outside(why) => {
                    diagnostics.push(Diagnostic::warning(source, *line, why));
                    None
                }
            };
            decided.insert(link.clone(), new);
        }
        if decided.values().all(Option::is_none) {
            return html.to_string();
        }
        // The links are known as a browser reads them (character references
        // decoded), lol_html gives and takes attribute values as written.
        let rewrite = |el: &mut lol_html::html_content::Element| {
            for attribute in ["href", "src"] {
                let new = el.get_attribute(attribute).and_then(|value| {
                    let value = htmlize::unescape_attribute(value);
                    decided.get(value.as_ref()).cloned().flatten()
                });
                if let Some(new) = new {
                    el.set_attribute(attribute, &escape_html(&new))?;
                }
            }
            Ok(())
        };
        let mut out = Vec::with_capacity(html.len() + 64);
        let settings = Settings::new()
            .append_element_content_handler(element!("[href], [src]", |el| rewrite(el)));
        let mut rewriter = HtmlRewriter::new(settings, |chunk: &[u8]| out.extend_from_slice(chunk));
        let written = rewriter
            .write(html.as_bytes())
            .and_then(|()| rewriter.end());
        match (written, String::from_utf8(out)) {
            (Ok(()), Ok(rewritten)) => rewritten,
            _ => html.to_string(),
        }
    }

    /// What `link`, written in the Markdown file `from` (relative to
    /// `content/`), becomes.
    fn resolve(&self, link: &str, from: &str) -> Resolved {
        let split = link.find(['?', '#']).unwrap_or(link.len());
        let (path, suffix) = link.split_at(split);
        if let Some(target) = path.strip_prefix("@/") {
            return match self.pages.get(target) {
                Some(url) => Resolved::Rewritten(format!("{url}{suffix}")),
                None => Resolved::Missing(format!(
                    "expected `{link}` to name a Markdown file under content/, found no content/{target}"
                )),
            };
        }
        if path.is_empty() || path.starts_with("//") || has_scheme(path) {
            return Resolved::Same;
        }
        if let Some(site_path) = path.strip_prefix('/') {
            let under_base = path
                .strip_prefix(self.base_path.as_str())
                .filter(|rest| self.is_file_of_site(rest));
            return if under_base.is_some() {
                Resolved::Same
            } else if self.is_file_of_site(site_path) {
                Resolved::Rewritten(format!("{}{site_path}{suffix}", self.base_path))
            } else {
                Resolved::Outside(format!(
                    "expected `{link}` to be a page or file of this site, found none; it is left as \
                     written (a link outside the site). To link a Markdown page, write `@/page.md`"
                ))
            };
        }
        if path.ends_with(".md") {
            let target = join(from, path);
            return match target.as_deref().and_then(|t| self.pages.get(t)) {
                Some(url) => Resolved::Rewritten(format!("{url}{suffix}")),
                None => Resolved::Missing(format!(
                    "expected `{link}` to name a Markdown file beside content/{from}, found no content/{}",
                    target.as_deref().unwrap_or(path)
                )),
            };
        }
        Resolved::Same
    }

    /// Whether the site path `path` (no leading `/`) is a page or file the
    /// site writes.
    fn is_file_of_site(&self, path: &str) -> bool {
        let has = |file: &str| (self.is_file)(file);
        if path.is_empty() || path.ends_with('/') {
            has(&format!("{path}index.html"))
        } else {
            has(path) || has(&format!("{path}/index.html"))
        }
    }
}

/// Each content page's permalink (absolute) by its Markdown file relative
/// to `content/`, `_index.md` for the home page (for `get_url`).
pub fn page_permalinks(
    content: &Content,
    urls: &UrlMap,
) -> std::collections::BTreeMap<String, String> {
    page_urls(content, |route| urls.permalink(route))
}

/// Each content page's `url_of` its route, by its Markdown file relative
/// to `content/`; `_index.md` is the home page, with or without
/// `content/_index.md`.
fn page_urls<M>(content: &Content, url_of: impl Fn(&Route) -> String) -> M
where
    M: FromIterator<(String, String)>,
{
    let pages = content.pages.iter().filter_map(|page| {
        let route = Route::Content {
            path: page.path.clone(),
        };
        Some((content_relative(&page.file)?, url_of(&route)))
    });
    pages
        .chain(std::iter::once((
            "_index.md".to_string(),
            url_of(&Route::Home),
        )))
        .collect()
}

/// `content` with the links of its Markdown resolved ([`Links::rewrite`]):
/// pages, the home page's intro, author profiles and per-paper notes;
/// `None` when nothing changes.
pub fn rewrite_content(
    content: &Content,
    links: &Links,
    diagnostics: &Diagnostics,
) -> Option<Content> {
    let mut rewritten = content.clone();
    let mut changed = false;
    let mut rewrite = |html: &mut String, file: &Path, found: &[(String, usize)]| {
        if found.is_empty() {
            return;
        }
        let new = links.rewrite(html, file, found, diagnostics);
        if new != *html {
            *html = new;
            changed = true;
        }
    };
    for page in rewritten.pages.iter_mut().chain(rewritten.home.as_mut()) {
        rewrite(&mut page.html, &page.file, &page.links);
    }
    for profile in rewritten.profiles.values_mut() {
        rewrite(&mut profile.html, &profile.file, &profile.links);
    }
    for note in rewritten.overrides.values_mut() {
        rewrite(&mut note.note_html, &note.file, &note.note_links);
    }
    changed.then_some(rewritten)
}

/// `file` (`content/group/a.md`) relative to `content/`, with `/`.
fn content_relative(file: &Path) -> Option<String> {
    let relative = file.strip_prefix("content").ok()?;
    let parts: Vec<&str> = relative.iter().filter_map(|p| p.to_str()).collect();
    Some(parts.join("/"))
}

/// `link` resolved against the directory of `from` (both relative to
/// `content/`); `None` if it climbs out of `content/`.
fn join(from: &str, link: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in link.split('/') {
        match part {
            ".." => {
                parts.pop()?;
            }
            "." | "" => {}
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// Whether `link` starts with a URL scheme (`https:`, `mailto:`).
fn has_scheme(link: &str) -> bool {
    link.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn links<'a>(files: &'a [String], statics: &'a FxHashSet<String>) -> Links<'a> {
        Links {
            base_path: "/papers/".to_string(),
            is_file: Box::new(|file| files.iter().any(|f| f == file) || statics.contains(file)),
            pages: [
                ("about.md", "/papers/about/"),
                ("group/members.md", "/papers/group/members/"),
                ("_index.md", "/papers/"),
            ]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
        }
    }

    #[test]
    fn links_resolve_under_the_base_path() {
        let files: Vec<String> = ["index.html", "authors/x/index.html"]
            .into_iter()
            .map(String::from)
            .collect();
        let statics: FxHashSet<String> = ["cv.pdf".to_string()].into_iter().collect();
        let links = links(&files, &statics);
        let r = |link: &str| links.resolve(link, "group/team.md");
        let rewritten = |s: &str| Resolved::Rewritten(s.to_string());
        assert_eq!(r("@/about.md#x"), rewritten("/papers/about/#x"));
        assert_eq!(r("members.md"), rewritten("/papers/group/members/"));
        assert_eq!(r("../about.md?v=1"), rewritten("/papers/about/?v=1"));
        assert_eq!(r("/authors/x/"), rewritten("/papers/authors/x/"));
        assert_eq!(r("/authors/x"), rewritten("/papers/authors/x"));
        assert_eq!(r("/cv.pdf"), rewritten("/papers/cv.pdf"));
        assert_eq!(r("/"), rewritten("/papers/"));
        assert_eq!(r("/papers/authors/x/"), Resolved::Same);
        assert_eq!(r("https://x.org/a.md"), Resolved::Same);
        assert_eq!(r("mailto:a@b.c"), Resolved::Same);
        assert_eq!(r("#top"), Resolved::Same);
        assert_eq!(r("photo.jpg"), Resolved::Same);
        assert_eq!(r("//cdn.org/x.js"), Resolved::Same);
        assert!(matches!(r("/~user/cv.pdf"), Resolved::Outside(_)));
        assert_eq!(
            r("@/gone.md"),
            Resolved::Missing(
                "expected `@/gone.md` to name a Markdown file under content/, found no content/gone.md"
                    .to_string()
            )
        );
        assert_eq!(
            r("../../out.md"),
            Resolved::Missing(
                "expected `../../out.md` to name a Markdown file beside content/group/team.md, found no content/../../out.md"
                    .to_string()
            )
        );
    }
}
