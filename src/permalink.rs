//! The URL map: the one place that knows where every page and file of the
//! site lives, and the slug rules. A [`Route`] names an output; the
//! [`UrlMap`] turns it into the output file path, the root-relative URL
//! used in links (which carries the base URL's sub-path) and the absolute
//! permalink (for canonical links, feeds and the sitemap).
//!
//! | route | URL path | file |
//! |---|---|---|
//! | home | `/` | `index.html` |
//! | author index / author | `/authors/`, `/authors/<slug>/`, `/authors/<slug>/page/<n>/` | `…/index.html` |
//! | year index / year | `/years/`, `/years/<yyyy>/`, `…/page/<n>/` | `…/index.html` |
//! | category index / category | `/categories/`, `/categories/<slug>/`, `…/page/<n>/` | `…/index.html` |
//! | paper | `/papers/<slug>/` | `papers/<slug>/index.html` |
//! | paper export | `/papers/<slug>/<slug>.<ext>` | same |
//! | author BibTeX | `/authors/<slug>/<slug>.bib` | same |
//! | author / category feed | `/authors/<slug>/atom.xml`, `/categories/<slug>/atom.xml` | same |
//! | site feed, search, sitemap, 404, corpus | `/atom.xml`, `/search/`, `/sitemap.xml`, `/404.html`, `/corpus.json` | same |
//! | split sitemap part, robots | `/sitemap-<n>.xml`, `/robots.txt` | same |
//! | alias (redirect page) | `/<old path>/` or `/<old path>.html` | `…/index.html` or the `.html` file |
//! | content page | `content/a/b.md` → `/a/b/`; `content/a/_index.md` → `/a/` | `…/index.html` |
//! | static file | its path under `static/` | same |

use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use xxhash_rust::xxh3::xxh3_64;

/// Longest slug made from a title, in bytes, before the collision suffix.
const MAX_SLUG_LEN: usize = 80;

/// Something the site outputs. Pages numbered `page` are 1-based; page 1
/// lives at the term's own path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Route {
    /// The home page.
    Home,
    /// `/authors/`: every author, or those of the first initial letter
    /// when the index is split by letter.
    AuthorIndex,
    /// `/authors/letter/b/`: the authors of one initial letter after the
    /// first, when the index is split by letter.
    AuthorLetter {
        /// The letter's id: `b`, or `other`.
        id: String,
    },
    /// One author's page `page` of papers.
    Author {
        /// The author's slug.
        slug: String,
        /// 1-based pager page.
        page: usize,
    },
    /// `/years/`.
    YearIndex,
    /// One year's page `page` of papers.
    Year {
        /// The year.
        year: u16,
        /// 1-based pager page.
        page: usize,
    },
    /// `/categories/`.
    CategoryIndex,
    /// One category's page `page` of papers.
    Category {
        /// The category slug (`cs-dc`).
        slug: String,
        /// 1-based pager page.
        page: usize,
    },
    /// One paper's page.
    Paper {
        /// The paper's slug.
        slug: String,
    },
    /// A per-paper export file beside the paper page (`bib`, `ris`, `json`).
    PaperExport {
        /// The paper's slug.
        slug: String,
        /// File extension without the dot.
        ext: &'static str,
    },
    /// The site-wide Atom feed.
    SiteFeed,
    /// One author's BibTeX file of all their papers.
    AuthorBib {
        /// The author's slug.
        slug: String,
    },
    /// One author's Atom feed.
    AuthorFeed {
        /// The author's slug.
        slug: String,
    },
    /// One category's Atom feed.
    CategoryFeed {
        /// The category slug.
        slug: String,
    },
    /// The search page.
    Search,
    /// `sitemap.xml`: the sitemap, or the sitemap index when split.
    Sitemap,
    /// `sitemap-<n>.xml`: part `n` (1-based) of a split sitemap.
    SitemapPart {
        /// 1-based part number.
        part: usize,
    },
    /// `robots.txt`, naming the sitemap.
    Robots,
    /// A redirect page at an old path (an alias), by its path without a
    /// leading slash: `people/olu/` or `old/page.html`.
    Alias {
        /// The normalised alias path (see [`normalise_alias`]).
        path: String,
    },
    /// `404.html`.
    NotFound,
    /// `corpus.json`: the corpus as data.
    CorpusJson,
    /// A Markdown page from `content/`, by its URL path without slashes at
    /// either end (`about`, `group/members`).
    Content {
        /// `a/b` for `content/a/b.md` or `content/a/b/_index.md`.
        path: String,
    },
    /// A file copied from `static/`, by its path relative to `static/` with `/`.
    Static {
        /// Relative path with forward slashes.
        path: String,
    },
}

/// Maps routes to paths and URLs for one base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlMap {
    base_url: String,
    base_path: String,
}

impl UrlMap {
    /// `base_url` is absolute with a trailing slash (as resolved by
    /// [`crate::input::config::Config`]), e.g. `https://lab.github.io/papers/`.
    pub fn new(base_url: &str) -> UrlMap {
        let after_scheme = base_url.split_once("://").map_or(base_url, |(_, r)| r);
        let base_path = match after_scheme.find('/') {
            Some(at) => after_scheme[at..].to_string(),
            None => "/".to_string(),
        };
        UrlMap {
            base_url: base_url.to_string(),
            base_path,
        }
    }

    /// The base URL's path, with slashes at both ends (`/papers/`, or `/`).
    pub fn base_path(&self) -> &str {
        &self.base_path
    }

    /// The base URL, absolute, with a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The route's path relative to the site root, without a leading slash:
    /// `""` for home, `authors/chuan-wu/page/2/`, `sitemap.xml`.
    pub fn site_path(&self, route: &Route) -> String {
        let mut path = String::new();
        push_site_path(route, &mut path);
        path
    }

    /// The output file, relative to the output directory, with `/`
    /// separators: directories get `index.html`. One allocation (a plan
    /// makes one per job: 478,000 at 100,000 papers).
    pub fn output_file(&self, route: &Route) -> String {
        let mut path = String::with_capacity(80);
        self.push_output_file(route, &mut path);
        path
    }

    /// Appends [`UrlMap::output_file`] of `route` to `out`.
    pub fn push_output_file(&self, route: &Route, out: &mut String) {
        let start = out.len();
        push_site_path(route, out);
        if out.len() == start || out.ends_with('/') {
            out.push_str("index.html");
        }
    }

    /// The root-relative URL used in links, under the base path:
    /// `/papers/authors/chuan-wu/` for base `https://lab.github.io/papers/`.
    pub fn url(&self, route: &Route) -> String {
        prefixed(&self.base_path, route)
    }

    /// The absolute URL: `https://lab.github.io/papers/authors/chuan-wu/`.
    pub fn permalink(&self, route: &Route) -> String {
        prefixed(&self.base_url, route)
    }
}

/// `prefix` then [`UrlMap::site_path`] of `route`, in one allocation for
/// most routes (a list makes one for each paper it shows).
fn prefixed(prefix: &str, route: &Route) -> String {
    let mut out = String::with_capacity(prefix.len() + 128);
    out.push_str(prefix);
    push_site_path(route, &mut out);
    out
}

/// Appends [`UrlMap::site_path`] of `route` to `out`.
fn push_site_path(route: &Route, out: &mut String) {
    use std::fmt::Write;
    // Writing to a `String` cannot fail: the results are ignored.
    let paged = |out: &mut String, page: usize| {
        if page > 1 {
            let _ = write!(out, "page/{page}/");
        }
    };
    match route {
        Route::Home => {}
        Route::AuthorIndex => out.push_str("authors/"),
        Route::AuthorLetter { id } => {
            let _ = write!(out, "authors/letter/{id}/");
        }
        Route::Author { slug, page } => {
            out.extend(["authors/", slug, "/"]);
            paged(out, *page);
        }
        Route::YearIndex => out.push_str("years/"),
        Route::Year { year, page } => {
            let _ = write!(out, "years/{year}/");
            paged(out, *page);
        }
        Route::CategoryIndex => out.push_str("categories/"),
        Route::Category { slug, page } => {
            out.extend(["categories/", slug, "/"]);
            paged(out, *page);
        }
        Route::Paper { slug } => out.extend(["papers/", slug, "/"]),
        Route::PaperExport { slug, ext } => {
            let _ = write!(out, "papers/{slug}/{slug}.{ext}");
        }
        Route::SiteFeed => out.push_str("atom.xml"),
        Route::AuthorFeed { slug } => {
            let _ = write!(out, "authors/{slug}/atom.xml");
        }
        Route::AuthorBib { slug } => {
            let _ = write!(out, "authors/{slug}/{slug}.bib");
        }
        Route::CategoryFeed { slug } => {
            let _ = write!(out, "categories/{slug}/atom.xml");
        }
        Route::Search => out.push_str("search/"),
        Route::Sitemap => out.push_str("sitemap.xml"),
        Route::SitemapPart { part } => {
            let _ = write!(out, "sitemap-{part}.xml");
        }
        Route::Robots => out.push_str("robots.txt"),
        Route::Alias { path } | Route::Static { path } => out.push_str(path),
        Route::NotFound => out.push_str("404.html"),
        Route::CorpusJson => out.push_str("corpus.json"),
        Route::Content { path } if path.is_empty() => {}
        Route::Content { path } => {
            let _ = write!(out, "{path}/");
        }
    }
}

/// Normalises an alias (an old URL path) to a site path: no leading slash,
/// a trailing slash unless it names an `.html` file. Errors, saying what
/// was wrong: an empty path, one with `..`, `?`, `#`, a scheme, a
/// backslash, a control character, a hidden segment (`.git/`), or a
/// segment longer than 255 bytes (the longest file name a file system
/// takes).
pub fn normalise_alias(alias: &str) -> Result<String, &'static str> {
    let trimmed = alias.trim().trim_start_matches('/');
    if trimmed.is_empty() {
        return Err("an empty path");
    }
    if trimmed.chars().any(char::is_control) {
        return Err("a control character");
    }
    if trimmed.contains("://") || trimmed.contains(['?', '#', '\\']) {
        return Err("a scheme, `?`, `#` or a backslash");
    }
    if trimmed.split('/').any(|c| c == ".." || c == ".") {
        return Err("a `.` or `..` segment");
    }
    if trimmed.split('/').any(|c| c.starts_with('.')) {
        return Err("a segment starting with `.`, a hidden path (`.git/` is a repository's)");
    }
    if trimmed.split('/').any(|c| c.len() > 255) {
        return Err("a segment longer than 255 bytes, which no file system takes as a name");
    }
    if trimmed.ends_with(".html") || trimmed.ends_with('/') {
        Ok(trimmed.to_string())
    } else {
        Ok(format!("{trimmed}/"))
    }
}

/// The ASCII slug of a text: the letters of math named (see
/// [`math_words`]), transliterated, lowercased, runs of other characters
/// turned into one `-`; at most `MAX_SLUG_LEN` bytes, cut at a `-`. Empty
/// input gives `untitled`.
pub fn slugify(text: &str) -> String {
    if text.is_ascii() {
        ascii_slug(text)
    } else {
        ascii_slug(&math_words(text))
    }
}

/// One paper title for [`FormerSlugs`]: its source (which ranks
/// colliding slugs), HTML and plain text, and the slug it has.
pub struct TitleSlug<'a> {
    /// The title as listed.
    pub source: &'a str,
    /// Its HTML rendering.
    pub html: &'a str,
    /// Its plain text.
    pub plain: &'a str,
    /// The paper's unique slug.
    pub slug: &'a str,
}

/// The slugs papers had before slugs named the letters of math, where
/// they differ from today's, by index into the titles they were worked
/// out from. Earlier versions slugged the flat text of a title's HTML
/// (`Rates of $\sqrt{n}$ Growth` gave `rates-of-n-growth`) and made
/// colliding slugs unique as [`assign_unique_slugs`] does; so a paper's
/// former slug depends on the titles its former base slug collided with,
/// which are worked out again here.
#[derive(Debug, Clone, Default)]
pub struct FormerSlugs {
    /// (index, former slug), sorted.
    pub found: Vec<(usize, String)>,
    /// The base slugs a title with math had before or has now, where the
    /// two differ: only titles with one of these as their former base
    /// can have a former slug.
    affected: FxHashSet<String>,
    /// The titles whose former base is affected (those with a former
    /// slug among them).
    involved: FxHashSet<usize>,
}

impl FormerSlugs {
    /// The former slugs of `titles`. Time linear in the titles; nothing is
    /// slugged again unless a title has math.
    pub fn new(titles: &[TitleSlug]) -> FormerSlugs {
        // Titles whose base slug was another: their former base.
        let mut moved: FxHashMap<usize, String> = FxHashMap::default();
        let mut affected: FxHashSet<String> = FxHashSet::default();
        for (i, t) in titles.iter().enumerate() {
            if let Some((former, now)) = moved_base(t) {
                affected.insert(former.clone());
                affected.insert(now);
                moved.insert(i, former);
            }
        }
        if moved.is_empty() {
            return FormerSlugs::default();
        }
        // The former members of each affected base: the moved titles that
        // had it, and the others that have it still.
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, t) in titles.iter().enumerate() {
            let former = match moved.get(&i) {
                Some(former) => former.as_str(),
                None => base_slug(t),
            };
            if affected.contains(former) {
                groups.entry(former.to_string()).or_default().push(i);
            }
        }
        let mut found = Vec::new();
        let mut involved = FxHashSet::default();
        for (former, members) in groups {
            let items = members
                .iter()
                .map(|&i| (titles[i].source, former.clone()))
                .collect();
            for (&i, slug) in members.iter().zip(assign_unique_slugs(items)) {
                involved.insert(i);
                if slug != titles[i].slug {
                    found.push((i, slug));
                }
            }
        }
        found.sort();
        FormerSlugs {
            found,
            affected,
            involved,
        }
    }

    /// The former slugs of the titles these were worked out from with
    /// those at the indices `changed` names replaced by the titles it
    /// gives, when they are the same: no changed title had or has a
    /// former base that is affected. `None`: work them out anew
    /// ([`FormerSlugs::new`]). Time linear in the changed titles.
    pub fn patched<'t>(
        &self,
        mut changed: impl Iterator<Item = (usize, TitleSlug<'t>)>,
    ) -> Option<FormerSlugs> {
        let same = changed.all(|(i, t)| {
            !self.involved.contains(&i)
                && moved_base(&t).is_none()
                && !self.affected.contains(base_slug(&t))
        });
        same.then(|| self.clone())
    }
}

/// The base slug a title had before slugs named the letters of math and
/// the one it has now, when the two differ.
fn moved_base(t: &TitleSlug) -> Option<(String, String)> {
    // Flat text and plain text give the same slug for text outside a
    // formula (`n<sup>2</sup>` and `n²` both give `n2`).
    let math = t.html.contains("<math")
        || (!t.html.is_ascii() && math_words(t.html).len() != t.html.len());
    if !math {
        return None;
    }
    let former = ascii_slug(&crate::text::plain::flat_text(t.html));
    let now = slugify(t.plain);
    (former != now).then_some((former, now))
}

/// The base slug (before the collision suffix) a title has now; the
/// suffix is checked only where the slug ends like one.
fn base_slug<'a>(t: &TitleSlug<'a>) -> &'a str {
    let Some(at) = t
        .slug
        .len()
        .checked_sub(9)
        .filter(|&at| t.slug.is_char_boundary(at))
    else {
        return t.slug;
    };
    let (stem, suffix) = t.slug.split_at(at);
    let hex = suffix
        .strip_prefix('-')
        .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    match hex {
        Some(hex) if *hex == format!("{:08x}", xxh3_64(t.source.as_bytes()) as u32) => stem,
        _ => t.slug,
    }
}

/// `text` with each radical, big operator and Greek letter that stands
/// alone (no Greek letter beside it, as in math) replaced by its name as a
/// word: `Rates of √n Growth` → `Rates of  sqrt n Growth`, `α-synuclein`
/// → ` alpha -synuclein`, `Θ(√n)` → ` theta ( sqrt n)`. Greek words are
/// left to transliteration.
pub fn math_words(text: &str) -> String {
    let is_greek = |c: Option<char>| {
        c.is_some_and(|c| {
            matches!(c, '\u{370}'..='\u{3ff}' | '\u{1f00}'..='\u{1fff}' | '\u{1d6a8}'..='\u{1d7c9}')
        })
    };
    let mut out = String::with_capacity(text.len() + 16);
    let mut previous = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let alone = !is_greek(previous) && !is_greek(chars.peek().copied());
        let name = match c {
            '√' => Some("sqrt"),
            '∛' => Some("cbrt"),
            '∜' => Some("root4"),
            '∑' => Some("sum"),
            '∏' => Some("prod"),
            '∫' => Some("int"),
            '∞' => Some("infinity"),
            '∂' => Some("partial"),
            '∇' => Some("nabla"),
            _ if alone => greek_name(plain_greek(c)),
            _ => None,
        };
        match name {
            Some(name) => {
                out.push(' ');
                out.push_str(name);
                out.push(' ');
            }
            None => out.push(c),
        }
        previous = Some(c);
    }
    out
}

/// The Greek letter `c` is a form of: a math alphanumeric (bold `𝛃`,
/// italic `𝛼`, … as `\boldsymbol{\beta}` gives) as its letter, an
/// accented one (`ά`) without its accent; else `c`.
fn plain_greek(c: char) -> char {
    use unicode_normalization::UnicodeNormalization;
    let code = c as u32;
    if (0x1d6a8..=0x1d7c9).contains(&code) {
        // Five alphabets of 58: capitals Α–Ρ, ϴ, Σ–Ω, ∇, smalls α–ω, ∂, ϵϑϰϕϱϖ.
        let i = (code - 0x1d6a8) % 58;
        let base = match i {
            0..=16 => 0x391 + i,
            17 => 0x398,
            18..=24 => 0x3a3 + (i - 18),
            26..=50 => 0x3b1 + (i - 26),
            52 => 0x3f5,
            53 => 0x3d1,
            55 => 0x3d5,
            56 => 0x3f1,
            57 => 0x3d6,
            _ => return c,
        };
        return char::from_u32(base).unwrap_or(c);
    }
    if ('\u{370}'..='\u{3ff}').contains(&c) || ('\u{1f00}'..='\u{1fff}').contains(&c) {
        return c.nfd().next().unwrap_or(c);
    }
    c
}

/// The name of a Greek letter, small or capital (`θ`, `ϑ`, `Θ` → `theta`).
fn greek_name(c: char) -> Option<&'static str> {
    Some(match c.to_lowercase().next()? {
        'α' => "alpha",
        'β' => "beta",
        'γ' => "gamma",
        'δ' => "delta",
        'ε' | 'ϵ' => "epsilon",
        'ζ' => "zeta",
        'η' => "eta",
        'θ' | 'ϑ' => "theta",
        'ι' => "iota",
        'κ' => "kappa",
        'λ' => "lambda",
        'μ' | 'µ' => "mu",
        'ν' => "nu",
        'ξ' => "xi",
        'ο' => "omicron",
        'π' | 'ϖ' => "pi",
        'ρ' | 'ϱ' => "rho",
        'σ' | 'ς' => "sigma",
        'τ' => "tau",
        'υ' => "upsilon",
        'φ' | 'ϕ' => "phi",
        'χ' => "chi",
        'ψ' => "psi",
        'ω' => "omega",
        _ => return None,
    })
}

/// `slug`'s slug of `text`, cut to `MAX_SLUG_LEN`, `untitled` if empty.
fn ascii_slug(text: &str) -> String {
    let slug = slug::slugify(text);
    let slug = if slug.len() > MAX_SLUG_LEN {
        let cut = &slug[..MAX_SLUG_LEN];
        cut.rfind('-').map_or(cut, |at| &cut[..at]).to_string()
    } else {
        slug
    };
    if slug.is_empty() {
        "untitled".to_string()
    } else {
        slug
    }
}

/// Gives each item a unique slug. `items` are `(full text, base slug)`
/// pairs, one per distinct item (an author's name, a paper's title); the
/// result has one slug per item, in order (the base slugs, moved, where
/// they are unique).
///
/// Items sharing a base slug are ranked by their full text alone: more
/// non-ASCII characters first (the spelling the ASCII slug was taken from),
/// then by text. The first keeps the base slug; each other gets `-` and
/// eight hex digits of a hash of its full text. So a slug depends only on
/// the item's own text and the texts it collides with, never on the order
/// items are found: adding `Zoe Chen` leaves `Zoë Chen` at `zoe-chen`.
pub fn assign_unique_slugs(items: Vec<(&str, String)>) -> Vec<String> {
    let mut uses: rustc_hash::FxHashMap<&str, usize> = rustc_hash::FxHashMap::default();
    for (_, slug) in &items {
        *uses.entry(slug.as_str()).or_default() += 1;
    }
    let mut by_slug: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, (_, slug)) in items.iter().enumerate() {
        if uses[slug.as_str()] > 1 {
            by_slug.entry(slug.as_str()).or_default().push(index);
        }
    }
    let mut renamed: Vec<(usize, String)> = Vec::new();
    for (slug, mut members) in by_slug {
        members.sort_by_key(|&i| {
            let text = items[i].0;
            (
                std::cmp::Reverse(text.chars().filter(|c| !c.is_ascii()).count()),
                text,
            )
        });
        for &i in &members[1..] {
            renamed.push((
                i,
                format!("{slug}-{:08x}", xxh3_64(items[i].0.as_bytes()) as u32),
            ));
        }
    }
    let mut slugs: Vec<String> = items.into_iter().map(|(_, slug)| slug).collect();
    for (i, slug) in renamed {
        slugs[i] = slug;
    }
    slugs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assign(texts: &[&str]) -> Vec<String> {
        let items: Vec<(&str, String)> = texts.iter().map(|t| (*t, slugify(t))).collect();
        assign_unique_slugs(items)
    }

    #[test]
    fn routes_under_a_sub_path() {
        let map = UrlMap::new("https://lab.github.io/papers/");
        assert_eq!(map.base_path(), "/papers/");
        let author = Route::Author {
            slug: "chuan-wu".into(),
            page: 2,
        };
        assert_eq!(map.url(&author), "/papers/authors/chuan-wu/page/2/");
        assert_eq!(
            map.output_file(&author),
            "authors/chuan-wu/page/2/index.html"
        );
        assert_eq!(
            map.permalink(&Route::Paper { slug: "x".into() }),
            "https://lab.github.io/papers/papers/x/"
        );
        assert_eq!(map.output_file(&Route::Home), "index.html");
        assert_eq!(map.output_file(&Route::NotFound), "404.html");
        assert_eq!(
            map.output_file(&Route::AuthorFeed { slug: "a".into() }),
            "authors/a/atom.xml"
        );
        assert_eq!(
            map.output_file(&Route::PaperExport {
                slug: "p".into(),
                ext: "bib"
            }),
            "papers/p/p.bib"
        );
        assert_eq!(
            map.url(&Route::Year {
                year: 2024,
                page: 1
            }),
            "/papers/years/2024/"
        );
        assert_eq!(UrlMap::new("http://localhost/").base_path(), "/");
    }

    #[test]
    fn aliases() {
        assert_eq!(normalise_alias("/people/olu"), Ok("people/olu/".into()));
        assert_eq!(normalise_alias("old/page.html"), Ok("old/page.html".into()));
        assert_eq!(normalise_alias("/"), Err("an empty path"));
        assert_eq!(normalise_alias("../etc"), Err("a `.` or `..` segment"));
        assert_eq!(normalise_alias("a\r\nb/"), Err("a control character"));
        assert!(normalise_alias(".git/hooks/")
            .unwrap_err()
            .contains("hidden"));
        assert!(normalise_alias(&"a".repeat(256))
            .unwrap_err()
            .contains("255 bytes"));
        assert_eq!(
            normalise_alias(&"a".repeat(255)),
            Ok(format!("{}/", "a".repeat(255)))
        );
        let map = UrlMap::new("https://a.org/sub/");
        let alias = Route::Alias {
            path: "people/olu/".into(),
        };
        assert_eq!(map.output_file(&alias), "people/olu/index.html");
        assert_eq!(
            map.url(&Route::SitemapPart { part: 2 }),
            "/sub/sitemap-2.xml"
        );
    }

    #[test]
    fn slugs_are_ascii_and_bounded() {
        assert_eq!(slugify("Zoë Chen"), "zoe-chen");
        assert_eq!(slugify("Kenji Satō"), "kenji-sato");
        assert_eq!(slugify("cs.DC"), "cs-dc");
        assert_eq!(slugify("王 明"), "wang-ming");
        assert_eq!(slugify("???"), "untitled");
        let long = slugify(&"word ".repeat(40));
        assert!(long.len() <= MAX_SLUG_LEN && !long.ends_with('-'));
    }

    #[test]
    fn slugs_name_the_letters_of_math() {
        assert_eq!(slugify("Rates of √n Growth"), "rates-of-sqrt-n-growth");
        assert_eq!(slugify("O(1/√T) Regret"), "o-1-sqrt-t-regret");
        assert_eq!(slugify("Θ(√n) Bounds"), "theta-sqrt-n-bounds");
        assert_eq!(slugify("α-Synuclein"), "alpha-synuclein");
        assert_eq!(slugify("MoS₂ and K²"), "mos2-and-k2");
        assert_eq!(slugify("∑ᵢ xᵢ to ∞"), "sum-i-xi-to-infinity");
        // Greek words are transliterated, not spelled by letter names.
        assert_eq!(slugify("Μελέτη"), "melete");
        // Bold and italic math letters (`\boldsymbol{\beta}`), accented ones.
        assert_eq!(slugify("𝜷 bold and 𝛼 italic"), "beta-bold-and-alpha-italic");
        assert_eq!(slugify("ά-Helix"), "alpha-helix");
    }

    /// Former slugs as earlier versions assigned them, collisions and
    /// all: `$\alpha$ rays` had `a-rays` and `$\sqrt{a}$ rays` had
    /// `a-rays-…`; `Rates of n Growth`, which has no math, moves when the
    /// math title it collided with leaves.
    #[test]
    fn former_slugs_are_assigned_as_before() {
        let sources = [
            r"$\alpha$ rays",
            r"$\sqrt{a}$ rays",
            r"Rates of $\sqrt{n}$ Growth",
            "Rates of n Growth",
            r"Sorting in $O(n \log n)$",
            "Plain",
        ];
        let rendered: Vec<_> = sources
            .iter()
            .map(|s| crate::text::latex::render(s))
            .collect();
        let bases: Vec<(&str, String)> = sources
            .iter()
            .zip(&rendered)
            .map(|(s, r)| (*s, slugify(&r.plain)))
            .collect();
        let slugs = assign_unique_slugs(bases);
        let titles: Vec<TitleSlug> = (0..sources.len())
            .map(|i| TitleSlug {
                source: sources[i],
                html: &rendered[i].html,
                plain: &rendered[i].plain,
                slug: &slugs[i],
            })
            .collect();
        let old_rays = assign_unique_slugs(vec![
            (sources[0], "a-rays".to_string()),
            (sources[1], "a-rays".to_string()),
        ]);
        let old_rates = assign_unique_slugs(vec![
            (sources[2], "rates-of-n-growth".to_string()),
            (sources[3], "rates-of-n-growth".to_string()),
        ]);
        let mut expected = vec![
            (0, old_rays[0].clone()),
            (1, old_rays[1].clone()),
            (2, old_rates[0].clone()),
        ];
        if old_rates[1] != "rates-of-n-growth" {
            expected.push((3, old_rates[1].clone()));
        }
        expected.sort();
        assert_eq!(slugs[0], "alpha-rays");
        assert_eq!(slugs[3], "rates-of-n-growth");
        assert_eq!(FormerSlugs::new(&titles).found, expected);
        assert!(expected.iter().any(|(_, s)| s == "a-rays"));

        // Patched: a title that is not involved, changed to one that is
        // not either, keeps them; any other change works them out anew.
        let former = FormerSlugs::new(&titles);
        let title = |source: &'static str, slug: &'static str| {
            let rendered = Box::leak(Box::new(crate::text::latex::render(source)));
            TitleSlug {
                source,
                html: &rendered.html,
                plain: &rendered.plain,
                slug,
            }
        };
        let kept = former.patched([(5, title("Plainer", "plainer"))].into_iter());
        assert_eq!(kept.map(|f| f.found), Some(expected.clone()));
        // Sorting has math, but its slug is the same either way.
        let sorting = former.patched([(4, title("Sorted", "sorted"))].into_iter());
        assert_eq!(sorting.map(|f| f.found), Some(expected));
        // `Rates of n Growth` is a member of a group; a new title with
        // math that moves; a new title whose base is affected.
        assert!(former
            .patched([(3, title("Rates", "rates"))].into_iter())
            .is_none());
        assert!(former
            .patched([(5, title(r"$\beta$ rays", "beta-rays"))].into_iter())
            .is_none());
        assert!(former
            .patched([(5, title("A rays", "a-rays"))].into_iter())
            .is_none());
    }

    #[test]
    fn collisions_do_not_depend_on_order_seen() {
        let alone = assign(&["Zoë Chen"]);
        let both = assign(&["Zoe Chen", "Zoë Chen"]);
        let reversed = assign(&["Zoë Chen", "Zoe Chen"]);
        assert_eq!(alone, ["zoe-chen"]);
        assert_eq!(both[1], "zoe-chen");
        assert_eq!(reversed[0], "zoe-chen");
        assert_eq!(both[0], reversed[1]);
        assert!(both[0].starts_with("zoe-chen-") && both[0].len() == "zoe-chen-".len() + 8);
    }
}
