//! The arXiv category taxonomy, shipped in the binary from
//! `data/arxiv-categories.toml` (codes, display names, archives, groups and
//! aliases). [`Taxonomy::resolve`] turns a code from a listing into its
//! canonical code with display name and group; the corpus uses it.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

const TAXONOMY_TOML: &str = include_str!("../../data/arxiv-categories.toml");

#[derive(Debug, Deserialize)]
struct RawTaxonomy {
    groups: BTreeMap<String, String>,
    archives: BTreeMap<String, RawArchive>,
    aliases: BTreeMap<String, String>,
    categories: BTreeMap<String, RawCategory>,
}

#[derive(Debug, Deserialize)]
struct RawArchive {
    name: String,
    group: String,
}

#[derive(Debug, Deserialize)]
struct RawCategory {
    name: String,
    archive: String,
}

/// A resolved category code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CategoryInfo {
    /// Canonical code (`cs.DC`; an alias such as `cs.NA` gives `math.NA`).
    pub code: String,
    /// Display name (`Distributed, Parallel, and Cluster Computing`); the
    /// code itself when unknown.
    pub name: String,
    /// Archive display name (`Computer Science` for `cs.DC`, `Condensed
    /// Matter` for `cond-mat.mes-hall`); empty when unknown.
    pub archive: String,
    /// Group display name (`Computer Science`); `Other` when unknown.
    pub group: String,
    /// Whether the code is in the taxonomy.
    pub known: bool,
}

/// The arXiv taxonomy: category codes with names and groups, and aliases.
#[derive(Debug)]
pub struct Taxonomy {
    raw: RawTaxonomy,
}

/// Group name for codes not in the taxonomy.
pub const UNKNOWN_GROUP: &str = "Other";

static ARXIV: LazyLock<Taxonomy> = LazyLock::new(|| Taxonomy {
    raw: toml::from_str(TAXONOMY_TOML).expect("embedded arxiv-categories.toml parses"),
});

impl Taxonomy {
    /// The taxonomy shipped with Vellum, parsed once. Panics only if the
    /// embedded file is malformed, which a unit test rules out.
    pub fn arxiv() -> &'static Taxonomy {
        &ARXIV
    }

    /// Whether `code` names a category, directly or through an alias.
    pub fn is_category(&self, code: &str) -> bool {
        self.raw.categories.contains_key(code) || self.raw.aliases.contains_key(code)
    }

    /// Whether `code` is a category, an alias or an archive of the taxonomy.
    pub fn is_known(&self, code: &str) -> bool {
        self.raw.categories.contains_key(code)
            || self.raw.aliases.contains_key(code)
            || self.raw.archives.contains_key(code)
    }

    /// Resolves a code as written in a listing: aliases map to their
    /// canonical code; unknown codes are kept with `known = false`.
    pub fn resolve(&self, code: &str) -> CategoryInfo {
        let canonical = self.raw.aliases.get(code).map_or(code, String::as_str);
        match self.raw.categories.get(canonical) {
            Some(cat) => {
                let archive = self.raw.archives.get(&cat.archive);
                let group = archive
                    .and_then(|a| self.raw.groups.get(&a.group))
                    .map_or(UNKNOWN_GROUP, String::as_str);
                CategoryInfo {
                    code: canonical.to_string(),
                    name: cat.name.clone(),
                    archive: archive.map_or_else(String::new, |a| a.name.clone()),
                    group: group.to_string(),
                    known: true,
                }
            }
            None => CategoryInfo {
                code: canonical.to_string(),
                name: canonical.to_string(),
                archive: String::new(),
                group: UNKNOWN_GROUP.to_string(),
                known: false,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_alias_and_unknown() {
        let t = Taxonomy::arxiv();
        assert_eq!(t.raw.categories.len(), 184);
        let dc = t.resolve("cs.DC");
        assert_eq!(dc.name, "Distributed, Parallel, and Cluster Computing");
        assert_eq!(dc.group, "Computer Science");
        let alias = t.resolve("cs.NA");
        assert_eq!((alias.code.as_str(), alias.known), ("math.NA", true));
        assert_eq!(alias.group, "Mathematics");
        assert!(t.is_known("quant-ph") && t.is_known("cs.SY") && !t.is_known("see"));
        assert!(t.is_known("cs") && !t.is_category("cs") && t.is_category("cs.SY"));
        let unknown = t.resolve("cs.XX");
        assert_eq!((unknown.name.as_str(), unknown.known), ("cs.XX", false));
        assert_eq!(t.resolve("quant-ph").group, "Physics");
    }
}
