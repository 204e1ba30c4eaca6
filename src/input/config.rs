//! Site configuration: `site.toml` is parsed (unknown keys are errors),
//! validated and resolved into a [`Config`] with every default filled in.
//! The rest of the pipeline reads only [`Config`].

use crate::diagnostics::Diagnostic;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

/// `site.toml` as written; every key optional, unknown keys rejected.
/// Spans locate the keys that are validated after parsing.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    title: Option<String>,
    description: Option<String>,
    base_url: Option<Spanned<String>>,
    language: Option<String>,
    theme: Option<Spanned<String>>,
    paginate_by: Option<Spanned<usize>>,
    home_recent: Option<usize>,
    feed_limit: Option<usize>,
    feeds: Option<bool>,
    sitemap_max_urls: Option<Spanned<usize>>,
    paper_exports: Option<bool>,
    exports: Option<bool>,
    search: Option<bool>,
    search_term_shard_bytes: Option<Spanned<usize>>,
    search_metadata_documents: Option<Spanned<usize>>,
    search_facet_documents: Option<Spanned<usize>>,
    search_excerpt_chars: Option<Spanned<usize>>,
    author_aliases: Option<BTreeMap<String, Spanned<Vec<String>>>>,
    author_pages: Option<Spanned<String>>,
    extra: Option<toml::Table>,
}

/// The resolved configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Site title, shown in every page's `<title>` and header. Default `Publications`.
    pub title: String,
    /// Default meta description for pages that have none of their own.
    pub description: String,
    /// Absolute base URL with a trailing slash, e.g. `https://lab.github.io/papers/`.
    /// Default `http://localhost/`.
    pub base_url: String,
    /// BCP 47 language tag for `<html lang>`. Default `en`.
    pub language: String,
    /// Theme directory name under `themes/`. Default `default`.
    pub theme: String,
    /// 1-based line of `theme =` in `site.toml`, 0 when absent.
    pub theme_line: usize,
    /// Papers per term page (author, year, category) before paginating; at least 1. Default 20.
    pub paginate_by: usize,
    /// Number of most recent papers on the home page. Default 10.
    pub home_recent: usize,
    /// Entries per Atom feed (site, author, category). Default 50.
    pub feed_limit: usize,
    /// Whether to write Atom feeds. Default true.
    pub feeds: bool,
    /// URLs per sitemap file; past it the sitemap is split under a sitemap
    /// index. At least 1. Default 50,000 (the sitemaps.org limit).
    pub sitemap_max_urls: usize,
    /// Whether to write per-paper BibTeX, RIS and CSL-JSON files (the Cite
    /// block on paper pages stays either way). Default true; false when
    /// `exports` is false.
    pub paper_exports: bool,
    /// Whether to write any export file: the per-paper files, each
    /// author's BibTeX and `corpus.json` (the Cite block on paper pages
    /// stays). Default true.
    pub exports: bool,
    /// Whether to write the search index and the search page. Default true.
    pub search: bool,
    /// Search index shard sizes (`search_term_shard_bytes`,
    /// `search_metadata_documents`, `search_facet_documents`, each at least
    /// 1) and `search_excerpt_chars`.
    pub search_settings: SearchSettings,
    /// Name variants from the `[author_aliases]` table: (canonical author
    /// name or slug, variant name, 1-based line), e.g. `"Chuan Wu" = ["C. Wu"]`.
    pub author_aliases: Vec<(String, String, usize)>,
    /// Which authors of a BibTeX entry get an author page (`author_pages`).
    pub author_pages: AuthorPages,
    /// The `[extra]` table, the theme's and the user's own settings, which
    /// templates see as `site.extra` (Zola's `config.extra`).
    pub extra: toml::Table,
}

/// Which authors of a BibTeX entry get an author page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AuthorPages {
    /// `"listed"`, the default: the listing owners, the authors with a
    /// profile in `content/authors/` and the declared name variants; the
    /// other co-authors are shown by name.
    #[default]
    Listed,
    /// `"all"`: every author.
    All,
}

impl Config {
    /// Reads `site.toml` from `path`. Characters no page may hold are
    /// replaced ([`crate::input::chars`]), with the warnings returned.
    /// Errors: a [`Diagnostic`] for a missing file (naming what was looked
    /// for, and Zola's `config.toml` when that is there instead), invalid
    /// UTF-8 (at the line of the first bad byte), and at the offending line
    /// for TOML syntax, unknown keys, wrong types, `paginate_by = 0` or a
    /// base URL that is not http(s).
    pub fn load(
        path: &Path,
        display_path: &Path,
    ) -> Result<(Config, Vec<Diagnostic>), Vec<Diagnostic>> {
        let bytes = match std::fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let zola = path.with_file_name("config.toml").is_file();
                let root = path.parent().unwrap_or(Path::new("."));
                let mut message = format!(
                    "expected the site's settings in {}, found no such file",
                    path.display()
                );
                if zola {
                    message.push_str(
                        "; config.toml is Zola's name for them: Vellum reads site.toml (title, \
                         base_url, ...)",
                    );
                }
                message.push_str(&format!(
                    "; pass --root with the site's directory, or run `vellum init {}` to make a site",
                    root.display()
                ));
                return Err(vec![Diagnostic::error(display_path, 0, message)]);
            }
            Err(e) => {
                return Err(vec![Diagnostic::error(
                    display_path,
                    0,
                    format!("expected a readable file, found {e}"),
                )])
            }
        };
        let text = crate::input::utf8(&bytes, display_path).map_err(|e| vec![e])?;
        let text = crate::input::chars::line_feeds(text);
        let (text, found, escaped) = crate::input::chars::replace_forbidden_toml(&text);
        // Every unknown key at once; then the first other problem.
        let unknown = unknown_settings(&text, display_path);
        if !unknown.is_empty() {
            return Err(unknown);
        }
        let config = Config::parse(&text, display_path).map_err(|e| vec![e])?;
        let warnings = crate::input::chars::toml_warnings(display_path, &found, &escaped);
        Ok((config, warnings))
    }

    /// Parses and resolves the text of a `site.toml`. Errors as [`Config::load`].
    pub fn parse(text: &str, display_path: &Path) -> Result<Config, Diagnostic> {
        let line_at = |offset: usize| 1 + text[..offset.min(text.len())].matches('\n').count();
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| line_at(s.start));
            let key = text.lines().nth(line.saturating_sub(1)).and_then(line_key);
            Diagnostic::error(
                display_path,
                line,
                serde_error(e.message().trim(), key, Holding::Settings),
            )
        })?;
        let at_least_one = |value: Option<Spanned<usize>>, key: &str, default: usize| match value {
            Some(v) if *v.get_ref() == 0 => Err(Diagnostic::error(
                display_path,
                line_at(v.span().start),
                format!("expected `{key}` to be a whole number of at least 1, found integer `0`"),
            )),
            Some(v) => Ok(v.into_inner()),
            None => Ok(default),
        };
        let paginate_by = at_least_one(raw.paginate_by, "paginate_by", 20)?;
        let search_defaults = SearchSettings::default();
        let sitemap_max_urls = at_least_one(raw.sitemap_max_urls, "sitemap_max_urls", 50_000)?;
        let base_url = match raw.base_url {
            None => "http://localhost/".to_string(),
            Some(url) => normalise_base_url(url.get_ref()).map_err(|why| {
                Diagnostic::error(
                    display_path,
                    line_at(url.span().start),
                    why.replacen("expected ", "expected `base_url` to be ", 1),
                )
            })?,
        };
        let (theme, theme_line) = match raw.theme {
            Some(theme) => (theme.get_ref().clone(), line_at(theme.span().start)),
            None => ("default".to_string(), 0),
        };
        let plain_name = !theme.is_empty()
            && theme != "."
            && theme != ".."
            && !theme.contains(['/', '\\', '\0']);
        if !plain_name {
            return Err(Diagnostic::error(
                display_path,
                theme_line,
                format!("expected `theme` to be a directory name under themes/, found `{theme}`"),
            ));
        }
        let author_pages = match raw.author_pages {
            None => AuthorPages::Listed,
            Some(value) => match value.get_ref().as_str() {
                "listed" => AuthorPages::Listed,
                "all" => AuthorPages::All,
                other => {
                    return Err(Diagnostic::error(
                        display_path,
                        line_at(value.span().start),
                        format!(
                            "expected `author_pages` to be \"listed\" (listing owners and authors with a profile) or \"all\", found `{other}`{}",
                            crate::diagnostics::did_you_mean(other, ["listed", "all"])
                        ),
                    ))
                }
            },
        };
        Ok(Config {
            author_pages,
            extra: raw.extra.unwrap_or_default(),
            title: raw.title.unwrap_or_else(|| "Publications".to_string()),
            description: raw
                .description
                .unwrap_or_else(|| "Publication listings".to_string()),
            base_url,
            language: raw.language.unwrap_or_else(|| "en".to_string()),
            theme,
            theme_line,
            paginate_by,
            home_recent: raw.home_recent.unwrap_or(10),
            feed_limit: raw.feed_limit.unwrap_or(50),
            feeds: raw.feeds.unwrap_or(true),
            sitemap_max_urls,
            paper_exports: raw.paper_exports.unwrap_or(true) && raw.exports.unwrap_or(true),
            exports: raw.exports.unwrap_or(true),
            search: raw.search.unwrap_or(true),
            search_settings: SearchSettings {
                term_shard_bytes: match raw.search_term_shard_bytes {
                    Some(v) => Some(at_least_one(Some(v), "search_term_shard_bytes", 0)?),
                    None => None,
                },
                metadata_documents: at_least_one(
                    raw.search_metadata_documents,
                    "search_metadata_documents",
                    search_defaults.metadata_documents,
                )?,
                facet_documents: at_least_one(
                    raw.search_facet_documents,
                    "search_facet_documents",
                    search_defaults.facet_documents,
                )?,
                excerpt_chars: at_least_one(
                    raw.search_excerpt_chars,
                    "search_excerpt_chars",
                    search_defaults.excerpt_chars,
                )?,
            },
            author_aliases: raw
                .author_aliases
                .unwrap_or_default()
                .into_iter()
                .flat_map(|(canonical, variants)| {
                    let line = line_at(variants.span().start);
                    variants
                        .into_inner()
                        .into_iter()
                        .map(move |variant| (canonical.clone(), variant, line))
                })
                .collect(),
        })
    }
}

/// Checks that `url` is `http(s)://host[/path]` and returns it with exactly
/// one trailing slash, the scheme and host in lowercase (`HTTPS://Lab.org`
/// is `https://lab.org/`); else `Err` with what is wrong, as a message's
/// `expected …, found …`.
pub fn normalise_base_url(url: &str) -> Result<String, String> {
    let url = url.trim();
    // `--base-url` comes from the command line, where no file's
    // characters are replaced ([`crate::input::chars`]).
    if let Some(c) = url.chars().find(|&c| crate::input::chars::is_forbidden(c)) {
        return Err(format!(
            "expected a base URL without control characters or noncharacters, found U+{:04X} in `{}`",
            u32::from(c),
            url.escape_debug()
        ));
    }
    let scheme_end = url.find("://").unwrap_or(0);
    let scheme = url[..scheme_end].to_ascii_lowercase();
    let rest = &url[(scheme_end + 3).min(url.len())..];
    if scheme_end == 0 || !matches!(scheme.as_str(), "http" | "https") {
        return Err(format!(
            "expected an http:// or https:// URL such as https://lab.github.io/papers/, found `{url}`"
        ));
    }
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    if host.is_empty() {
        return Err(format!(
            "expected a URL with a host after {scheme}://, found `{url}`"
        ));
    }
    if url.contains(['?', '#']) {
        return Err(format!(
            "expected a base URL without a query or fragment (`?`, `#`), which every page's URL would carry, found `{url}`"
        ));
    }
    if url.contains(char::is_whitespace) {
        return Err(format!(
            "expected a URL without spaces (write %20), found `{url}`"
        ));
    }
    // Characters a URL never holds as they are (RFC 3986), which would
    // also end or break the attributes every link is written in.
    if let Some(c) = url.chars().find(|c| "\"<>`\\{}|^".contains(*c)) {
        return Err(format!(
            "expected a URL without `{c}` (write %{:02X}), found `{url}`",
            u32::from(c)
        ));
    }
    let host = host.to_ascii_lowercase();
    Ok(format!("{scheme}://{host}{}/", path.trim_end_matches('/')))
}

/// The settings of `site.toml`, in [`RawConfig`]'s order (as serde lists
/// them).
const SETTINGS: [&str; 20] = [
    "title",
    "description",
    "base_url",
    "language",
    "theme",
    "paginate_by",
    "home_recent",
    "feed_limit",
    "feeds",
    "sitemap_max_urls",
    "paper_exports",
    "exports",
    "search",
    "search_term_shard_bytes",
    "search_metadata_documents",
    "search_facet_documents",
    "search_excerpt_chars",
    "author_aliases",
    "author_pages",
    "extra",
];

/// An error at the line of each top-level key of `text` that is no
/// setting, worded as serde's for the first ([`serde_error`]); none
/// when the text is not TOML (the parse reports that).
fn unknown_settings(text: &str, display_path: &Path) -> Vec<Diagnostic> {
    let Ok(table) = toml::de::DeTable::parse(text) else {
        return Vec::new();
    };
    let expected = SETTINGS
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut unknown: Vec<Diagnostic> = table
        .get_ref()
        .iter()
        .filter(|(key, _)| !SETTINGS.contains(&key.get_ref().as_ref()))
        .map(|(key, _)| {
            let name = key.get_ref();
            let line = 1 + text[..key.span().start.min(text.len())]
                .matches('\n')
                .count();
            let message = format!("unknown field `{name}`, expected one of {expected}");
            Diagnostic::error(
                display_path,
                line,
                serde_error(&message, Some(name), Holding::Settings),
            )
        })
        .collect();
    unknown.sort();
    unknown
}

/// Zola's and Hugo's names of settings Vellum has under another name.
const FOREIGN_KEYS: [(&str, &str); 9] = [
    ("paginate", "paginate_by"),
    ("generate_feeds", "feeds"),
    ("generate_feed", "feeds"),
    ("build_search_index", "search"),
    ("default_language", "language"),
    ("languageCode", "language"),
    ("baseURL", "base_url"),
    ("params", "extra"),
    ("pagerSize", "paginate_by"),
];

/// The settings that must be at least 1 (those of [`Config::parse`]'s
/// `at_least_one`).
const AT_LEAST_ONE: [&str; 6] = [
    "paginate_by",
    "sitemap_max_urls",
    "search_term_shard_bytes",
    "search_metadata_documents",
    "search_facet_documents",
    "search_excerpt_chars",
];

/// The key a line of TOML sets (`weight` of `weight = 2`, `extra` of
/// `[extra]`), if it sets one.
pub(crate) fn line_key(line: &str) -> Option<&str> {
    let line = line.trim();
    if let Some(table) = line.strip_prefix('[') {
        return Some(table.trim_matches(['[', ']', ' ']));
    }
    line.split_once('=')
        .map(|(key, _)| key.trim().trim_matches(['"', '\'']))
        .filter(|key| !key.is_empty())
}

/// Which file a [`serde_error`] is worded for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holding {
    /// `site.toml`: settings.
    Settings,
    /// A content file's front matter (TOML or YAML): keys.
    FrontMatter,
}

/// A TOML, YAML or serde error as `expected …, found …`, naming the key
/// when its line has one: serde's `invalid type: string "yes", expected a
/// boolean` for `exports` reads `expected exports to be a boolean, found
/// string "yes"`; an unknown key names the closest one, or the Vellum
/// name of a Zola or Hugo setting. A message already worded so (a date
/// that is not one) is kept.
pub(crate) fn serde_error(message: &str, key: Option<&str>, holding: Holding) -> String {
    if message.starts_with("expected ") {
        return message.to_string();
    }
    if let Some(unknown) = crate::diagnostics::unknown_field(message) {
        let foreign = FOREIGN_KEYS
            .iter()
            .find(|(theirs, _)| message.starts_with(&format!("unknown field `{theirs}`")));
        return match foreign {
            Some((theirs, ours)) => format!(
                "{}; Zola's or Hugo's `{theirs}` is `{ours}` here",
                unknown.split("; did you mean").next().unwrap_or(&unknown)
            ),
            None => unknown,
        };
    }
    if message.contains("duplicate key") {
        let what = key.map_or(String::new(), |key| format!(" `{key}`"));
        let each = match holding {
            Holding::Settings => "setting",
            Holding::FrontMatter => "key",
        };
        return format!("expected each {each} once, found{what} a second time; remove one of them");
    }
    // A string left open: TOML says `invalid basic string`.
    if message.contains("invalid basic string") || message.contains("invalid literal string") {
        let what = key.map_or(String::new(), |key| format!(" of `{key}`"));
        let quote = if message.contains("literal") {
            '\''
        } else {
            '"'
        };
        return format!(
            "expected the string{what} to be closed by a `{quote}` on the same line, found the end of the line"
        );
    }
    let least = match key {
        Some(key) if AT_LEAST_ONE.contains(&key) => 1,
        _ => 0,
    };
    let plain = message
        .replace(" as i128", "")
        .replace(
            "expected usize",
            &format!("expected a whole number of at least {least}"),
        )
        .replace("expected i64", "expected a whole number");
    // A number written as a string: say to drop the quotes.
    let quoted_number = plain
        .split("string \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .filter(|n| n.parse::<i64>().is_ok());
    let hint = match (key, quoted_number) {
        (Some(key), Some(n)) => format!("; write it without quotes: `{key} = {n}`"),
        _ => String::new(),
    };
    let Some((found, expected)) = plain.rsplit_once(", expected ") else {
        return match (key, holding) {
            (Some(key), Holding::Settings) => {
                format!("expected a valid `{key}` setting, found {plain}")
            }
            (Some(key), Holding::FrontMatter) => {
                format!("expected a valid value of `{key}`, found {plain}")
            }
            (None, Holding::Settings) => format!("expected valid settings, found {plain}"),
            (None, Holding::FrontMatter) => format!("expected valid front matter, found {plain}"),
        };
    };
    let found = found
        .trim_start_matches("invalid type: ")
        .trim_start_matches("invalid value: ");
    match key {
        Some(key) if !found.starts_with("unknown field") => {
            format!("expected `{key}` to be {expected}, found {found}{hint}")
        }
        _ => format!("expected {expected}, found {found}"),
    }
}

/// Index settings from `site.toml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchSettings {
    /// A term shard is closed once it holds this many bytes. By default
    /// (`None`) 8 KiB, about 350 terms with their document frequencies and
    /// the places of their postings.
    pub term_shard_bytes: Option<usize>,
    /// Documents per metadata pack. Default 8,192 (about 5 MB a pack:
    /// a browser fetches single records from it with range requests).
    pub metadata_documents: usize,
    /// Documents per author shard (the listed authors of each document,
    /// for the author facet). Default 4,096.
    pub facet_documents: usize,
    /// Abstract characters kept in metadata for snippets. Default 300.
    pub excerpt_chars: usize,
}

impl Default for SearchSettings {
    fn default() -> Self {
        SearchSettings {
            term_shard_bytes: None,
            metadata_documents: 8_192,
            facet_documents: 4_096,
            excerpt_chars: 300,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_trailing_slash() {
        let c = Config::parse(
            "base_url = \"https://lab.github.io/papers\"",
            Path::new("site.toml"),
        )
        .unwrap();
        assert_eq!(c.base_url, "https://lab.github.io/papers/");
        assert_eq!(c.paginate_by, 20);
        assert_eq!(c.title, "Publications");
    }

    #[test]
    fn unknown_key_names_its_line() {
        let err =
            Config::parse("title = \"x\"\npaginte_by = 3\n", Path::new("site.toml")).unwrap_err();
        assert_eq!(err.line, 2);
        assert!(
            err.message.ends_with(
                ", `extra`, found unknown field `paginte_by`; did you mean `paginate_by`?"
            ),
            "{}",
            err.message
        );
    }

    #[test]
    fn every_unknown_setting_is_reported_at_once() {
        // The list is serde's own, in its order.
        let serde = Config::parse("unknown_key = 1", Path::new("s"))
            .unwrap_err()
            .message;
        let ours = unknown_settings("unknown_key = 1", Path::new("s"));
        assert_eq!(ours.len(), 1);
        assert_eq!(ours[0].message, serde);
        let all = unknown_settings(
            "title = \"x\"\ntitel = 1\nbaseurl = \"y\"\n[params]\nx = 1\n",
            Path::new("site.toml"),
        );
        let lines: Vec<(usize, &str)> = all
            .iter()
            .map(|d| (d.line, d.message.rsplit("; ").next().unwrap_or("")))
            .collect();
        assert_eq!(
            lines,
            [
                (2, "did you mean `title`?"),
                (3, "did you mean `base_url`?"),
                (4, "Zola's or Hugo's `params` is `extra` here"),
            ]
        );
    }

    #[test]
    fn zola_and_hugo_names_are_told_vellums() {
        let message = |text: &str| Config::parse(text, Path::new("s")).unwrap_err().message;
        assert!(message("paginate = 5").ends_with(
            "found unknown field `paginate`; Zola's or Hugo's `paginate` is `paginate_by` here"
        ));
        assert!(message("[params]\nx = 1")
            .ends_with("found unknown field `params`; Zola's or Hugo's `params` is `extra` here"));
        assert_eq!(
            message("base_url = \"https:///x\""),
            "expected `base_url` to be a URL with a host after https://, found `https:///x`"
        );
    }

    #[test]
    fn values_are_located_by_their_key_not_by_text_search() {
        let text = "description = '''\nbase_url = \"not me\"\n'''\nbase_url = \"ftp://x/\"\n";
        let err = Config::parse(text, Path::new("site.toml")).unwrap_err();
        assert_eq!(err.line, 4);
        assert_eq!(
            err.message,
            "expected `base_url` to be an http:// or https:// URL such as https://lab.github.io/papers/, found `ftp://x/`"
        );
    }

    #[test]
    fn bad_values() {
        assert_eq!(
            Config::parse("paginate_by = 0", Path::new("s"))
                .unwrap_err()
                .line,
            1
        );
        assert!(Config::parse("base_url = \"ftp://x/\"", Path::new("s")).is_err());
        assert_eq!(normalise_base_url("http://a.b"), Ok("http://a.b/".into()));
        assert_eq!(
            normalise_base_url("HTTPS://Lab.GitHub.io/Papers"),
            Ok("https://lab.github.io/Papers/".into())
        );
        assert_eq!(
            normalise_base_url("https:///x"),
            Err("expected a URL with a host after https://, found `https:///x`".into())
        );
        assert_eq!(
            normalise_base_url("https://x/?q=1"),
            Err("expected a base URL without a query or fragment (`?`, `#`), which every page's URL would carry, found `https://x/?q=1`".into())
        );
        // Found by the attack helper: a noncharacter in `--base-url` reached every page.
        assert_eq!(
            normalise_base_url("https://x/\u{fdd0}0\u{fdd0}/"),
            Err("expected a base URL without control characters or noncharacters, found U+FDD0 in `https://x/\\u{fdd0}0\\u{fdd0}/`".into())
        );
        assert!(normalise_base_url("https://x/\u{1}/").is_err());
        assert_eq!(
            normalise_base_url("https://x/a\"b/"),
            Err("expected a URL without `\"` (write %22), found `https://x/a\"b/`".into())
        );
        assert_eq!(
            normalise_base_url("https://x/<b>/"),
            Err("expected a URL without `<` (write %3C), found `https://x/<b>/`".into())
        );
        assert_eq!(
            normalise_base_url("https://x/o'brien&co/"),
            Ok("https://x/o'brien&co/".into())
        );
    }

    #[test]
    fn wrong_types_name_the_setting_as_expected_and_found() {
        let message = |text: &str| Config::parse(text, Path::new("s")).unwrap_err().message;
        assert_eq!(
            message("title = \"x\"\nexports = \"yes\""),
            "expected `exports` to be a boolean, found string \"yes\""
        );
        assert_eq!(
            message("search_metadata_documents = -1"),
            "expected `search_metadata_documents` to be a whole number of at least 1, found integer `-1`"
        );
        assert!(
            message("frobnicate = 3").starts_with("expected one of `title`, "),
            "{}",
            message("frobnicate = 3")
        );
        assert!(message("frobnicate = 3").ends_with("found unknown field `frobnicate`"));
        assert_eq!(
            message("paginate_by = \"5\""),
            "expected `paginate_by` to be a whole number of at least 1, found string \"5\"; write it without quotes: `paginate_by = 5`"
        );
        assert_eq!(
            message("paginate_by = -1"),
            "expected `paginate_by` to be a whole number of at least 1, found integer `-1`"
        );
        assert_eq!(
            message("feed_limit = \"x\""),
            "expected `feed_limit` to be a whole number of at least 0, found string \"x\""
        );
        assert_eq!(
            message("title = \"Lab\nbase_url = \"https://x.org/\""),
            "expected the string of `title` to be closed by a `\"` on the same line, found the end of the line"
        );
        assert_eq!(
            message("search_excerpt_chars = 0"),
            "expected `search_excerpt_chars` to be a whole number of at least 1, found integer `0`"
        );
        for theme in ["", "..", "../../etc", "a/b"] {
            let error = Config::parse(&format!("theme = \"{theme}\""), Path::new("s")).unwrap_err();
            assert_eq!(error.line, 1);
            assert_eq!(
                error.message,
                format!("expected `theme` to be a directory name under themes/, found `{theme}`")
            );
        }
    }
}
