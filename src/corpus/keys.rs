//! Citation keys: `chu2024optimizing`, made from the first author's family
//! name, the year and the first title word that is no stop word
//! ([`citation_key`]); repeated keys get `a`, `b`, … in paper order
//! (`assign_keys`). Keys are part of the corpus: every export and page
//! of a paper shows the same one.

use crate::corpus::{Author, Paper, PaperId};
use crate::text::names::FamilyNames;
use deunicode::deunicode;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// Title words skipped when picking the key's title word.
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "on", "of", "for", "in", "towards", "toward", "to", "and", "or", "with",
    "at", "by", "from", "via", "into", "as", "is", "are", "do", "does", "how", "what", "why",
    "when", "can", "we", "our", "your", "its", "be", "not",
];

/// Lowercase ASCII fold of `s`, keeping only `[a-z0-9]`.
fn key_part(s: &str) -> String {
    deunicode(s)
        .to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        .collect()
}

/// The letters that tell repeated citation keys apart, in paper order:
/// `1` → `a`, `26` → `z`, `27` → `aa`.
pub fn key_suffix(mut n: usize) -> String {
    let mut letters = Vec::new();
    while n > 0 {
        n -= 1;
        letters.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

/// Citation key: family name + year + first non-stop title word, e.g. `chu2024optimizing`.
///
/// - `first_author_family`: family name of the first author, without particles
///   (any script; folded to ASCII with `deunicode`). Empty or unfoldable gives `anon`.
/// - `year`: written in decimal; left out when it is [`crate::corpus::UNDATED`].
/// - `title_identity`: the title as lowercase words separated by spaces; the
///   first word that is not in the stop-word list (`a`, `an`, `the`, `on`,
///   `of`, `for`, `in`, `towards`, ...) is appended. No such word: nothing.
///
/// The result holds only `[a-z0-9]`.
pub fn citation_key(first_author_family: &str, year: u16, title_identity: &str) -> String {
    let mut family = key_part(first_author_family);
    if family.is_empty() {
        family = "anon".to_string();
    }
    let word = title_identity
        .split_whitespace()
        .map(key_part)
        .find(|w| !w.is_empty() && !STOP_WORDS.contains(&w.as_str()))
        .unwrap_or_default();
    match year {
        crate::corpus::UNDATED => format!("{family}{word}"),
        year => format!("{family}{year}{word}"),
    }
}

/// The citation key of `paper` before any override: [`citation_key`] of
/// its first known author's family name, its year and its title's identity.
pub fn listed_key(paper: &Paper, authors: &[Arc<Author>], names: &FamilyNames) -> String {
    let first = paper
        .authors
        .first()
        .map_or("", |&a| authors[a].name.as_str());
    citation_key(&names.parts(first).family, paper.year, &paper.identity)
}

/// Gives each paper of `ids` (ascending: every paper whose base key,
/// `base(id)`, is one of theirs) its citation key: the base key when no
/// other paper has it or when it is `pinned(id)` (an override's key, which
/// still counts as a use), else the base key with `a`, `b`, … in paper
/// order ([`key_suffix`]).
pub(crate) fn assign_keys<'a>(
    papers: &mut [Arc<Paper>],
    base: impl Fn(PaperId) -> &'a str,
    pinned: impl Fn(PaperId) -> bool,
    ids: &[PaperId],
) {
    let mut uses: FxHashMap<&str, usize> = FxHashMap::default();
    for &id in ids {
        *uses.entry(base(id)).or_default() += 1;
    }
    let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
    for &id in ids {
        let base = base(id);
        let key = if uses[base] == 1 || pinned(id) {
            base.to_string()
        } else {
            let n = seen.entry(base).or_default();
            *n += 1;
            format!("{base}{}", key_suffix(*n))
        };
        // A paper shared with an earlier corpus is copied only to change.
        if papers[id].key != key {
            Arc::make_mut(&mut papers[id]).key = key;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_suffixes() {
        assert_eq!(key_suffix(1), "a");
        assert_eq!(key_suffix(26), "z");
        assert_eq!(key_suffix(27), "aa");
    }

    #[test]
    fn key_folds_family_and_skips_stop_words() {
        assert_eq!(
            citation_key("Chu", 2024, "optimizing moe training"),
            "chu2024optimizing"
        );
        assert_eq!(
            citation_key(
                "Müller-Lüdenscheidt",
                2023,
                "towards a theory of everything"
            ),
            "mullerludenscheidt2023theory"
        );
        assert_eq!(
            citation_key("O'Brien", 2022, "on the 3d case"),
            "obrien20223d"
        );
        assert_eq!(citation_key("张", 2021, "the gpu’s day"), "zhang2021gpus");
        assert_eq!(citation_key("", 2020, "an llm"), "anon2020llm");
        assert_eq!(citation_key("  ", 2020, "of the"), "anon2020");
        assert_eq!(citation_key("Ng", 1999, ""), "ng1999");
    }
}
