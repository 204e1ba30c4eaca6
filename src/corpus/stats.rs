//! Term statistics for the first page of each term: an author's
//! co-authors, papers per year and categories; a category's most frequent authors; a year's
//! papers per category. Pure functions over the frozen corpus, called by
//! [`crate::render`] per page; each costs time linear in the term's papers
//! and their authors or categories.

use crate::corpus::{AuthorId, CategoryId, Corpus, PaperId};
use std::collections::BTreeMap;

/// Most frequent authors shown on a category page.
pub const TOP_AUTHORS: usize = 10;

/// Co-authors an author page shows before "+N more".
pub const COAUTHORS_SHOWN: usize = 20;

/// A co-author as far as it is known: an author of the site (with a
/// page), or a name from a paper's complete author list.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Coauthor<'a> {
    /// An author of the site.
    Author(AuthorId),
    /// A name only.
    Name(&'a str),
}

/// What is known of an author's co-authors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coauthors<'a> {
    /// Each co-author and the papers shared, most shared first, then
    /// authors of the site in author order, then names in order.
    pub counts: Vec<(Coauthor<'a>, usize)>,
    /// Of the author's papers, those whose complete author list is known;
    /// the others name only their listing owners.
    pub complete: usize,
}

/// Co-authors of `author` on `papers` (the author's): the other names of
/// each paper's complete author list where known (the listing owners
/// among them as authors of the site), else the paper's other listing
/// owners; time n log n in the names of the papers.
pub fn coauthors<'c>(corpus: &'c Corpus, author: AuthorId, papers: &[PaperId]) -> Coauthors<'c> {
    let me = &corpus.authors[author];
    // Every co-author once per shared paper, counted by [`most_first`].
    let mut all: Vec<Coauthor> = Vec::new();
    // A paper's names, each once.
    let mut seen: Vec<Coauthor> = Vec::new();
    let mut complete = 0;
    for &p in papers {
        let paper = &corpus.papers[p];
        match corpus.complete_authors(paper) {
            Some(names) => {
                complete += 1;
                seen.clear();
                seen.extend(
                    names
                        .filter(|&(name, owner)| owner != Some(author) && name != me.name)
                        .map(|(name, owner)| owner.map_or(Coauthor::Name(name), Coauthor::Author)),
                );
                seen.sort_unstable();
                seen.dedup();
                all.append(&mut seen);
            }
            None => all.extend(
                paper
                    .authors
                    .iter()
                    .filter(|&&a| a != author)
                    .map(|&a| Coauthor::Author(a)),
            ),
        }
    }
    let counts = most_first(all);
    Coauthors { counts, complete }
}

/// Papers per year of `papers`, oldest first: `(year, count)`; undated
/// papers are not counted.
pub fn per_year(corpus: &Corpus, papers: &[PaperId]) -> Vec<(u16, usize)> {
    let mut years: BTreeMap<u16, usize> = BTreeMap::new();
    for year in papers.iter().filter_map(|&p| corpus.papers[p].known_year()) {
        *years.entry(year).or_default() += 1;
    }
    years.into_iter().collect()
}

/// Categories of `papers` (primary and secondary), with counts, most
/// papers first, then in category order.
pub fn per_category(corpus: &Corpus, papers: &[PaperId]) -> Vec<(CategoryId, usize)> {
    count_by(
        papers
            .iter()
            .flat_map(|&p| corpus.papers[p].categories.iter().copied()),
    )
}

/// The [`TOP_AUTHORS`] authors with most papers among `papers`, with counts.
pub fn top_authors(corpus: &Corpus, papers: &[PaperId]) -> Vec<(AuthorId, usize)> {
    let mut all = count_by(
        papers
            .iter()
            .flat_map(|&p| corpus.papers[p].authors.iter().copied()),
    );
    all.truncate(TOP_AUTHORS);
    all
}

/// Counts ids; sorted by count descending, then id ascending (ids are in
/// display order).
fn count_by(ids: impl Iterator<Item = usize>) -> Vec<(usize, usize)> {
    most_first(ids.collect())
}

/// Each distinct value of `items` with how often it occurs, most frequent
/// first, then in value order. Sorted and counted in runs, not in a map,
/// which allocated a node per value on every author page (measured in
/// b23f03c).
fn most_first<T: Ord>(mut items: Vec<T>) -> Vec<(T, usize)> {
    items.sort_unstable();
    let mut counts: Vec<(T, usize)> = Vec::new();
    for item in items {
        match counts.last_mut() {
            Some((last, count)) if *last == item => *count += 1,
            _ => counts.push((item, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_sort_by_count_then_id() {
        assert_eq!(
            count_by([3, 1, 3, 2, 1, 3].into_iter()),
            [(3, 3), (1, 2), (2, 1)]
        );
    }
}
