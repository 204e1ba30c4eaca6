//! An arXiv record as `vellum enrich` reads it, from either source: an
//! entry of the arXiv API's Atom feed ([`from_atom`]) or a line of arXiv's
//! OAI metadata snapshot, JSON lines ([`from_snapshot_line`]).

use crate::text::names::NameParts;

/// One arXiv record: what a matched paper gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArxivRecord {
    /// The identifier without its version: `1605.08386`, `astro-ph/0601001`.
    pub id: String,
    /// The latest version known (`2` for `v2`).
    pub version: u32,
    /// The title, whitespace folded; LaTeX kept as written.
    pub title: String,
    /// The abstract, whitespace folded; LaTeX kept as written.
    pub abstract_text: String,
    /// The authors in the record's order.
    pub authors: Vec<RecordAuthor>,
    /// Category codes, the primary first.
    pub categories: Vec<String>,
    /// The DOI of the published version.
    pub doi: Option<String>,
    /// Where it was published (`Phys.Rev.D76:013009,2007`).
    pub journal_ref: Option<String>,
    /// The authors' comment (`20 pages, 3 figures`).
    pub comment: Option<String>,
    /// The date of v1, `YYYY-MM-DD`.
    pub published: String,
    /// The date of the latest version, `YYYY-MM-DD`.
    pub updated: String,
}

/// An author of a record: the name as shown and its parts for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordAuthor {
    /// `Caprice Stanley`.
    pub name: String,
    /// `Stanley` (with particles: `van der Berg`).
    pub family: String,
    /// `Caprice`, `C.`, `C.-P.`, possibly empty.
    pub given: String,
}

impl RecordAuthor {
    /// An author from a display name, split by the name model
    /// ([`NameParts`]).
    pub fn from_name(name: &str) -> RecordAuthor {
        let name = fold_space(name);
        let parts = NameParts::split(&name);
        let family = match parts.particles.is_empty() {
            true => parts.family,
            false => format!("{} {}", parts.particles, parts.family),
        };
        RecordAuthor {
            given: parts.given,
            family,
            name,
        }
    }
}

impl ArxivRecord {
    /// The year of v1.
    pub fn published_year(&self) -> Option<u16> {
        self.published.get(..4)?.parse().ok()
    }

    /// The year of the latest version.
    pub fn updated_year(&self) -> Option<u16> {
        self.updated.get(..4)?.parse().ok()
    }
}

/// Runs of whitespace (an Atom title's line breaks) as one space, ends
/// trimmed, and UTF-8 that was read as Latin-1 read again
/// ([`crate::text::undo_latin1_reading`]).
pub fn fold_space(text: &str) -> String {
    crate::text::undo_latin1_reading(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `1605.08386v2` → (`1605.08386`, 2); no version → 1.
pub fn split_version(id: &str) -> (&str, u32) {
    if let Some(at) = id.rfind('v') {
        let digits = &id[at + 1..];
        if at > 0 && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(version) = digits.parse() {
                return (&id[..at], version);
            }
        }
    }
    (id, 1)
}

/// The records of an arXiv API answer (an Atom feed). An entry without an
/// `<id>` under `/abs/` (the API's error entry) is not a record.
pub fn from_atom(xml: &str) -> Result<Vec<ArxivRecord>, String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut records = Vec::new();
    // The entry being read, and the path of element names inside it.
    let mut entry: Option<Entry> = None;
    let mut path: Vec<Vec<u8>> = Vec::new();
    let mut text = String::new();
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.buffer_position()))?;
        match event {
            Event::Eof => break,
            Event::Start(start) => {
                let name = start.local_name().as_ref().to_vec();
                if name == b"entry" {
                    entry = Some(Entry::default());
                    path.clear();
                } else if entry.is_some() {
                    path.push(name);
                }
                text.clear();
            }
            Event::Empty(element) => {
                let Some(entry) = entry.as_mut() else {
                    continue;
                };
                let term = element
                    .try_get_attribute("term")
                    .ok()
                    .flatten()
                    .map(|a| String::from_utf8_lossy(&a.value).into_owned());
                match (element.local_name().as_ref(), term) {
                    (b"category", Some(term)) => entry.categories.push(term),
                    (b"primary_category", Some(term)) => entry.primary = Some(term),
                    _ => {}
                }
            }
            Event::Text(t) => {
                text.push_str(&t.decode().map_err(|e| e.to_string())?);
            }
            Event::CData(t) => {
                text.push_str(&t.decode().map_err(|e| e.to_string())?);
            }
            Event::GeneralRef(r) => match r.resolve_char_ref().map_err(|e| e.to_string())? {
                Some(c) => text.push(c),
                None => {
                    let name = r.decode().map_err(|e| e.to_string())?;
                    let resolved = quick_xml::escape::resolve_predefined_entity(&name)
                        .ok_or_else(|| format!("an unknown entity `&{name};`"))?;
                    text.push_str(resolved);
                }
            },
            Event::End(end) => {
                let name = end.local_name().as_ref().to_vec();
                if name == b"entry" {
                    if let Some(record) = entry.take().and_then(Entry::finish) {
                        records.push(record);
                    }
                    continue;
                }
                let Some(entry) = entry.as_mut() else {
                    continue;
                };
                let value = std::mem::take(&mut text);
                match path
                    .iter()
                    .map(Vec::as_slice)
                    .collect::<Vec<_>>()
                    .as_slice()
                {
                    [b"id"] => entry.id = value.trim().to_string(),
                    [b"title"] => entry.title = fold_space(&value),
                    [b"summary"] => entry.summary = fold_space(&value),
                    [b"published"] => entry.published = value.trim().to_string(),
                    [b"updated"] => entry.updated = value.trim().to_string(),
                    [b"author", b"name"] => entry.authors.push(RecordAuthor::from_name(&value)),
                    [b"doi"] => entry.doi = Some(fold_space(&value)),
                    [b"journal_ref"] => entry.journal_ref = Some(fold_space(&value)),
                    [b"comment"] => entry.comment = Some(fold_space(&value)),
                    _ => {}
                }
                path.pop();
            }
            _ => {}
        }
    }
    Ok(records)
}

/// An Atom entry as read, before it is a record.
#[derive(Default)]
struct Entry {
    id: String,
    title: String,
    summary: String,
    published: String,
    updated: String,
    authors: Vec<RecordAuthor>,
    categories: Vec<String>,
    primary: Option<String>,
    doi: Option<String>,
    journal_ref: Option<String>,
    comment: Option<String>,
}

impl Entry {
    fn finish(self) -> Option<ArxivRecord> {
        let (_, versioned) = self.id.split_once("/abs/")?;
        let (id, version) = split_version(versioned);
        let mut categories = self.categories;
        if let Some(primary) = self.primary {
            categories.retain(|c| *c != primary);
            categories.insert(0, primary);
        }
        Some(ArxivRecord {
            id: id.to_string(),
            version,
            title: self.title,
            abstract_text: self.summary,
            authors: self.authors,
            categories,
            doi: self.doi.filter(|d| !d.is_empty()),
            journal_ref: self.journal_ref.filter(|j| !j.is_empty()),
            comment: self.comment.filter(|c| !c.is_empty()),
            published: self.published.get(..10).unwrap_or_default().to_string(),
            updated: self.updated.get(..10).unwrap_or_default().to_string(),
        })
    }
}

/// A line of the snapshot, as serde reads it: only the fields used.
#[derive(serde::Deserialize)]
struct SnapshotLine<'a> {
    #[serde(borrow)]
    id: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    title: std::borrow::Cow<'a, str>,
    #[serde(borrow, rename = "abstract", default)]
    abstract_text: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    authors: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    authors_parsed: Option<Vec<Vec<String>>>,
    #[serde(borrow, default)]
    categories: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    doi: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, rename = "journal-ref", default)]
    journal_ref: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    comments: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    versions: Vec<SnapshotVersion>,
    #[serde(default)]
    update_date: Option<String>,
}

#[derive(serde::Deserialize)]
struct SnapshotVersion {
    version: String,
    created: String,
}

/// Only the identifier and title of a snapshot line, for the first look
/// at every line (the rest is read only for lines whose title or
/// identifier is a listed paper's).
#[derive(serde::Deserialize)]
struct SnapshotTitle<'a> {
    #[serde(borrow)]
    id: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    title: std::borrow::Cow<'a, str>,
}

/// The identifier and title of a snapshot line, the title's whitespace
/// folded.
pub fn snapshot_title(line: &str) -> Result<(String, String), String> {
    serde_json::from_str::<SnapshotTitle>(line)
        .map(|t| (t.id.into_owned(), fold_space(&t.title)))
        .map_err(|e| e.to_string())
}

/// A record from one line of the snapshot. Authors come from
/// `authors_parsed` (family, given, suffix; accents already resolved)
/// where present, else from `authors` split at commas and ` and `.
pub fn from_snapshot_line(line: &str) -> Result<ArxivRecord, String> {
    let parsed: SnapshotLine = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let authors = match &parsed.authors_parsed {
        Some(list) if !list.is_empty() => list
            .iter()
            .map(|parts| {
                let part = |i: usize| parts.get(i).map_or("", |s| s.trim());
                let (family, given, suffix) = (part(0), part(1), part(2));
                let name = [given, family, suffix]
                    .iter()
                    .filter(|s| !s.is_empty())
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ");
                RecordAuthor {
                    name: fold_space(&name),
                    family: fold_space(family),
                    given: fold_space(given),
                }
            })
            .collect(),
        _ => parsed
            .authors
            .as_deref()
            .unwrap_or_default()
            .split(',')
            .flat_map(|part| part.split(" and "))
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(RecordAuthor::from_name)
            .collect(),
    };
    let versions: Vec<(u32, String)> = parsed
        .versions
        .iter()
        .filter_map(|v| {
            let number = v.version.strip_prefix('v')?.parse().ok()?;
            Some((number, rfc2822_date(&v.created)?))
        })
        .collect();
    let first = versions.iter().min_by_key(|(n, _)| *n);
    let last = versions.iter().max_by_key(|(n, _)| *n);
    let update_date = parsed.update_date.clone().unwrap_or_default();
    let nonempty = |value: &Option<std::borrow::Cow<str>>| {
        value.as_deref().map(fold_space).filter(|v| !v.is_empty())
    };
    let (id, _) = split_version(&parsed.id);
    Ok(ArxivRecord {
        id: id.to_string(),
        version: last.map_or(1, |(n, _)| *n),
        title: fold_space(&parsed.title),
        abstract_text: parsed
            .abstract_text
            .as_deref()
            .map(fold_space)
            .unwrap_or_default(),
        authors,
        categories: parsed
            .categories
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        doi: nonempty(&parsed.doi),
        journal_ref: nonempty(&parsed.journal_ref),
        comment: nonempty(&parsed.comments),
        published: first.map_or_else(|| update_date.clone(), |(_, d)| d.clone()),
        updated: last.map_or(update_date, |(_, d)| d.clone()),
    })
}

/// `Mon, 2 Apr 2007 19:18:42 GMT` → `2007-04-02`.
fn rfc2822_date(text: &str) -> Option<String> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let rest = text.split_once(',').map_or(text, |(_, rest)| rest);
    let mut words = rest.split_whitespace();
    let day: u8 = words.next()?.parse().ok()?;
    let name = words.next()?;
    let month = MONTHS.iter().position(|m| *m == name)? + 1;
    let year: u16 = words.next()?.parse().ok()?;
    Some(format!("{year:04}-{month:02}-{day:02}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/arxiv-api")
            .join(name);
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        json["body"].as_str().unwrap().to_string()
    }

    #[test]
    fn an_api_answer_gives_its_records() {
        let records = from_atom(&fixture("id_1605.08386_s0_m100_199195aa31ad.json")).unwrap();
        assert_eq!(
            records,
            [ArxivRecord {
                id: "1605.08386".into(),
                version: 1,
                title: "Heat-bath random walks with Markov bases".into(),
                abstract_text: records[0].abstract_text.clone(),
                authors: vec![
                    RecordAuthor {
                        name: "Caprice Stanley".into(),
                        family: "Stanley".into(),
                        given: "Caprice".into()
                    },
                    RecordAuthor {
                        name: "Tobias Windisch".into(),
                        family: "Windisch".into(),
                        given: "Tobias".into()
                    },
                ],
                categories: vec!["math.CO".into(), "math.ST".into()],
                doi: None,
                journal_ref: None,
                comment: Some("20 pages, 3 figures".into()),
                published: "2016-05-26".into(),
                updated: "2016-05-26".into(),
            }]
        );
        assert!(records[0]
            .abstract_text
            .starts_with("Graphs on lattice points are studied whose edges"));
        // An old-style identifier; the API's error entry is no record.
        let old = from_atom(&fixture("id_astro-ph_0601001_s0_m100_3150dca9dc76.json")).unwrap();
        assert_eq!(old[0].id, "astro-ph/0601001");
        assert!(from_atom(&fixture("id_abc_s0_m100_b79c8dcf6bc3.json"))
            .unwrap()
            .is_empty());
        let page = from_atom(&fixture("q_testing_s0_m100_cfe7536492ca.json")).unwrap();
        assert_eq!(page.len(), 100);
        assert!(page
            .iter()
            .all(|r| !r.authors.is_empty() && !r.title.contains('\n')));
    }

    #[test]
    fn a_snapshot_line_gives_its_record() {
        let line = r#"{"id":"0704.0001","submitter":"Pavel Nadolsky","authors":"C. Bal\\'azs, E. L. Berger, P. M. Nadolsky, C.-P. Yuan","title":"Calculation of prompt diphoton production cross sections at Tevatron and\n  LHC energies","comments":"37 pages, 15 figures","journal-ref":"Phys.Rev.D76:013009,2007","doi":"10.1103/PhysRevD.76.013009","report-no":"ANL-HEP-PR-07-12","categories":"hep-ph","license":null,"abstract":"  A fully differential calculation.\n","versions":[{"version":"v1","created":"Mon, 2 Apr 2007 19:18:42 GMT"},{"version":"v2","created":"Tue, 24 Jul 2007 20:10:27 GMT"}],"update_date":"2008-11-13","authors_parsed":[["Balázs","C.",""],["Berger","E. L.",""],["Nadolsky","P. M.",""],["Yuan","C. -P.",""]]}"#;
        let record = from_snapshot_line(line).unwrap();
        assert_eq!(record.id, "0704.0001");
        assert_eq!(record.version, 2);
        assert_eq!(
            record.title,
            "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
        );
        assert_eq!(record.abstract_text, "A fully differential calculation.");
        assert_eq!(record.authors[0].name, "C. Balázs");
        assert_eq!(record.authors[0].family, "Balázs");
        assert_eq!(record.authors[3].given, "C. -P.");
        assert_eq!(record.categories, ["hep-ph"]);
        assert_eq!(record.doi.as_deref(), Some("10.1103/PhysRevD.76.013009"));
        assert_eq!(
            record.journal_ref.as_deref(),
            Some("Phys.Rev.D76:013009,2007")
        );
        assert_eq!(
            (record.published.as_str(), record.updated.as_str()),
            ("2007-04-02", "2007-07-24")
        );
        assert_eq!(
            snapshot_title(line).unwrap(),
            (
                "0704.0001".to_string(),
                "Calculation of prompt diphoton production cross sections at Tevatron and LHC energies"
                    .to_string()
            )
        );
        assert!(from_snapshot_line("{\"id\": 3}").is_err());
    }
}
