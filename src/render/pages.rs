//! The context of every page kind that a template renders: home, the
//! indexes, author, year and category pages with their pagers and
//! statistics, paper pages with their scholarly metadata, content pages
//! with their shortcodes expanded, 404, search and redirects. The values
//! each template receives are documented in `docs/templates.md`.

use crate::corpus::{initial_id, stats, AuthorId, CategoryId, Corpus, Initial, PaperId};
use crate::diagnostics::Diagnostic;
use crate::input::content::{shortcode_placeholder, ContentPage};
use crate::permalink::Route;
use crate::render::exports::AuthorParts;
use crate::render::items::ItemTemplate;
use crate::render::jobs::{Export, Job};
use crate::render::metadata::Metadata;
use crate::render::site::{Abstract, Site};
use crate::render::templates::{
    content_template_name, list_mark, splice_lists, Reads, Templates, PAPER_ITEM,
};
use crate::render::views::{byline, push_link, List, Views};
use crate::text::push_escaped_html;
use serde::Serialize;
use std::fmt::Write as _;
use tera::{Context, Value};

/// Longest meta description, in characters.
const DESCRIPTION_CHARS: usize = 160;

/// Renders the pages that have a template, with prepared views.
pub struct Pages<'a> {
    site: Site<'a>,
    templates: Templates,
    views: Views<'a>,
    /// The authors' names split for the Cite block and the exports.
    author_parts: AuthorParts,
}

/// What a page kind's filling gives besides its context: the template,
/// the page's title, its own description (else the site's) and its list
/// of papers, which [`Pages::insert_list`] inserts last.
struct Filled<'j> {
    template: &'j str,
    title: String,
    description: Option<String>,
    list: Option<PageList<'j>>,
}

impl<'j> Filled<'j> {
    fn new(template: &'j str, title: String, description: Option<String>) -> Filled<'j> {
        Filled {
            template,
            title,
            description,
            list: None,
        }
    }

    fn with_list(self, list: PageList<'j>) -> Filled<'j> {
        Filled {
            list: Some(list),
            ..self
        }
    }
}

impl<'a> Pages<'a> {
    /// Prepares the pages of `site`: sets the global `site` value of
    /// every template.
    pub fn new(site: Site<'a>, mut templates: Templates, views: Views<'a>) -> Pages<'a> {
        let site_view = SiteView::new(&site);
        templates.set_global("site", &site_view);
        // Zola's name for the same value.
        templates.set_global("config", &site_view);
        Pages {
            author_parts: AuthorParts::new(site.corpus),
            site,
            templates,
            views,
        }
    }

    /// The authors' names split, for the exports.
    pub fn author_parts(&self) -> &AuthorParts {
        &self.author_parts
    }

    /// Renders the page of `job`, written at `route`, with the values its
    /// template reads ([`Templates::reads`]). Errors: a template error at
    /// the template's file and line (a value it reads that the page does
    /// not have, as tera reports it), or a content page naming a template
    /// that does not exist.
    pub fn render(&self, job: &Job, route: &Route) -> Result<Vec<u8>, Diagnostic> {
        let site = &self.site;
        let mut context = Context::new();
        let filled = self.fill(job, &mut context)?;
        let template = filled.template;
        static NO_EXTRA: std::sync::OnceLock<toml::Table> = std::sync::OnceLock::new();
        let extra = match job {
            Job::Content(index) => &site.content.pages[*index].front.extra,
            _ => NO_EXTRA.get_or_init(toml::Table::new),
        };
        context.insert(
            "page",
            &PageMeta {
                kind: template.trim_end_matches(".html"),
                section: section_of(job),
                title: filled.title,
                description: filled
                    .description
                    .unwrap_or_else(|| site.config.description.clone()),
                url: site.urls.url(route),
                permalink: site.urls.permalink(route),
                extra,
            },
        );
        let mut lists = Lists::default();
        if let Some(list) = &filled.list {
            self.insert_list(&mut context, template, list, &mut lists)?;
        }
        let page = self
            .templates
            .render_bytes(template, &context, lists.inserted_len)?;
        let Some(list) = filled.list.filter(|_| !lists.spliced.is_empty()) else {
            return Ok(page);
        };
        // Items filled in at their mark, straight into the page.
        Ok(splice_lists(
            page,
            lists.spliced.len(),
            &mut |n, out| match &lists.spliced[n] {
                Spliced::Made(html) => out.push_str(html),
                Spliced::Items(item, run) => {
                    self.fill_items(item, out, &list.ids[run.clone()], list.with, list.list)
                }
            },
        ))
    }

    /// The site's own `robots.txt` template (as in Zola), rendered with
    /// the global values alone (`site`, `config`); `None` when there is
    /// none and the generated file stands.
    pub fn robots(&self) -> Option<Result<Vec<u8>, Diagnostic>> {
        self.templates.contains("robots.txt").then(|| {
            self.templates
                .render("robots.txt", &Context::new())
                .map(String::into_bytes)
        })
    }

    /// Inserts the job's own values but its list of papers, which
    /// [`Pages::render`] inserts last.
    fn fill<'j>(&'j self, job: &Job, context: &mut Context) -> Result<Filled<'j>, Diagnostic> {
        Ok(match *job {
            Job::Home => self.fill_home(context)?,
            Job::AuthorIndex | Job::AuthorLetter(_) => self.fill_authors(job, context),
            Job::Author(id, page) => self.fill_author(id, page, context),
            Job::YearIndex => {
                context.insert_value("years", Value::from(self.views.years().to_vec()));
                let description = "Publications by year.".to_string();
                Filled::new("years.html", "Years".to_string(), Some(description))
            }
            Job::Year(index, page) => self.fill_year(index, page, context),
            Job::CategoryIndex => self.fill_categories(context),
            Job::Category(id, page) => self.fill_category(id, page, context),
            Job::Paper(id) => self.fill_paper(id, context),
            Job::Content(index) => {
                let site = &self.site;
                let page = &site.content.pages[index];
                let template = self.content_template(page)?;
                let html = self.expand_shortcodes(page, &site.papers_of(job).queried)?;
                context.insert("content", &ContentView::new(site, page, &html));
                let description = page.front.description.clone();
                Filled::new(template, page.title.clone(), description)
            }
            Job::NotFound => Filled::new("404.html", "Page not found".to_string(), None),
            Job::Search => {
                let papers = count(self.site.corpus.papers.len(), "paper");
                let description = format!("Search {papers}.");
                Filled::new("search.html", "Search".to_string(), Some(description))
            }
            Job::Alias(_, ref target) => {
                let permalink = self.site.urls.permalink(target);
                context.insert("target", &permalink);
                let title = format!("Moved to {permalink}");
                Filled::new("redirect.html", title, None)
            }
            Job::Feed(_)
            | Job::Sitemap
            | Job::Robots
            | Job::PaperExport(..)
            | Job::AuthorBib(_)
            | Job::CorpusJson => {
                unreachable!("rendered without a template")
            }
        })
    }

    /// The home page: its intro and its most recent papers (`recent`).
    fn fill_home(&self, context: &mut Context) -> Result<Filled<'_>, Diagnostic> {
        let site = &self.site;
        let papers = site.papers_of(&Job::Home);
        let intro = site.content.home.as_ref();
        let intro_html = intro
            .map(|p| self.expand_shortcodes(p, &papers.queried))
            .transpose()?;
        context.insert("intro", &intro_html);
        let title = intro
            .and_then(|p| p.front.title.clone())
            .unwrap_or_else(|| site.config.title.clone());
        let description = intro.and_then(|p| p.front.description.clone());
        Ok(
            Filled::new("index.html", title, description).with_list(PageList {
                name: "recent",
                by_year: false,
                ids: papers.shown,
                with: Abstract::Included,
                list: List::Other,
            }),
        )
    }

    /// The authors index, or one letter's page of it.
    fn fill_authors(&self, job: &Job, context: &mut Context) -> Filled<'_> {
        let (site, views) = (&self.site, &self.views);
        let corpus = site.corpus;
        let initials = views.initials();
        let by_letter = corpus.authors_by_letter();
        let shown: Vec<&Initial> = match *job {
            Job::AuthorLetter(letter) => initials.iter().filter(|i| i.letter == letter).collect(),
            _ if by_letter => initials.first().into_iter().collect(),
            _ => initials.iter().collect(),
        };
        let current = shown.first().filter(|_| by_letter).map(|i| i.letter);
        let bar: Vec<InitialLink> = initials
            .iter()
            .enumerate()
            .map(|(n, initial)| {
                let id = initial_id(initial.letter);
                let url = match (by_letter, n) {
                    (false, _) => format!("#letter-{id}"),
                    (true, 0) => site.urls.url(&Route::AuthorIndex),
                    (true, _) => site.urls.url(&Route::AuthorLetter { id: id.clone() }),
                };
                InitialLink {
                    letter: initial.letter.to_string(),
                    id,
                    count: initial.authors.len(),
                    url,
                    current: current == Some(initial.letter),
                }
            })
            .collect();
        let mut authors = Vec::new();
        let groups: Vec<Value> = shown
            .iter()
            .map(|initial| {
                let members: Vec<Value> =
                    initial.authors.iter().map(|&a| views.author(a)).collect();
                authors.extend(members.iter().cloned());
                Value::from_serializable(&Letter {
                    letter: &initial.letter.to_string(),
                    id: &initial_id(initial.letter),
                    authors: Value::from(members),
                })
            })
            .collect();
        context.insert("initials", &bar);
        context.insert("letter", &current.map(String::from));
        context.insert_value("letters", Value::from(groups));
        context.insert_value("authors", Value::from(authors));
        let title = match current {
            Some('#') => "Authors: other letters".to_string(),
            Some(letter) => format!("Authors: {letter}"),
            None => "Authors".to_string(),
        };
        let authors = count(corpus.authors.len(), "author");
        let description = format!("{authors} and their publications.");
        Filled::new("authors.html", title, Some(description))
    }

    /// Page `page` of author `id`'s papers, with their profile and, on
    /// the first page, their counted lists.
    fn fill_author(&self, id: AuthorId, page: usize, context: &mut Context) -> Filled<'_> {
        let site = &self.site;
        let corpus = site.corpus;
        let author = &corpus.authors[id];
        context.insert_value("author", self.views.author(id));
        let profile = site.content.profiles.get(&author.slug);
        context.insert("profile_html", &profile.map(|p| p.html.as_str()));
        context.insert(
            "homepage",
            &profile.and_then(|p| p.front.homepage.as_deref()),
        );
        context.insert("orcid", &profile.and_then(|p| p.front.orcid.as_deref()));
        context.insert(
            "bib_url",
            &site.config.exports.then(|| {
                site.urls.url(&Route::AuthorBib {
                    slug: author.slug.clone(),
                })
            }),
        );
        let counted = CountedLists::new(self, "author.html");
        let job = Job::Author(id, page);
        let papers = site.papers_of(&job);
        self.insert_coauthors(context, &counted, id, &papers.counted);
        let years = stats::per_year(corpus, &papers.counted);
        let most = years.iter().map(|&(_, count)| count).max().unwrap_or(1);
        let year_counts: Vec<YearCount> = years
            .iter()
            .rev()
            .map(|&(year, count)| YearCount {
                name: year.to_string(),
                url: site.urls.url(&Route::Year { year, page: 1 }),
                count,
                share: (count * 100).div_ceil(most),
            })
            .collect();
        counted.insert(
            context,
            ["year_counts", "year_counts_html"],
            &year_counts,
            YearCount::push_row,
        );
        self.insert_category_counts(context, &counted, &papers.counted);
        self.insert_paginator(context, &job, author.papers.len(), page);
        let count_of_papers = count(author.papers.len(), "paper");
        let description = format!("Publications of {}: {count_of_papers}.", author.name);
        Filled::new(
            "author.html",
            paged_title(&author.name, page),
            Some(description),
        )
        .with_list(PageList {
            name: "papers",
            by_year: true,
            ids: papers.shown,
            with: papers.with,
            list: List::Author(id),
        })
    }

    /// Author `id`'s co-authors on `papers` (the author's papers on the
    /// first page, else none) with counts, the most frequent first
    /// (`coauthors`, `coauthors_html`), how many more there are, and how
    /// many of the author's papers name only their listing owners.
    fn insert_coauthors(
        &self,
        context: &mut Context,
        counted: &CountedLists,
        id: AuthorId,
        papers: &[PaperId],
    ) {
        let corpus = self.site.corpus;
        let known = (!papers.is_empty()).then(|| stats::coauthors(corpus, id, papers));
        let coauthors: Vec<CountedLink> = known
            .iter()
            .flat_map(|known| known.counts.iter().take(stats::COAUTHORS_SHOWN))
            .map(|(other, count)| match other {
                stats::Coauthor::Author(a) => CountedLink::author(&self.views, corpus, *a, *count),
                stats::Coauthor::Name(name) => CountedLink {
                    name,
                    code: "",
                    url: "",
                    count: *count,
                },
            })
            .collect();
        counted.insert(
            context,
            ["coauthors", "coauthors_html"],
            &coauthors,
            CountedLink::push_author_li,
        );
        let more = known
            .as_ref()
            .map_or(0, |k| k.counts.len().saturating_sub(stats::COAUTHORS_SHOWN));
        context.insert("more_coauthors", &more);
        // Said when some papers name only their listing owners.
        let papers = corpus.authors[id].papers.len();
        let partial = known.as_ref().map_or(0, |k| papers - k.complete);
        context.insert("coauthors_partial", &partial);
    }

    /// Page `page` of year `index`'s papers.
    fn fill_year(&self, index: usize, page: usize, context: &mut Context) -> Filled<'_> {
        let year = &self.site.corpus.years[index];
        context.insert_value("year", self.views.years()[index].clone());
        let job = Job::Year(index, page);
        let papers = self.site.papers_of(&job);
        let counted = CountedLists::new(self, "year.html");
        self.insert_category_counts(context, &counted, &papers.counted);
        self.insert_paginator(context, &job, year.papers.len(), page);
        let publications = count(year.papers.len(), "publication");
        let description = format!("{publications} from {}.", year.year);
        let title = paged_title(&year.year.to_string(), page);
        Filled::new("year.html", title, Some(description)).with_list(PageList {
            name: "papers",
            by_year: false,
            ids: papers.shown,
            with: papers.with,
            list: List::Year,
        })
    }

    /// The categories index, in runs of one group (`groups`).
    fn fill_categories(&self, context: &mut Context) -> Filled<'_> {
        let categories = &self.site.corpus.categories;
        let mut groups: Vec<Value> = Vec::new();
        let mut start = 0;
        while start < categories.len() {
            let group = &categories[start].group;
            let end = start
                + categories[start..]
                    .iter()
                    .take_while(|c| &c.group == group)
                    .count();
            let mut map = tera::Map::new();
            map.insert("name".into(), Value::from(group.as_str()));
            map.insert(
                "categories".into(),
                Value::from(self.views.categories()[start..end].to_vec()),
            );
            groups.push(Value::from(map));
            start = end;
        }
        context.insert_value("groups", Value::from(groups));
        let description = "Publications by arXiv category.".to_string();
        Filled::new(
            "categories.html",
            "Categories".to_string(),
            Some(description),
        )
    }

    /// Page `page` of category `id`'s papers, with its top authors on the
    /// first page.
    fn fill_category(&self, id: CategoryId, page: usize, context: &mut Context) -> Filled<'_> {
        let corpus = self.site.corpus;
        let category = &corpus.categories[id];
        context.insert_value("category", self.views.categories()[id].clone());
        let job = Job::Category(id, page);
        let papers = self.site.papers_of(&job);
        let top: Vec<CountedLink> = stats::top_authors(corpus, &papers.counted)
            .into_iter()
            .map(|(a, count)| CountedLink::author(&self.views, corpus, a, count))
            .collect();
        CountedLists::new(self, "category.html").insert(
            context,
            ["top_authors", "top_authors_html"],
            &top,
            CountedLink::push_author_li,
        );
        self.insert_paginator(context, &job, category.papers.len(), page);
        let publications = count(category.papers.len(), "publication");
        let description = format!("{publications} in {}.", category.name);
        let title = paged_title(&format!("{} ({})", category.name, category.code), page);
        Filled::new("category.html", title, Some(description)).with_list(PageList {
            name: "papers",
            by_year: false,
            ids: papers.shown,
            with: papers.with,
            list: List::Category(id),
        })
    }

    /// Paper `id`'s page: its value, abstract and scholarly metadata.
    fn fill_paper(&self, id: PaperId, context: &mut Context) -> Filled<'_> {
        let paper = &self.site.corpus.papers[id];
        let value = self.views.paper(id, Abstract::Left, List::Other);
        context.insert_value("paper", value);
        let (html, summary) = paper.abstract_text.html_and_summary(DESCRIPTION_CHARS);
        context.insert("abstract_html", &html);
        let description = match paper.abstract_text.is_empty() {
            true => paper.title.plain().to_string(),
            false => summary,
        };
        self.insert_scholarly(context, id, &description);
        let title = paper.title.plain().to_string();
        Filled::new("paper.html", title, Some(description))
    }

    /// Inserts a page's list of papers as `template` reads it: their
    /// values under the list's name (`recent`, `papers`), their items
    /// rendered under `name_html`, and on an author's page (`by_year`)
    /// `groups`, runs of papers of one year, each `{year, heading,
    /// papers_html}`. The context holds the rest of the page, which an
    /// item template that tera renders sees. Rendered items go into
    /// `lists`: in the context, or as a mark spliced after the render
    /// when the template allows ([`Templates::splices_lists`]). Errors:
    /// a template error of an item.
    fn insert_list<'j>(
        &'j self,
        context: &mut Context,
        template: &str,
        list: &PageList,
        lists: &mut Lists<'j>,
    ) -> Result<(), Diagnostic> {
        let templates = &self.templates;
        let reads = templates.reads_of(template);
        let splice = templates.splices_lists(template);
        let corpus = self.site.corpus;
        let (ids, with, kind) = (&list.ids[..], list.with, list.list);
        // The items of papers `ids[run]`, or their mark; spliced items
        // that need no tera are filled in at the mark, after the render.
        let mut items =
            |run: std::ops::Range<usize>, context: &Context, group: Option<&YearGroup>| {
                let spliced = match templates.paper_item().filter(|_| splice) {
                    Some(item) => Spliced::Items(item, run),
                    None => {
                        let html = self.items_html(&ids[run], with, kind, context, group)?;
                        if !splice {
                            lists.inserted_len += html.len();
                            return Ok(Value::from(html));
                        }
                        Spliced::Made(html)
                    }
                };
                lists.spliced.push(spliced);
                Ok::<Value, Diagnostic>(Value::from(list_mark(lists.spliced.len() - 1)))
            };
        if reads.value(list.name) {
            context.insert_value(list.name, self.views.papers(ids, with, kind));
        }
        let html_name = format!("{}_html", list.name);
        if reads.value(&html_name) {
            let html = items(0..ids.len(), context, None)?;
            context.insert_value(html_name, html);
        }
        if !list.by_year || !reads.value("groups") {
            return Ok(());
        }
        let mut groups: Vec<Value> = Vec::new();
        let mut start = 0;
        while start < ids.len() {
            let year = corpus.papers[ids[start]].year;
            let end = start
                + ids[start..]
                    .iter()
                    .take_while(|&&p| corpus.papers[p].year == year)
                    .count();
            // Undated papers (BibTeX entries without a year) last.
            let (year, heading) = match year {
                crate::corpus::UNDATED => (Value::from("undated"), "Undated".to_string()),
                year => (Value::from(year), year.to_string()),
            };
            let mut group = YearGroup {
                year,
                heading,
                papers_html: None,
            };
            group.papers_html = Some(items(start..end, context, Some(&group))?);
            // Made as a struct, each key hashed once (a map made and
            // then turned into a value hashes each twice).
            groups.push(Value::from_serializable(&group));
            start = end;
        }
        context.insert_value("groups", Value::from(groups));
        Ok(())
    }

    /// The items of papers `ids` in `list`, each rendered with
    /// [`PAPER_ITEM`] and `paper` its value: filled in without tera when
    /// the template allows ([`crate::render::items`]), else by tera in
    /// the page's `context` with `paper` (and `group`, the author page's
    /// run of one year, when given), as an `{% include %}` in the page's
    /// loop would see them. Errors: a template error of the item; no
    /// [`PAPER_ITEM`] to render them with.
    fn items_html(
        &self,
        ids: &[PaperId],
        with: Abstract,
        list: List,
        context: &Context,
        group: Option<&YearGroup>,
    ) -> Result<String, Diagnostic> {
        let mut out = String::new();
        if let Some(item) = self.templates.paper_item() {
            self.fill_items(item, &mut out, ids, with, list);
            return Ok(out);
        }
        if !self.templates.contains(PAPER_ITEM) {
            return Err(Diagnostic::error(
                std::path::PathBuf::from("templates").join(PAPER_ITEM),
                0,
                format!(
                    "expected a template {PAPER_ITEM} to render a list's items (`papers_html`, `recent_html`), found none; add it to the theme or to the site's templates/"
                ),
            ));
        }
        let mut context = context.clone();
        if let Some(group) = group {
            context.insert("group", group);
        }
        for &id in ids {
            context.insert_value("paper", self.views.paper(id, with, list));
            out.push_str(&self.templates.render(PAPER_ITEM, &context)?);
        }
        Ok(out)
    }

    /// Appends the items of papers `ids` in `list` to `out`, each filled
    /// in from `item` ([`crate::render::items`]).
    fn fill_items(
        &self,
        item: &ItemTemplate,
        out: &mut String,
        ids: &[PaperId],
        with: Abstract,
        list: List,
    ) {
        let start = out.len();
        for (done, &id) in (1..).zip(ids) {
            let values = self.views.paper_values(id, with, list);
            item.fill(out, &|field| field.value(&values));
            // Room for the rest at the first four items' mean length, so
            // that a long list grows (and is copied) once or not at all,
            // where doubling copies it several times.
            if done == 4 {
                out.reserve((out.len() - start) / 4 * (ids.len() - 4));
            }
        }
    }

    /// A content page's HTML with each `{{ papers(...) }}` shortcode
    /// replaced by its list (`queried`, its papers:
    /// [`crate::render::site::PagePapers::queried`]), rendered with
    /// `partials/paper_list.html`. Errors: a template error.
    fn expand_shortcodes(
        &self,
        page: &ContentPage,
        queried: &[Vec<PaperId>],
    ) -> Result<String, Diagnostic> {
        let mut html = page.html.clone();
        for (n, ids) in queried.iter().enumerate() {
            let mut context = Context::new();
            context.insert_value(
                "papers",
                self.views.papers(ids, Abstract::Left, List::Other),
            );
            context.insert("page", &ShortcodePage { kind: "shortcode" });
            let list = self
                .templates
                .render("partials/paper_list.html", &context)?;
            html = html.replacen(&shortcode_placeholder(n), &list, 1);
        }
        Ok(html)
    }

    /// Categories of `papers` (a term's on its first page, else none)
    /// with counts, as `category_counts` and `category_counts_html`.
    fn insert_category_counts(
        &self,
        context: &mut Context,
        counted: &CountedLists,
        papers: &[PaperId],
    ) {
        let site = &self.site;
        let counts: Vec<CountedLink> = stats::per_category(site.corpus, papers)
            .into_iter()
            .map(|(c, count)| {
                let category = &site.corpus.categories[c];
                CountedLink {
                    name: &category.name,
                    code: &category.code,
                    url: self.views.category_url(c),
                    count,
                }
            })
            .collect();
        counted.insert(
            context,
            ["category_counts", "category_counts_html"],
            &counts,
            CountedLink::push_category_li,
        );
    }

    /// A paper page's identifiers and links, complete author list, Cite
    /// block, and citation, OpenGraph and JSON-LD metadata: as values, as
    /// HTML, or both, as `paper.html` reads them.
    fn insert_scholarly(&self, context: &mut Context, id: PaperId, description: &str) {
        let site = &self.site;
        let corpus = site.corpus;
        let paper = &corpus.papers[id];
        let details = &paper.details;
        let meta = Metadata::new(site, paper, Abstract::Left);
        context.insert(
            "details",
            &DetailsView {
                arxiv_id: meta.arxiv_id(),
                arxiv_url: meta.arxiv_url(),
                // Without an identifier, arXiv's title search: the reader
                // still has somewhere to go, and nothing is claimed.
                find_url: meta.arxiv_id().is_none().then(|| {
                    let title = meta.title();
                    let mut url = String::with_capacity(title.len() * 2 + 64);
                    url.push_str("https://arxiv.org/search/?query=");
                    // The encoder's pieces pushed as they come, not through
                    // a formatter a piece at a time.
                    url.extend(percent_encoding::utf8_percent_encode(
                        title,
                        percent_encoding::NON_ALPHANUMERIC,
                    ));
                    url.push_str("&searchtype=title");
                    url
                }),
                doi: meta.doi(),
                doi_url: meta.doi_url(),
                url: details.url.as_deref(),
                pdf: meta.pdf_url(),
                code: details.code.as_deref(),
                venue: meta.venue(),
                note_html: &details.note_html,
                selected: meta.selected(),
                submitted: details.submitted.as_deref(),
                revised_version: details.revised.as_ref().map(|(v, _)| *v),
                revised: details.revised.as_ref().map(|(_, d)| d.as_str()),
                comment: details.comment.as_deref(),
            },
        );
        let read = self.templates.reads_of("paper.html");
        let reads = |value| read.value(value);
        if reads("complete_authors") {
            let complete = details
                .complete_authors
                .as_ref()
                .map(|_| byline(site, paper));
            context.insert("complete_authors", &complete);
        }
        if reads("authors_html") {
            context.insert("authors_html", &self.views.page_authors_html(paper));
        }
        let files = site.config.paper_exports.then(|| {
            Export::ALL.map(|export| site.urls.url(&site.route(&Job::PaperExport(id, export))))
        });
        context.insert(
            "cite",
            &CiteView {
                key: &paper.key,
                bibtex: crate::render::exports::paper_export(
                    site,
                    &self.author_parts,
                    id,
                    Export::Bibtex,
                    Abstract::Left,
                ),
                bib_url: files.as_ref().map(|f| f[0].clone()),
                ris_url: files.as_ref().map(|f| f[1].clone()),
                csl_url: files.as_ref().map(|f| f[2].clone()),
            },
        );
        // The tags and the JSON-LD as values, as HTML, or both, as the
        // template mentions them.
        let [html, citation_tags, og_tags, json_ld] =
            ["scholarly_meta_html", "citation_tags", "og_tags", "json_ld"].map(reads);
        if !(html || citation_tags || og_tags || json_ld) {
            return;
        }
        let citation = crate::render::scholar::citation_tags(paper);
        let open_graph = crate::render::scholar::open_graph(site, paper, description);
        let script = crate::render::scholar::json_ld(site, paper, &|a| self.views.person_json(a));
        if html {
            context.insert(
                "scholarly_meta_html",
                &crate::render::scholar::head_html(&citation, &open_graph, &script),
            );
        }
        if citation_tags {
            context.insert("citation_tags", &citation);
        }
        if og_tags {
            context.insert("og_tags", &open_graph);
        }
        if json_ld {
            context.insert_value("json_ld", Value::from(script));
        }
    }

    /// The template of a content page. One of the site's that failed to
    /// load (reported already) gives way to the default `page.html`, so
    /// `check` still sees the page's links. Errors: a template that does
    /// not exist, with the closest name.
    fn content_template<'j>(&'j self, page: &'j ContentPage) -> Result<&'j str, Diagnostic> {
        let name = content_template_name(page);
        if self.templates.contains(name) {
            return Ok(name);
        }
        if self.templates.is_broken(name) {
            return Ok("page.html");
        }
        let with_extension = format!("{name}.html");
        let hint = match self.templates.contains(&with_extension) {
            true => format!("; did you mean `{with_extension}`?"),
            false => crate::diagnostics::did_you_mean(name, self.templates.names()),
        };
        Err(Diagnostic::error(
            &page.file,
            page.template_line,
            format!("expected an existing template, found `{name}` (not in the theme or templates/){hint}"),
        ))
    }

    fn insert_paginator(&self, context: &mut Context, job: &Job, items: usize, page: usize) {
        let site = &self.site;
        let total_pages = site.pages_for(items);
        let url_of = |n: usize| {
            let at = match *job {
                Job::Author(id, _) => Job::Author(id, n),
                Job::Year(i, _) => Job::Year(i, n),
                Job::Category(id, _) => Job::Category(id, n),
                ref other => other.clone(),
            };
            site.urls.url(&site.route(&at))
        };
        let range = site.page_range(items, page);
        context.insert(
            "paginator",
            &Paginator {
                current: page,
                total_pages,
                total_items: items,
                first_item: range.start + 1,
                last_item: range.end,
                previous: (page > 1).then(|| url_of(page - 1)),
                next: (page < total_pages).then(|| url_of(page + 1)),
                pages: pager_numbers(page, total_pages)
                    .into_iter()
                    .map(|n| PagerLink {
                        number: n,
                        url: if n == 0 { String::new() } else { url_of(n) },
                    })
                    .collect(),
            },
        );
    }
}

#[derive(Serialize)]
struct SiteView<'a> {
    title: &'a str,
    description: &'a str,
    base_url: &'a str,
    base_path: &'a str,
    language: &'a str,
    /// `[extra]` of `site.toml`.
    extra: &'a toml::Table,
    paper_count: usize,
    author_count: usize,
    year_count: usize,
    category_count: usize,
    urls: SiteUrls,
    stylesheet: String,
    cite_script: String,
    favicon: String,
    authors_script: String,
    search_url: Option<String>,
    search_index: String,
    search_script: String,
    feed_url: Option<String>,
}

impl<'a> SiteView<'a> {
    fn new(site: &Site<'a>) -> SiteView<'a> {
        let (config, urls, corpus) = (site.config, site.urls, site.corpus);
        let static_url = |path: &str| urls.url(&Route::Static { path: path.into() });
        SiteView {
            title: &config.title,
            description: &config.description,
            base_url: urls.base_url(),
            base_path: urls.base_path(),
            language: &config.language,
            extra: &config.extra,
            paper_count: corpus.papers.len(),
            author_count: corpus.authors.len(),
            year_count: corpus.years.len(),
            category_count: corpus.categories.len(),
            urls: SiteUrls {
                home: urls.url(&Route::Home),
                authors: urls.url(&Route::AuthorIndex),
                years: urls.url(&Route::YearIndex),
                categories: urls.url(&Route::CategoryIndex),
            },
            stylesheet: static_url("style.css"),
            cite_script: static_url("cite.js"),
            favicon: static_url("favicon.svg"),
            authors_script: static_url("authors.js"),
            search_url: config.search.then(|| urls.url(&Route::Search)),
            search_index: static_url("search/index.json"),
            search_script: static_url("search-ui.js"),
            feed_url: config.feeds.then(|| urls.url(&Route::SiteFeed)),
        }
    }
}

#[derive(Serialize)]
struct SiteUrls {
    home: String,
    authors: String,
    years: String,
    categories: String,
}

/// One year's run of an author's papers (`groups`): `year` (or
/// `undated`), `heading`, and the run's items rendered, `papers_html`.
#[derive(Serialize)]
struct YearGroup {
    year: Value,
    heading: String,
    papers_html: Option<Value>,
}

/// One initial letter's group of the authors index.
#[derive(Serialize)]
struct Letter<'a> {
    letter: &'a str,
    id: &'a str,
    authors: Value,
}

/// One letter of the authors index's A–Z bar.
#[derive(Serialize)]
struct InitialLink {
    letter: String,
    id: String,
    count: usize,
    /// The letter's page, or its anchor on a one-page index.
    url: String,
    /// Whether this page is the letter's.
    current: bool,
}

/// A page's rendered lists ([`Pages::insert_list`]).
#[derive(Default)]
struct Lists<'p> {
    /// The length of those in the context.
    inserted_len: usize,
    /// Those spliced after the render, in the order of their marks.
    spliced: Vec<Spliced<'p>>,
}

/// A list spliced after the render, at its mark.
enum Spliced<'p> {
    /// Items rendered already (by tera).
    Made(String),
    /// The items of a run of the page's list of papers (of the
    /// [`PageList`]), filled in at the mark.
    Items(&'p ItemTemplate, std::ops::Range<usize>),
}

/// A page's list of papers, inserted into its context last
/// ([`Pages::insert_list`]).
struct PageList<'p> {
    /// The list's name: `recent` on the home page, else `papers`.
    name: &'static str,
    /// Whether the page also shows it in runs of one year (`groups`:
    /// an author's page).
    by_year: bool,
    ids: std::borrow::Cow<'p, [PaperId]>,
    with: Abstract,
    list: List,
}

/// The `page` of a `{{ papers(...) }}` shortcode's list.
#[derive(Serialize)]
struct ShortcodePage {
    kind: &'static str,
}

/// One row of an author's papers-per-year table.
#[derive(Serialize)]
struct YearCount {
    name: String,
    url: String,
    count: usize,
    /// Percent of the busiest year's count, for the row's bar.
    share: usize,
}

#[derive(Serialize)]
struct PageMeta<'a> {
    kind: &'a str,
    /// The part of the site the page is in ([`section_of`]).
    section: &'static str,
    title: String,
    description: String,
    url: String,
    permalink: String,
    /// A content page's `[extra]` front matter; empty elsewhere.
    extra: &'a toml::Table,
}

/// One entry of a pager's page list; `number` 0 stands for a gap (`…`).
#[derive(Serialize)]
struct PagerLink {
    number: usize,
    url: String,
}

/// Pages shown on either side of the current one in a pager.
const PAGER_WINDOW: usize = 2;

#[derive(Serialize)]
struct Paginator {
    current: usize,
    total_pages: usize,
    total_items: usize,
    first_item: usize,
    last_item: usize,
    previous: Option<String>,
    next: Option<String>,
    pages: Vec<PagerLink>,
}

/// The part of the site the page of `job` is in, as its navigation names
/// it (Hugo's `.Section`): `authors` (the authors index, its letters and
/// author pages), `years`, `categories`, `papers`, `search`; empty for
/// the home page, content pages and the others.
fn section_of(job: &Job) -> &'static str {
    match job {
        Job::AuthorIndex | Job::AuthorLetter(_) | Job::Author(..) => "authors",
        Job::YearIndex | Job::Year(..) => "years",
        Job::CategoryIndex | Job::Category(..) => "categories",
        Job::Paper(_) => "papers",
        Job::Search => "search",
        _ => "",
    }
}

/// The page numbers a pager shows: the first, the last, and those within
/// [`PAGER_WINDOW`] of `current`, with 0 marking each gap. Constant size,
/// so a term with thousands of pages costs no more per page than one with three.
fn pager_numbers(current: usize, total: usize) -> Vec<usize> {
    let low = current.saturating_sub(PAGER_WINDOW).max(1);
    let high = (current + PAGER_WINDOW).min(total);
    let mut candidates: Vec<usize> = std::iter::once(1)
        .chain(low..=high)
        .chain(std::iter::once(total))
        .collect();
    candidates.dedup();
    let mut numbers = Vec::with_capacity(candidates.len() + 2);
    for n in candidates {
        if numbers.last().is_some_and(|&last: &usize| last + 1 != n) {
            numbers.push(0);
        }
        numbers.push(n);
    }
    numbers
}

/// `1 paper`, `2 papers`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn paged_title(title: &str, page: usize) -> String {
    if page > 1 {
        format!("{title} (page {page})")
    } else {
        title.to_string()
    }
}

/// A term with a count: a co-author, a year, a category, a top author.
/// Its strings are borrowed from the corpus and the shared links, not
/// copied for each page that counts it.
#[derive(Serialize)]
struct CountedLink<'v> {
    name: &'v str,
    code: &'v str,
    url: &'v str,
    count: usize,
}

impl<'v> CountedLink<'v> {
    fn author(views: &'v Views, corpus: &'v Corpus, id: AuthorId, count: usize) -> CountedLink<'v> {
        CountedLink {
            name: &corpus.authors[id].name,
            code: "",
            url: views.author_url(id),
            count,
        }
    }

    /// A co-author or top author as the default theme lists them: linked
    /// where it has a page, its count said in words to screen readers.
    fn push_author_li(&self, html: &mut String) {
        html.push_str("<li>");
        if self.url.is_empty() {
            html.push_str("<span>");
            push_escaped_html(html, self.name);
            html.push_str("</span>");
        } else {
            push_link(html, self.url, None, self.name);
        }
        let plural = if self.count == 1 { "" } else { "s" };
        let _ = write!(
            html,
            " <span class=\"count\">{}<span class=\"visually-hidden\"> paper{plural}</span></span></li>",
            self.count
        );
    }

    /// A category with its count as the default theme lists them.
    fn push_category_li(&self, html: &mut String) {
        html.push_str("<li>");
        push_link(html, self.url, None, self.name);
        let _ = write!(html, " <span class=\"count\">{}</span></li>", self.count);
    }
}

impl YearCount {
    /// The year's row of the default theme's papers-per-year table.
    fn push_row(&self, html: &mut String) {
        html.push_str("<tr><th scope=\"row\">");
        push_link(html, &self.url, None, &self.name);
        let _ = write!(
            html,
            "</th><td><span class=\"bar\" style=\"width: {}%\"></span></td><td>{}</td></tr>",
            self.share, self.count
        );
    }
}

/// How a page's template reads its counted lists (`coauthors`,
/// `year_counts`, `category_counts`, `top_authors`): each is made as
/// values under its name, as the default theme's HTML under its name and
/// `_html` (`coauthors_html`), or both, as the template reads them
/// ([`Templates::reads`]).
struct CountedLists<'p> {
    reads: Reads<'p>,
}

impl<'p> CountedLists<'p> {
    fn new(pages: &'p Pages, template: &'static str) -> CountedLists<'p> {
        CountedLists {
            reads: pages.templates.reads_of(template),
        }
    }

    /// Inserts `items` as the template reads them: as values under
    /// `name`, as HTML made item by item with `push` under `html_name`.
    fn insert<T: Serialize>(
        &self,
        context: &mut Context,
        [name, html_name]: [&'static str; 2],
        items: &[T],
        push: fn(&T, &mut String),
    ) {
        let reads = |value| self.reads.value(value);
        if reads(name) {
            context.insert(name, items);
        }
        if reads(html_name) {
            let mut html = String::new();
            for item in items {
                push(item, &mut html);
            }
            context.insert(html_name, &html);
        }
    }
}

#[derive(Serialize)]
struct DetailsView<'a> {
    arxiv_id: Option<&'a str>,
    arxiv_url: Option<String>,
    /// arXiv's title search, for a paper with no arXiv identifier.
    find_url: Option<String>,
    doi: Option<&'a str>,
    doi_url: Option<String>,
    url: Option<&'a str>,
    pdf: Option<String>,
    code: Option<&'a str>,
    venue: Option<&'a str>,
    note_html: &'a str,
    selected: bool,
    /// The date of v1, from the arXiv record.
    submitted: Option<&'a str>,
    /// The latest version's number and date, when there is more than v1.
    revised_version: Option<u32>,
    revised: Option<&'a str>,
    comment: Option<&'a str>,
}

#[derive(Serialize)]
struct CiteView<'a> {
    key: &'a str,
    bibtex: String,
    bib_url: Option<String>,
    ris_url: Option<String>,
    csl_url: Option<String>,
}

#[derive(Serialize)]
struct ContentView<'a> {
    title: &'a str,
    html: &'a str,
    date: Option<String>,
    is_section: bool,
    children: Vec<ChildView<'a>>,
}

#[derive(Serialize)]
struct ChildView<'a> {
    title: &'a str,
    url: String,
    description: Option<&'a str>,
    date: Option<String>,
}

impl<'a> ContentView<'a> {
    fn new(site: &Site<'a>, page: &'a ContentPage, html: &'a str) -> ContentView<'a> {
        let children = if page.is_section {
            site.content
                .section_children(&page.path)
                .into_iter()
                .map(|child| ChildView {
                    title: &child.title,
                    url: site.urls.url(&Route::Content {
                        path: child.path.clone(),
                    }),
                    description: child.front.description.as_deref(),
                    date: child.front.date.map(|d| d.to_string()),
                })
                .collect()
        } else {
            Vec::new()
        };
        ContentView {
            title: &page.title,
            html,
            date: page.front.date.map(|d| d.to_string()),
            is_section: page.is_section,
            children,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pager_numbers_are_windowed() {
        assert_eq!(pager_numbers(1, 1), [1]);
        assert_eq!(pager_numbers(2, 3), [1, 2, 3]);
        assert_eq!(pager_numbers(1, 9), [1, 2, 3, 0, 9]);
        assert_eq!(pager_numbers(5, 9), [1, 0, 3, 4, 5, 6, 7, 0, 9]);
        assert_eq!(pager_numbers(9, 9), [1, 0, 7, 8, 9]);
        assert_eq!(pager_numbers(4, 9), [1, 2, 3, 4, 5, 6, 0, 9]);
        assert_eq!(pager_numbers(5000, 5000).len(), 5);
    }
}
