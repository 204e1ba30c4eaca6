//! Watch mode for `vellum serve`: which file-system events matter and what
//! they change. Events come from `notify` through its debouncer, so an
//! editor's atomic save (write a temp file, rename it over the original) or
//! a `git checkout` of hundreds of files arrives as one batch; this module
//! drops editor temp, swap and backup files and classifies the rest.

use std::path::{Component, Path};

/// What an input change affects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Change {
    /// A listing, or another path, under `seeds/`.
    Listing,
    /// A Markdown page, or another path, under `content/`.
    Content,
    /// A template of the theme or of the site, or another path of a theme.
    Template,
    /// A static file of the theme or of the site.
    Static,
    /// `site.toml`: everything is rebuilt.
    Config,
}

/// Whether a file name is an editor's temporary, swap or backup file, or a
/// hidden file: vim `.x.swp`/`.x.swx`/`x~`/`4913`, emacs `#x#` and `.#x`,
/// JetBrains `x___jb_tmp___`/`x___jb_old___`, helix `x.bck`, Kate
/// `x.kate-swp`, and any dot-file.
pub fn is_temp_file(name: &str) -> bool {
    name.starts_with('.')
        || name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
        || name == "4913"
        || [
            ".swp",
            ".swx",
            ".swo",
            ".bck",
            ".tmp",
            ".kate-swp",
            "___jb_tmp___",
            "___jb_old___",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// Whether a path (relative to the site root) is one no build reads, as
/// the builds' walks skip them: under a hidden directory, or an editor's
/// temporary file ([`is_temp_file`]). A directory with a temp-like name
/// (`old~/`) is not skipped: the walks read the files in it.
pub fn is_ignored(relative: &Path) -> bool {
    let mut parts = relative.iter().map(|part| part.to_string_lossy());
    let name = parts.next_back();
    parts.any(|part| part.starts_with('.')) || name.is_some_and(|name| is_temp_file(&name))
}

/// Classifies a changed path (absolute, or relative to `root`). `None`
/// for paths that do not affect the site: outside the watched inputs, in
/// the output directory, or ignored ([`is_ignored`]).
pub fn classify(root: &Path, path: &Path) -> Option<Change> {
    let relative = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<&str> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    parts.last()?;
    if is_ignored(relative) {
        return None;
    }
    // Any path in an input directory counts, not only the files a build
    // reads there: a directory moved in or out, or removed, raises one
    // event, for the directory alone.
    match parts.as_slice() {
        ["site.toml"] => Some(Change::Config),
        ["seeds", ..] => Some(Change::Listing),
        ["content", ..] => Some(Change::Content),
        ["static", ..] | ["themes", _, "static", ..] => Some(Change::Static),
        ["templates", ..] | ["themes", ..] => Some(Change::Template),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_table() {
        let root = Path::new("/site");
        let cases: &[(&str, Option<Change>)] = &[
            ("/site/site.toml", Some(Change::Config)),
            ("/site/seeds/wu.txt", Some(Change::Listing)),
            ("/site/seeds/group/WU.TXT", Some(Change::Listing)),
            // Any path: it may be a directory moved in or out.
            ("/site/seeds/notes.md", Some(Change::Listing)),
            ("/site/seeds/group", Some(Change::Listing)),
            ("/site/content/about.md", Some(Change::Content)),
            ("/site/content/img.png", Some(Change::Content)),
            ("/site/content/group", Some(Change::Content)),
            ("/site/themes/default", Some(Change::Template)),
            ("/site/templates/paper.html", Some(Change::Template)),
            (
                "/site/themes/default/templates/partials/x.html",
                Some(Change::Template),
            ),
            (
                "/site/themes/default/static/style.css",
                Some(Change::Static),
            ),
            ("/site/static/logo.svg", Some(Change::Static)),
            ("/site/public/index.html", None),
            ("/site/target/debug/x", None),
            // Editors' temporary, swap and backup files.
            ("/site/seeds/.wu.txt.swp", None),
            ("/site/seeds/wu.txt~", None),
            ("/site/seeds/old~/wu.txt", Some(Change::Listing)),
            ("/site/seeds/x.bck/wu.txt", Some(Change::Listing)),
            ("/site/seeds/.git/wu.txt", None),
            ("/site/seeds/#wu.txt#", None),
            ("/site/seeds/.#wu.txt", None),
            ("/site/seeds/4913", None),
            ("/site/seeds/wu.txt___jb_tmp___", None),
            ("/site/seeds/wu.txt.bck", None),
            ("/site/content/.hidden/a.md", None),
            ("/site/seeds/wu.txt.kate-swp", None),
            ("seeds/relative.txt", Some(Change::Listing)),
        ];
        for (path, want) in cases {
            assert_eq!(classify(root, Path::new(path)), *want, "{path}");
        }
    }
}
