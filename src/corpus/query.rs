//! The papers a `{{ papers(...) }}` shortcode lists ([`PaperQuery`]),
//! found in the corpus, and the check of every shortcode of the site
//! before rendering: an author, year or category the site does not have
//! is named at the shortcode's line, with the closest one.

use crate::corpus::{Corpus, PaperId};
use crate::diagnostics::{did_you_mean, Diagnostic, Diagnostics};
use crate::input::content::{Content, PaperQuery};
use crate::permalink::slugify;

/// The papers `query` lists, in paper order. The author is a slug, or a
/// name where one author has it (`Alessandro Orso` for
/// `alessandro-orso`). Errors: an author or category the site does not
/// have, as `expected …, found …` with the closest one.
pub fn papers(corpus: &Corpus, query: &PaperQuery) -> Result<Vec<PaperId>, String> {
    let mut ids: Vec<PaperId> = match &query.author {
        Some(given) => {
            let author = author(corpus, given)?;
            let mut ids = corpus.authors[author].papers.clone();
            ids.sort_unstable();
            ids
        }
        None => (0..corpus.papers.len()).collect(),
    };
    if let Some(code) = &query.category {
        let category = corpus
            .categories
            .iter()
            .position(|c| &c.code == code)
            .ok_or_else(|| {
                format!(
                    "expected a category code of the site in papers(category=...), found `{code}`{}",
                    did_you_mean(code, corpus.categories.iter().map(|c| c.code.as_str()))
                )
            })?;
        ids.retain(|&p| corpus.papers[p].categories.contains(&category));
    }
    if let Some(year) = query.year {
        ids.retain(|&p| corpus.papers[p].year == year);
    }
    if query.selected {
        ids.retain(|&p| corpus.papers[p].details.selected);
    }
    if let Some(limit) = query.limit {
        ids.truncate(limit);
    }
    Ok(ids)
}

/// The author `given` names: the one with that slug, else the one whose
/// name (or its slug) it is, when only one is.
fn author(corpus: &Corpus, given: &str) -> Result<usize, String> {
    if let Some(id) = corpus.authors.iter().position(|a| a.slug == given) {
        return Ok(id);
    }
    let exact: Vec<usize> = corpus
        .authors
        .iter()
        .enumerate()
        .filter(|(_, a)| a.name == given)
        .map(|(id, _)| id)
        .collect();
    if let [one] = exact.as_slice() {
        return Ok(*one);
    }
    let as_slug = slugify(given);
    let named: Vec<usize> = corpus
        .authors
        .iter()
        .enumerate()
        .filter(|(_, a)| a.name.eq_ignore_ascii_case(given) || a.slug == as_slug)
        .map(|(id, _)| id)
        .collect();
    match named.as_slice() {
        [one] => Ok(*one),
        [] => Err(format!(
            "expected an author slug (or name) of the site in papers(author=...), found `{given}`{}",
            did_you_mean(&as_slug, corpus.authors.iter().map(|a| a.slug.as_str()))
        )),
        several => Err(format!(
            "expected papers(author=...) to name one author, found `{given}`, the name of {}: write one slug",
            several
                .iter()
                .map(|&id| format!("`{}` ({})", corpus.authors[id].slug, corpus.authors[id].name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Checks every shortcode of the home intro and the content pages: an
/// error at its line for an author or category the site does not have,
/// a warning for one that lists no paper (naming the years the site has
/// when the year is not one of them).
pub fn check(content: &Content, corpus: &Corpus, diagnostics: &Diagnostics) {
    for page in content.home.iter().chain(&content.pages) {
        for query in &page.shortcodes {
            let problem = match papers(corpus, query) {
                Err(message) => Diagnostic::error(&page.file, query.line, message),
                Ok(ids) if ids.is_empty() => {
                    let years = match (query.year, corpus.years.last(), corpus.years.first()) {
                        (Some(year), Some(first), Some(last))
                            if !corpus.years.iter().any(|y| y.year == year) =>
                        {
                            format!(
                                ": the site has no paper of {year} (its years run from {} to {})",
                                first.year, last.year
                            )
                        }
                        _ => String::new(),
                    };
                    Diagnostic::warning(
                        &page.file,
                        query.line,
                        format!("expected papers(...) to list papers, found none{years}"),
                    )
                }
                Ok(_) => continue,
            };
            diagnostics.push(problem);
        }
    }
}
