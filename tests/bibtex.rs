//! BibTeX input, on real bibliographies no one here wrote (the `.bib` files
//! of the `biblatex` crate's `tests/` and of pybtex, in
//! `tests/fixtures/bibtex/`), and on entries of real arXiv records (the
//! fixtures of the PyPI package `arxiv`) beside a listing of the same paper.

use crate::common::*;
use std::collections::BTreeSet;
use std::path::Path;
use vellum::corpus::listings::paper_identity;
use vellum::diagnostics::Severity;
use vellum::input::bibtex;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(project().join("tests/fixtures/bibtex").join(name)).unwrap()
}

/// Every real bibliography (but the one of bad syntax) reads without an
/// error, and builds: each entry with a title, an author or editor and a
/// year is a paper (entries of one title are one), every other one is a
/// warning at its line. The counts are the files' own, checked by hand.
fn real_bibliographies_build_with_every_work_a_paper() {
    // (file, entries read as works, entries skipped)
    let expected = [
        ("biblatex/case.bib", 1, 0),
        ("biblatex/comments.bib", 4, 0),
        ("biblatex/cross.bib", 6, 4),
        ("biblatex/ds.bib", 14, 0),
        ("biblatex/editortypes.bib", 3, 0),
        ("biblatex/extended_name_format.bib", 3, 0),
        ("biblatex/gral.bib", 83, 0),
        ("biblatex/gral_rep_key.bib", 83, 1),
        ("biblatex/incorrect_data.bib", 2, 0),
        ("biblatex/libra.bib", 35, 0),
        ("biblatex/polaritons.bib", 38, 0),
        ("biblatex/rass.bib", 22, 0),
        ("pybtex/IEEEtran.bib", 4, 1),
        ("pybtex/cyrillic.bib", 5, 0),
        ("pybtex/extrafields.bib", 1, 0),
        ("pybtex/tugboat.bib", 2718, 2),
        ("pybtex/xampl.bib", 29, 7),
        ("pybtex/xampl_mixed.bib", 29, 7),
    ];
    for (name, works, skipped) in expected {
        let shown = Path::new("seeds").join(Path::new(name).file_name().unwrap());
        let bib = bibtex::read(fixture(name), &shown).unwrap_or_else(|e| panic!("{name}: {e}"));
        let skips = bib
            .warnings
            .iter()
            .filter(|w| w.message.contains("is skipped"))
            .count();
        assert_eq!(
            (bib.entries.len(), skips),
            (works, skipped),
            "{name}: {:#?}",
            bib.warnings
        );
        assert!(bib.warnings.iter().all(|w| w.line > 0), "{name}");
        let titles: BTreeSet<String> = bib
            .entries
            .iter()
            .map(|e| paper_identity(&e.title))
            .collect();

        let bytes = fixture(name);
        let site = temp_site(
            &[(shown.file_name().unwrap().to_str().unwrap(), &bytes)],
            "author_pages = \"all\"\n",
        );
        let (report, _) = build_memory(site.path(), None);
        assert!(
            !report.failed(),
            "{name}: {:?}",
            messages(&report, Severity::Error)
        );
        assert_eq!(report.counts[0], titles.len(), "{name}: papers");
    }
}

/// Names and accents as the real files write them come out right.
fn real_names_and_accents_come_out_right() {
    let read = |name: &str| bibtex::read(fixture(name), Path::new(name)).unwrap();
    let xampl = read("pybtex/xampl.bib");
    let full = xampl
        .entries
        .iter()
        .find(|e| e.key == "article-full")
        .unwrap();
    assert_eq!(full.authors, ["L[eslie] A. Aamport"]);
    assert_eq!(full.title, "The Gnats and Gnus Document Preparation System");
    assert_eq!(full.year, Some(1986));
    assert_eq!(full.venue.as_deref(), Some("G-Animal’s Journal"));
    let data = read("biblatex/incorrect_data.bib");
    let corbalan = data
        .entries
        .iter()
        .find(|e| e.key == "conigliocorbalan")
        .unwrap();
    assert_eq!(corbalan.authors, ["Marcelo Coniglio", "María I. Corbalán"]);
    assert_eq!(
        corbalan.title,
        "Sequent Calculi for the classical fragment of Bochvar and Halldén's Nonsense Logics"
    );
    let cyrillic = read("pybtex/cyrillic.bib");
    let viktorov = cyrillic
        .entries
        .iter()
        .find(|e| e.key == "viktorov-metodoj")
        .unwrap();
    assert_eq!(viktorov.authors, ["Михаил Маркович Викторов"]);
    assert_eq!(
        viktorov.title,
        "Методы вычисления физико-химических величин и прикладные расчёты"
    );
}

/// Bad syntax is an error at its line, and the build exits non-zero.
fn malformed_bibtex_is_an_error_at_its_line() {
    let site = temp_site(
        &[(
            "incorrect_syntax.bib",
            &fixture("biblatex/incorrect_syntax.bib"),
        )],
        "",
    );
    let (report, _) = build_memory(site.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["seeds/incorrect_syntax.bib:12: error: expected equals, found `💯`"]
    );
    let out = vellum(&["build", "--root", site.path().to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1));
    let unclosed = temp_site(
        &[("lab.bib", b"@book{a, title = {T}, author = {A B}, year = 2000}\n\n@article{b,\n  title = {Open,\n  year = 2001\n")],
        "",
    );
    let (report, _) = build_memory(unclosed.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["seeds/lab.bib:3: error: expected the entry that opens here to be closed, found the end of the file; check that its braces and quotes are balanced"]
    );
}

/// Yuriy Brun's listing of arXiv:1709.03221, and a `.bib` holding it
/// twice (the preprint and the conference version, one DOI) beside
/// arXiv:2005.14124, whose authors have no listing.
const LAB_BIB: &str = r#"% Real records: arXiv:1709.03221 and arXiv:2005.14124.
@inproceedings{galhotra2017fairness,
  author = {Galhotra, Sainyam and Brun, Yuriy and Meliou, Alexandra},
  title = {Fairness {Testing}: Testing Software for Discrimination},
  booktitle = {Proceedings of the 2017 11th Joint Meeting on Foundations of Software Engineering},
  year = {2017},
  doi = {10.1145/3106237.3106277},
  eprint = {1709.03221}, archivePrefix = {arXiv}, primaryClass = {cs.SE},
}

@misc{fairness-preprint,
  author = {Sainyam Galhotra and Yuriy Brun and Alexandra Meliou},
  title = {Fairness testing},
  year = 2017,
  doi = {https://doi.org/10.1145/3106237.3106277},
}

@inproceedings{chen2020active,
  author = {Chen, Yuqi and Xuan, Bohan and Poskitt, Christopher M. and Sun, Jun and Zhang, Fan},
  title = {Active Fuzzing for Testing and Securing Cyber-Physical Systems},
  year = 2020,
  doi = {10.1145/3395363.3397376},
  eprint = {2005.14124}, archivePrefix = {arXiv},
}
"#;

fn lab_site(extra_config: &str) -> TempDir {
    let brun = listing(
        "Yuriy Brun",
        &[(
            "Fairness Testing: Testing Software for Discrimination",
            2017,
            "This paper defines software fairness and discrimination.",
            "cs.SE cs.AI",
        )],
    );
    temp_site(
        &[("brun.txt", &brun), ("lab.bib", LAB_BIB.as_bytes())],
        extra_config,
    )
}

/// An entry and a listing record of one title are one paper, and two
/// entries of one DOI are one too: it has the entry's key, complete author
/// list (the listing owner linked, the others by name), DOI and arXiv
/// links, in the page, the Scholar tags and the exports.
fn an_entry_and_a_listing_of_one_paper_are_one() {
    let site = lab_site("");
    let (report, out) = build_memory(site.path(), None);
    // The entries give no year, categories or abstract that disagree.
    assert_eq!(report.diagnostics, []);
    assert_eq!(report.counts[0], 2, "papers");
    assert_eq!(report.counts[1], 1, "authors: Yuriy Brun only");
    let page = text(
        &out,
        "papers/fairness-testing-testing-software-for-discrimination/index.html",
    );
    assert!(page.contains(
        "<p class=\"byline\">Sainyam Galhotra, <a href=\"/authors/yuriy-brun/\">Yuriy Brun</a>, Alexandra Meliou</p>"
    ), "{page}");
    assert!(page.contains("href=\"https://arxiv.org/abs/1709.03221\""));
    assert!(page.contains("href=\"https://doi.org/10.1145/3106237.3106277\""));
    assert!(page.contains("<span class=\"venue\">Proceedings of the 2017 11th Joint Meeting on Foundations of Software Engineering</span>"));
    assert!(page.contains("<meta name=\"citation_author\" content=\"Alexandra Meliou\">"));
    let bib = text(&out, "papers/fairness-testing-testing-software-for-discrimination/fairness-testing-testing-software-for-discrimination.bib");
    assert!(bib.contains("{galhotra2017fairness,"), "{bib}");
    assert!(
        bib.contains("author = {Galhotra, Sainyam and Brun, Yuriy and Meliou, Alexandra}"),
        "{bib}"
    );
    assert!(bib.contains("eprint = {1709.03221}"), "{bib}");
    // The listing's abstract and categories stay (its record is first).
    assert!(page.contains("This paper defines software fairness and discrimination."));
    let author = text(&out, "authors/yuriy-brun/index.html");
    assert_eq!(
        author
            .matches("href=\"/papers/fairness-testing-testing-software-for-discrimination/\"")
            .count(),
        1
    );
    // The entry whose authors have no page is a paper on no author's page.
    let fuzzing = text(
        &out,
        "papers/active-fuzzing-for-testing-and-securing-cyber-physical-systems/index.html",
    );
    assert!(
        fuzzing.contains(
            "<p class=\"byline\">Yuqi Chen, Bohan Xuan, Christopher M. Poskitt, Jun Sun, Fan Zhang</p>"
        ),
        "{fuzzing}"
    );
    assert!(!out.keys().any(|k| k.starts_with("authors/jun-sun/")));
}

/// A profile gives its author a page; `author_pages = "all"` gives every
/// author one.
fn profiles_and_the_setting_give_author_pages() {
    let site = lab_site("");
    write(
        site.path(),
        "content/authors/jun-sun.md",
        b"+++\nhomepage = \"https://example.org/~sun/\"\n+++\n",
    );
    let (report, out) = build_memory(site.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(report.counts[1], 2);
    let sun = text(&out, "authors/jun-sun/index.html");
    assert!(sun.contains(
        "href=\"/papers/active-fuzzing-for-testing-and-securing-cyber-physical-systems/\""
    ));
    let all = lab_site("author_pages = \"all\"\n");
    let (report, out) = build_memory(all.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    // Galhotra, Brun, Meliou, Chen, Xuan, Poskitt, Sun, Zhang.
    assert_eq!(report.counts[1], 8);
    assert!(out.contains_key("authors/alexandra-meliou/index.html"));
    let wrong = lab_site("author_pages = \"everyone\"\n");
    let (report, _) = build_memory(wrong.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["site.toml:3: error: expected `author_pages` to be \"listed\" (listing owners and authors with a profile) or \"all\", found `everyone`"]
    );
    // A file none of whose authors has a page says so, in agreeing numbers.
    let lone = temp_site(
        &[(
            "one.bib",
            b"@article{k, author = {Ada Lovelace}, title = {Notes}, year = 1843}\n",
        )],
        "",
    );
    let (report, _) = build_memory(lone.path(), None);
    assert!(
        messages(&report, Severity::Warning).contains(&"seeds/one.bib: warning: expected an author with an author page among the file's 1 entry, found none, so they are on no author's page; add a listing or a profile content/authors/<slug>.md for the site's authors, or set `author_pages = \"all\"` in site.toml".to_string()),
        "{:?}",
        report.diagnostics
    );
}

/// An entry that writes a listing owner with initials (arXiv:2407.18756,
/// `Spieker, H.`) is on the owner's page, the name linked; an initial two
/// owners share links neither.
fn initials_name_a_listing_owner() {
    let spieker = listing(
        "Helge Spieker",
        &[(
            "Testing Deep Learning Models: A First Comparative Study of Multiple Testing Techniques",
            2022,
            "Deep Learning (DL) has revolutionized the capabilities of vision-based systems.",
            "cs.LG cs.SE",
        )],
    );
    let bib = b"@article{spieker2024evaluating,\n  author = {Spieker, H. and Belmecheri, N. and Gotlieb, A. and Lazaar, N.},\n  title = {Evaluating Human Trajectory Prediction with Metamorphic Testing},\n  year = 2024,\n  doi = {10.1145/3679006.3685071},\n}\n";
    let site = temp_site(&[("spieker.txt", &spieker), ("lab.bib", bib)], "");
    let (report, out) = build_memory(site.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let author = text(&out, "authors/helge-spieker/index.html");
    assert!(author.contains(
        "href=\"/papers/evaluating-human-trajectory-prediction-with-metamorphic-testing/\""
    ));
    // Lists name the owner as the entry writes them: in bold on their own
    // page, linked elsewhere.
    let names = ", N. Belmecheri, A. Gotlieb, N. Lazaar</p>";
    let own = format!("<p class=\"byline\"><strong>H. Spieker</strong>{names}");
    assert!(author.contains(&own), "{author}");
    let year = text(&out, "years/2024/index.html");
    let linked =
        format!("<p class=\"byline\"><a href=\"/authors/helge-spieker/\">H. Spieker</a>{names}");
    assert!(year.contains(&linked), "{year}");
    let page = text(
        &out,
        "papers/evaluating-human-trajectory-prediction-with-metamorphic-testing/index.html",
    );
    assert!(page.contains("<p class=\"byline\"><a href=\"/authors/helge-spieker/\">H. Spieker</a>, N. Belmecheri, A. Gotlieb, N. Lazaar</p>"), "{page}");
    // A second owner whose name the initial also fits: the entry's name is
    // neither's.
    let other = listing("Hans Spieker", &[("Another Paper", 2020, "Text.", "cs.SE")]);
    write(site.path(), "seeds/hans.txt", &other);
    let (report, out) = build_memory(site.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let page = text(
        &out,
        "papers/evaluating-human-trajectory-prediction-with-metamorphic-testing/index.html",
    );
    assert!(
        page.contains("<p class=\"byline\">H. Spieker, N. Belmecheri, A. Gotlieb, N. Lazaar</p>"),
        "{page}"
    );
}

/// `vellum serve`'s rebuilds of a site with a `.bib` equal full builds,
/// after an edit of the `.bib` (told or not which path changed) and of a
/// listing, and with the papers of no author's page in the patched merge.
fn serve_rebuilds_with_bibtex_equal_full_builds() {
    use crate::serve::{cached_equals_fresh, told_equals_fresh};
    let site = lab_site("");
    let root = site.path();
    let mut cache = vellum::serve::cache::RebuildCache::default();
    let mut sink = vellum::output::MemorySink::default();
    cached_equals_fresh(root, &mut cache, &mut sink);
    let edited = LAB_BIB.replace("Active Fuzzing for Testing", "Active Fuzzing for Attacking");
    write(root, "seeds/lab.bib", edited.as_bytes());
    let rendered = cached_equals_fresh(root, &mut cache, &mut sink);
    assert!(
        rendered.contains(
            &"papers/active-fuzzing-for-attacking-and-securing-cyber-physical-systems/index.html"
                .to_string()
        ),
        "{rendered:?}"
    );
    let edited = edited.replace("year = 2020", "year = 2021");
    write(root, "seeds/lab.bib", edited.as_bytes());
    told_equals_fresh(
        root,
        &mut cache,
        &mut sink,
        Some(vec!["seeds/lab.bib".into()]),
    );
    let brun = listing(
        "Yuriy Brun",
        &[(
            "Fairness Testing: Testing Software for Discrimination",
            2017,
            "Edited.",
            "cs.SE",
        )],
    );
    write(root, "seeds/brun.txt", &brun);
    told_equals_fresh(
        root,
        &mut cache,
        &mut sink,
        Some(vec!["seeds/brun.txt".into()]),
    );
    std::fs::remove_file(root.join("seeds/lab.bib")).unwrap();
    told_equals_fresh(
        root,
        &mut cache,
        &mut sink,
        Some(vec!["seeds/lab.bib".into()]),
    );
    assert!(!sink.site.keys().any(|k| k.contains("active-fuzzing")));
}

/// A key two `.bib` files give two papers is kept by the first paper; the
/// other gets the next free suffix, so no export holds a key twice.
fn a_key_given_twice_stays_unique() {
    let a = b"@misc{m1, title = {First Paper}, author = {Zoe Chen}, year = 2001}\n";
    let b = b"@misc{m1, title = {Second Paper}, author = {Zoe Chen}, year = 2000}\n";
    let site = temp_site(&[("a.bib", a), ("b.bib", b)], "author_pages = \"all\"\n");
    let (report, out) = build_memory(site.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let bib = text(&out, "authors/zoe-chen/zoe-chen.bib");
    assert_eq!(bib.matches("@misc{m1,").count(), 1, "{bib}");
    assert_eq!(bib.matches("@misc{m1a,").count(), 1, "{bib}");
    // One line break between entries, none at the end.
    assert!(
        bib.starts_with("@misc{m1,\n  title = {First {Paper}},\n"),
        "{bib}"
    );
    assert!(
        bib.contains("/papers/first-paper/}\n}\n@misc{m1a,\n"),
        "{bib}"
    );
    assert!(bib.ends_with("/papers/second-paper/}\n}"), "{bib}");
}

/// An entry without a year (libra.bib's `bitmexresearchBriefHistoryStablecoins`,
/// an `@online` post) is an undated paper: no year row, date tag, feed
/// entry or `year` in its exports, under "Undated" on its author's page.
fn an_entry_without_a_year_is_an_undated_paper() {
    let site = temp_site(
        &[("libra.bib", &fixture("biblatex/libra.bib"))],
        "author_pages = \"all\"\n",
    );
    let (report, out) = build_memory(site.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let dir = "papers/a-brief-history-of-stablecoins-part-1";
    let page = text(&out, &format!("{dir}/index.html"));
    assert!(
        page.contains(
            "<p class=\"byline\"><a href=\"/authors/bitmex-research/\">BitMEX Research</a></p>"
        ),
        "{page}"
    );
    let meta = page.split("<p class=\"paper-meta\">").nth(1).unwrap();
    assert!(
        !meta.split("</p>").next().unwrap().contains("/years/"),
        "{meta}"
    );
    assert!(!page.contains("citation_publication_date"));
    assert!(!page.contains("datePublished"));
    assert!(page.contains(
        "<meta name=\"citation_title\" content=\"A Brief History of Stablecoins (Part 1)\">"
    ));
    let bib = text(
        &out,
        &format!("{dir}/a-brief-history-of-stablecoins-part-1.bib"),
    );
    assert!(
        bib.starts_with("@misc{bitmexresearchBriefHistoryStablecoins,\n"),
        "{bib}"
    );
    assert!(!bib.contains("year ="), "{bib}");
    let author = text(&out, "authors/bitmex-research/index.html");
    assert!(author.contains("<h2 class=\"group-heading\" id=\"year-undated\">Undated</h2>"));
    assert!(!text(&out, "atom.xml").contains("a-brief-history-of-stablecoins-part-1"));
    let corpus: serde_json::Value = serde_json::from_str(text(&out, "corpus.json")).unwrap();
    let entry = corpus["papers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["slug"] == "a-brief-history-of-stablecoins-part-1")
        .unwrap();
    assert_eq!(entry["year"], serde_json::Value::Null);
    // The undated papers sort last, and have no year term.
    let papers = corpus["papers"].as_array().unwrap();
    assert_eq!(papers.iter().filter(|p| p["year"].is_null()).count(), 3);
    assert!(papers.iter().rev().take(3).all(|p| p["year"].is_null()));
    let years: BTreeSet<u64> = papers.iter().filter_map(|p| p["year"].as_u64()).collect();
    assert_eq!(report.counts[2], years.len());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
    /// The BibTeX reader never panics, and every error it gives is at a
    /// line of the file, on text made of BibTeX's own pieces.
    fn bibtex_reader_never_panics(pieces in proptest::collection::vec(proptest::sample::select(vec![
        "@article{", "@STRING{", "@preamble{", "@comment{", "@misc(", "@xdata{", "k1,", "k2,", " title = ",
        " author = ", " editor = ", " year = ", " crossref = {k1}", " xdata = {k2}", " date = {2019-13}",
        "{", "}", "(", ")", "\"", "#", ",", "=", "\\'e", "{\\\"o}", "$x^2$", " and ", "others", "jan",
        "1999", "Knuth, Donald", "\n", " ", "%", "é", "\u{0}", "@",
    ]), 0..60)) {
        let text: String = pieces.concat();
        let lines = text.matches('\n').count() + 1;
        match bibtex::read(text.clone().into_bytes(), Path::new("seeds/x.bib")) {
            Ok(bib) => {
                for w in &bib.warnings {
                    proptest::prop_assert!(w.line <= lines, "{w}");
                }
            }
            Err(e) => proptest::prop_assert!(e.line >= 1 && e.line <= lines, "{e}"),
        }
    }
}

pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(bibtex:
        real_bibliographies_build_with_every_work_a_paper,
        real_names_and_accents_come_out_right,
        malformed_bibtex_is_an_error_at_its_line,
        an_entry_and_a_listing_of_one_paper_are_one,
        profiles_and_the_setting_give_author_pages,
        initials_name_a_listing_owner,
        an_entry_without_a_year_is_an_undated_paper,
        a_key_given_twice_stays_unique,
        serve_rebuilds_with_bibtex_equal_full_builds,
        bibtex_reader_never_panics,
    )
}
