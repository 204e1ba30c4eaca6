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
    /// `site.toml` or the records file (`records/`): everything is
    /// rebuilt.
    Config,
}

/// Whether a file name is an editor's temporary, swap or backup file
/// ([`crate::input::is_editor_file`]) or any other dot-file.
pub fn is_temp_file(name: &str) -> bool {
    name.starts_with('.') || crate::input::is_editor_file(name)
}

/// Whether a path (relative to the site root) is one no build reads, as
/// the builds' walks skip them: an editor's file
/// ([`crate::input::is_editor_file`]) anywhere; under `.git`; and outside
/// the static folders, under any hidden directory or a dot-file
/// ([`is_temp_file`]), while a static `.nojekyll` or `.well-known/` is
/// published. A directory with a temp-like name (`old~/`) is not skipped:
/// the walks read the files in it.
pub fn is_ignored(relative: &Path) -> bool {
    let parts: Vec<_> = relative.iter().map(|part| part.to_string_lossy()).collect();
    let Some((name, folders)) = parts.split_last() else {
        return false;
    };
    let is_static = match parts.as_slice() {
        [first, ..] if first == "static" => true,
        [first, _, third, ..] => first == "themes" && third == "static",
        _ => false,
    };
    if is_static {
        parts.iter().any(|part| part == ".git") || crate::input::is_editor_file(name)
    } else {
        folders.iter().any(|part| part.starts_with('.')) || is_temp_file(name)
    }
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
        ["site.toml"] | ["records", ..] => Some(Change::Config),
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
            ("/site/records/arxiv.toml", Some(Change::Config)),
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
            // The static folders publish dot-files, as the build does, but
            // not `.git` or an editor's files.
            ("/site/static/.nojekyll", Some(Change::Static)),
            (
                "/site/static/.well-known/security.txt",
                Some(Change::Static),
            ),
            (
                "/site/themes/default/static/.htaccess",
                Some(Change::Static),
            ),
            ("/site/static/.git/HEAD", None),
            ("/site/static/.style.css.swp", None),
            ("/site/static/style.css~", None),
            ("/site/themes/default/static/.#style.css", None),
            ("seeds/relative.txt", Some(Change::Listing)),
        ];
        for (path, want) in cases {
            assert_eq!(classify(root, Path::new(path)), *want, "{path}");
        }
    }
}
