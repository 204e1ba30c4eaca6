//! The Markdown pages in `content/`, each with TOML front matter
//! between `+++` lines (or YAML between `---` lines), rendered to HTML with pulldown-cmark (tables,
//! footnotes, strikethrough, heading ids). Hands on [`Content`]: the home
//! page's intro (`content/_index.md`), pages and sections, and author
//! profiles (`content/authors/<slug>.md`) and per-paper overrides
//! (`content/papers/<slug>.md`, applied by [`crate::corpus::overrides`]), which are
//! not pages of their own.

use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::input::chars;
use crate::input::config::{line_key, serde_error, Holding};
use crate::permalink::slugify;
use crate::safe_url;
use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Front matter of a content page.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrontMatter {
    /// Page title; defaults to the file stem.
    pub title: Option<String>,
    /// Meta description; defaults to the site's.
    pub description: Option<String>,
    /// Date as written (`2024-05-01`, or quoted as Zola takes it:
    /// `"2024-05-01"`), shown as is.
    #[serde(default, deserialize_with = "date_or_quoted_date")]
    pub date: Option<toml::value::Datetime>,
    /// Drafts are built only with `--drafts`.
    #[serde(default)]
    pub draft: bool,
    /// Template file name, e.g. `page.html` (the default) or `section.html`.
    pub template: Option<String>,
    /// Order within a section: lower first, then title.
    pub weight: Option<i64>,
    /// The page's own settings for templates, `page.extra` (as in Zola).
    #[serde(default)]
    pub extra: toml::Table,
}

/// A TOML date, or a string holding one (`date = "2024-05-01"`, which Zola
/// takes).
fn date_or_quoted_date<'de, D>(deserializer: D) -> Result<Option<toml::value::Datetime>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Date {
        Datetime(toml::value::Datetime),
        Text(String),
    }
    match Date::deserialize(deserializer)? {
        Date::Datetime(date) => Ok(Some(date)),
        Date::Text(text) => text.trim().parse().map(Some).map_err(|_| {
            serde::de::Error::custom(format!(
                "expected `date` to be a date such as 2024-05-01 or 2024-05-01T09:30:00Z, found `{text}`"
            ))
        }),
    }
}

/// Front matter of an author profile (`content/authors/<slug>.md`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileFrontMatter {
    /// The author's home page URL.
    pub homepage: Option<String>,
    /// ORCID iD, `0000-0002-1825-0097` (an `https://orcid.org/` prefix is dropped).
    pub orcid: Option<String>,
    /// Old URL paths of the author's page (entries with a `/`, or ending
    /// in `.html`: each becomes a redirect page) and name variants (other
    /// entries, such as `C. Wu`: their listings merge into this author).
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The author's family name where the name model splits the name
    /// otherwise: `family = "Nguyen"` for `Nguyen Van Anh`.
    pub family: Option<String>,
}

/// Front matter of a per-paper override (`content/papers/<slug>.md`).
/// Every key is optional; the body, when present, is a note shown on the
/// paper's page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperFrontMatter {
    /// arXiv identifier, `2405.01234` or `cs/0112017` (an `arXiv:` prefix
    /// or `https://arxiv.org/abs/` URL is reduced to the identifier).
    pub arxiv: Option<String>,
    /// DOI, `10.1145/3600006.3613139` (a `https://doi.org/` prefix is dropped).
    pub doi: Option<String>,
    /// The publisher's page.
    pub url: Option<String>,
    /// A PDF link.
    pub pdf: Option<String>,
    /// A code repository link.
    pub code: Option<String>,
    /// Where it appeared, `NeurIPS 2024`.
    pub venue: Option<String>,
    /// A corrected title (LaTeX as in listings); the slug and key stay.
    pub title: Option<String>,
    /// The complete author list, in order; setting it marks the list complete.
    pub authors: Option<Vec<String>>,
    /// A wrongly attributed record: the paper is left out everywhere.
    #[serde(default)]
    pub hidden: bool,
    /// Shown among selected publications.
    #[serde(default)]
    pub selected: bool,
    /// Pins the citation key.
    pub key: Option<String>,
    /// `false`: `vellum enrich` never looks the paper up, and a record of
    /// it in `records/arxiv.toml` is ignored (a wrong match stopped).
    pub enrich: Option<bool>,
    /// Old URL paths of the paper's page; each becomes a redirect page.
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// A per-paper override as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PaperOverride {
    /// Source file, for messages.
    pub file: PathBuf,
    /// Front matter.
    pub front: PaperFrontMatter,
    /// 1-based line of `aliases =` in the file, 0 when absent.
    pub aliases_line: usize,
    /// 1-based line of `authors =` in the file, 0 when absent.
    pub authors_line: usize,
    /// 1-based line of `title =` in the file, 0 when absent.
    pub title_line: usize,
    /// The rendered note; empty when the body is blank.
    pub note_html: String,
    /// Every link and image target in the note, with its 1-based line.
    pub note_links: Vec<(String, usize)>,
}

/// A Markdown page or section.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentPage {
    /// Source file relative to the site root, for messages.
    pub file: PathBuf,
    /// URL path without slashes at the ends (`about`, `group/members`;
    /// empty for `content/_index.md`).
    pub path: String,
    /// Whether it is a section (`_index.md`), listing the pages beside it.
    pub is_section: bool,
    /// Its front matter.
    pub front: FrontMatter,
    /// 1-based line of `template =` in the file, 0 when absent.
    pub template_line: usize,
    /// The rendered body.
    pub html: String,
    /// Every link and image target in the body, with its 1-based line in the file.
    pub links: Vec<(String, usize)>,
    /// The title: front matter, else the file stem.
    pub title: String,
    /// `{{ papers(...) }}` shortcodes, in order; the `n`th (0-based) sits
    /// in `html` as the placeholder [`shortcode_placeholder`]`(n)`.
    pub shortcodes: Vec<PaperQuery>,
}

/// A `{{ papers(...) }}` shortcode on a line of its own in a Markdown page:
/// a list of papers, each filter optional, in the site's paper order.
/// `{{ papers(author="xiaowen-chu", year=2024, category="cs.DC", selected=true, limit=5) }}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaperQuery {
    /// Author slug.
    pub author: Option<String>,
    /// Year.
    pub year: Option<u16>,
    /// Category code (`cs.DC`).
    pub category: Option<String>,
    /// Only papers marked `selected` in their override.
    pub selected: bool,
    /// At most this many papers.
    pub limit: Option<usize>,
    /// 1-based line of the shortcode in its file.
    pub line: usize,
}

/// The HTML comment standing for shortcode `n` in rendered Markdown.
pub fn shortcode_placeholder(n: usize) -> String {
    format!("<!--vellum-papers-{n}-->")
}

/// Replaces each line that is a `{{ papers(...) }}` shortcode with its
/// placeholder (as an HTML block of its own). Returns the new Markdown, the
/// parsed shortcodes, and a [`Diagnostic`] for each malformed shortcode
/// (an unknown argument, a value of the wrong kind, a line that starts a
/// shortcode but does not close it), whose line is left out of the page.
fn extract_shortcodes(
    markdown: &str,
    first_line: usize,
    file: &Path,
) -> (String, Vec<PaperQuery>, Vec<Diagnostic>) {
    if !markdown.contains("{{") {
        return (markdown.to_string(), Vec::new(), Vec::new());
    }
    let mut out = String::with_capacity(markdown.len());
    let mut queries = Vec::new();
    let mut errors = Vec::new();
    let mut fence: Option<&str> = None;
    for (index, line) in markdown.split_inclusive('\n').enumerate() {
        let trimmed = line.trim();
        let line_number = first_line + index;
        // Inside a fenced code block a shortcode is text, shown as written.
        let fence_mark = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, fence_mark) {
            (None, Some(mark)) => fence = Some(mark),
            (Some(open), Some(mark)) if open == mark => fence = None,
            _ => {}
        }
        let opened = trimmed
            .strip_prefix("{{")
            .is_some_and(|rest| rest.trim_start().starts_with("papers("));
        // An indented code block (four spaces or a tab) is text too.
        let code = fence.is_some()
            || fence_mark.is_some()
            || line.starts_with("    ")
            || line.starts_with('\t');
        if !code {
            if let Some(message) = foreign_shortcode(trimmed) {
                errors.push(Diagnostic::error(file, line_number, message));
            }
        }
        if code || !opened {
            if !code && shortcode_inside_text(line) {
                errors.push(Diagnostic::error(
                    file,
                    line_number,
                    format!(
                        "expected a `{{{{ papers(...) }}}}` shortcode alone on its line, found it inside text: `{}`; \
                         put it on a line of its own (or in backticks to show it as code)",
                        trimmed
                    ),
                ));
            }
            out.push_str(line);
            continue;
        }
        let args = trimmed
            .strip_suffix("}}")
            .map(|l| l.trim_end())
            .and_then(|l| l.strip_suffix(')'))
            .and_then(|l| l.split_once("papers(").map(|(_, args)| args));
        let query = match args {
            Some(args) => parse_query(args, line_number),
            None => Err(format!(
                "expected a shortcode closed on its line, `{{{{ papers(...) }}}}`, found `{trimmed}`"
            )),
        };
        match query {
            Ok(query) => {
                // An HTML comment starts an HTML block, even inside a
                // paragraph, and keeps the line count, so later links keep
                // their lines.
                out.push_str(&shortcode_placeholder(queries.len()));
                queries.push(query);
            }
            Err(message) => errors.push(Diagnostic::error(file, line_number, message)),
        }
        out.push('\n');
    }
    (out, queries, errors)
}

/// What is wrong with a line that calls a shortcode Vellum does not have,
/// outside inline code: Hugo's `{{< name >}}` or `{{% name %}}` (its
/// `ref` and `relref` are `@/` links here), or a line that is a call
/// `{{ name(...) }}` of another name than `papers` (with the closest).
fn foreign_shortcode(line: &str) -> Option<String> {
    if !line.contains("{{") {
        return None;
    }
    let outside_code = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    let hugo = [("{{<", ">}}"), ("{{%", "%}}")]
        .into_iter()
        .find_map(|(open, close)| {
            let at = outside_code.find(open)?;
            let end = outside_code[at..].find(close)?;
            Some(&outside_code[at..at + end + close.len()])
        });
    if let Some(call) = hugo {
        let name = call[3..].split_whitespace().next().unwrap_or("");
        let fix = match name {
            "ref" | "relref" => "link a page as `[text](@/page.md)`".to_string(),
            _ => "Vellum's one shortcode is `{{ papers(...) }}`; write other things as Markdown or HTML".to_string(),
        };
        return Some(format!("expected no Hugo shortcode, found `{call}`; {fix}"));
    }
    let call = line.strip_prefix("{{")?.strip_suffix("}}")?.trim();
    let (name, _) = call.split_once('(')?;
    let name = name.trim();
    if name == "papers" || !name.chars().all(|c| c.is_alphanumeric() || c == '_') || name.is_empty()
    {
        return None;
    }
    let hint = crate::diagnostics::did_you_mean(name, ["papers"]);
    let hint = match hint.is_empty() {
        true => "; write other things as Markdown or HTML".to_string(),
        false => hint,
    };
    Some(format!(
        "expected the shortcode `{{{{ papers(...) }}}}`, the one Vellum has, found `{name}(...)`{hint}"
    ))
}

/// Whether `line` holds `{{ papers(` outside inline code (backticks).
fn shortcode_inside_text(line: &str) -> bool {
    let mut rest = line;
    let mut ticks_before = 0;
    while let Some(at) = rest.find("{{") {
        ticks_before += rest[..at].matches('`').count();
        let after = &rest[at + 2..];
        if ticks_before % 2 == 0 && after.trim_start().starts_with("papers(") {
            return true;
        }
        rest = after;
    }
    false
}

/// Parses `key=value, ...` of a `papers(...)` shortcode.
fn parse_query(args: &str, line: usize) -> Result<PaperQuery, String> {
    let mut query = PaperQuery {
        line,
        ..PaperQuery::default()
    };
    let mut seen = std::collections::HashSet::new();
    for arg in args.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let Some((key, value)) = arg.split_once('=') else {
            return Err(format!(
                "expected `name=value` in papers(...), found `{arg}`"
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        if !seen.insert(key) {
            return Err(format!(
                "expected each argument of papers(...) once, found `{key}` twice; remove one"
            ));
        }
        let text = || {
            ['"', '\'']
                .into_iter()
                .find_map(|q| value.strip_prefix(q).and_then(|v| v.strip_suffix(q)))
                .map(str::to_string)
                .ok_or_else(|| format!("expected a quoted string for `{key}`, found `{value}`"))
        };
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("expected a number for `{key}`, found `{value}`"))
        };
        match key {
            "author" => query.author = Some(text()?),
            "category" => query.category = Some(text()?),
            "year" => {
                query.year = Some(
                    u16::try_from(number()?)
                        .map_err(|_| format!("expected a year, found `{value}`"))?,
                )
            }
            "limit" => query.limit = Some(number()?),
            "selected" => {
                query.selected = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("expected true or false for `selected`, found `{value}`")),
                }
            }
            _ => {
                return Err(format!(
                    "expected one of author, year, category, selected, limit in papers(...), found `{key}`{}",
                    crate::diagnostics::did_you_mean(
                        key,
                        ["author", "year", "category", "selected", "limit"]
                    )
                ))
            }
        }
    }
    Ok(query)
}

/// An author profile shown on the author's page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorProfile {
    /// Source file, for messages.
    pub file: PathBuf,
    /// Front matter.
    pub front: ProfileFrontMatter,
    /// 1-based line of `aliases =` in the file, 0 when absent.
    pub aliases_line: usize,
    /// 1-based line of `family =` in the file, 0 when absent.
    pub family_line: usize,
    /// Name variants from `aliases` (entries that are not paths).
    pub name_variants: Vec<String>,
    /// The rendered body.
    pub html: String,
    /// Every link and image target in the body, with its 1-based line.
    pub links: Vec<(String, usize)>,
}

/// Whether a profile alias is an old URL path rather than a name variant.
pub fn is_path_alias(alias: &str) -> bool {
    alias.contains('/') || alias.ends_with(".html")
}

/// Everything from `content/`.
#[derive(Debug, Clone, Default)]
pub struct Content {
    /// `content/_index.md`: the home page's intro, when present.
    pub home: Option<ContentPage>,
    /// Pages and sections other than the home, by URL path.
    pub pages: Vec<ContentPage>,
    /// Author profiles by author slug (the file stem).
    pub profiles: BTreeMap<String, AuthorProfile>,
    /// Per-paper overrides by paper slug (the file stem).
    pub overrides: BTreeMap<String, PaperOverride>,
}

impl Content {
    /// Pages that are directly inside the section at `section_path`, in
    /// section order: weight (unweighted last), then title, then path.
    pub fn section_children(&self, section_path: &str) -> Vec<&ContentPage> {
        let mut children: Vec<&ContentPage> = self
            .pages
            .iter()
            .filter(|p| !p.is_section && parent_path(&p.path) == section_path)
            .collect();
        children.sort_by(|a, b| {
            (a.front.weight.is_none(), a.front.weight, &a.title, &a.path).cmp(&(
                b.front.weight.is_none(),
                b.front.weight,
                &b.title,
                &b.path,
            ))
        });
        children
    }
}

fn parent_path(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

/// Reads and renders `files`: pairs of (path relative to `content/` with
/// `/` separators, path for messages, bytes). Drafts are left out unless
/// `drafts`. Errors (bad front matter, invalid UTF-8) go to `diagnostics`
/// and the file is skipped.
pub fn load(
    files: &[(String, PathBuf, Vec<u8>)],
    drafts: bool,
    diagnostics: &Diagnostics,
) -> Content {
    let mut content = Content::default();
    let mut seen_paths: HashMap<String, PathBuf> = HashMap::new();
    for (relative, display, bytes) in files {
        let text = match crate::input::utf8(bytes, display) {
            Ok(text) => text,
            Err(d) => {
                diagnostics.push(d);
                continue;
            }
        };
        let text = chars::line_feeds(text);
        let text = &*replace_forbidden_in_page(&text, display, diagnostics);
        if let Some(rest) = relative.strip_prefix("papers/") {
            match rest.strip_suffix(".md").filter(|s| !s.contains('/')) {
                Some(stem) => {
                    if let Some(found) = paper_override(text, display, diagnostics) {
                        content.overrides.insert(stem.to_string(), found);
                    }
                }
                None => diagnostics.push(Diagnostic::warning(
                    display,
                    0,
                    "expected a per-paper override content/papers/<slug>.md, found a nested file; it is ignored",
                )),
            }
            continue;
        }
        if let Some(stem) = relative
            .strip_prefix("authors/")
            .and_then(|r| r.strip_suffix(".md"))
            .filter(|s| !s.contains('/') && *s != "_index")
        {
            if let Some(profile) = author_profile(text, display, diagnostics) {
                content.profiles.insert(stem.to_string(), profile);
            }
            continue;
        }
        let Some(page) = content_page(relative, text, display, drafts, diagnostics) else {
            continue;
        };
        if let Some(first) = seen_paths.insert(page.path.clone(), display.clone()) {
            diagnostics.push(Diagnostic::error(
                display,
                1,
                format!(
                    "expected one content page at /{}/, found this file and {}",
                    page.path,
                    first.display()
                ),
            ));
            continue;
        }
        if page.path.is_empty() {
            content.home = Some(page);
        } else {
            content.pages.push(page);
        }
    }
    content.pages.sort_by(|a, b| a.path.cmp(&b.path));
    content
}

/// The per-paper override in `text` (`content/papers/<slug>.md`, read
/// from `display`): its links, arXiv identifier and DOI checked and
/// normalised, its note rendered. `None` when its front matter is bad;
/// errors and warnings go to `diagnostics`.
fn paper_override(text: &str, display: &Path, diagnostics: &Diagnostics) -> Option<PaperOverride> {
    let (mut front, body) = match split_front_matter::<PaperFrontMatter>(text, display, diagnostics)
    {
        Ok(parts) => parts,
        Err(d) => {
            diagnostics.push(d);
            return None;
        }
    };
    let page = (text, body);
    for (key, url) in [
        ("url", &mut front.url),
        ("pdf", &mut front.pdf),
        ("code", &mut front.code),
    ] {
        check_field(key, url, unsafe_url, page, display, diagnostics);
    }
    front.arxiv = front.arxiv.as_deref().map(normalise_arxiv_id);
    front.doi = front.doi.as_deref().map(normalise_doi);
    let arxiv = not_an(
        "an arXiv identifier such as `2405.01234` or `cs/0112017`",
        is_arxiv_id,
    );
    check_field("arxiv", &mut front.arxiv, arxiv, page, display, diagnostics);
    let doi = not_an("a DOI such as `10.1145/3600006.3613139`", is_doi);
    check_field("doi", &mut front.doi, doi, page, display, diagnostics);
    let (note_html, note_links) = body_without_shortcodes(text, body, display, diagnostics);
    Some(PaperOverride {
        file: display.to_path_buf(),
        front,
        aliases_line: key_line(text, body, "aliases"),
        authors_line: key_line(text, body, "authors"),
        title_line: key_line(text, body, "title"),
        note_html,
        note_links,
    })
}

/// The 1-based line of `text` on which `body`, its tail after the front
/// matter, starts.
fn line_of_body(text: &str, body: &str) -> usize {
    1 + text[..text.len() - body.len()].matches('\n').count()
}

/// `body` (the tail of `text` after the front matter, read from
/// `display`) rendered ([`render_markdown`]), where no shortcode may
/// stand (an override's note, a profile): each is an error at its line.
fn body_without_shortcodes(
    text: &str,
    body: &str,
    display: &Path,
    diagnostics: &Diagnostics,
) -> (String, Vec<(String, usize)>) {
    let body_line = line_of_body(text, body);
    no_shortcodes(body, body_line, display, diagnostics);
    render_markdown(body, body_line)
}

/// The author profile in `text` (`content/authors/<slug>.md`, read from
/// `display`): its homepage and ORCID iD checked, its aliases parted into
/// old URL paths and name variants, its body rendered. `None` when its
/// front matter is bad; errors and warnings go to `diagnostics`.
fn author_profile(text: &str, display: &Path, diagnostics: &Diagnostics) -> Option<AuthorProfile> {
    let (mut front, body) =
        match split_front_matter::<ProfileFrontMatter>(text, display, diagnostics) {
            Ok(parts) => parts,
            Err(d) => {
                diagnostics.push(d);
                return None;
            }
        };
    let page = (text, body);
    check_field(
        "homepage",
        &mut front.homepage,
        unsafe_url,
        page,
        display,
        diagnostics,
    );
    front.orcid = front.orcid.map(|id| {
        let id = id.trim();
        id.strip_prefix("https://orcid.org/")
            .or_else(|| id.strip_prefix("http://orcid.org/"))
            .unwrap_or(id)
            .to_string()
    });
    let orcid = not_an("an ORCID iD such as `0000-0002-1825-0097`", is_orcid);
    check_field("orcid", &mut front.orcid, orcid, page, display, diagnostics);
    let (paths, names): (Vec<String>, Vec<String>) =
        front.aliases.into_iter().partition(|a| is_path_alias(a));
    front.aliases = paths;
    let (html, links) = body_without_shortcodes(text, body, display, diagnostics);
    Some(AuthorProfile {
        file: display.to_path_buf(),
        front,
        aliases_line: key_line(text, body, "aliases"),
        family_line: key_line(text, body, "family"),
        name_variants: names,
        html,
        links,
    })
}

/// The content page in `text` (the home page, a section or a page, at
/// `relative` in `content/`, read from `display`): its shortcodes
/// extracted, its body rendered. `None` when its front matter is bad or it
/// is a draft and `drafts` is off; errors go to `diagnostics`.
fn content_page(
    relative: &str,
    text: &str,
    display: &Path,
    drafts: bool,
    diagnostics: &Diagnostics,
) -> Option<ContentPage> {
    let (front, body) = match split_front_matter::<FrontMatter>(text, display, diagnostics) {
        Ok(parts) => parts,
        Err(d) => {
            diagnostics.push(d);
            return None;
        }
    };
    if front.draft && !drafts {
        return None;
    }
    let (path, is_section) = url_path(relative);
    let template_line = key_line(text, body, "template");
    let body_line = line_of_body(text, body);
    let (body, shortcodes, errors) = extract_shortcodes(body, body_line, display);
    errors.into_iter().for_each(|d| diagnostics.push(d));
    let (html, links) = render_markdown(&body, body_line);
    let title = front.title.clone().unwrap_or_else(|| {
        Path::new(relative)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    Some(ContentPage {
        file: display.to_path_buf(),
        path,
        is_section,
        front,
        template_line,
        html,
        links,
        title,
        shortcodes,
    })
}

/// An error at each shortcode of a profile's or override's body, which
/// shows no paper list (the author's page lists the papers already).
fn no_shortcodes(body: &str, body_line: usize, file: &Path, diagnostics: &Diagnostics) {
    let (_, queries, errors) = extract_shortcodes(body, body_line, file);
    errors.into_iter().for_each(|d| diagnostics.push(d));
    for query in queries {
        diagnostics.push(Diagnostic::error(
            file,
            query.line,
            "expected no `{{ papers(...) }}` shortcode in a profile or per-paper override, found one; \
             shortcodes are expanded in content pages only (content/*.md)",
        ));
    }
}

/// A Markdown file's text with the characters no page may hold replaced
/// ([`chars`]): in its front matter also those its TOML escapes name. A
/// warning at each line that held one.
fn replace_forbidden_in_page<'a>(
    text: &'a str,
    file: &Path,
    diagnostics: &Diagnostics,
) -> std::borrow::Cow<'a, str> {
    let Some((format, inner)) = Format::of(text) else {
        let (page, found) = chars::replace_forbidden(text);
        for warning in chars::warnings(file, &found) {
            diagnostics.push(warning);
        }
        return page;
    };
    let fence_line = &text[..text.len() - inner.len()];
    let front_end = inner
        .find(&format!("\n{}", format.fence()))
        .map_or(0, |at| at + 1);
    let (front, mut found, escaped) = match format {
        Format::Toml => chars::replace_forbidden_toml(&inner[..front_end]),
        Format::Yaml => {
            let (front, found) = chars::replace_forbidden(&inner[..front_end]);
            (front, found, Vec::new())
        }
    };
    let (body, body_found) = chars::replace_forbidden(&inner[front_end..]);
    let front_lines = inner[..front_end].matches('\n').count();
    let after_fence = |(line, c): (usize, Vec<char>)| (line + 1, c);
    found = found.into_iter().map(after_fence).collect();
    found.extend(
        body_found
            .into_iter()
            .map(|(line, c)| (line + 1 + front_lines, c)),
    );
    let escaped: chars::Found = escaped.into_iter().map(after_fence).collect();
    for warning in chars::toml_warnings(file, &found, &escaped) {
        diagnostics.push(warning);
    }
    match (front, body) {
        (std::borrow::Cow::Borrowed(_), std::borrow::Cow::Borrowed(_)) => {
            std::borrow::Cow::Borrowed(text)
        }
        (front, body) => std::borrow::Cow::Owned(format!("{fence_line}{front}{body}")),
    }
}

/// An error at the line of front matter key `key` when `problem` finds
/// its value wrong (saying what it should be and what it is: the message
/// goes on from "expected `key` to be"); the value is then dropped.
/// `page` is the file's text and body.
fn check_field(
    key: &str,
    value: &mut Option<String>,
    problem: impl Fn(&str) -> Option<String>,
    (text, body): (&str, &str),
    file: &Path,
    diagnostics: &Diagnostics,
) {
    let Some(message) = value.as_deref().and_then(problem) else {
        return;
    };
    *value = None;
    diagnostics.push(Diagnostic::error(
        file,
        key_line(text, body, key),
        format!("expected `{key}` to be {message}"),
    ));
}

/// [`check_field`]'s problem for a URL: not one [`safe_url`] allows.
fn unsafe_url(url: &str) -> Option<String> {
    safe_url::unsafe_reason(url).map(|reason| {
        format!(
            "an http://, https:// or mailto: URL or a relative path, found `{}` ({reason}); \
             give the address a reader should open",
            url.escape_debug()
        )
    })
}

/// [`check_field`]'s problem for an identifier that `valid` refuses.
fn not_an(what: &'static str, valid: fn(&str) -> bool) -> impl Fn(&str) -> Option<String> {
    move |value| (!valid(value)).then(|| format!("{what}, found `{}`", value.escape_debug()))
}

/// `2405.01234`, `2405.01234v2`, `0704.0001` (new style) or `cs/0112017`,
/// `math.GT/0309136v1`, `hep-th/9901001` (old style).
pub(crate) fn is_arxiv_id(id: &str) -> bool {
    let digits = |s: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
    };
    let number = match id.rsplit_once('v') {
        Some((number, version)) if digits(version, 1..=3) => number,
        _ => id,
    };
    if let Some((archive, serial)) = number.split_once('/') {
        let (name, class) = match archive.split_once('.') {
            Some((name, class)) => (name, Some(class)),
            None => (archive, None),
        };
        return !name.is_empty()
            && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
            && class.is_none_or(|c| c.len() == 2 && c.bytes().all(|b| b.is_ascii_uppercase()))
            && digits(serial, 7..=7);
    }
    number
        .split_once('.')
        .is_some_and(|(yymm, serial)| digits(yymm, 4..=4) && digits(serial, 4..=5))
}

/// `10.` and a registrant code, a `/` and a suffix, no space or control
/// character.
pub(crate) fn is_doi(doi: &str) -> bool {
    doi.strip_prefix("10.")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(registrant, suffix)| {
            !registrant.is_empty()
                && registrant.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && !suffix.is_empty()
        })
        && !doi.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Four groups of four digits joined by `-`, the last character a digit
/// or `X`.
fn is_orcid(id: &str) -> bool {
    let groups: Vec<&str> = id.split('-').collect();
    groups.len() == 4
        && groups.iter().enumerate().all(|(i, g)| {
            g.len() == 4
                && g.bytes()
                    .enumerate()
                    .all(|(j, b)| b.is_ascii_digit() || (i == 3 && j == 3 && b == b'X'))
        })
}

/// `arXiv:2405.01234`, `https://arxiv.org/abs/2405.01234v2` → `2405.01234v2`.
pub(crate) fn normalise_arxiv_id(id: &str) -> String {
    let id = id.trim();
    let id = id
        .rsplit_once("arxiv.org/abs/")
        .map_or(id, |(_, rest)| rest);
    let id = id
        .rsplit_once("arxiv.org/pdf/")
        .map_or(id, |(_, rest)| rest);
    let id = id
        .strip_prefix("arXiv:")
        .or_else(|| id.strip_prefix("arxiv:"))
        .unwrap_or(id);
    id.trim_end_matches(".pdf").to_string()
}

/// `https://doi.org/10.1/x`, `doi:10.1/x` → `10.1/x`.
pub(crate) fn normalise_doi(doi: &str) -> String {
    let doi = doi.trim();
    [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "doi:",
    ]
    .iter()
    .find_map(|prefix| doi.strip_prefix(prefix))
    .unwrap_or(doi)
    .to_string()
}

/// The 1-based line of the front matter key `key`, 0 when absent; `body`
/// is the tail of `text` after the front matter. Found by the TOML parser
/// (`toml::de::DeTable`'s spans), so a quoted key (`"url" = ...`) is found
/// and a line inside a multi-line string is not taken for a key.
fn key_line(text: &str, body: &str, key: &str) -> usize {
    let front = &text[..text.len() - body.len()];
    let start = front.find('\n').map_or(front.len(), |at| at + 1);
    if let Some((Format::Yaml, _)) = Format::of(text) {
        // A top-level YAML key starts its line: `key:`, `"key":`, `'key':`.
        return front
            .lines()
            .position(|line| {
                [key.to_string(), format!("\"{key}\""), format!("'{key}'")]
                    .iter()
                    .any(|k| {
                        line.strip_prefix(k.as_str())
                            .is_some_and(|r| r.trim_start().starts_with(':'))
                    })
            })
            .map_or(0, |i| i + 1);
    }
    let end = front[start..]
        .rfind("+++")
        .map_or(front.len(), |at| start + at);
    let Ok(table) = toml::de::DeTable::parse(&front[start..end]) else {
        return 0;
    };
    table
        .get_ref()
        .iter()
        .find(|(name, _)| name.get_ref() == key)
        .map_or(0, |(name, _)| {
            1 + front[..start + name.span().start].matches('\n').count()
        })
}

/// `about.md` → (`about`, false); `group/_index.md` → (`group`, true);
/// `_index.md` → (``, true). Each component is slugified.
fn url_path(relative: &str) -> (String, bool) {
    let without_ext = relative.strip_suffix(".md").unwrap_or(relative);
    let (dir, is_section) = match without_ext.strip_suffix("_index") {
        Some(dir) => (dir.trim_end_matches('/'), true),
        None => (without_ext, false),
    };
    let path = dir
        .split('/')
        .filter(|c| !c.is_empty())
        .map(slugify)
        .collect::<Vec<_>>()
        .join("/");
    (path, is_section)
}

/// The front matter's format, told by its first line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    /// Between `+++` lines: the documented default.
    Toml,
    /// Between `---` lines, as Hugo and Jekyll write it.
    Yaml,
}

impl Format {
    /// The format of the front matter `text` starts with, and the text
    /// after its first line.
    fn of(text: &str) -> Option<(Format, &str)> {
        // The fence line may end in spaces, as the closing one may.
        let after = |fence: &str| {
            text.strip_prefix(fence).and_then(|rest| {
                let rest = rest.trim_start_matches([' ', '\t']);
                rest.strip_prefix('\n')
                    .or_else(|| rest.strip_prefix("\r\n"))
            })
        };
        after("+++")
            .map(|rest| (Format::Toml, rest))
            .or_else(|| after("---").map(|rest| (Format::Yaml, rest)))
    }

    fn fence(self) -> &'static str {
        match self {
            Format::Toml => "+++",
            Format::Yaml => "---",
        }
    }
}

/// Splits the front matter from the body: TOML between `+++` lines (the
/// default), or YAML between `---` lines, read with serde-saphyr. Returns
/// the parsed front matter and the body.
/// Errors: a [`Diagnostic`] naming the line of a TOML or YAML error, or
/// line 1 when the file does not start with `+++` or `---` or the block
/// is not closed.
pub fn split_front_matter<'a, T: serde::de::DeserializeOwned + Default>(
    text: &'a str,
    file: &Path,
    diagnostics: &Diagnostics,
) -> Result<(T, &'a str), Diagnostic> {
    let Some((format, rest)) = Format::of(text) else {
        return Err(Diagnostic::error(
            file,
            1,
            "expected front matter starting with a `+++` line (TOML) or a `---` line (YAML), found none",
        ));
    };
    let fence = format.fence();
    let mut offset = 0;
    let mut close = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == fence {
            close = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((end, body_start)) = close else {
        return Err(Diagnostic::error(
            file,
            1,
            format!("expected a closing `{fence}` line after the front matter, found the end of the file"),
        ));
    };
    let front_text = &rest[..end];
    let front: T = match format {
        Format::Toml => toml::from_str(front_text).map_err(|e| {
            let line = e.span().map_or(0, |s| {
                1 + front_text[..s.start.min(front_text.len())]
                    .matches('\n')
                    .count()
            });
            let line_text = front_text.lines().nth(line.saturating_sub(1)).unwrap_or("");
            let message = e.message().trim();
            let message = match message.contains("expected `=`") && line_text.contains(':') {
                // YAML's `key: value` between `+++` lines.
                true => format!(
                    "expected `key = value` (TOML) between `+++` lines, found `{}`; write `=`, or put YAML's `key: value` between `---` lines",
                    line_text.trim()
                ),
                false => serde_error(message, line_key(line_text), Holding::FrontMatter),
            };
            Diagnostic::error(file, line + 1, message)
        })?,
        Format::Yaml if front_text.trim().is_empty() => T::default(),
        Format::Yaml => serde_saphyr::from_str(front_text).map_err(|e| {
            let line = e.location().map_or(0, |at| at.line() as usize);
            let line_text = front_text.lines().nth(line.saturating_sub(1)).unwrap_or("");
            let message = yaml_message(&e, line_text)
                .unwrap_or_else(|message| serde_error(&message, None, Holding::FrontMatter));
            Diagnostic::error(file, line + 1, message)
        })?,
    };
    let body = &rest[body_start..];
    let front = match format {
        Format::Yaml => match escaped_forbidden::<T>(front_text) {
            Some((replaced, keys)) => {
                let found: chars::Found = (keys.into_iter())
                    .map(|(key, chars)| (key_line(text, body, &key), chars))
                    .collect();
                let hint = "or leave the value unquoted";
                let warnings = chars::escape_warnings(file, &found, hint);
                match replaced {
                    Some(replaced) => {
                        warnings.into_iter().for_each(|w| diagnostics.push(w));
                        replaced
                    }
                    // Not replaced: an error, so that none reaches a page.
                    None => {
                        let error = |w: Diagnostic| Diagnostic::error(&w.file, w.line, w.message);
                        warnings
                            .into_iter()
                            .for_each(|w| diagnostics.push(error(w)));
                        front
                    }
                }
            }
            None => front,
        },
        // Its escapes were replaced in the text ([`replace_forbidden_in_page`]).
        Format::Toml => front,
    };
    Ok((front, body))
}

/// Top-level front matter keys and the forbidden characters their values
/// held.
type KeysHolding = Vec<(String, Vec<char>)>;

/// YAML front matter whose escapes name characters no page may hold
/// (`\0`, `\a`, `\b`, `\v`, `\f`, `\e`, `\N`, `\x01`, `\u0001`): read
/// again as a tree with each such character replaced by U+FFFD, with the
/// top-level keys that held them and the characters. (TOML's are replaced
/// in its text before it is read, [`chars::replace_forbidden_toml`], where
/// the TOML parser gives each string's place; serde-saphyr gives none.)
/// `None` when it has none (only front matter with a backslash is read
/// twice); no `T` when the tree does not read back as one.
fn escaped_forbidden<T: serde::de::DeserializeOwned>(
    front_text: &str,
) -> Option<(Option<T>, KeysHolding)> {
    if !front_text.contains('\\') {
        return None;
    }
    let mut tree: serde_json::Value = serde_saphyr::from_str(front_text).ok()?;
    fn replace(value: &mut serde_json::Value, found: &mut Vec<char>) {
        match value {
            serde_json::Value::String(text) => {
                if let (std::borrow::Cow::Owned(replaced), lines) = chars::replace_forbidden(text) {
                    for c in lines.into_iter().flat_map(|(_, chars)| chars) {
                        if !found.contains(&c) {
                            found.push(c);
                        }
                    }
                    *text = replaced;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| replace(v, found)),
            serde_json::Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut value) in entries {
                    let mut key = serde_json::Value::String(key);
                    replace(&mut key, found);
                    replace(&mut value, found);
                    if let serde_json::Value::String(key) = key {
                        map.insert(key, value);
                    }
                }
            }
            _ => {}
        }
    }
    let mut keys = Vec::new();
    for (key, value) in tree.as_object_mut()? {
        let mut found = Vec::new();
        replace(value, &mut found);
        if !found.is_empty() {
            keys.push((key.clone(), found));
        }
    }
    if keys.is_empty() {
        return None;
    }
    Some((serde_json::from_value(tree).ok(), keys))
}

/// A serde-saphyr error as `expected …, found …` naming the key of its
/// line (`line_text`) where it can (`Ok`), else its message alone
/// without the source snippet and position (`Err`, for the caller's
/// generic wording).
fn yaml_message(error: &serde_saphyr::Error, line_text: &str) -> Result<String, String> {
    let text = error.without_snippet().to_string();
    let first = text.lines().next().unwrap_or_default();
    let message = first.split(" at line ").next().unwrap_or(first).trim();
    let (key, value) = line_text
        .trim_start()
        .trim_start_matches("- ")
        .split_once(':')
        .map_or(("", ""), |(key, value)| {
            (key.trim().trim_matches(['"', '\'']), value.trim())
        });
    let shown = line_text.trim();
    let quoted = match line_text.split_once(':') {
        Some((key, value)) => format!("{}: \"{}\"", key.trim(), value.trim().replace('"', "\\\"")),
        None => shown.to_string(),
    };
    // serde-saphyr's own words, told as what to do.
    match message {
        "alias references unknown anchor" => {
            return Ok(format!(
                "expected a value, found `{shown}`, where YAML reads `*…` as an alias; quote the value: `{quoted}`"
            ))
        }
        "mapping values are not allowed in this context" if shown.matches(": ").count() > 1 => {
            return Ok(format!(
                "expected one `key: value` on the line, found a second `: ` in `{shown}`; quote the value: `{quoted}`"
            ))
        }
        "mapping values are not allowed in this context" => {
            return Ok(format!(
                "expected `{shown}` indented as the keys beside it, found it under a value; mend its indentation"
            ))
        }
        _ if message.starts_with("tabs disallowed") => {
            return Ok(format!(
                "expected spaces to indent YAML, found a tab in `{}`; indent with spaces",
                line_text.escape_debug()
            ))
        }
        _ if message.contains("did not find expected key") || message == "expected mapping start" && !line_text.contains(':') => {
            return Ok(format!(
                "expected `key: value` lines, found `{shown}`"
            ))
        }
        _ if message.starts_with("budget breached") => {
            return Ok(format!(
                "expected front matter within YAML's limits here (at most 250,000 values and 64 levels of nesting, aliases counted), found more ({message})"
            ))
        }
        _ if message.starts_with("cannot deserialize null") => {
            return Ok(format!(
                "expected a value, found none (null) in `{shown}`; write the value, or remove the line"
            ))
        }
        _ => {}
    }
    if key.is_empty() || message.starts_with("unknown field") {
        return Err(message.to_string());
    }
    if let Some(duplicate) = message.strip_prefix("duplicate mapping key: ") {
        let duplicate = duplicate.split(',').next().unwrap_or(duplicate);
        return Ok(format!(
            "expected each key once, found `{duplicate}` a second time; remove one of them"
        ));
    }
    let expected = match message {
        "invalid i64" | "invalid u64" => "a whole number".to_string(),
        "invalid boolean" => "`true` or `false`".to_string(),
        "expected string scalar" => {
            "a string (quote it when it starts with `[`, `{` or `*`)".to_string()
        }
        "expected mapping start" => "a table of `key: value` lines".to_string(),
        "expected sequence start" => "a list (`[a, b]` or `- a` lines)".to_string(),
        other => match other
            .strip_prefix("invalid type: ")
            .and_then(|t| t.split_once(", expected "))
        {
            Some((found, expected)) => {
                let found = found.replace("unit value", "null (`~` or nothing)");
                let expected = expected.replace(
                    "any valid TOML value",
                    "a string, number, boolean, list or table (null is none of them)",
                );
                return Ok(format!("expected `{key}` to be {expected}, found {found}"));
            }
            None => return Err(other.to_string()),
        },
    };
    let value = if value.is_empty() { "nothing" } else { value };
    Ok(format!(
        "expected `{key}` to be {expected}, found `{value}`"
    ))
}

/// The `href` and `src` values of raw HTML, with their byte offsets.
fn html_links(html: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let bytes = html.as_bytes();
    for name in ["href", "src"] {
        let mut from = 0;
        while let Some(at) = html[from..].find(name).map(|i| from + i) {
            from = at + name.len();
            let before = at.checked_sub(1).map(|i| bytes[i]);
            if !before.is_some_and(|b| b.is_ascii_whitespace()) {
                continue;
            }
            let rest = html[from..].trim_start();
            let Some(value) = rest.strip_prefix('=').map(str::trim_start) else {
                continue;
            };
            let url = match value.chars().next() {
                Some(q @ ('"' | '\'')) => value[1..].split(q).next().unwrap_or(""),
                _ => value
                    .split(|c: char| c.is_whitespace() || c == '>')
                    .next()
                    .unwrap_or(""),
            };
            // As a browser reads it: character references decoded.
            found.push((at, htmlize::unescape_attribute(url).into_owned()));
        }
    }
    found.sort();
    found
}

/// Renders Markdown with tables, footnotes, strikethrough and heading ids
/// (`{#id}` when given, else the heading's slug, numbered when repeated).
/// Returns the HTML and every link and image target (in raw HTML too)
/// with its 1-based line, counting the body's first line as `first_line`.
pub fn render_markdown(markdown: &str, first_line: usize) -> (String, Vec<(String, usize)>) {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES;
    let mut links = Vec::new();
    let mut events: Vec<Event> = Vec::new();
    // Lines counted as the offsets advance (events come in source order,
    // but nested ones start before their parent ends: counted from the
    // last offset seen, or afresh when an offset goes back).
    let (mut counted_to, mut line) = (0, first_line);
    let mut line_at = |offset: usize| {
        if offset < counted_to {
            (counted_to, line) = (0, first_line);
        }
        line += markdown[counted_to..offset].matches('\n').count();
        counted_to = offset;
        line
    };
    for (event, range) in Parser::new_ext(markdown, options).into_offset_iter() {
        match &event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push((dest_url.to_string(), line_at(range.start)));
            }
            // Links in raw HTML, each at its own line.
            Event::Html(html) | Event::InlineHtml(html) => {
                for (at, url) in html_links(html) {
                    let start = range.start + at.min(range.len());
                    links.push((url, line_at(start)));
                }
            }
            _ => {}
        }
        events.push(event);
    }
    let mut used: HashMap<String, usize> = HashMap::new();
    let mut i = 0;
    while i < events.len() {
        if let Event::Start(Tag::Heading { id, .. }) = &events[i] {
            let base = match id {
                Some(given) => given.to_string(),
                None => {
                    let text: String = events[i + 1..]
                        .iter()
                        .take_while(|e| !matches!(e, Event::End(TagEnd::Heading(_))))
                        .filter_map(|e| match e {
                            Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                            _ => None,
                        })
                        .collect();
                    slugify(&text)
                }
            };
            let count = used.entry(base.clone()).or_insert(0);
            let unique = if *count == 0 {
                base.clone()
            } else {
                format!("{base}-{count}")
            };
            *count += 1;
            if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
                *id = Some(CowStr::from(unique));
            }
        }
        i += 1;
    }
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    // A character reference (`&#1;`, `&#xFDD0;`) decodes to a character
    // no page may hold, which the text itself could not: U+FFFD.
    if let (std::borrow::Cow::Owned(replaced), _) = crate::input::chars::replace_forbidden(&html) {
        html = replaced;
    }
    (html, links)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_naming_forbidden_characters_are_replaced_with_a_warning_at_their_line() {
        // As `load` reads a page: its characters, then its front matter.
        let read = |text: &str, file: &str| {
            let diagnostics = Diagnostics::new();
            let text = replace_forbidden_in_page(text, Path::new(file), &diagnostics).into_owned();
            let (front, body) =
                split_front_matter::<FrontMatter>(&text, Path::new(file), &diagnostics).unwrap();
            let body = body.to_string();
            let messages: Vec<String> = diagnostics
                .into_sorted(false)
                .into_iter()
                .map(|d| format!("{}:{}: {}", d.file.display(), d.line, d.message))
                .collect();
            (front, body, messages)
        };
        let backslash = "For a backslash, as in LaTeX's `\\beta`, write `\\\\beta`";
        let (front, body, messages) = read(
            "+++\ntitle = \"On $\\beta$-VAE\"\ndate = 2024-05-01\n[extra]\nnote = \"a\\fb\"\nkept = '$\\beta$'\n+++\nBody\u{1}\n",
            "content/a.md",
        );
        assert_eq!(front.title.as_deref(), Some("On $\u{fffd}eta$-VAE"));
        assert_eq!(
            front.date.map(|d| d.to_string()).as_deref(),
            Some("2024-05-01")
        );
        assert_eq!(front.extra["note"].as_str(), Some("a\u{fffd}b"));
        assert_eq!(front.extra["kept"].as_str(), Some("$\\beta$"));
        assert_eq!(body, "Body\u{fffd}\n");
        assert_eq!(
            messages,
            [
                format!("content/a.md:2: expected text, found U+0008 (`\\b`), named by an escape, which no page or feed may hold; it is replaced by U+FFFD. {backslash} or put the value in single quotes"),
                format!("content/a.md:5: expected text, found U+000C (`\\f`), named by an escape, which no page or feed may hold; it is replaced by U+FFFD. {backslash} or put the value in single quotes"),
                "content/a.md:8: expected text, found the control character or noncharacter U+0001, which no page or feed may hold; it is replaced by U+FFFD".to_string(),
            ]
        );

        let (front, _, messages) = read(
            "---\ntitle: \"x\\x01y \\e z \\N w \\0 \\x01\"\ndescription: $\\beta$ stays\nextra:\n  \"k\\fey\": v\n---\n",
            "content/b.md",
        );
        assert_eq!(
            front.title.as_deref(),
            Some("x\u{fffd}y \u{fffd} z \u{fffd} w \u{fffd} \u{fffd}")
        );
        assert_eq!(front.extra["k\u{fffd}ey"].as_str(), Some("v"));
        assert_eq!(front.description.as_deref(), Some("$\\beta$ stays"));
        assert_eq!(
            messages,
            [
                format!("content/b.md:2: expected text, found U+0001, U+001B (`\\e`), U+0085, U+0000, named by an escape, which no page or feed may hold; it is replaced by U+FFFD. {backslash} or leave the value unquoted"),
                format!("content/b.md:4: expected text, found U+000C (`\\f`), named by an escape, which no page or feed may hold; it is replaced by U+FFFD. {backslash} or leave the value unquoted"),
            ]
        );
    }

    #[test]
    fn front_matter_and_errors_with_lines() {
        let (front, body) = split_front_matter::<FrontMatter>(
            "+++\ntitle = \"About\"\nweight = 2\n+++\nHello\n",
            Path::new("content/about.md"),
            &Diagnostics::new(),
        )
        .unwrap();
        assert_eq!(front.title.as_deref(), Some("About"));
        assert_eq!(front.weight, Some(2));
        assert_eq!(body, "Hello\n");
        let err = split_front_matter::<FrontMatter>(
            "+++\ntitle = \"x\"\ntitel = 1\n+++\n",
            Path::new("c.md"),
            &Diagnostics::new(),
        )
        .unwrap_err();
        assert_eq!(err.line, 3);
        assert!(err.message.contains("titel"), "{}", err.message);
        assert_eq!(
            split_front_matter::<FrontMatter>("no", Path::new("c.md"), &Diagnostics::new())
                .unwrap_err()
                .line,
            1
        );
    }

    #[test]
    fn character_references_to_forbidden_characters_become_u_fffd() {
        let (html, _) = render_markdown("a &#1; b &#xFDD0;0&#xFDD0; c &#xFFFE; &#233;", 1);
        assert_eq!(html, "<p>a \u{fffd} b \u{fffd}0\u{fffd} c \u{fffd} é</p>\n");
    }

    #[test]
    fn markdown_extensions_and_heading_ids() {
        let (html, links) = render_markdown(
            "# Our Group\n\n## Members\n\n## Members\n\n## Custom {#here}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~ [note](/x/#y)[^1]\n\n[^1]: Foot.\n",
            10,
        );
        assert_eq!(links, [("/x/#y".to_string(), 22)]);
        assert!(
            html.contains("<h1 id=\"our-group\">Our Group</h1>"),
            "{html}"
        );
        assert!(html.contains("<h2 id=\"members\">") && html.contains("<h2 id=\"members-1\">"));
        assert!(html.contains("<h2 id=\"here\">Custom</h2>"));
        assert!(html.contains("<table>") && html.contains("<del>old</del>"));
        assert!(html.contains("footnote-definition"));
    }

    #[test]
    fn identifiers() {
        for id in [
            "2405.01234",
            "2405.01234v2",
            "0704.0001",
            "cs/0112017",
            "math.GT/0309136v1",
            "hep-th/9901001",
        ] {
            assert!(is_arxiv_id(id), "{id}");
        }
        for id in [
            "javascript:alert(1)",
            "2405.1",
            "24051.01234",
            "cs/011",
            "CS/0112017",
            "2405.01234v",
            "../x",
        ] {
            assert!(!is_arxiv_id(id), "{id}");
        }
        assert!(is_doi("10.1145/3600006.3613139") && is_doi("10.1000.10/abc(1)"));
        assert!(
            !is_doi("javascript:x")
                && !is_doi("10.1145")
                && !is_doi("10.1/a b")
                && !is_doi("10.x/y")
        );
        assert!(is_orcid("0000-0002-1825-0097") && is_orcid("0000-0002-1694-233X"));
        assert!(
            !is_orcid("0000-0002-1825")
                && !is_orcid("0000-000X-1825-0097")
                && !is_orcid("javascript:x")
        );
    }

    #[test]
    fn url_paths() {
        assert_eq!(url_path("about.md"), ("about".into(), false));
        assert_eq!(url_path("group/_index.md"), ("group".into(), true));
        assert_eq!(url_path("_index.md"), ("".into(), true));
        assert_eq!(
            url_path("Group/Our Members.md"),
            ("group/our-members".into(), false)
        );
    }
}
