//! Matching listed papers to arXiv records, on real records: the API
//! answers of the PyPI package `arxiv` (`tests/fixtures/arxiv-api/`) and a
//! snapshot made from them with decoys (`make_snapshot.py` there).

use crate::common::arxiv_server::{ArxivServer, Fault};
use std::collections::BTreeMap;
use vellum::enrich::matching::{decide, title_key, Listed, Outcome, Rejection};
use vellum::enrich::record::{from_atom, from_snapshot_line, ArxivRecord};

fn fixtures() -> std::path::PathBuf {
    crate::common::project().join("tests/fixtures/arxiv-api")
}

/// The records of every recorded API answer, by identifier.
fn api_records() -> BTreeMap<String, ArxivRecord> {
    let mut records = BTreeMap::new();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let answer: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for record in from_atom(answer["body"].as_str().unwrap()).unwrap() {
            records.insert(record.id.clone(), record);
        }
    }
    records
}

fn snapshot() -> Vec<ArxivRecord> {
    std::fs::read_to_string(fixtures().join("snapshot.jsonl"))
        .unwrap()
        .lines()
        .map(|line| from_snapshot_line(line).unwrap())
        .collect()
}

/// The API's Atom and the snapshot's JSON give the same records.
fn both_readers_agree_on_the_real_records() {
    let api = api_records();
    let snapshot = snapshot();
    assert_eq!(api.len(), 105);
    assert_eq!(snapshot.len(), 108, "105 records and 3 decoys");
    // The recorded answers hold UTF-8 read as Latin-1 (`ClÃ©ment`): the
    // readers read it again.
    assert_eq!(api["2106.13414"].authors[0].name, "Clément L. Canonne");
    assert!(api["2106.13414"]
        .abstract_text
        .contains("complexity is $Θ(\\sqrt{n})$"));
    for record in api.values().chain(&snapshot) {
        let text = format!(
            "{} {} {:?}",
            record.title, record.abstract_text, record.authors
        );
        assert!(!text.contains('Ã') && !text.contains('Î'), "{text}");
    }
    for record in snapshot.iter().filter(|r| !r.id.starts_with("decoy/")) {
        let from_api = &api[&record.id];
        let names = |r: &ArxivRecord| r.authors.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(record), names(from_api), "{}", record.id);
        assert_eq!(
            (
                &record.title,
                &record.categories,
                &record.published,
                &record.updated,
                record.version
            ),
            (
                &from_api.title,
                &from_api.categories,
                &from_api.published,
                &from_api.updated,
                from_api.version
            ),
            "{}",
            record.id
        );
        assert_eq!(
            (&record.doi, &record.journal_ref, &record.comment),
            (&from_api.doi, &from_api.journal_ref, &from_api.comment)
        );
    }
}

/// The listing's view of a real record, distorted as listing pages
/// distort them: LaTeX stripped from every third title, every third
/// re-cased, the year of the latest version for every other, and every
/// fourth owner written with initials.
fn listed(index: usize, record: &ArxivRecord) -> Listed {
    let title = match index % 3 {
        0 => vellum::text::latex::render(&record.title).plain,
        1 => record.title.to_uppercase(),
        _ => record.title.clone(),
    };
    let year = match index % 2 {
        0 => record.updated_year(),
        _ => record.published_year(),
    };
    let owner = &record.authors[index % record.authors.len()];
    let name = match (index % 4, owner.given.chars().next()) {
        (3, Some(initial)) => format!("{initial}. {}", owner.family),
        _ => owner.name.clone(),
    };
    Listed {
        title,
        year: year.unwrap(),
        owners: vec![vec![name]],
        categories: record.categories.clone(),
        abstract_text: record.abstract_text.clone(),
    }
}

fn candidates<'a>(records: &'a [ArxivRecord], title: &str) -> Vec<&'a ArxivRecord> {
    let key = title_key(title);
    records
        .iter()
        .filter(|r| title_key(&r.title) == key)
        .collect()
}

/// Every real record listed with distortions finds itself and no other;
/// the record with a twin (decoy/0000003) is ambiguous, not a guess; a
/// title one word apart is never a candidate; the same title by others
/// years later is rejected by owner and year.
fn distorted_listings_match_their_records_and_no_other() {
    let records = snapshot();
    let real: Vec<&ArxivRecord> = records
        .iter()
        .filter(|r| !r.id.starts_with("decoy/"))
        .collect();
    let twin = &records
        .iter()
        .find(|r| r.id == "decoy/0000003")
        .unwrap()
        .title;
    let (mut right, mut wrong, mut ambiguous, mut missed) = (0, 0, 0, Vec::new());
    for (index, record) in real.iter().enumerate() {
        let paper = listed(index, record);
        let found = candidates(&records, &paper.title);
        match decide(&paper, &found) {
            Outcome::Matched(i) if found[i].id == record.id => right += 1,
            Outcome::Matched(i) => {
                wrong += 1;
                eprintln!("{} matched {}", record.id, found[i].id);
            }
            Outcome::Ambiguous(among) => {
                assert_eq!(&record.title, twin, "{}", record.id);
                assert_eq!(among.len(), 2);
                ambiguous += 1;
            }
            Outcome::Unmatched(why) => missed.push(format!("{}: {why:?}", record.id)),
        }
    }
    let recall = right as f64 / (real.len() - ambiguous) as f64;
    eprintln!("{right} right, {wrong} wrong, {ambiguous} ambiguous, missed {missed:?}; recall {recall:.3}");
    assert_eq!(wrong, 0, "precision must be 1");
    assert_eq!(ambiguous, 1);
    assert!(recall >= 0.98, "recall {recall:.3}: {missed:?}");

    // The same title by other authors six years on: not the decoy's
    // paper for the first record's authors, and a listing by someone
    // else entirely is rejected with the reasons.
    let first = real[0];
    let mut stranger = listed(1, first);
    stranger.owners = vec![vec!["Zed Nobody".to_string()]];
    let found = candidates(&records, &stranger.title);
    assert_eq!(found.len(), 2);
    let Outcome::Unmatched(why) = decide(&stranger, &found) else {
        panic!("a stranger's paper matched");
    };
    assert_eq!(
        why.iter().map(|(_, r)| r.clone()).collect::<Vec<_>>(),
        [
            Rejection::Owner("Zed Nobody".into()),
            Rejection::Owner("Zed Nobody".into())
        ]
    );
    // The second record's title one word apart is another title.
    let second = real[1];
    assert_eq!(candidates(&records, &second.title).len(), 1);
}

/// `vellum enrich --arxiv-snapshot` on a site of listings made from real
/// records: the one paper that fits one record is matched and kept in
/// `records/arxiv.toml`; the paper with a twin record, the paper whose
/// owner is not among the authors and the title no record has are left
/// unlinked, each with a warning at its listing record; then a build
/// gives the matched paper its arXiv link and its complete authors.
fn enrich_from_a_snapshot_writes_the_records_file_and_builds_read_it() {
    use crate::common::*;
    let records = snapshot();
    let abstract_of = |id: &str| {
        records
            .iter()
            .find(|r| r.id == id)
            .unwrap()
            .abstract_text
            .clone()
    };
    let gaudel = listing(
        "Marie-Claude Gaudel",
        &[(
            "TESTING DATA TYPES IMPLEMENTATIONS FROM ALGEBRAIC SPECIFICATIONS",
            2008,
            &abstract_of("0804.0970"),
            "cs.PL",
        )],
    );
    let huber = listing(
        "M. Huber",
        &[
            (
                "Efficient Two-Stage Group Testing Algorithms for DNA Screening",
                2011,
                &abstract_of("1106.3680"),
                "cs.DM",
            ),
            ("A Title No Record Has", 2020, "Nothing.", "cs.DS"),
        ],
    );
    let nobody = listing(
        "Zed Nobody",
        &[(
            "Group Testing with Probabilistic Tests: Theory, Design and Application",
            2010,
            "Tests.",
            "cs.IT",
        )],
    );
    let site = temp_site(
        &[
            ("gaudel.txt", &gaudel),
            ("huber.txt", &huber),
            ("nobody.txt", &nobody),
        ],
        "",
    );
    let root = site.path().to_str().unwrap();
    let snapshot_file = fixtures().join("snapshot.jsonl");
    let enrich = || {
        let snapshot = snapshot_file.to_str().unwrap();
        vellum(
            &["enrich", "--root", root, "--arxiv-snapshot", snapshot],
            &[],
        )
    };
    let out = enrich();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stdout.trim(),
        "new: testing-data-types-implementations-from-algebraic-specifications: arXiv:0804.0970\nRead 108 snapshot lines; matched 1 of 4 papers (1 new, 0 changed), 1 ambiguous, 2 unmatched; wrote records/arxiv.toml"
    );
    let warnings: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        warnings,
        [
            "seeds/huber.txt:9: warning: expected one arXiv record for `Efficient Two-Stage Group Testing Algorithms for DNA Screening`, found several that fit equally: arXiv:1106.3680, arXiv:decoy/0000003; it is left unlinked: set `arxiv` in content/papers/efficient-two-stage-group-testing-algorithms-for-dna-screening.md to link it",
            &format!("seeds/huber.txt:17: warning: expected an arXiv record titled `A Title No Record Has`, found none in {}; it is left unlinked", snapshot_file.display()),
            "seeds/nobody.txt:9: warning: expected an arXiv record of `Group Testing with Probabilistic Tests: Theory, Design and Application` by its listed authors, found only arXiv:1009.3186 (Zed Nobody is not among its authors); it is left unlinked: set `arxiv` in content/papers/group-testing-with-probabilistic-tests-theory-design-and-application.md to link it",
        ]
    );
    let written = std::fs::read_to_string(site.path().join("records/arxiv.toml")).unwrap();
    let slug = "testing-data-types-implementations-from-algebraic-specifications";
    assert!(
        written.contains(&format!(
            "[papers.{slug}]\narxiv = \"0804.0970\"\nversion = 1\ntitle = \"Testing data types implementations from algebraic specifications\"\nauthors = [\"Marie-Claude Gaudel\", \"Pascale Le Gall\"]\n"
        )),
        "{written}"
    );
    assert!(
        written.contains(
            "journal_ref = \"Formal Methods and Testing, Springer-Verlag (Ed.) (2008) 209-239\""
        ),
        "{written}"
    );
    // A second run changes nothing.
    let again = enrich();
    assert!(
        String::from_utf8_lossy(&again.stdout).contains(
            "matched 0 of 3 papers (0 new, 0 changed), 1 ambiguous, 2 unmatched, 1 already matched"
        ),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    assert_eq!(
        std::fs::read_to_string(site.path().join("records/arxiv.toml")).unwrap(),
        written
    );

    let (report, built) = build_memory(site.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let page_path = format!("papers/{slug}/index.html");
    let page = String::from_utf8_lossy(&built[page_path.as_str()]).into_owned();
    assert!(
        page.contains("<meta name=\"citation_author\" content=\"Marie-Claude Gaudel\">"),
        "{page}"
    );
    assert!(
        page.contains("<meta name=\"citation_author\" content=\"Pascale Le Gall\">"),
        "{page}"
    );
    assert!(
        page.contains("href=\"https://arxiv.org/abs/0804.0970\""),
        "{page}"
    );
    assert!(!page.contains("Find on arXiv"), "{page}");
    for fragment in [
        "<dt>Submitted</dt>\n    <dd><time datetime=\"2008-04-07\">2008-04-07</time> (v1)</dd>",
        "<span class=\"venue\">Formal Methods and Testing, Springer-Verlag (Ed.) (2008) 209-239</span>",
        "<meta name=\"citation_publication_date\" content=\"2008/04/07\">",
        "<meta name=\"citation_journal_title\" content=\"Formal Methods and Testing, Springer-Verlag (Ed.) (2008) 209-239\">",
        "\"datePublished\":\"2008-04-07\"",
    ] {
        assert!(page.contains(fragment), "{fragment}\n{page}");
    }
    // Every list of the paper: both authors, and its small links.
    let author =
        String::from_utf8_lossy(&built["authors/marie-claude-gaudel/index.html"]).into_owned();
    assert!(
        author.contains(
            "<a href=\"https://arxiv.org/abs/0804.0970\">arXiv</a><a href=\"https://arxiv.org/pdf/0804.0970\">PDF</a>"
        ),
        "{author}"
    );
    assert!(
        author.contains("<strong>Marie-Claude Gaudel</strong>, Pascale Le Gall</p>"),
        "{author}"
    );
    let feed = String::from_utf8_lossy(&built["authors/marie-claude-gaudel/atom.xml"]).into_owned();
    assert!(
        feed.contains("<published>2008-04-07T00:00:00+00:00</published>"),
        "{feed}"
    );
    assert!(
        feed.contains("<author><name>Pascale Le Gall</name></author>"),
        "{feed}"
    );

    // `enrich = false` stops a wrong match: the record is ignored.
    write(
        site.path(),
        &format!("content/papers/{slug}.md"),
        b"+++\nenrich = false\n+++\n",
    );
    let (report, built) = build_memory(site.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let page = String::from_utf8_lossy(&built[page_path.as_str()]).into_owned();
    assert!(!page.contains("arxiv.org/abs/0804.0970"), "{page}");
    assert!(!page.contains("Pascale Le Gall"), "{page}");
    assert!(page.contains(">Find on arXiv</a>"), "{page}");
}

/// The bundled site has no records file (nothing here can fetch its
/// papers' records, and none is invented): every paper page offers arXiv's
/// title search instead, and claims no identifier.
fn the_bundled_site_has_no_records_and_each_paper_offers_find_on_arxiv() {
    let root = crate::common::project();
    assert!(!root.join(vellum::input::records::RECORDS_FILE).exists());
    let (report, built) = crate::common::build_memory(&root, None);
    assert!(!report.failed());
    let pages: Vec<(&str, String)> = built
        .iter()
        .filter(|(path, _)| path.starts_with("papers/") && path.ends_with("/index.html"))
        .map(|(path, bytes)| (&**path, String::from_utf8_lossy(bytes).into_owned()))
        .collect();
    assert_eq!(pages.len(), report.counts[0]);
    for (path, page) in &pages {
        assert_eq!(page.matches(">Find on arXiv</a>").count(), 1, "{path}");
        assert!(
            !page.contains("arxiv.org/abs/") && !page.contains("citation_arxiv_id"),
            "{path}"
        );
    }
    let page = &built["papers/3d-question-answering-for-city-scene-understanding/index.html"];
    assert!(String::from_utf8_lossy(page).contains(
        "<a href=\"https://arxiv.org/search/?query=3D%20Question%20Answering%20for%20City%20Scene%20Understanding&amp;searchtype=title\">Find on arXiv</a>"
    ));
}

/// A site listing `records` as [`listed`] distorts them, each under its
/// listing owner, in one listing file per owner.
fn site_of_records(records: &[&ArxivRecord]) -> crate::common::TempDir {
    let mut by_owner: BTreeMap<String, Vec<(String, u16, String, String)>> = BTreeMap::new();
    for (index, record) in records.iter().enumerate() {
        let paper = listed(index, record);
        // A listing page's text: one line, no control characters (some
        // real records hold C1 controls, from text decoded twice).
        let one_line = |text: &str| {
            let shown: String = text
                .chars()
                .filter(|c| !c.is_control() || *c == ' ')
                .collect();
            shown.split_whitespace().collect::<Vec<_>>().join(" ")
        };
        by_owner
            .entry(one_line(&paper.owners[0][0]))
            .or_default()
            .push((
                one_line(&paper.title),
                paper.year,
                one_line(&paper.abstract_text),
                paper.categories[0].clone(),
            ));
    }
    let files: Vec<(String, Vec<u8>)> = by_owner
        .iter()
        .map(|(owner, papers)| {
            let papers: Vec<(&str, u16, &str, &str)> = papers
                .iter()
                .map(|(t, y, a, c)| (t.as_str(), *y, a.as_str(), c.as_str()))
                .collect();
            (
                format!("{}.txt", vellum::permalink::slugify(owner)),
                crate::common::listing(owner, &papers),
            )
        })
        .collect();
    let seeds: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), &b[..])).collect();
    crate::common::temp_site(&seeds, "")
}

/// The arXiv identifiers of `records/arxiv.toml` in `root`, by slug.
fn stored_ids(root: &std::path::Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(root.join("records/arxiv.toml")).unwrap();
    let table: toml::Table = text.parse().unwrap();
    table["papers"]
        .as_table()
        .unwrap()
        .iter()
        .map(|(slug, record)| (slug.clone(), record["arxiv"].as_str().unwrap().to_string()))
        .collect()
}

fn enrich_from(
    server: &ArxivServer,
    root: &std::path::Path,
    interval: &str,
) -> std::process::Output {
    let args = [
        "enrich",
        "--root",
        root.to_str().unwrap(),
        "--arxiv-api",
        &server.url,
        "--request-interval",
        interval,
    ];
    crate::common::vellum(&args, &[])
}

/// `vellum enrich` against a loopback stand-in of the arXiv API answering
/// from the real recorded answers: every listed real record is found by
/// its title and owner, each once (no wrong link: each identifier stored
/// once); a paper whose override gives its identifier is asked about by
/// `id_list`; one giving an identifier arXiv does not know is warned
/// about; one saying `enrich = false` is never asked about; every request
/// names Vellum; a second run asks nothing.
fn enrich_from_the_api_finds_every_real_record_by_title_or_identifier() {
    let records = api_records();
    let all: Vec<&ArxivRecord> = records.values().collect();
    let site = site_of_records(&all);
    let root = site.path();
    let slug_of = |id: &str| {
        let index = all.iter().position(|r| r.id == id).unwrap();
        vellum::permalink::slugify(
            &vellum::text::latex::render(&listed(index, all[index]).title).plain,
        )
    };
    let by_id = slug_of("1605.08386");
    let stopped = slug_of("astro-ph/0601001");
    crate::common::write(
        root,
        &format!("content/papers/{by_id}.md"),
        b"+++\narxiv = \"arXiv:1605.08386v2\"\n+++\n",
    );
    crate::common::write(
        root,
        &format!("content/papers/{stopped}.md"),
        b"+++\nenrich = false\n+++\n",
    );
    let server = ArxivServer::start(&[]);
    let out = enrich_from(&server, root, "0.001");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let asked = all.len() - 1;
    let seen = server.seen();
    let searches = seen
        .iter()
        .filter(|s| s.target.contains("search_query="))
        .count();
    assert_eq!((seen.len(), searches), (asked, asked - 1));
    assert!(
        seen.iter()
            .any(|s| s.target == "/api/query?id_list=1605.08386&start=0&max_results=1"),
        "{seen:?}"
    );
    assert!(
        seen.iter().all(|s| s.user_agent.starts_with("Vellum/")),
        "{seen:?}"
    );
    assert_eq!(
        stdout.lines().last().unwrap(),
        format!("Sent {asked} requests; matched {asked} of {asked} papers ({asked} new, 0 changed), 0 ambiguous, 0 unmatched; wrote records/arxiv.toml")
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("new: ")).count(),
        asked
    );
    assert!(
        stdout.contains(&format!("new: {by_id}: arXiv:1605.08386\n")),
        "{stdout}"
    );
    let stored = stored_ids(root);
    assert_eq!(stored.len(), asked);
    assert_eq!(stored[&by_id], "1605.08386");
    assert!(!stored.contains_key(&stopped));
    let distinct: std::collections::BTreeSet<&String> = stored.values().collect();
    assert_eq!(distinct.len(), asked, "an identifier stored twice");

    let again = enrich_from(&server, root, "0.001");
    assert_eq!(
        String::from_utf8_lossy(&again.stdout).trim(),
        format!("Sent 0 requests; matched 0 of 0 papers (0 new, 0 changed), 0 ambiguous, 0 unmatched, {asked} already matched (not asked again without --all); wrote records/arxiv.toml")
    );
    assert_eq!(server.seen().len(), asked);

    // An identifier arXiv does not know: a warning at the paper's listing
    // record, nothing stored.
    crate::common::write(
        root,
        &format!("content/papers/{by_id}.md"),
        b"+++\narxiv = \"0000.0000\"\n+++\n",
    );
    let out = enrich_from(&server, root, "0.001");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("warning: expected the arXiv record of arXiv:0000.0000, which content/papers/{by_id}.md gives, found none in the answer of {}", server.url)),
        "{stderr}"
    );
    assert_eq!(stored_ids(root)[&by_id], "1605.08386");
}

/// At most one request every `--request-interval`: a 503 answer and then
/// a dropped connection are tried again after pauses that double, and the
/// run still matches every paper; an interval under arXiv's 3 s is
/// refused for arxiv.org.
fn the_api_is_asked_at_the_pace_asked_and_failures_are_tried_again() {
    let records = api_records();
    let some: Vec<&ArxivRecord> = records.values().skip(10).take(3).collect();
    assert_eq!(some.len(), 3);
    let site = site_of_records(&some);
    let server = ArxivServer::start(&[Fault::Status(503), Fault::Drop]);
    let out = enrich_from(&server, site.path(), "0.2");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Sent 5 requests; matched 3 of 3 papers"),
        "{stdout}"
    );
    let seen = server.seen();
    let gaps: Vec<f64> = seen
        .windows(2)
        .map(|w| (w[1].at - w[0].at).as_secs_f64())
        .collect();
    for (gap, least) in gaps.iter().zip([0.4, 0.8, 0.2, 0.2]) {
        assert!(*gap >= least * 0.95, "gaps {gaps:?}");
    }
    let refused = crate::common::vellum(
        &[
            "enrich",
            "--root",
            site.path().to_str().unwrap(),
            "--request-interval",
            "1",
        ],
        &[],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr).trim(),
        "error: --request-interval: expected at least 3 s for arXiv (its terms ask for one request every 3 s), found 1"
    );
}

/// A run cut short keeps what it found, and the next asks only about the
/// rest: once stopped by an API that fails for good (an error naming the
/// endpoint, exit 1), once killed; the records file is then what one
/// uninterrupted run writes.
fn an_interrupted_enrich_keeps_what_it_found_and_the_next_run_goes_on() {
    let records = api_records();
    let some: Vec<&ArxivRecord> = records.values().skip(20).take(8).collect();
    assert_eq!(some.len(), 8);
    let whole = site_of_records(&some);
    let server = ArxivServer::start(&[]);
    assert!(enrich_from(&server, whole.path(), "0.001").status.success());
    let want = std::fs::read_to_string(whole.path().join("records/arxiv.toml")).unwrap();

    let site = site_of_records(&some);
    let server = ArxivServer::start(&[]);
    server.fail_after(3);
    let out = enrich_from(&server, site.path(), "0.02");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(": expected an answer, found none in 4 tries (the last: answered 503); records/arxiv.toml keeps what was found so far: run `vellum enrich` again to go on"),
        "{stderr}"
    );
    assert!(stderr.contains(&server.url), "{stderr}");
    assert_eq!(stored_ids(site.path()).len(), 3);

    // Killed once more after two further requests.
    server.recover();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vellum"))
        .args([
            "enrich",
            "--root",
            site.path().to_str().unwrap(),
            "--arxiv-api",
            &server.url,
            "--request-interval",
            "0.3",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while server.seen().len() < 3 + 4 + 2 && started.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = stored_ids(site.path()).len();
    // At least the match before the kill; a loaded machine may let one
    // or two more through before it lands.
    assert!((4..8).contains(&kept), "{kept} kept");

    let before = server.seen().len();
    let out = enrich_from(&server, site.path(), "0.001");
    assert!(out.status.success());
    assert_eq!(server.seen().len() - before, 8 - kept);
    assert_eq!(
        std::fs::read_to_string(site.path().join("records/arxiv.toml")).unwrap(),
        want
    );
}

/// A real record of 34 authors (1707.08567), listed by its 20th: lists
/// show the first eight names and the owner, then "+25 more" linking the
/// paper's page; the page shows thirty and the last four behind "+4
/// more"; the citation tags name all 34.
fn long_author_lists_are_shortened_in_lists_and_complete_in_tags() {
    use crate::common::*;
    let records = snapshot();
    let record = records.iter().find(|r| r.id == "1707.08567").unwrap();
    assert_eq!(record.authors.len(), 34);
    let owner = &record.authors[19].name;
    let one_line = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let seed = listing(
        owner,
        &[(
            &one_line(&record.title),
            record.published_year().unwrap(),
            &one_line(&record.abstract_text),
            &record.categories[0],
        )],
    );
    let site = temp_site(&[("owner.txt", &seed)], "");
    let snapshot_file = fixtures().join("snapshot.jsonl");
    let root = site.path().to_str().unwrap();
    let out = vellum(
        &[
            "enrich",
            "--root",
            root,
            "--arxiv-snapshot",
            snapshot_file.to_str().unwrap(),
        ],
        &[],
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("matched 1 of 1 paper ("));
    let (report, built) = build_memory(site.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let owner_slug = vellum::permalink::slugify(owner);
    let list = String::from_utf8_lossy(&built[format!("authors/{owner_slug}/index.html").as_str()])
        .into_owned();
    let byline = list.split("<p class=\"byline\">").nth(1).unwrap();
    let byline = byline.split("</p>").next().unwrap();
    let names: Vec<&str> = record.authors[..8]
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert!(byline.starts_with(&names.join(", ")), "{byline}");
    assert!(
        byline.contains(&format!(
            "<strong>{owner}</strong>, <a class=\"more-authors\" href="
        )),
        "{byline}"
    );
    assert!(byline.ends_with(">+25 more</a>"), "{byline}");
    let page_path = list
        .split("<a class=\"paper-title\" href=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let page_file = format!("{}index.html", page_path.trim_start_matches('/'));
    let page = String::from_utf8_lossy(&built[page_file.as_str()]).into_owned();
    // The paper page's byline: 30 names, then the other 4 behind a toggle,
    // in a `<div>` (a `<details>` in a `<p>` is not valid HTML).
    let byline = page.split("<div class=\"byline\">").nth(1).unwrap();
    let byline = byline.split("</div>").next().unwrap();
    let (shown, more) = byline
        .split_once("<details class=\"more-authors\"><summary>+4 more</summary>")
        .unwrap_or_else(|| panic!("{byline}"));
    assert_eq!(shown.matches(", ").count(), 30, "{shown}");
    assert!(
        shown.starts_with(&format!("{}, ", record.authors[0].name)),
        "{shown}"
    );
    assert!(
        more.ends_with(&format!("{}</details>", record.authors[33].name)),
        "{more}"
    );
    assert_eq!(more.matches(", ").count(), 3, "{more}");
    assert_eq!(page.matches("<meta name=\"citation_author\"").count(), 34);
    // The owner's feed names the first eight and the owner; their BibTeX
    // file the first ten, then "others"; the paper's own file all 34.
    let feed = String::from_utf8_lossy(&built[format!("authors/{owner_slug}/atom.xml").as_str()])
        .into_owned();
    assert_eq!(feed.matches("<author>").count(), 9, "{feed}");
    assert!(feed.contains(&format!("<name>{owner}</name>")), "{feed}");
    let bib_names = |bib: &str| -> Vec<String> {
        let field = bib.split("  author = {").nth(1).unwrap();
        let field = field.split("},\n").next().unwrap();
        field.split(" and ").map(str::to_string).collect()
    };
    let author_bib =
        String::from_utf8_lossy(&built[format!("authors/{owner_slug}/{owner_slug}.bib").as_str()])
            .into_owned();
    let names = bib_names(&author_bib);
    assert_eq!(names.len(), 11, "{author_bib}");
    assert_eq!(names[10], "others");
    let paper_slug = page_path.trim_matches('/').trim_start_matches("papers/");
    let paper_bib =
        String::from_utf8_lossy(&built[format!("papers/{paper_slug}/{paper_slug}.bib").as_str()])
            .into_owned();
    let names = bib_names(&paper_bib);
    assert_eq!(names.len(), 34, "{paper_bib}");
    assert!(!names.contains(&"others".to_string()));
    // The owner's co-authors: all 33 known by name, the first twenty in
    // name order (one paper each), then "+13 more"; every paper's list is
    // complete, so no caveat.
    let coauthors = list
        .split("<h2 id=\"coauthors\">Co-authors</h2>")
        .nth(1)
        .unwrap();
    let coauthors = coauthors.split("</ul>").next().unwrap();
    let mut others: Vec<&str> = record
        .authors
        .iter()
        .map(|a| a.name.as_str())
        .filter(|n| n != owner)
        .collect();
    others.sort_unstable();
    assert_eq!(coauthors.matches("<li>").count(), 20, "{coauthors}");
    assert!(
        coauthors.contains(&format!(
            "<li><span>{}</span> <span class=\"count\">1<span class=\"visually-hidden\"> paper</span></span></li>",
            others[0]
        )),
        "{coauthors}"
    );
    assert!(
        coauthors.ends_with("<li class=\"count\">+13 more</li>"),
        "{coauthors}"
    );
    assert!(!list.contains("Counted from what is known"), "{list}");
}

/// A real record whose authors write their particles capitalised
/// (1309.0683: Patrizio Angelini, Giordano Da Lozzo, Giuseppe Di Battista,
/// Fabrizio Frati), listed by Giuseppe Di Battista with a second paper no
/// record has: `Da Lozzo` and `Di Battista` are family names in the
/// authors index, BibTeX, RIS, CSL-JSON and citation keys.
fn capitalised_particles_stay_with_the_family_name() {
    use crate::common::*;
    let records = snapshot();
    let record = records.iter().find(|r| r.id == "1309.0683").unwrap();
    let one_line = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let seed = listing(
        "Giuseppe Di Battista",
        &[
            (
                &one_line(&record.title),
                record.published_year().unwrap(),
                &one_line(&record.abstract_text),
                &record.categories[0],
            ),
            ("Upward Drawings of Trees", 2012, "Drawings.", "cs.CG"),
        ],
    );
    let site = temp_site(&[("owner.txt", &seed)], "");
    let out = vellum(
        &[
            "enrich",
            "--root",
            site.path().to_str().unwrap(),
            "--arxiv-snapshot",
            fixtures().join("snapshot.jsonl").to_str().unwrap(),
        ],
        &[],
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("matched 1 of 2 papers"));
    let (report, built) = build_memory(site.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let file = |path: &str| String::from_utf8_lossy(&built[path]).into_owned();
    let bib = file("authors/giuseppe-di-battista/giuseppe-di-battista.bib");
    assert!(
        bib.contains("author = {Angelini, Patrizio and {Da Lozzo}, Giordano and {Di Battista}, Giuseppe and Frati, Fabrizio},"),
        "{bib}"
    );
    assert!(bib.contains("@misc{dibattista2012upward,"), "{bib}");
    let slug = "upward-drawings-of-trees";
    let ris = file(&format!("papers/{slug}/{slug}.ris"));
    assert!(ris.contains("AU  - Di Battista, Giuseppe\r\n"), "{ris}");
    let csl: serde_json::Value =
        serde_json::from_str(&file(&format!("papers/{slug}/{slug}.json"))).unwrap();
    assert_eq!(
        csl[0]["author"][0],
        serde_json::json!({"family": "Di Battista", "given": "Giuseppe"})
    );
    let index = file("authors/index.html");
    let d = index.split("id=\"letter-d\">D</h2>").nth(1).unwrap();
    assert!(d.contains(">Di Battista, Giuseppe</a>"), "{index}");
}

/// Real record text, cut and with junk let in at a random place.
fn mangled(real: &str, cut: usize, at: usize, junk: &str) -> String {
    let cut = real.floor_char_boundary(cut % (real.len() + 1));
    let text = &real[..cut];
    let at = text.floor_char_boundary(at % (text.len() + 1));
    format!("{}{junk}{}", &text[..at], &text[at..])
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// The record readers (an API answer, a snapshot line, the records
    /// file) never panic on real text cut short and mangled, nor on any
    /// text; the records file's errors name the file and a line; and
    /// matching what they read never panics.
    fn record_readers_never_panic(
        cut in 0usize..40_000,
        at in 0usize..40_000,
        junk in "\\PC{0,12}|[<>&\"{}\\\n]{1,6}",
        any_text in "\\PC{0,300}",
    ) {
        let atom: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(fixtures().join("q_testing_s0_m10_bc5a6c384fe9.json")).unwrap(),
        )
        .unwrap();
        let body = atom["body"].as_str().unwrap();
        let lines = std::fs::read_to_string(fixtures().join("snapshot.jsonl")).unwrap();
        let line = lines.lines().nth(cut % 100).unwrap();
        let records: Vec<ArxivRecord> = from_atom(body).unwrap();
        let papers: BTreeMap<String, vellum::input::records::PaperRecord> = records
            .iter()
            .map(|r| {
                (
                    vellum::permalink::slugify(&r.title),
                    vellum::input::records::PaperRecord {
                        arxiv: r.id.clone(),
                        version: r.version,
                        title: r.title.clone(),
                        authors: r.authors.iter().map(|a| a.name.clone()).collect(),
                        categories: r.categories.clone(),
                        published: r.published.clone(),
                        updated: r.updated.clone(),
                        doi: r.doi.clone(),
                        journal_ref: r.journal_ref.clone(),
                        comment: r.comment.clone(),
                        family_names: BTreeMap::new(),
                    },
                )
            })
            .collect();
        let file = vellum::input::records::Records::to_text(&papers);
        for text in [mangled(body, cut, at, &junk), any_text.clone()] {
            if let Ok(found) = from_atom(&text) {
                let paper = listed(0, &records[0]);
                let _ = decide(&paper, &found.iter().collect::<Vec<_>>());
            }
        }
        for text in [mangled(line, cut, at, &junk), any_text.clone()] {
            let _ = vellum::enrich::record::snapshot_title(&text);
            let _ = from_snapshot_line(&text);
        }
        for text in [mangled(&file, cut, at, &junk), any_text] {
            let shown = std::path::Path::new("records/arxiv.toml");
            if let Err(e) = vellum::input::records::Records::parse(&text, shown) {
                let message = e.to_string();
                let line = message.strip_prefix("records/arxiv.toml:").and_then(|rest| rest.split(':').next());
                proptest::prop_assert!(line.is_some_and(|n| n.parse::<usize>().is_ok_and(|n| n > 0)), "{message}");
            }
        }
    }
}

/// A paper listed by every member of a collaboration (each listing names
/// it, no records): each owner's page, feed and BibTeX file names the
/// first eight or ten authors and that owner, not all of them, so the
/// site grows linearly with the owners; the paper's own page and file
/// name them all.
fn a_paper_of_many_owners_is_a_few_names_on_each_of_their_pages() {
    use crate::common::*;
    const FIRST: [&str; 10] = [
        "Ana", "Wei", "Ivan", "Sara", "Omar", "Lena", "Kofi", "Mia", "Raj", "Yuki",
    ];
    const LAST: [&str; 12] = [
        "Chen", "Garcia", "Novak", "Okafor", "Smith", "Tanaka", "Ivanov", "Silva", "Khan",
        "Muller", "Haddad", "Kowalski",
    ];
    let site_of = |owners: usize| {
        let names: Vec<String> = (0..owners)
            .map(|i| format!("{} {}", FIRST[i % 10], LAST[i / 10]))
            .collect();
        let seeds: Vec<(String, Vec<u8>)> = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let paper = (
                    "A Big Collaboration Paper",
                    2024,
                    "We measure everything.",
                    "cs.DC",
                );
                (format!("{i:03}.txt"), listing(name, &[paper]))
            })
            .collect();
        let seeds: Vec<(&str, &[u8])> = seeds
            .iter()
            .map(|(file, bytes)| (file.as_str(), bytes.as_slice()))
            .collect();
        let site = temp_site(&seeds, "");
        let (report, built) = build_memory(site.path(), None);
        assert!(!report.failed(), "{:?}", report.diagnostics);
        assert_eq!(report.counts[..2], [1, owners]);
        (names, built)
    };
    let (names, built) = site_of(60);
    let text = |file: &str| String::from_utf8_lossy(&built[file]).into_owned();
    // The 41st owner's page: eight names, then theirs in bold, then the rest.
    let owner = &names[40];
    let slug = vellum::permalink::slugify(owner);
    let list = text(&format!("authors/{slug}/index.html"));
    let byline = list.split("<p class=\"byline\">").nth(1).unwrap();
    let byline = byline.split("</p>").next().unwrap();
    assert_eq!(byline.matches("<a href=\"/authors/").count(), 8, "{byline}");
    assert!(
        byline.ends_with(&format!(
            ", <strong>{owner}</strong>, <a class=\"more-authors\" href=\"/papers/a-big-collaboration-paper/\">+51 more</a>"
        )),
        "{byline}"
    );
    let feed = text(&format!("authors/{slug}/atom.xml"));
    assert_eq!(feed.matches("<author>").count(), 9, "{feed}");
    assert!(feed.contains(&format!("<name>{owner}</name>")), "{feed}");
    let bib = text(&format!("authors/{slug}/{slug}.bib"));
    assert_eq!(bib.matches(" and ").count(), 10, "{bib}");
    assert!(bib.contains(" and others},"), "{bib}");
    // The paper's page and file, and the site's feed, name all sixty.
    let page = text("papers/a-big-collaboration-paper/index.html");
    let byline = page.split("<p class=\"byline\">").nth(1).unwrap();
    assert_eq!(
        byline
            .split("</p>")
            .next()
            .unwrap()
            .matches("<a href=")
            .count(),
        60
    );
    let bib = text("papers/a-big-collaboration-paper/a-big-collaboration-paper.bib");
    assert_eq!(bib.matches(" and ").count(), 60, "{bib}");
    assert_eq!(text("atom.xml").matches("<author>").count(), 60);
    // Twice the owners, about twice the bytes (all sixty names on each
    // of sixty pages would be four times).
    let bytes = |built: &Pages| built.values().map(Vec::len).sum::<usize>();
    let (_, twice) = site_of(120);
    let growth = bytes(&twice) as f64 / bytes(&built) as f64;
    assert!((1.3..2.3).contains(&growth), "{growth:.2}");
}

pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(enrich:
        both_readers_agree_on_the_real_records,
        capitalised_particles_stay_with_the_family_name,
        distorted_listings_match_their_records_and_no_other,
        enrich_from_a_snapshot_writes_the_records_file_and_builds_read_it,
        the_bundled_site_has_no_records_and_each_paper_offers_find_on_arxiv,
        enrich_from_the_api_finds_every_real_record_by_title_or_identifier,
        the_api_is_asked_at_the_pace_asked_and_failures_are_tried_again,
        an_interrupted_enrich_keeps_what_it_found_and_the_next_run_goes_on,
        long_author_lists_are_shortened_in_lists_and_complete_in_tags,
        a_paper_of_many_owners_is_a_few_names_on_each_of_their_pages,
        record_readers_never_panic,
    )
}
