//! The listing parser and the corpus on the real listings and on every
//! fixture of `tests/fixtures/listings` (copied from the format's shared
//! fixtures), checked against its `expected.json`.

use crate::common::{project, temp_site, vellum};
use proptest::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use vellum::corpus::categories::Taxonomy;
use vellum::corpus::listings::ParsedListing;
use vellum::corpus::Corpus;
use vellum::diagnostics::Diagnostics;
use vellum::input::listing::{parse, ListingError};

fn fixtures() -> PathBuf {
    project().join("tests/fixtures/listings")
}

fn expected() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixtures().join("expected.json")).unwrap())
        .unwrap()
}

fn corpus_of(dir: &Path) -> (Corpus, Diagnostics) {
    let mut listings = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let listing = parse(&std::fs::read(&path).unwrap()).unwrap();
        listings.push(ParsedListing::new(
            PathBuf::from(path.file_name().unwrap()),
            listing.into(),
        ));
    }
    let diagnostics = Diagnostics::new();
    let corpus = Corpus::build(listings, Taxonomy::arxiv(), &[], &diagnostics);
    (corpus, diagnostics)
}

fn real_listings_have_eighteen_records_each() {
    let mut years = Vec::new();
    for (file, author, total, page) in [
        ("000_a6125076a0f68246.txt", "Chuan Wu", 55, 3),
        ("002_6e23376fd8dff3a4.txt", "Xiaowen Chu", 91, 5),
    ] {
        let listing = parse(&std::fs::read(project().join("seeds").join(file)).unwrap()).unwrap();
        assert_eq!(listing.author, author);
        assert_eq!(listing.records.len(), 18, "{file}");
        let count = listing.count.unwrap();
        assert_eq!((count.total, count.page), (total, page));
        assert!(listing
            .records
            .iter()
            .all(|r| r.source == "arXiv" && r.categories.len() == 1));
        years.extend(listing.records.iter().map(|r| r.year));
    }
    assert_eq!(years.iter().filter(|&&y| y == 2024).count(), 34);
    assert_eq!(years.iter().filter(|&&y| y == 2025).count(), 2);
}

fn every_valid_fixture_gives_its_expected_corpus() {
    let expected = expected();
    let cases = expected["valid"].as_object().unwrap();
    assert_eq!(cases.len(), 5);
    for (case, want) in cases {
        let (corpus, _) = corpus_of(&fixtures().join("valid").join(case));
        let mut names: Vec<&str> = corpus.authors.iter().map(|a| a.name.as_str()).collect();
        let mut want_names: Vec<&str> = want["authors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        names.sort();
        want_names.sort();
        assert_eq!(names, want_names, "{case}: authors");
        let want_papers = want["papers"].as_array().unwrap();
        assert_eq!(
            corpus.papers.len(),
            want_papers.len(),
            "{case}: paper count"
        );
        for want_paper in want_papers {
            let titles: Vec<&str> = match want_paper.get("title") {
                Some(t) => vec![t.as_str().unwrap()],
                None => want_paper["title_one_of"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect(),
            };
            let paper = corpus
                .papers
                .iter()
                .find(|p| titles.contains(&p.title.source()))
                .unwrap_or_else(|| panic!("{case}: no paper titled {titles:?}"));
            assert_eq!(
                paper.year as u64,
                want_paper["year"].as_u64().unwrap(),
                "{case}: year"
            );
            let codes: Vec<&str> = paper
                .categories
                .iter()
                .map(|&c| corpus.categories[c].code.as_str())
                .collect();
            assert_eq!(
                codes[0],
                want_paper["primary"].as_str().unwrap(),
                "{case}: primary"
            );
            if let Some(secondary) = want_paper.get("secondary") {
                let want: Vec<&str> = secondary
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap())
                    .collect();
                assert_eq!(&codes[1..], want.as_slice(), "{case}: secondary");
            }
            if let Some(n) = want_paper.get("abstract_paragraphs") {
                let paragraphs = if paper.abstract_text.is_empty() {
                    0
                } else {
                    paper.abstract_text.html().matches("<p>").count()
                };
                assert_eq!(paragraphs as u64, n.as_u64().unwrap(), "{case}: paragraphs");
            }
            if let Some(fragment) = want_paper.get("abstract_contains") {
                assert!(
                    paper
                        .abstract_text
                        .plain()
                        .contains(fragment.as_str().unwrap()),
                    "{case}"
                );
            }
            let mut authors: Vec<&str> = paper
                .authors
                .iter()
                .map(|&a| corpus.authors[a].name.as_str())
                .collect();
            let mut want_authors: Vec<&str> = want_paper["authors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            authors.sort();
            want_authors.sort();
            assert_eq!(authors, want_authors, "{case}: authors of {titles:?}");
        }
    }
}

fn kenji_keeps_listing_order_across_pages() {
    let (corpus, diagnostics) = corpus_of(&fixtures().join("valid/pages-and-coauthors"));
    let kenji = corpus
        .authors
        .iter()
        .find(|a| a.name == "Kenji Satō")
        .unwrap();
    let years: Vec<u16> = kenji
        .papers
        .iter()
        .map(|&p| corpus.papers[p].year)
        .collect();
    assert_eq!(years, [2024, 2023, 2019]);
    assert_eq!(kenji.claimed_total, Some(3));
    assert!(!kenji.is_partial());
    let shared = corpus.papers.iter().find(|p| p.year == 2019).unwrap();
    assert_eq!(
        shared.title.source(),
        "Fast Graphs: A Study",
        "first file by path wins"
    );
    assert_eq!(shared.authors.len(), 2, "one paper, listed by both");
    // Same year, category and abstract: no disagreement warning.
    assert!(diagnostics.into_sorted(false).is_empty());
}

fn accented_and_plain_names_are_two_authors_with_stable_slugs() {
    let (corpus, _) = corpus_of(&fixtures().join("valid/accents"));
    let slug_of = |name: &str| {
        corpus
            .authors
            .iter()
            .find(|a| a.name == name)
            .unwrap()
            .slug
            .clone()
    };
    assert_eq!(slug_of("Zoë Chen"), "zoe-chen");
    let plain = slug_of("Zoe Chen");
    assert!(
        plain.starts_with("zoe-chen-") && plain.len() == 17,
        "{plain}"
    );
    // Zoë alone gets the same slug: adding Zoe Chen renamed nobody.
    let dir = crate::common::tempdir();
    std::fs::copy(
        fixtures().join("valid/accents/zoe-umlaut.txt"),
        dir.path().join("z.txt"),
    )
    .unwrap();
    let (alone, _) = corpus_of(dir.path());
    assert_eq!(alone.authors[0].slug, "zoe-chen");
}

fn disagreeing_duplicates_warn_naming_both_places() {
    let a = "Ann A\n\nPublications and source records attributed to Ann A.\n\narXiv2020\n\nShared Work\n\nOne.\n\ncs.LG\n";
    let b = "Bob B\n\nPublications and source records attributed to Bob B.\n\narXiv2021\n\nshared work!\n\nTwo.\n\ncs.DC\n";
    // Agrees with a.txt in everything but the title's punctuation: no warning.
    let c = "Cat C\n\nPublications and source records attributed to Cat C.\n\narXiv2020\n\nShared work.\n\nOne.\n\ncs.LG\n";
    let listings = vec![
        ParsedListing::new("seeds/b.txt".into(), parse(b.as_bytes()).unwrap().into()),
        ParsedListing::new("seeds/c.txt".into(), parse(c.as_bytes()).unwrap().into()),
        ParsedListing::new("seeds/a.txt".into(), parse(a.as_bytes()).unwrap().into()),
    ];
    let diagnostics = Diagnostics::new();
    let corpus = Corpus::build(listings, Taxonomy::arxiv(), &[], &diagnostics);
    assert_eq!(corpus.papers.len(), 1);
    assert_eq!(
        corpus.papers[0].year, 2020,
        "seeds/a.txt comes first by path"
    );
    assert_eq!(corpus.papers[0].authors.len(), 3);
    let messages: Vec<String> = diagnostics
        .into_sorted(false)
        .iter()
        .map(|d| d.to_string())
        .collect();
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(
        messages[0].starts_with("seeds/b.txt:5: warning:"),
        "{}",
        messages[0]
    );
    assert!(
        messages[0].contains(
            "agree with seeds/a.txt:5, found differences in year 2021 vs 2020, \
             categories `cs.DC` vs `cs.LG`, abstract; keeping seeds/a.txt:5"
        ),
        "{}",
        messages[0]
    );
}

fn a_build_shows_each_papers_first_record_and_warns_like_the_merge() {
    // A build parses listings in path order and drops the abstract of every
    // record whose paper an earlier one already holds: what it shows and
    // warns must still be the first record's (seeds/a.txt before b.txt).
    let a = "Ann A\n\nPublications and source records attributed to Ann A.\n\narXiv2020\n\nShared Work\n\nFirst abstract.\n\ncs.LG\n";
    let b = "Bob B\n\nPublications and source records attributed to Bob B.\n\narXiv2020\n\nshared work!\n\nSecond abstract.\n\ncs.LG\n\narXiv2019\n\nOnly Bob\n\nBob alone.\n\ncs.DC\n";
    let site = temp_site(&[("b.txt", b.as_bytes()), ("a.txt", a.as_bytes())], "");
    let (report, output) = crate::common::build_memory(site.path(), None);
    let page = |path: &str| String::from_utf8(output[path].to_vec()).unwrap();
    let shared = page("papers/shared-work/index.html");
    assert!(
        shared.contains("<div class=\"abstract\"><p>First abstract.</p></div>"),
        "{shared}"
    );
    assert!(!shared.contains("Second abstract."));
    let alone = page("papers/only-bob/index.html");
    assert!(
        alone.contains("<div class=\"abstract\"><p>Bob alone.</p></div>"),
        "{alone}"
    );
    let messages: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        messages,
        [
            "seeds/b.txt:5: warning: expected this record of `shared work!` to agree with \
          seeds/a.txt:5, found differences in abstract; keeping seeds/a.txt:5"
        ]
    );
}

fn unknown_categories_are_kept_with_a_warning_and_aliases_resolve() {
    let text = "Ann A\n\narXiv2020\n\nT\n\ncs.XX cs.NA\n";
    let listings = vec![ParsedListing::new(
        "seeds/a.txt".into(),
        parse(text.as_bytes()).unwrap().into(),
    )];
    let diagnostics = Diagnostics::new();
    let corpus = Corpus::build(listings, Taxonomy::arxiv(), &[], &diagnostics);
    let codes: Vec<(&str, &str)> = corpus
        .categories
        .iter()
        .map(|c| (c.code.as_str(), c.name.as_str()))
        .collect();
    assert_eq!(
        codes,
        [("math.NA", "Numerical Analysis"), ("cs.XX", "cs.XX")]
    );
    let messages = diagnostics.into_sorted(false);
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].line, 3);
    assert!(messages[0].message.contains("`cs.XX`"));
}

fn every_error_fixture_gives_its_line() {
    let expected = expected();
    for (file, want) in expected["errors"].as_object().unwrap() {
        let bytes = std::fs::read(fixtures().join("errors").join(file)).unwrap();
        let err: ListingError = parse(&bytes).unwrap_err();
        assert_eq!(
            err.line() as u64,
            want["line"].as_u64().unwrap(),
            "{file}: {err}"
        );
        assert!(err.to_string().starts_with("expected "), "{file}: {err}");
    }
}

fn every_error_fixture_fails_the_build_beside_a_valid_listing() {
    let expected = expected();
    let valid = crate::common::olumide_listing();
    for (file, want) in expected["errors"].as_object().unwrap() {
        let bytes = std::fs::read(fixtures().join("errors").join(file)).unwrap();
        let site = temp_site(&[(file, &bytes), ("olumide.txt", &valid)], "");
        let root = site.path().to_str().unwrap();
        let out = vellum(&["build", "--root", root], &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{file}: {stderr}");
        let location = format!("seeds/{file}:{}: error: expected", want["line"]);
        assert!(stderr.contains(&location), "{file}: {stderr}");
        assert!(
            !site.path().join("public").exists(),
            "{file}: nothing written"
        );
    }
}

fn all_errors_are_reported_sorted_by_file() {
    let dir = fixtures().join("errors");
    let files: Vec<(String, Vec<u8>)> = ["no-title.txt", "bad-year.txt"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read(dir.join(f)).unwrap()))
        .collect();
    let seeds: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let site = temp_site(&seeds, "");
    let out = vellum(&["build", "--root", site.path().to_str().unwrap()], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = stderr
        .find("seeds/bad-year.txt:9:")
        .expect("bad-year reported");
    let second = stderr
        .find("seeds/no-title.txt:9:")
        .expect("no-title reported");
    assert!(first < second, "{stderr}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    fn parser_never_panics_on_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse(&bytes);
    }

    fn parser_never_panics_on_listing_shaped_text(
        lines in proptest::collection::vec(
            prop_oneof![
                Just(String::new()),
                Just("arXiv subjects".to_string()),
                Just("Publications and source records attributed to Ann.".to_string()),
                Just("At least 3 records · Page 2Linked to original sources".to_string()),
                "[A-Za-z.-]{0,6}[0-9]{0,6}",
                "[a-z-]{1,5}(\\.[A-Za-z-]{1,4})?( ?[;,] ?[a-z]{1,3}\\.[A-Z]{2})?↗?",
                "\\PC{0,30}",
            ],
            0..40,
        )
    ) {
        let text = lines.join("\n");
        if let Ok(listing) = parse(text.as_bytes()) {
            prop_assert!(listing.records.iter().all(|r| !r.categories.is_empty() && !r.title.is_empty()));
        }
    }
}

/// Titles for generated listings: two spellings of one paper, two papers
/// whose slugs collide, and others.
const TITLES: [&str; 7] = [
    "Fast Graphs",
    "Fast graphs!",
    "Zoë Graphs",
    "Zoe Graphs",
    "Slow Trees",
    r"A $\alpha$-Divergence Study",
    "Learned Cost Models",
];
/// Category lines: known codes, an alias pair in two orders, an unknown code.
const CATEGORY_LINES: [&str; 5] = [
    "cs.DS",
    "cs.LG cs.DS",
    "zz.Unknown",
    "math.CO",
    "stat.ML, cs.LG",
];
/// Authors of the generated listings, by listing; Kenji Satō has two.
const AUTHORS: [&str; 4] = ["Mei Lin", "Kenji Satō", "Kenji Satō", "Ana Lima"];

/// A generated listing: its page number and records, each (title, year,
/// abstract, category line) as indexes into the pools above.
type Generated = (u32, Vec<(usize, u16, usize, usize)>);

fn generated_listing() -> impl Strategy<Value = Generated> {
    (
        1u32..4,
        proptest::collection::vec(
            (
                0..TITLES.len(),
                2018u16..2021,
                0..3usize,
                0..CATEGORY_LINES.len(),
            ),
            1..5,
        ),
    )
}

/// Listing `index` as parsed from the text `generated` describes.
fn parsed_listing(index: usize, (page, records): &Generated) -> ParsedListing {
    let author = AUTHORS[index];
    let mut text = format!(
        "arXiv subjects\n\n{author}\n\nPublications and source records attributed to {author}.\n\nAt least 9 records · Page {page}Linked to original sources\n\n"
    );
    for &(title, year, abstract_text, categories) in records {
        let abstract_text =
            ["", "We study graphs.\n\n", "We study $x^2$ graphs.\n\n"][abstract_text];
        text.push_str(&format!(
            "arXiv{year}\n\n{}\n\n{abstract_text}{}↗\n\n",
            TITLES[title], CATEGORY_LINES[categories]
        ));
    }
    let listing = parse(text.as_bytes()).expect("generated listings parse");
    ParsedListing::new(format!("seeds/{index}.txt").into(), listing.into())
}

proptest! {
    /// `vellum serve`'s corpus, patched listing by listing, equals the
    /// corpus `vellum build` merges from the same listings, with the same
    /// warnings, after every edit: papers moving in the global order,
    /// records of one paper taking turns being chosen, slugs colliding and
    /// freed, categories and years coming and going, pages repeated.
    fn a_patched_corpus_equals_a_merged_one_after_every_edit(
        first in proptest::collection::vec(generated_listing(), AUTHORS.len()),
        edits in proptest::collection::vec(
            proptest::collection::vec((0..AUTHORS.len(), generated_listing()), 1..3),
            1..6,
        ),
    ) {
        let mut listings: Vec<ParsedListing> =
            first.iter().enumerate().map(|(i, g)| parsed_listing(i, g)).collect();
        let mut merge = vellum::corpus::merge::Merge::default();
        let texts = vellum::text::TextMemo::default();
        for step in 0..=edits.len() {
            if step > 0 {
                for (index, generated) in &edits[step - 1] {
                    listings[*index] = parsed_listing(*index, generated);
                }
            }
            let patched_warnings = Diagnostics::new();
            // Every other step in reverse path order: the merge sorts them.
            let mut given = listings.clone();
            if step % 2 == 1 {
                given.reverse();
            }
            let (patched, was_patched) =
                merge.corpus(given, Taxonomy::arxiv(), &[], &texts, &patched_warnings);
            if !was_patched {
                texts.finish_build();
            }
            prop_assert_eq!(was_patched, step > 0);
            let merged_warnings = Diagnostics::new();
            let merged = Corpus::build(listings.clone(), Taxonomy::arxiv(), &[], &merged_warnings);
            prop_assert_eq!(format!("{patched:#?}"), format!("{merged:#?}"), "after edit {}", step);
            prop_assert_eq!(patched_warnings.into_sorted(false), merged_warnings.into_sorted(false));
        }
    }
}

/// This file's tests, for the harness in `tests/main.rs`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(listings: real_listings_have_eighteen_records_each, every_valid_fixture_gives_its_expected_corpus, kenji_keeps_listing_order_across_pages, accented_and_plain_names_are_two_authors_with_stable_slugs, disagreeing_duplicates_warn_naming_both_places, a_build_shows_each_papers_first_record_and_warns_like_the_merge, unknown_categories_are_kept_with_a_warning_and_aliases_resolve, every_error_fixture_gives_its_line, every_error_fixture_fails_the_build_beside_a_valid_listing, all_errors_are_reported_sorted_by_file, parser_never_panics_on_bytes, parser_never_panics_on_listing_shaped_text, a_patched_corpus_equals_a_merged_one_after_every_edit)
}
