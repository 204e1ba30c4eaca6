//! Matching listed papers to arXiv records, with no guess.
//!
//! A record is a candidate for a paper when their titles are equal once
//! folded ([`title_key`]: LaTeX to text, case, accents, punctuation and
//! spacing folded). A candidate is plausible when every listing owner of
//! the paper is among its authors ([`same_person`]: family name, and given
//! names or their initials) and the paper's year is within one of the
//! year of v1 or of the latest version. Among plausible candidates, those
//! naming the owners in full beat those naming them by initials only
//! ("X. Chu" is Xiaowen Chu when nothing else fits); then a larger
//! category overlap wins, then an abstract clearly closer. One left: a
//! match. None, or several no rule tells apart: no match, and the
//! candidates are reported.

use crate::enrich::record::{ArxivRecord, RecordAuthor};
use crate::text::names::fold;

/// A paper as listed, what matching reads of it.
#[derive(Debug, Clone)]
pub struct Listed {
    /// The title as listed (LaTeX kept).
    pub title: String,
    /// The year as listed.
    pub year: u16,
    /// For each listing owner, the names it goes by (the display name and
    /// the variants the site declares).
    pub owners: Vec<Vec<String>>,
    /// Category codes, the primary first.
    pub categories: Vec<String>,
    /// The abstract as listed (LaTeX kept).
    pub abstract_text: String,
}

/// What matching found for one paper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The one record (its index among the candidates given).
    Matched(usize),
    /// Several plausible records no rule tells apart.
    Ambiguous(Vec<usize>),
    /// No plausible record; each record of the same title, with why not.
    Unmatched(Vec<(usize, Rejection)>),
}

/// Why a record of the same title is not the paper's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// A listing owner is not among the record's authors.
    Owner(String),
    /// The paper's year is not within one of v1's or the latest version's.
    Year {
        /// The date of v1.
        published: String,
        /// The date of the latest version.
        updated: String,
    },
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::Owner(name) => write!(f, "{name} is not among its authors"),
            Rejection::Year { published, updated } if published == updated => {
                write!(f, "submitted {published}")
            }
            Rejection::Year { published, updated } => {
                write!(f, "submitted {published}, last revised {updated}")
            }
        }
    }
}

/// The key titles are compared by: LaTeX rendered to text, then folded
/// ([`fold`]: ASCII transliteration, lowercase, letters and digits).
pub fn title_key(title: &str) -> String {
    if title.contains(['\\', '$', '{', '}', '^', '_', '~']) {
        fold(&crate::text::latex::render(title).plain)
    } else {
        fold(title)
    }
}

pub use crate::text::names::Naming;

/// Whether `author` of a record can be the person `name` (a display name
/// from a listing), and how surely ([`crate::text::names::naming`]): by
/// the source's parts, or by the name model's split of the whole name
/// (sources split `李 Wei` or `Sean van der Merwe` their own way).
pub fn same_person(name: &str, author: &RecordAuthor) -> Option<Naming> {
    let listed = RecordAuthor::from_name(name);
    let again = RecordAuthor::from_name(&author.name);
    let parts = |a: &RecordAuthor| (a.family.clone(), a.given.clone());
    let (listed, author, again) = (parts(&listed), parts(author), parts(&again));
    naming(&listed, &author).max(naming(&listed, &again))
}

/// [`crate::text::names::naming`] of two (family, given) pairs.
fn naming(a: &(String, String), b: &(String, String)) -> Option<Naming> {
    crate::text::names::naming((&a.0, &a.1), (&b.0, &b.1))
}

/// Words of three letters or more in an abstract, folded: the abstract
/// tie-breaker compares these sets.
fn words(text: &str) -> rustc_hash::FxHashSet<String> {
    fold(&crate::text::latex::render(text).plain)
        .split(' ')
        .filter(|w| w.len() >= 3)
        .map(str::to_string)
        .collect()
}

fn jaccard(a: &rustc_hash::FxHashSet<String>, b: &rustc_hash::FxHashSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// Decides which of `candidates` (records whose [`title_key`] equals the
/// paper's) is `paper`'s (see the module doc).
pub fn decide(paper: &Listed, candidates: &[&ArxivRecord]) -> Outcome {
    let mut rejected = Vec::new();
    // Each plausible candidate, with how surely its authors name the owners.
    let mut plausible: Vec<(usize, Naming)> = Vec::new();
    for (index, record) in candidates.iter().enumerate() {
        let mut weakest = Naming::Full;
        let mut missing = None;
        for names in &paper.owners {
            let best = names
                .iter()
                .flat_map(|name| record.authors.iter().filter_map(|a| same_person(name, a)))
                .max();
            match best {
                Some(naming) => weakest = weakest.min(naming),
                None => {
                    missing = names.first().cloned();
                    break;
                }
            }
        }
        if let Some(name) = missing {
            rejected.push((index, Rejection::Owner(name)));
            continue;
        }
        let near = |year: Option<u16>| year.is_some_and(|y| y.abs_diff(paper.year) <= 1);
        if !near(record.published_year()) && !near(record.updated_year()) {
            rejected.push((
                index,
                Rejection::Year {
                    published: record.published.clone(),
                    updated: record.updated.clone(),
                },
            ));
            continue;
        }
        plausible.push((index, weakest));
    }
    let Some(surest) = plausible.iter().map(|(_, naming)| *naming).max() else {
        return Outcome::Unmatched(rejected);
    };
    plausible.retain(|(_, naming)| *naming == surest);
    if let [(only, _)] = plausible.as_slice() {
        return Outcome::Matched(*only);
    }
    // Tie-breakers: the category overlap, then the abstract.
    let overlap = |index: usize| {
        candidates[index]
            .categories
            .iter()
            .filter(|c| paper.categories.contains(c))
            .count()
    };
    let most = plausible
        .iter()
        .map(|&(i, _)| overlap(i))
        .max()
        .unwrap_or(0);
    plausible.retain(|&(i, _)| overlap(i) == most);
    if let [(only, _)] = plausible.as_slice() {
        return Outcome::Matched(*only);
    }
    let listed = words(&paper.abstract_text);
    let mut similar: Vec<(usize, f64)> = plausible
        .iter()
        .map(|&(i, _)| (i, jaccard(&listed, &words(&candidates[i].abstract_text))))
        .collect();
    similar.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    match similar.as_slice() {
        [(best, high), (_, next), ..] if *high >= 0.5 && high - next >= 0.3 => {
            Outcome::Matched(*best)
        }
        _ => Outcome::Ambiguous(plausible.iter().map(|&(i, _)| i).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn author(name: &str) -> RecordAuthor {
        RecordAuthor::from_name(name)
    }

    #[test]
    fn titles_fold_latex_case_accents_and_punctuation() {
        assert_eq!(
            title_key("Heat-bath random walks with Markov bases"),
            title_key("HEAT-BATH RANDOM WALKS WITH MARKOV BASES.")
        );
        assert_eq!(
            title_key("Qu\\'ebec $\\alpha$-stable  laws"),
            title_key("Québec α-Stable Laws")
        );
        assert_ne!(
            title_key("Heat-bath random walks with Markov bases"),
            title_key("Heat-bath random walks with Markov chains")
        );
    }

    #[test]
    fn names_agree_by_family_and_initials() {
        let parsed = RecordAuthor {
            name: "C. Balázs".into(),
            family: "Balázs".into(),
            given: "C.".into(),
        };
        assert_eq!(same_person("Csaba Balazs", &parsed), Some(Naming::Initials));
        assert_eq!(
            same_person("Xiaowen Chu", &author("Xiaowen Chu")),
            Some(Naming::Full)
        );
        assert_eq!(
            same_person("X. Chu", &author("Xiaowen Chu")),
            Some(Naming::Initials)
        );
        assert_eq!(same_person("Xiaowen Chu", &author("Xinyu Chu")), None);
        assert_eq!(same_person("Xiaowen Chu", &author("Y. Chu")), None);
        assert_eq!(same_person("Xiaowen Chu", &author("Xiaowen Zhu")), None);
        assert_eq!(
            same_person("Chuan-Ping Yuan", &author("C.-P. Yuan")),
            Some(Naming::Initials)
        );
        assert_eq!(
            same_person("Anna van der Berg", &author("Anna van der Berg")),
            Some(Naming::Full)
        );
        let split_elsewhere = RecordAuthor {
            name: "Sean van der Merwe".into(),
            family: "Merwe".into(),
            given: "Sean van der".into(),
        };
        assert_eq!(
            same_person("Sean van der Merwe", &split_elsewhere),
            Some(Naming::Full)
        );
        // A family name that is a particle word is still a family name.
        assert_eq!(
            same_person("Suddhasvatta Das", &author("Suddhasvatta Das")),
            Some(Naming::Full)
        );
        // A source's own split of a name is not the only one tried.
        let other_split = RecordAuthor {
            name: "李 Adeyemi".into(),
            family: "Adeyemi".into(),
            given: "李".into(),
        };
        assert_eq!(same_person("李 Adeyemi", &other_split), Some(Naming::Full));
        // Han script folds to pinyin: 王 明 is Ming Wang.
        assert_eq!(
            same_person("王 明", &author("Ming Wang")),
            Some(Naming::Full)
        );
    }
}
