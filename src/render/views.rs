//! Template values of corpus items: papers, authors, years and
//! categories serialised for tera once per build, or once per page that
//! lists them, and shared by every page's context.

use crate::corpus::{AuthorId, CategoryId, Paper, PaperId};
use crate::permalink::Route;
use crate::render::jobs::{Export, Job};
use crate::render::metadata::Metadata;
use crate::render::site::Abstract;
use crate::render::site::Site;
use crate::text::{escape_html, push_escaped_html};
use serde::Serialize;
use std::borrow::Cow;
use std::cell::OnceCell;
use tera::Value;

/// A link to an author's page.
#[derive(Serialize)]
pub struct PersonLink<'a> {
    /// The author's name.
    pub name: &'a str,
    /// Their page's URL.
    pub url: String,
}

/// A link to a category's page.
#[derive(Serialize)]
pub struct CategoryLink<'a> {
    code: &'a str,
    name: &'a str,
    url: String,
}

/// One field of a paper's template value: its name, its type as
/// docs/templates.md's paper table gives it, and how it is made.
/// [`PAPER_FIELDS`] is the one list of them: the tera value
/// ([`Views::paper`]), the list items filled in without tera
/// ([`crate::render::items`]) and the docs' test all read it, so a new
/// field is one entry there. A field whose value the exports show too
/// reads it from the paper's [`Metadata`], where it is defined once.
pub struct Field {
    /// The field's name in templates (`paper.title_html`).
    pub name: &'static str,
    /// Its type, as docs/templates.md writes it: `string`, `integer or
    /// none`, `array of {label, url}`, …
    pub kind: &'static str,
    value: for<'p, 'v> fn(&'p PaperValues<'v>) -> FieldValue<'p>,
}

impl Field {
    /// Whether the field is a list (an `array`), which only tera prints.
    pub fn is_list(&self) -> bool {
        self.kind.starts_with("array")
    }

    /// The field's value for one paper.
    pub fn value<'p>(&self, paper: &'p PaperValues<'_>) -> FieldValue<'p> {
        (self.value)(paper)
    }
}

/// Every field of a paper's template value, in the order the value's
/// map holds them (`{% for name, value in paper %}`).
pub const PAPER_FIELDS: [Field; 22] = [
    Field {
        name: "slug",
        kind: "string",
        value: |p| FieldValue::Str(p.meta.slug()),
    },
    Field {
        name: "key",
        kind: "string",
        value: |p| FieldValue::Str(p.meta.key()),
    },
    Field {
        name: "selected",
        kind: "bool",
        value: |p| FieldValue::Bool(p.meta.selected()),
    },
    Field {
        name: "venue",
        kind: "string or none",
        value: |p| FieldValue::from(p.meta.venue()),
    },
    Field {
        name: "url",
        kind: "string",
        value: |p| FieldValue::Str(p.url()),
    },
    Field {
        name: "title",
        kind: "string",
        value: |p| FieldValue::Str(p.meta.title()),
    },
    Field {
        name: "title_html",
        kind: "string (HTML)",
        value: |p| FieldValue::Str(p.paper.title.html()),
    },
    Field {
        name: "year",
        kind: "integer or none",
        value: |p| match p.meta.year() {
            Some(year) => FieldValue::Num(year.into()),
            None => FieldValue::None,
        },
    },
    Field {
        name: "year_url",
        kind: "string or none",
        value: |p| FieldValue::from(p.year_link().and_then(|(url, _)| url.as_str())),
    },
    Field {
        name: "authors",
        kind: "array of person links",
        value: |p| FieldValue::List(p.authors()),
    },
    Field {
        name: "byline",
        kind: "array of `{name, url}`",
        value: |p| FieldValue::List(p.byline()),
    },
    Field {
        name: "byline_html",
        kind: "string (HTML)",
        value: |p| FieldValue::Str(&p.byline_html().0),
    },
    Field {
        name: "meta_html",
        kind: "string (HTML)",
        value: |p| FieldValue::Str(p.meta_html()),
    },
    Field {
        name: "links_html",
        kind: "string (HTML)",
        value: |p| FieldValue::Str(p.links_html()),
    },
    Field {
        name: "more_authors",
        kind: "integer",
        value: |p| FieldValue::Num(p.byline_html().1 as u64),
    },
    Field {
        name: "authors_complete",
        kind: "bool",
        value: |p| FieldValue::Bool(p.meta.authors_complete()),
    },
    Field {
        name: "categories",
        kind: "array of category links",
        value: |p| FieldValue::List(p.categories()),
    },
    Field {
        name: "links",
        kind: "array of `{label, url}`",
        value: |p| FieldValue::List(Value::from_serializable(p.links())),
    },
    Field {
        name: "bib_url",
        kind: "string or none",
        value: |p| FieldValue::from(p.bib_url()),
    },
    Field {
        name: "abstract_html",
        kind: "string (HTML) or none",
        value: |p| FieldValue::from(p.abstract_html()),
    },
    Field {
        name: "categories_html",
        kind: "string (HTML)",
        value: |p| FieldValue::Str(p.categories_html()),
    },
    Field {
        name: "category_count",
        kind: "integer",
        value: |p| FieldValue::Num(p.paper.categories.len() as u64),
    },
];

/// A field's value, as tera holds it.
pub enum FieldValue<'a> {
    /// A string, escaped when printed unless `| safe`.
    Str(&'a str),
    /// A count or a year.
    Num(u64),
    /// A flag, printed `true` or `false`.
    Bool(bool),
    /// A field without a value (tera's `none`): prints nothing, is false.
    None,
    /// A list, made as tera's value.
    List(Value),
}

impl<'a> From<Option<&'a str>> for FieldValue<'a> {
    fn from(s: Option<&'a str>) -> FieldValue<'a> {
        s.map_or(FieldValue::None, FieldValue::Str)
    }
}

impl FieldValue<'_> {
    /// Tera's truthiness: a non-empty string or list, a non-zero number,
    /// `true`.
    pub fn is_truthy(&self) -> bool {
        match self {
            FieldValue::Str(s) => !s.is_empty(),
            FieldValue::Num(n) => *n != 0,
            FieldValue::Bool(b) => *b,
            FieldValue::None => false,
            FieldValue::List(list) => list.is_truthy(),
        }
    }
}

impl Serialize for FieldValue<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            FieldValue::Str(s) => serializer.serialize_str(s),
            FieldValue::Num(n) => serializer.serialize_u64(*n),
            FieldValue::Bool(b) => serializer.serialize_bool(*b),
            FieldValue::None => serializer.serialize_none(),
            // A tera value is handed to tera as it is (its `Arc` cloned).
            FieldValue::List(list) => list.serialize(serializer),
        }
    }
}

/// A paper's tera value: a map of every field of [`PAPER_FIELDS`], in
/// their order.
impl Serialize for PaperValues<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut map = serializer.serialize_struct("paper", PAPER_FIELDS.len())?;
        for field in &PAPER_FIELDS {
            map.serialize_field(field.name, &field.value(self))?;
        }
        map.end()
    }
}

/// What a paper's fields are made from: its [`Metadata`] (the values
/// exports show too), the list it is shown in and the values shared with
/// other papers ([`Views`]); each part that fields share (the URL, the
/// byline, the links) made when first read.
pub struct PaperValues<'v> {
    views: &'v Views<'v>,
    id: PaperId,
    meta: Metadata<'v>,
    /// The paper, for the values only templates show (its title's HTML,
    /// its authors' and categories' links).
    paper: &'v Paper,
    list: List,
    url: OnceCell<String>,
    byline_html: OnceCell<(String, usize)>,
    meta_html: OnceCell<String>,
    links: OnceCell<Vec<LinkView>>,
    links_html: OnceCell<String>,
    bib_url: OnceCell<Option<String>>,
    categories_html: OnceCell<String>,
    abstract_html: OnceCell<Option<Cow<'v, str>>>,
}

impl<'v> PaperValues<'v> {
    /// The URL of the paper's page.
    fn url(&self) -> &str {
        self.url.get_or_init(|| self.meta.url())
    }

    /// The paper's year's URL and its link as `meta_html` shows it.
    fn year_link(&self) -> Option<&'v (Value, Box<str>)> {
        let year = self.meta.year()?;
        self.views.year_links.get(&year)
    }

    /// `byline_html` and `more_authors`.
    fn byline_html(&self) -> &(String, usize) {
        self.byline_html.get_or_init(|| {
            self.views
                .byline_html(self.paper, self.list.focus(), self.url())
        })
    }

    fn meta_html(&self) -> &str {
        self.meta_html
            .get_or_init(|| self.views.meta_html(self.paper, self.list))
    }

    fn links(&self) -> &[LinkView] {
        self.links.get_or_init(|| paper_links(&self.meta))
    }

    fn links_html(&self) -> &str {
        self.links_html.get_or_init(|| links_html(self.links()))
    }

    fn bib_url(&self) -> Option<&str> {
        self.bib_url
            .get_or_init(|| self.views.bib_url(self.id))
            .as_deref()
    }

    /// The abstract's HTML ([`Metadata::abstract_text`]).
    fn abstract_html(&self) -> Option<&str> {
        self.abstract_html
            .get_or_init(|| self.meta.abstract_text().map(|text| text.html()))
            .as_deref()
    }

    fn categories_html(&self) -> &str {
        self.categories_html.get_or_init(|| {
            let categories = self.paper.categories.iter();
            let facts = categories.map(|&c| &*self.views.category_html[c].fact);
            facts.collect::<Vec<_>>().join("; ")
        })
    }

    /// The listed authors' links (`{name, url}`).
    fn authors(&self) -> Value {
        let authors = self.paper.authors.iter();
        Value::from(
            authors
                .map(|&a| self.views.author_link(a).clone())
                .collect::<Vec<_>>(),
        )
    }

    /// The byline as lists show it ([`shown_in_list`]), `{name, url}`
    /// each, the URL none for a name without a listing.
    fn byline(&self) -> Value {
        let views = self.views;
        let corpus = views.site.corpus;
        let names = shown_names(&self.meta, self.list.focus()).map(|(name, owner)| {
            match owner.filter(|&a| corpus.authors[a].name == name) {
                // The author's own link, shared, when the name is
                // written as their listing writes it.
                Some(a) => views.author_link(a).clone(),
                None => Value::from_serializable(&BylineName {
                    name,
                    url: owner
                        .and_then(|a| views.author_link(a).get_from_path("url").cloned())
                        .unwrap_or_else(Value::none),
                }),
            }
        });
        Value::from(names.collect::<Vec<_>>())
    }

    /// `{code, name, url}` of each category.
    fn categories(&self) -> Value {
        let categories = self.paper.categories.iter();
        Value::from(
            categories
                .map(|&c| self.views.category_links[c].clone())
                .collect::<Vec<_>>(),
        )
    }
}

/// The names a list shows of a paper ([`shown_in_list`]): each name as
/// written and the listing owner it names, if any.
fn shown_names<'c>(
    meta: &Metadata<'c>,
    focus: Option<AuthorId>,
) -> impl Iterator<Item = (&'c str, Option<AuthorId>)> {
    meta.credited()
        .enumerate()
        .filter(move |&(i, (_, owner))| shown_in_list(i, owner, focus))
        .map(|(_, shown)| shown)
}

/// An author's name and page URL, escaped, as bylines show them.
struct AuthorHtml {
    name: Box<str>,
    url: Box<str>,
}

/// A name of a complete author list, as it is written there, and the
/// person's URL (none when they have no listing).
#[derive(Serialize)]
struct BylineName<'a> {
    name: &'a str,
    url: Value,
}

/// A small link of a paper in a list.
#[derive(Serialize)]
struct LinkView {
    label: &'static str,
    url: String,
}

/// The list a paper's value is made for: its byline shows the author
/// whose page it is ([`shown_in_list`]), and its `meta_html` leaves out
/// the year or category whose page it is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum List {
    /// An author's page.
    Author(AuthorId),
    /// A year's page.
    Year,
    /// A category's page.
    Category(CategoryId),
    /// Any other: the home page, a shortcode's list, a paper's own page.
    Other,
}

impl List {
    /// The author whose page the list is on.
    fn focus(self) -> Option<AuthorId> {
        match self {
            List::Author(id) => Some(id),
            _ => None,
        }
    }
}

/// Names a paper list shows before "+N more": a list repeats each paper on
/// every author, year and category page and feed that holds it, so a
/// paper of 450 authors would repeat them all on each.
pub const LIST_AUTHORS: usize = 8;

/// Whether a list shows the `i`th name of a paper's authors (complete or
/// listed), naming listing owner `owner`: the first [`LIST_AUTHORS`], and
/// the author whose page or feed the list is on (`focus`) wherever the
/// name stands. A paper of 450 listing owners is then a few names on
/// each of their 450 pages, not 450 names on each: the output stays
/// linear in author–paper pairs.
pub fn shown_in_list(i: usize, owner: Option<AuthorId>, focus: Option<AuthorId>) -> bool {
    i < LIST_AUTHORS || (owner.is_some() && owner == focus)
}

#[derive(Serialize)]
struct AuthorView<'a> {
    name: &'a str,
    sort_name: &'a str,
    slug: &'a str,
    url: String,
    paper_count: usize,
    claimed_total: Option<u32>,
    partial: bool,
    feed_url: Option<String>,
}

#[derive(Serialize)]
struct TermView<'a> {
    name: String,
    code: String,
    archive: &'a str,
    group: &'a str,
    url: String,
    paper_count: usize,
    feed_url: Option<String>,
}

/// Template values of corpus items: a year's and category's made once
/// and shared by every page listing it; an author's and a paper's made
/// each time a page shows them, so a rebuild that renders a few pages
/// makes only their values. Papers' values are not kept (their memory
/// would grow with the corpus); what a paper's value shares with others (its
/// authors' and categories' links, its year's URL) is made once and
/// shared, so making it again is a map of the paper's own strings.
pub struct Views<'a> {
    site: Site<'a>,
    /// Each author's link (`{name, url}`), made when first used.
    author_links: Vec<std::sync::OnceLock<Value>>,
    /// Each author's name and page URL as HTML, made when first used.
    author_html: Vec<std::sync::OnceLock<AuthorHtml>>,
    /// Each author's schema.org `Person` as JSON, made when first used.
    person_json: Vec<std::sync::OnceLock<Option<Box<serde_json::value::RawValue>>>>,
    years: Vec<Value>,
    /// Each year's URL, and its link as `meta_html` shows it, by year.
    year_links: std::collections::HashMap<u16, (Value, Box<str>)>,
    categories: Vec<Value>,
    /// Each category's link (`{code, name, url}`).
    category_links: Vec<Value>,
    /// Each category's link as `meta_html` and `categories_html` show it.
    category_html: Vec<CategoryHtml>,
    /// The authors index's letters, made when first used.
    initials: std::sync::OnceLock<Vec<crate::corpus::Initial>>,
}

impl<'a> Views<'a> {
    /// Serialises every year and category; authors and papers wait until
    /// used (a rebuild renders a few pages: at 100,000 papers, serialising
    /// 20,000 authors took tens of milliseconds).
    pub fn new(site: &Site<'a>) -> Views<'a> {
        let corpus = site.corpus;
        let urls = site.urls;
        let year_links = corpus
            .years
            .iter()
            .map(|year| {
                let url = urls.url(&Route::Year {
                    year: year.year,
                    page: 1,
                });
                let mut html = String::new();
                push_link(&mut html, &url, None, &year.year.to_string());
                (year.year, (Value::from(url), html.into_boxed_str()))
            })
            .collect();
        let (category_links, category_html) = (0..corpus.categories.len())
            .map(|id| {
                let link = category_link(site, id);
                let mut meta = String::new();
                push_link(&mut meta, &link.url, Some(link.name), link.code);
                let mut fact = String::new();
                push_link(&mut fact, &link.url, None, link.name);
                fact.push_str(" (");
                push_escaped_html(&mut fact, link.code);
                fact.push(')');
                let html = CategoryHtml {
                    meta: meta.into_boxed_str(),
                    fact: fact.into_boxed_str(),
                };
                (Value::from_serializable(&link), html)
            })
            .unzip();
        let years = corpus
            .years
            .iter()
            .map(|year| {
                Value::from_serializable(&TermView {
                    name: year.year.to_string(),
                    code: year.year.to_string(),
                    archive: "",
                    group: "",
                    url: urls.url(&Route::Year {
                        year: year.year,
                        page: 1,
                    }),
                    paper_count: year.papers.len(),
                    feed_url: None,
                })
            })
            .collect();
        let categories = corpus
            .categories
            .iter()
            .map(|category| {
                Value::from_serializable(&TermView {
                    name: category.name.clone(),
                    code: category.code.clone(),
                    archive: &category.archive,
                    group: &category.group,
                    url: urls.url(&Route::Category {
                        slug: category.slug.clone(),
                        page: 1,
                    }),
                    paper_count: category.papers.len(),
                    feed_url: site.config.feeds.then(|| {
                        urls.url(&Route::CategoryFeed {
                            slug: category.slug.clone(),
                        })
                    }),
                })
            })
            .collect();
        Views {
            site: *site,
            author_links: unmade(corpus.authors.len()),
            author_html: unmade(corpus.authors.len()),
            person_json: unmade(corpus.authors.len()),
            years,
            year_links,
            categories,
            category_links,
            category_html,
            initials: std::sync::OnceLock::new(),
        }
    }

    /// The authors index's letters ([`crate::corpus::Corpus::initials`]),
    /// made once for every index page.
    pub fn initials(&self) -> &[crate::corpus::Initial] {
        self.initials.get_or_init(|| self.site.corpus.initials())
    }

    /// Every year's template value, newest first.
    pub fn years(&self) -> &[Value] {
        &self.years
    }

    /// Every category's template value, in category order.
    pub fn categories(&self) -> &[Value] {
        &self.categories
    }

    /// The template value of author `id`, made each time: it is used on
    /// the author's own pages and one page of the authors index, too few
    /// to be worth keeping for the whole render.
    pub fn author(&self, id: AuthorId) -> Value {
        let site = &self.site;
        let urls = site.urls;
        let author = &site.corpus.authors[id];
        Value::from_serializable(&AuthorView {
            name: &author.name,
            sort_name: &author.sort_name,
            slug: &author.slug,
            url: urls.url(&Route::Author {
                slug: author.slug.clone(),
                page: 1,
            }),
            paper_count: author.papers.len(),
            claimed_total: author.claimed_total,
            partial: author.is_partial(),
            feed_url: site.config.feeds.then(|| {
                urls.url(&Route::AuthorFeed {
                    slug: author.slug.clone(),
                })
            }),
        })
    }

    /// The link value (`{name, url}`) of author `id`.
    fn author_link(&self, id: AuthorId) -> &Value {
        self.author_links[id].get_or_init(|| Value::from_serializable(&person_link(&self.site, id)))
    }

    /// Author `id`'s page URL, as their link holds it.
    pub fn author_url(&self, id: AuthorId) -> &str {
        link_url(self.author_link(id))
    }

    /// Category `id`'s page URL, as its link holds it.
    pub fn category_url(&self, id: CategoryId) -> &str {
        link_url(&self.category_links[id])
    }

    /// Author `id`'s name and page URL, escaped for HTML.
    fn author_html(&self, id: AuthorId) -> &AuthorHtml {
        self.author_html[id].get_or_init(|| {
            let link = person_link(&self.site, id);
            AuthorHtml {
                name: escape_html(link.name).into_boxed_str(),
                url: escape_html(&link.url).into_boxed_str(),
            }
        })
    }

    /// A paper page's byline as the default theme shows it
    /// (`authors_html`), in one string rather than a template loop over
    /// the names: the complete author list when one is known,
    /// linked where a name has a listing, the names past the
    /// [`PAGE_AUTHORS_SHOWN`]th behind "+N more"; else "Listed by" the
    /// listing authors, linked, and a note that co-authors are not listed.
    pub fn page_authors_html(&self, paper: &Paper) -> String {
        let corpus = self.site.corpus;
        let mut html = String::with_capacity(512);
        let complete: Option<Vec<(&str, Option<AuthorId>)>> = paper
            .details
            .complete_authors
            .as_ref()
            .map(|_| corpus.credited(paper).collect());
        // A `<details>` cannot sit in a `<p>` (the parser would close the
        // paragraph before it), so a byline with the toggle is a `<div>`.
        let element = match &complete {
            Some(names) if names.len() > PAGE_AUTHORS_SHOWN => "div",
            _ => "p",
        };
        html.extend(["<", element, " class=\"byline\">"]);
        match complete.filter(|names| !names.is_empty()) {
            Some(names) => {
                for (i, &(name, owner)) in names.iter().enumerate() {
                    if i == PAGE_AUTHORS_SHOWN {
                        use std::fmt::Write;
                        // Writing to a String cannot fail.
                        let _ = write!(
                            html,
                            "<details class=\"more-authors\"><summary>+{} more</summary>",
                            names.len() - PAGE_AUTHORS_SHOWN
                        );
                    }
                    match owner {
                        Some(a) => {
                            html.extend(["<a href=\"", &self.author_html(a).url, "\">"]);
                            push_escaped_html(&mut html, name);
                            html.push_str("</a>");
                        }
                        None => push_escaped_html(&mut html, name),
                    }
                    if i + 1 < names.len() {
                        html.push_str(", ");
                    } else if i >= PAGE_AUTHORS_SHOWN {
                        html.push_str("</details>");
                    }
                }
            }
            None => {
                html.push_str("Listed by ");
                for (i, &a) in paper.authors.iter().enumerate() {
                    if i > 0 {
                        html.push_str(", ");
                    }
                    let known = self.author_html(a);
                    html.extend(["<a href=\"", &known.url, "\">", &known.name, "</a>"]);
                }
                html.push_str(" <span class=\"muted\">(co-authors not listed)</span>");
            }
        }
        html.extend(["</", element, ">"]);
        html
    }

    /// Author `id`'s [`crate::render::scholar::person_json`].
    pub fn person_json(&self, id: AuthorId) -> Option<&serde_json::value::RawValue> {
        self.person_json[id]
            .get_or_init(|| crate::render::scholar::person_json(&self.site, id))
            .as_deref()
    }

    /// What paper `id`'s fields are made from in `list`, with its
    /// abstract when `with` is [`Abstract::Included`].
    pub fn paper_values(&self, id: PaperId, with: Abstract, list: List) -> PaperValues<'_> {
        let paper = &self.site.corpus.papers[id];
        PaperValues {
            views: self,
            id,
            meta: Metadata::new(&self.site, paper, with),
            paper,
            list,
            url: OnceCell::new(),
            byline_html: OnceCell::new(),
            meta_html: OnceCell::new(),
            links: OnceCell::new(),
            links_html: OnceCell::new(),
            bib_url: OnceCell::new(),
            categories_html: OnceCell::new(),
            abstract_html: OnceCell::new(),
        }
    }

    /// The template value of paper `id` in `list`, with its abstract when
    /// `with` is [`Abstract::Included`]: every field of [`PAPER_FIELDS`].
    pub fn paper(&self, id: PaperId, with: Abstract, list: List) -> Value {
        let values = self.paper_values(id, with, list);
        // Serialised as a struct, each field inserted once into the map
        // tera keeps (a map made here would be copied into another).
        Value::from_serializable(&values)
    }

    /// A paper's BibTeX file, when per-paper exports are written.
    fn bib_url(&self, id: PaperId) -> Option<String> {
        let site = &self.site;
        site.config.paper_exports.then(|| {
            site.urls
                .url(&site.route(&Job::PaperExport(id, Export::Bibtex)))
        })
    }

    /// A paper's byline as lists show it (`byline_html`), and how many
    /// names it leaves out: the names shown in a list on the page of
    /// `focus`, linked, `focus` in `<strong>`, then a link to the paper's
    /// page (`url`) counting the others.
    fn byline_html(&self, paper: &Paper, focus: Option<AuthorId>, url: &str) -> (String, usize) {
        let corpus = self.site.corpus;
        let mut byline_html = String::with_capacity(512);
        let (mut shown, mut credited) = (0, 0);
        // One pass over the names, counting those left out.
        for (i, (name, owner)) in corpus.credited(paper).enumerate() {
            credited += 1;
            if !shown_in_list(i, owner, focus) {
                continue;
            }
            let html = &mut byline_html;
            if shown > 0 {
                html.push_str(", ");
            }
            shown += 1;
            match owner {
                None => push_escaped_html(html, name),
                Some(a) => {
                    let known = self.author_html(a);
                    if owner == focus {
                        html.push_str("<strong>");
                    } else {
                        html.extend(["<a href=\"", &known.url, "\">"]);
                    }
                    // The author's own spelling, whose HTML is made once
                    // (a listed name is that very string).
                    let own = corpus.authors[a].name.as_str();
                    if std::ptr::eq(own, name) || own == name {
                        html.push_str(&known.name);
                    } else {
                        push_escaped_html(html, name);
                    }
                    html.push_str(if owner == focus { "</strong>" } else { "</a>" });
                }
            }
        }
        let more_authors = credited - shown;
        if more_authors > 0 {
            use std::fmt::Write;
            byline_html.push_str(", <a class=\"more-authors\" href=\"");
            push_escaped_html(&mut byline_html, url);
            // Writing to a String cannot fail.
            let _ = write!(byline_html, "\">+{more_authors} more</a>");
        }
        (byline_html, more_authors)
    }

    /// A paper's venue, year and categories as `meta_html` in `list`.
    fn meta_html(&self, paper: &Paper, list: List) -> String {
        let mut meta_html = String::with_capacity(256);
        // An empty venue is left out, as a template's `{% if %}` leaves it.
        if let Some(venue) = paper.details.venue.as_deref().filter(|v| !v.is_empty()) {
            meta_html.push_str("<span class=\"venue\">");
            push_escaped_html(&mut meta_html, venue);
            meta_html.push_str("</span>");
        }
        let year_link = paper
            .known_year()
            .and_then(|year| self.year_links.get(&year));
        if let Some((_, html)) = year_link.filter(|_| list != List::Year) {
            meta_html.push_str(html);
        }
        for &c in &paper.categories {
            if list != List::Category(c) {
                meta_html.push_str(&self.category_html[c].meta);
            }
        }
        meta_html
    }

    /// The template values of papers `ids`, as one list, with their
    /// abstracts when `with` is [`Abstract::Included`], in `list`.
    pub fn papers(&self, ids: &[PaperId], with: Abstract, list: List) -> Value {
        Value::from(
            ids.iter()
                .map(|&id| self.paper(id, with, list))
                .collect::<Vec<_>>(),
        )
    }
}

/// The names to show for a paper: the complete author list when an
/// override gives one (linked where the person has a listing), else the
/// listed authors, linked.
pub fn byline<'a>(site: &Site<'a>, paper: &'a Paper) -> Vec<PersonView<'a>> {
    site.corpus
        .credited(paper)
        .map(|(name, owner)| PersonView {
            name,
            url: owner.map(|a| person_link(site, a).url),
        })
        .collect()
}

/// The names a paper page's authors show before "+N more"
/// ([`Views::page_authors_html`]).
const PAGE_AUTHORS_SHOWN: usize = 30;

/// `n` values, each made when first used.
fn unmade<T>(n: usize) -> Vec<std::sync::OnceLock<T>> {
    std::iter::repeat_with(std::sync::OnceLock::new)
        .take(n)
        .collect()
}

/// A category's link as HTML, made once a build.
struct CategoryHtml {
    /// As `meta_html` shows it: `<a href="…" title="name">code</a>`.
    meta: Box<str>,
    /// As `categories_html` shows it: `<a href="…">name</a> (code)`.
    fact: Box<str>,
}

/// A paper's small links as `links_html` shows them.
fn links_html(links: &[LinkView]) -> String {
    // Nothing allocated for a paper without links.
    let mut html = String::with_capacity(if links.is_empty() { 0 } else { 256 });
    for link in links {
        push_link(&mut html, &link.url, None, link.label);
    }
    html
}

/// Appends `<a href="url" title="title">text</a>`, each part escaped, the
/// title left out when `None`.
pub fn push_link(out: &mut String, url: &str, title: Option<&str>, text: &str) {
    out.push_str("<a href=\"");
    push_escaped_html(out, url);
    if let Some(title) = title {
        out.push_str("\" title=\"");
        push_escaped_html(out, title);
    }
    out.push_str("\">");
    push_escaped_html(out, text);
    out.push_str("</a>");
}

/// A paper's arXiv, PDF and DOI links, those known.
fn paper_links(meta: &Metadata) -> Vec<LinkView> {
    let links = [
        ("arXiv", meta.arxiv_url()),
        ("PDF", meta.pdf_url()),
        ("DOI", meta.doi_url()),
    ];
    let known = links
        .into_iter()
        .filter_map(|(label, url)| Some((label, url?)));
    known.map(|(label, url)| LinkView { label, url }).collect()
}

/// The link to author `id`'s page.
pub fn person_link<'a>(site: &Site<'a>, id: AuthorId) -> PersonLink<'a> {
    let author = &site.corpus.authors[id];
    PersonLink {
        name: &author.name,
        url: site.urls.url(&Route::Author {
            slug: author.slug.clone(),
            page: 1,
        }),
    }
}

/// The `url` of a link's value (`{name, url}`, `{code, name, url}`).
fn link_url(link: &Value) -> &str {
    link.get_from_path("url")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The link to category `id`'s page.
pub fn category_link<'a>(site: &Site<'a>, id: CategoryId) -> CategoryLink<'a> {
    let category = &site.corpus.categories[id];
    CategoryLink {
        code: &category.code,
        name: &category.name,
        url: site.urls.url(&Route::Category {
            slug: category.slug.clone(),
            page: 1,
        }),
    }
}

/// A name in a paper's byline, linked when the person has a listing.
#[derive(Serialize)]
pub struct PersonView<'a> {
    /// The name as shown.
    pub name: &'a str,
    /// Their page's URL, when they have a listing.
    pub url: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/templates.md's table of a paper value's fields: (name, type)
    /// of each row naming a field itself (not `authors[].name`).
    fn documented_fields() -> Vec<(String, String)> {
        let docs = include_str!("../../docs/templates.md");
        let table = docs
            .split("### Paper value")
            .nth(1)
            .and_then(|section| section.split("\n### ").next())
            .expect("docs/templates.md has a section \"### Paper value\"");
        table
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split(" | ").collect();
                let name = cells.first()?.strip_prefix("| `")?.strip_suffix('`')?;
                let kind = cells.get(1)?;
                (!name.contains('.')).then(|| (name.to_string(), kind.to_string()))
            })
            .collect()
    }

    #[test]
    fn the_docs_list_every_paper_field_with_its_type() {
        let mut documented = documented_fields();
        documented.sort();
        let mut defined: Vec<(String, String)> = PAPER_FIELDS
            .iter()
            .map(|field| (field.name.to_string(), field.kind.to_string()))
            .collect();
        defined.sort();
        assert_eq!(documented, defined);
        assert_eq!(defined.len(), 22);
        let lists: Vec<&str> = PAPER_FIELDS
            .iter()
            .filter(|field| field.is_list())
            .map(|field| field.name)
            .collect();
        assert_eq!(lists, ["authors", "byline", "categories", "links"]);
    }
}
