//! The author name model and the one ordering rule for names and titles.
//!
//! Names are split into given names, particles and family name:
//! - Western order (`Xiaowen Chu`): the family name is the last word, with
//!   the lowercase particles before it (`van der`, `de la`, `von`, `di`, ...):
//!   `Anna van der Berg` sorts under `Berg`, shown `Berg, Anna van der`.
//!   Particles written capitalised after the first word are part of the
//!   family name: `Giuseppe Di Battista` sorts under `Di Battista`, shown
//!   `Di Battista, Giuseppe` (BibTeX `{Di Battista}, Giuseppe`); a first
//!   word is always a given name (`Le Song` is `Song, Le`).
//! - Names written in CJK script (Han, kana, Hangul) are family-name first:
//!   `王 明` sorts under `王`; an unspaced CJK name of two to four characters
//!   (`王明`) takes its first character as the family name.
//! - A single word is all family name.
//! - A split given by a profile, a BibTeX entry or a record wins
//!   ([`FamilyNames`]).
//!
//! Sort keys fold case and accents (through ASCII transliteration), compare
//! family name, then given names, then particles, then the exact name, so
//! the order is total and deterministic.

use deunicode::deunicode;

/// Lowercase particles that belong to the family name in Western order.
const PARTICLES: &[&str] = &[
    "van", "von", "der", "den", "ter", "ten", "de", "del", "della", "degli", "di", "da", "das",
    "dos", "du", "la", "le", "les", "lo", "bin", "ibn", "ben", "abu", "al", "el", "zu", "op",
];

/// A name split for sorting and display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameParts {
    /// Given names (`Xiaowen`), possibly empty.
    pub given: String,
    /// Particles before the family name (`van der`), possibly empty.
    pub particles: String,
    /// Family name (`Chu`, `Berg`, `王`).
    pub family: String,
}

impl NameParts {
    /// Splits a display name by the rule in the module docs.
    pub fn split(name: &str) -> NameParts {
        let words: Vec<&str> = name.split_whitespace().collect();
        let empty = || String::new();
        match words.as_slice() {
            [] => NameParts {
                given: empty(),
                particles: empty(),
                family: empty(),
            },
            [only] if is_cjk(only) && (2..=4).contains(&only.chars().count()) => {
                let first_len = only.chars().next().map_or(0, char::len_utf8);
                NameParts {
                    given: only[first_len..].to_string(),
                    particles: empty(),
                    family: only[..first_len].to_string(),
                }
            }
            [only] => NameParts {
                given: empty(),
                particles: empty(),
                family: only.to_string(),
            },
            [first, rest @ ..] if is_cjk(first) => NameParts {
                given: rest.join(" "),
                particles: empty(),
                family: first.to_string(),
            },
            [init @ .., last] => {
                let mut start = init.len();
                // Compared ignoring ASCII case, not lowercased into a new
                // string: the same test, as only the Kelvin sign lowercases
                // to ASCII (`k`, in no particle).
                let particle = |w: &str| PARTICLES.iter().any(|p| p.eq_ignore_ascii_case(w));
                while start > 1 && particle(init[start - 1]) {
                    start -= 1;
                }
                // Particles written capitalised (`Di Battista`, `Van der
                // Berg`) are part of the family name: sorted under it,
                // kept with it in citations and keys.
                let capitalised = init
                    .get(start)
                    .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase));
                if capitalised {
                    NameParts {
                        given: init[..start].join(" "),
                        particles: String::new(),
                        family: [&init[start..], &[*last]].concat().join(" "),
                    }
                } else {
                    NameParts {
                        given: init[..start].join(" "),
                        particles: init[start..].join(" "),
                        family: last.to_string(),
                    }
                }
            }
        }
    }

    /// `Family, Given particles` (`Chu, Xiaowen`; `Berg, Anna van der`;
    /// `王, 明`); a single-word name as it is.
    pub fn sort_name(&self) -> String {
        let rest = [self.given.as_str(), self.particles.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        if rest.is_empty() {
            self.family.clone()
        } else {
            format!("{}, {rest}", self.family)
        }
    }
}

/// Family names given for display names where the name model would split
/// them otherwise: from a record's `authors_parsed`, a BibTeX `Last,
/// First`, or a profile's `family` (`Nguyen Van Anh` → `Nguyen`). The
/// given names are the rest of the name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FamilyNames(std::collections::BTreeMap<String, String>);

impl FamilyNames {
    /// Pins `family` as the family name of `name` when it is the first or
    /// the last words of it and the name model splits `name` otherwise;
    /// the first pin of a name stays. Returns whether `family` is a part
    /// of `name` (an error otherwise).
    pub fn pin(&mut self, name: &str, family: &str) -> bool {
        use unicode_normalization::UnicodeNormalization;
        // Compared as listing names are kept: NFC, single spaces.
        let single = crate::text::plain::one_line;
        let family: String = single(family).nfc().collect();
        let words: String = single(name).nfc().collect();
        let given = given_beside(&words, &family);
        if given.is_none() && words != family {
            return false;
        }
        let model = NameParts::split(&words);
        let model_family = match model.particles.is_empty() {
            true => model.family,
            false => format!("{} {}", model.particles, model.family),
        };
        if model_family != family {
            self.0.entry(words).or_insert(family);
        }
        true
    }

    /// The pinned names and their family names, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, f)| (n.as_str(), f.as_str()))
    }

    /// Whether no name is pinned.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `name` has a pinned family name.
    pub fn contains(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// The sort key of `name` ([`author_sort_key`]), by its pinned family
    /// name when it has one.
    pub fn sort_key(&self, name: &str) -> String {
        sort_key_of(&self.parts(name), name)
    }

    /// `name` split: by its pinned family name, else by the name model.
    pub fn parts(&self, name: &str) -> NameParts {
        match self.0.get(name) {
            Some(family) => NameParts {
                given: given_beside(name, family).unwrap_or_default().to_string(),
                particles: String::new(),
                family: family.clone(),
            },
            None => NameParts::split(name),
        }
    }
}

/// The words of `name` (single-spaced) before or after `family`, when
/// `family` is its last or first words.
fn given_beside<'a>(name: &'a str, family: &str) -> Option<&'a str> {
    let before = name.strip_suffix(family).and_then(|g| g.strip_suffix(' '));
    let after = || name.strip_prefix(family).and_then(|g| g.strip_prefix(' '));
    before.or_else(after).filter(|g| !g.is_empty())
}

/// The sort key of an author name: folded family, given, particles, then
/// the exact name as the final tie-breaker.
pub fn author_sort_key(name: &str) -> String {
    sort_key_of(&NameParts::split(name), name)
}

/// The sort key of `name` split into `parts`.
fn sort_key_of(parts: &NameParts, name: &str) -> String {
    [
        fold(&parts.family),
        fold(&parts.given),
        fold(&parts.particles),
        name.to_string(),
    ]
    .join("\u{1}")
}

/// The case- and accent-insensitive key used to order titles (and any
/// display text): ASCII transliteration, lowercased, only letters, digits
/// and single spaces kept.
pub fn fold(text: &str) -> String {
    // Control characters other than spacing (C1 ones survive in text
    // decoded twice, `WeiÃ\u{9f}l`) are no part of a name or title.
    let hidden = |c: char| c.is_control() && !c.is_whitespace();
    let ascii = match text.contains(hidden) {
        true => deunicode(&text.replace(hidden, "")).to_lowercase(),
        false => deunicode(text).to_lowercase(),
    };
    let cleaned: String = ascii
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    crate::text::plain::fold_whitespace(cleaned)
}

/// Whether `word` (lowercase) is a particle of a family name (`van`,
/// `der`, `de`, ...).
pub fn is_particle(word: &str) -> bool {
    PARTICLES.contains(&word)
}

/// How surely two spellings of a name name one person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Naming {
    /// Family name and initials agree, given names are not both written.
    Initials,
    /// Family name and the first given name agree in full.
    Full,
}

/// Whether the person written `a` can be the one written `b`, each as
/// (family name with its particles, given names), and how surely. Family
/// names must be equal, folded (accents, case, hyphens, spaces; particles
/// such as `van der` are left out on both sides, as sources put them with
/// either part, unless the name is all particles: `Das`); given names must
/// agree initial by initial as far as both go, and in full where both
/// write their first one in full (`X. Chu` and `Xiaowen Chu`, not `Xiang
/// Chu` and `Xiaowen Chu`).
pub fn naming(a: (&str, &str), b: (&str, &str)) -> Option<Naming> {
    let family = compared_words(a.0).concat();
    if family.is_empty() || family != compared_words(b.0).concat() {
        return None;
    }
    let (a, b) = (compared_words(a.1), compared_words(b.1));
    let initials =
        |w: &[String]| -> Vec<char> { w.iter().filter_map(|w| w.chars().next()).collect() };
    let (ia, ib) = (initials(&a), initials(&b));
    let shared = ia.len().min(ib.len());
    if ia[..shared] != ib[..shared] {
        return None;
    }
    match (a.first(), b.first()) {
        (Some(x), Some(y)) if x.len() > 1 && y.len() > 1 => (x == y).then_some(Naming::Full),
        (None, None) => Some(Naming::Full),
        _ => Some(Naming::Initials),
    }
}

/// [`naming`] of two display names, each split by the name model
/// ([`NameParts::split`]).
pub fn same_name(a: &str, b: &str) -> Option<Naming> {
    let (a, b) = (compared_parts(a), compared_parts(b));
    naming((&a.0, &a.1), (&b.0, &b.1))
}

/// The family name of `name` as [`same_name`] compares it, folded and
/// without particles: names it finds the same have one key, so a key
/// compared first rules out most pairs without comparing given names.
pub fn family_key(name: &str) -> String {
    compared_words(&compared_parts(name).0).concat()
}

/// A display name split by the name model into (family name with its
/// particles, given names).
fn compared_parts(name: &str) -> (String, String) {
    let p = NameParts::split(name);
    let family = match p.particles.is_empty() {
        true => p.family,
        false => format!("{} {}", p.particles, p.family),
    };
    (family, p.given)
}

/// The words [`naming`] compares of a family or given name: folded, and
/// without particles unless it is all particles.
fn compared_words(text: &str) -> Vec<String> {
    let folded = fold(text);
    let all: Vec<&str> = folded.split(' ').filter(|w| !w.is_empty()).collect();
    let kept: Vec<&str> = all.iter().copied().filter(|w| !is_particle(w)).collect();
    match kept.is_empty() {
        true => all.into_iter().map(str::to_string).collect(),
        false => kept.into_iter().map(str::to_string).collect(),
    }
}

fn is_cjk(word: &str) -> bool {
    word.chars().next().is_some_and(|c| {
        matches!(c as u32,
            0x3040..=0x30FF      // Hiragana, Katakana
            | 0x3400..=0x4DBF    // CJK Extension A
            | 0x4E00..=0x9FFF    // CJK Unified Ideographs
            | 0xAC00..=0xD7AF    // Hangul syllables
            | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
            | 0x20000..=0x2FA1F) // CJK Extensions B–F and supplement
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinned_family_names_win_over_the_model() {
        let mut pins = FamilyNames::default();
        // Vietnamese order: the family name first, `Van` a middle name.
        assert!(pins.pin("Nguyen Van Anh", "Nguyen"));
        assert_eq!(pins.parts("Nguyen Van Anh").sort_name(), "Nguyen, Van Anh");
        assert_eq!(NameParts::split("Nguyen Van Anh").family, "Van Anh");
        // A record splitting as the model does pins nothing.
        assert!(pins.pin("Giuseppe Di Battista", "Di Battista"));
        assert!(!pins.contains("Giuseppe Di Battista"));
        // `Le` is a given name by the model already; a record may say
        // otherwise.
        assert!(pins.pin("Anne Le Guen", "Le Guen"));
        assert!(!pins.contains("Anne Le Guen"));
        assert!(pins.pin("Marie De Smet", "Smet"));
        assert_eq!(pins.parts("Marie De Smet").given, "Marie De");
        // Not a part of the name: refused.
        assert!(!pins.pin("Nguyen Van Anh", "Tran"));
        assert!(!pins.pin("Nguyen Van Anh", "Van"));
        assert_eq!(pins.parts("Xiaowen Chu"), NameParts::split("Xiaowen Chu"));
        // A pin in decomposed form (NFD) pins the composed name.
        assert!(pins.pin(
            "Nguy\u{1ec5}n V\u{103}n \u{110}\u{1ee9}c",
            "Nguye\u{302}\u{303}n"
        ));
        assert_eq!(
            pins.parts("Nguy\u{1ec5}n V\u{103}n \u{110}\u{1ee9}c")
                .family,
            "Nguy\u{1ec5}n"
        );
    }

    #[test]
    fn family_names() {
        let cases = [
            ("Xiaowen Chu", "Chu, Xiaowen"),
            ("Anna van der Berg", "Berg, Anna van der"),
            ("Lucía de la Cruz", "Cruz, Lucía de la"),
            ("Ana-María Fernández", "Fernández, Ana-María"),
            ("王 明", "王, 明"),
            ("王明", "王, 明"),
            ("Madonna", "Madonna"),
            ("Mohammed Al-Farsi", "Al-Farsi, Mohammed"),
            // Capitalised particles after the first word: the family name.
            ("Giuseppe Di Battista", "Di Battista, Giuseppe"),
            ("Yohann De Castro", "De Castro, Yohann"),
            ("Giordano Da Lozzo", "Da Lozzo, Giordano"),
            ("Jean-Claude Van Damme", "Van Damme, Jean-Claude"),
            ("Anna Van der Berg", "Van der Berg, Anna"),
            ("Ahmed Ben Ali", "Ben Ali, Ahmed"),
            ("Marine Le Pen", "Le Pen, Marine"),
            ("Le Song", "Song, Le"),
            ("Ludwig van Beethoven", "Beethoven, Ludwig van"),
        ];
        for (name, shown) in cases {
            assert_eq!(NameParts::split(name).sort_name(), shown, "{name}");
        }
    }

    #[test]
    fn sorting_by_family_name_ignoring_case_and_accents() {
        let mut names = vec![
            "Zoë Ångström",
            "Anna van der Berg",
            "Xiaowen Chu",
            "Chuan Wu",
            "Émile Zola",
            "Lucía de la Cruz",
            "Bob Aalto",
        ];
        names.sort_by_key(|n| author_sort_key(n));
        assert_eq!(
            names,
            [
                "Bob Aalto",
                "Zoë Ångström",
                "Anna van der Berg",
                "Xiaowen Chu",
                "Lucía de la Cruz",
                "Chuan Wu",
                "Émile Zola"
            ]
        );
        assert!(author_sort_key("Zoe Chen") < author_sort_key("Zoë Chen"));
    }

    #[test]
    fn names_found_the_same_share_a_family_key() {
        let names = [
            "Xiaowen Chu",
            "X. Chu",
            "Xiang Chu",
            "Yuriy Brun",
            "Y. Brun",
            "Anna van der Berg",
            "A. Berg",
            "Anna Van Der Berg",
            "Zoë Ångström",
            "Zoe Angstrom",
            "Das",
            "Jean-Luc Saint-Pierre",
            "J.-L. Saint Pierre",
            "王 小明",
        ];
        let mut same = 0;
        for a in names {
            for b in names {
                if same_name(a, b).is_some() {
                    same += 1;
                    assert_eq!(family_key(a), family_key(b), "{a} / {b}");
                }
            }
        }
        // Each name with itself, and the pairs of one person.
        assert!(same > names.len(), "{same}");
        assert_eq!(family_key("Anna van der Berg"), "berg");
        assert_eq!(family_key("Zoë Ångström"), "angstrom");
        assert_ne!(family_key("Xiaowen Chu"), family_key("Chuan Wu"));
    }

    #[test]
    fn fold_ignores_case_accents_and_punctuation() {
        assert_eq!(fold("Éclair: The  Café-Study"), "eclair the cafe study");
    }
}
