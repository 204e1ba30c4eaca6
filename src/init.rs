//! `vellum init DIR`: scaffolds a new site — a commented `site.toml`, a home
//! page intro, an example listing, and a copy of the default theme (embedded
//! in the binary, so `init` works anywhere; the copy is the user's to edit).

use std::io;
use std::path::Path;

/// Files of the default theme, embedded at compile time: (path under
/// `themes/default/`, bytes). A test keeps it equal to the directory.
pub const DEFAULT_THEME: &[(&str, &[u8])] = &[
    (
        "static/authors.js",
        include_bytes!("../themes/default/static/authors.js"),
    ),
    (
        "static/cite.js",
        include_bytes!("../themes/default/static/cite.js"),
    ),
    (
        "static/favicon.svg",
        include_bytes!("../themes/default/static/favicon.svg"),
    ),
    (
        "static/math-font-LICENSE.txt",
        include_bytes!("../themes/default/static/math-font-LICENSE.txt"),
    ),
    (
        "static/math.woff2",
        include_bytes!("../themes/default/static/math.woff2"),
    ),
    (
        "static/search-engine.js",
        include_bytes!("../themes/default/static/search-engine.js"),
    ),
    (
        "static/search-ui.js",
        include_bytes!("../themes/default/static/search-ui.js"),
    ),
    (
        "static/style.css",
        include_bytes!("../themes/default/static/style.css"),
    ),
    (
        "templates/404.html",
        include_bytes!("../themes/default/templates/404.html"),
    ),
    (
        "templates/author.html",
        include_bytes!("../themes/default/templates/author.html"),
    ),
    (
        "templates/authors.html",
        include_bytes!("../themes/default/templates/authors.html"),
    ),
    (
        "templates/base.html",
        include_bytes!("../themes/default/templates/base.html"),
    ),
    (
        "templates/categories.html",
        include_bytes!("../themes/default/templates/categories.html"),
    ),
    (
        "templates/category.html",
        include_bytes!("../themes/default/templates/category.html"),
    ),
    (
        "templates/index.html",
        include_bytes!("../themes/default/templates/index.html"),
    ),
    (
        "templates/page.html",
        include_bytes!("../themes/default/templates/page.html"),
    ),
    (
        "templates/paper.html",
        include_bytes!("../themes/default/templates/paper.html"),
    ),
    (
        "templates/partials/paginator.html",
        include_bytes!("../themes/default/templates/partials/paginator.html"),
    ),
    (
        "templates/partials/paper_item.html",
        include_bytes!("../themes/default/templates/partials/paper_item.html"),
    ),
    (
        "templates/partials/paper_list.html",
        include_bytes!("../themes/default/templates/partials/paper_list.html"),
    ),
    (
        "templates/redirect.html",
        include_bytes!("../themes/default/templates/redirect.html"),
    ),
    (
        "templates/search.html",
        include_bytes!("../themes/default/templates/search.html"),
    ),
    (
        "templates/section.html",
        include_bytes!("../themes/default/templates/section.html"),
    ),
    (
        "templates/year.html",
        include_bytes!("../themes/default/templates/year.html"),
    ),
    (
        "templates/years.html",
        include_bytes!("../themes/default/templates/years.html"),
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

/// Creates a new site in `dir`; with `force` also in a directory that is
/// not empty, where no file already there is overwritten: returns those
/// kept. Errors: `dir` exists and is not empty without `force`
/// ([`io::ErrorKind::AlreadyExists`]), or an I/O error naming the path.
pub fn init(dir: &Path, force: bool) -> io::Result<Vec<std::path::PathBuf>> {
    if !force && dir.exists() && std::fs::read_dir(dir)?.next().is_some() {
        return Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!(
                "{} exists and is not empty; choose a new or empty directory, or pass --force \
                 to add the site's files beside yours (none of yours is overwritten)",
                dir.display()
            ),
        ));
    }
    let mut kept = Vec::new();
    let mut files: Vec<(String, &[u8])> = vec![
        ("site.toml".into(), SITE_TOML.as_bytes()),
        ("content/_index.md".into(), HOME.as_bytes()),
        ("seeds/ana-lima.txt".into(), EXAMPLE_LISTING.as_bytes()),
    ];
    files.extend(
        DEFAULT_THEME
            .iter()
            .map(|(path, bytes)| (format!("themes/default/{path}"), *bytes)),
    );
    for (relative, text) in files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", parent.display())))?;
        }
        // `create_new`: a file of the user's is never overwritten, even
        // one made since the check above.
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => io::Write::write_all(&mut file, text)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => kept.push(path),
            Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_theme_equals_the_theme_directory() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("themes/default");
        let mut on_disk: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(&dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = crate::input::slash_path(e.path(), &dir);
                (rel, std::fs::read(e.path()).unwrap())
            })
            .collect();
        on_disk.sort();
        let embedded: Vec<(String, Vec<u8>)> = DEFAULT_THEME
            .iter()
            .map(|(p, b)| (p.to_string(), b.to_vec()))
            .collect();
        assert_eq!(embedded, on_disk, "update DEFAULT_THEME in src/init.rs");
    }
}
