//! Site configuration: `site.toml` is parsed (unknown keys are errors),
//! validated and resolved into a [`Config`] with every default filled in.
//! The rest of the pipeline reads only [`Config`].

use crate::diagnostics::Diagnostic;
use serde::Deserialize;
use std::path::Path;

/// `site.toml` as written; every key optional, unknown keys rejected.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    title: Option<String>,
    description: Option<String>,
    base_url: Option<String>,
    language: Option<String>,
    theme: Option<String>,
    paginate_by: Option<usize>,
    home_recent: Option<usize>,
    feed_limit: Option<usize>,
    sitemap_max_urls: Option<usize>,
}

/// The resolved configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// Papers per term page (author, year, category) before paginating; at least 1. Default 20.
    pub paginate_by: usize,
    /// Number of most recent papers on the home page. Default 10.
    pub home_recent: usize,
    /// Entries per Atom feed (site, author, category). Default 50.
    pub feed_limit: usize,
    /// URLs per sitemap file; past it the sitemap is split under a sitemap
    /// index. At least 1. Default 50,000 (the sitemaps.org limit).
    pub sitemap_max_urls: usize,
}

impl Config {
    /// Reads `site.toml` from `path`; a missing file gives the defaults.
    /// Errors: a [`Diagnostic`] at the offending line for TOML syntax, unknown
    /// keys, wrong types, `paginate_by = 0` or a base URL that is not http(s).
    pub fn load(path: &Path, display_path: &Path) -> Result<Config, Diagnostic> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => {
                return Err(Diagnostic::error(
                    display_path,
                    0,
                    format!("expected a readable UTF-8 file, found {e}"),
                ))
            }
        };
        Config::parse(&text, display_path)
    }

    /// Parses and resolves the text of a `site.toml`. Errors as [`Config::load`].
    pub fn parse(text: &str, display_path: &Path) -> Result<Config, Diagnostic> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| 1 + text[..s.start.min(text.len())].matches('\n').count())
                .unwrap_or(0);
            Diagnostic::error(display_path, line, e.message().trim().to_string())
        })?;
        let line_of = |key: &str| {
            text.lines()
                .position(|l| l.trim_start().starts_with(key))
                .map_or(0, |i| i + 1)
        };
        let paginate_by = raw.paginate_by.unwrap_or(20);
        if paginate_by == 0 {
            return Err(Diagnostic::error(
                display_path,
                line_of("paginate_by"),
                "expected paginate_by to be at least 1, found 0",
            ));
        }
        let sitemap_max_urls = raw.sitemap_max_urls.unwrap_or(50_000);
        if sitemap_max_urls == 0 {
            return Err(Diagnostic::error(
                display_path,
                line_of("sitemap_max_urls"),
                "expected sitemap_max_urls to be at least 1, found 0",
            ));
        }
        let base_url = raw
            .base_url
            .unwrap_or_else(|| "http://localhost/".to_string());
        let base_url = normalise_base_url(&base_url).ok_or_else(|| {
            Diagnostic::error(
                display_path,
                line_of("base_url"),
                format!("expected base_url to be an http:// or https:// URL, found `{base_url}`"),
            )
        })?;
        Ok(Config {
            title: raw.title.unwrap_or_else(|| "Publications".to_string()),
            description: raw
                .description
                .unwrap_or_else(|| "Publication listings".to_string()),
            base_url,
            language: raw.language.unwrap_or_else(|| "en".to_string()),
            theme: raw.theme.unwrap_or_else(|| "default".to_string()),
            paginate_by,
            home_recent: raw.home_recent.unwrap_or(10),
            feed_limit: raw.feed_limit.unwrap_or(50),
            sitemap_max_urls,
        })
    }
}

/// Checks that `url` is `http(s)://host[/path]` and returns it with exactly
/// one trailing slash; `None` when it is not an absolute http(s) URL.
pub fn normalise_base_url(url: &str) -> Option<String> {
    let url = url.trim();
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() || url.contains(['?', '#', ' ']) {
        return None;
    }
    Some(format!("{}/", url.trim_end_matches('/')))
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
        assert!(err.message.contains("paginte_by"), "{}", err.message);
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
        assert_eq!(normalise_base_url("http://a.b"), Some("http://a.b/".into()));
        assert_eq!(normalise_base_url("https:///x"), None);
    }
}
