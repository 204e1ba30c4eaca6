//! `vellum init DIR`: scaffolds a new site — a commented `site.toml`, a home
//! page intro, an example listing, and a copy of the default theme (embedded
//! in the binary, so `init` works anywhere; the copy is the user's to edit).

use std::io;
use std::path::Path;

/// Files of the default theme, embedded at compile time: (path under
/// `themes/default/`, contents). A test keeps it equal to the directory.
pub const DEFAULT_THEME: &[(&str, &str)] = &[
    (
        "static/cite.js",
        include_str!("../themes/default/static/cite.js"),
    ),
    (
        "static/search-engine.js",
        include_str!("../themes/default/static/search-engine.js"),
    ),
    (
        "static/search-ui.js",
        include_str!("../themes/default/static/search-ui.js"),
    ),
    (
        "static/style.css",
        include_str!("../themes/default/static/style.css"),
    ),
    (
        "templates/404.html",
        include_str!("../themes/default/templates/404.html"),
    ),
    (
        "templates/author.html",
        include_str!("../themes/default/templates/author.html"),
    ),
    (
        "templates/authors.html",
        include_str!("../themes/default/templates/authors.html"),
    ),
    (
        "templates/base.html",
        include_str!("../themes/default/templates/base.html"),
    ),
    (
        "templates/categories.html",
        include_str!("../themes/default/templates/categories.html"),
    ),
    (
        "templates/category.html",
        include_str!("../themes/default/templates/category.html"),
    ),
    (
        "templates/index.html",
        include_str!("../themes/default/templates/index.html"),
    ),
    (
        "templates/page.html",
        include_str!("../themes/default/templates/page.html"),
    ),
    (
        "templates/paper.html",
        include_str!("../themes/default/templates/paper.html"),
    ),
    (
        "templates/partials/paginator.html",
        include_str!("../themes/default/templates/partials/paginator.html"),
    ),
    (
        "templates/partials/paper_item.html",
        include_str!("../themes/default/templates/partials/paper_item.html"),
    ),
    (
        "templates/partials/paper_list.html",
        include_str!("../themes/default/templates/partials/paper_list.html"),
    ),
    (
        "templates/redirect.html",
        include_str!("../themes/default/templates/redirect.html"),
    ),
    (
        "templates/search.html",
        include_str!("../themes/default/templates/search.html"),
    ),
    (
        "templates/section.html",
        include_str!("../themes/default/templates/section.html"),
    ),
    (
        "templates/year.html",
        include_str!("../themes/default/templates/year.html"),
    ),
    (
        "templates/years.html",
        include_str!("../themes/default/templates/years.html"),
    ),
];

const SITE_TOML: &str = r#"# Vellum site configuration. Every key is optional; unknown keys are errors.

# Shown in the header and in every page's <title>.
title = "Our Publications"
# Meta description for pages without one of their own.
description = "Papers of our group, from our arXiv listings."
# Absolute URL the site is served from, with its sub-path if any, e.g.
# https://lab.github.io/papers/. `vellum build --base-url` overrides it.
base_url = "https://example.org/"
# <html lang>.
language = "en"
# Directory under themes/.
theme = "default"
# Papers per author, year and category page before paginating.
paginate_by = 20
# Most recent papers on the home page.
home_recent = 10
# Entries per Atom feed (site, author, category).
feed_limit = 50
# URLs per sitemap file before it is split under a sitemap index.
sitemap_max_urls = 50000
# Who of a BibTeX entry's authors (seeds/*.bib) gets an author page:
# "listed" (listing owners and authors with content/authors/<slug>.md) or "all".
author_pages = "listed"
"#;

const HOME: &str = r#"+++
title = "Our Publications"
description = "Papers of our group."
+++

Welcome. Each author's papers come from their listing files in `seeds/`.
"#;

const EXAMPLE_LISTING: &str = "arXiv subjects

Ana Lima

Publications and source records attributed to Ana Lima.

At least 2 records · Page 1Linked to original sources

arXiv2024

Quantised Attention for Edge Devices

We quantise attention to 4 bits and keep 99% of the accuracy.

cs.LG↗

arXiv2023

A Survey of Sparse Training

Sparse training saves 75.67% of compute (<5% loss).

cs.LG stat.ML↗
";

/// Creates a new site in `dir`. Errors: `dir` exists and is not empty
/// ([`io::ErrorKind::AlreadyExists`]), or an I/O error naming the path.
pub fn init(dir: &Path) -> io::Result<()> {
    if dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} exists and is not empty; choose a new or empty directory",
                dir.display()
            ),
        ));
    }
    let mut files: Vec<(String, &str)> = vec![
        ("site.toml".into(), SITE_TOML),
        ("content/_index.md".into(), HOME),
        ("seeds/ana-lima.txt".into(), EXAMPLE_LISTING),
    ];
    files.extend(
        DEFAULT_THEME
            .iter()
            .map(|(path, text)| (format!("themes/default/{path}"), *text)),
    );
    for (relative, text) in files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", parent.display())))?;
        }
        std::fs::write(&path, text)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_theme_equals_the_theme_directory() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes/default");
        let mut on_disk: Vec<(String, String)> = walkdir::WalkDir::new(&dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = crate::input::slash_path(e.path(), &dir);
                (rel, std::fs::read_to_string(e.path()).unwrap())
            })
            .collect();
        on_disk.sort();
        let embedded: Vec<(String, String)> = DEFAULT_THEME
            .iter()
            .map(|(p, t)| (p.to_string(), t.to_string()))
            .collect();
        assert_eq!(embedded, on_disk, "update DEFAULT_THEME in src/init.rs");
    }
}
