//! Scholarly pages: per-paper overrides, honest citation metadata
//! (Scholar tags, JSON-LD) parsed back, BibTeX/RIS/CSL-JSON exports,
//! co-authors and charts, name variants, the `papers()` shortcode.

use crate::common::*;
use std::collections::BTreeSet;
use vellum::diagnostics::Severity;

/// Two authors sharing one paper, one author with two more.
fn two_author_site() -> crate::common::TempDir {
    temp_site(
        &[
            (
                "ana.txt",
                &listing(
                    "Ana Lima",
                    &[
                        ("Shared Systems Paper", 2024, "We share it.", "cs.DC"),
                        ("Fast Graphs", 2023, "Graphs, fast.", "cs.DS"),
                        ("Wrongly Attributed Paper", 2022, "Not by Ana.", "cs.CR"),
                    ],
                ),
            ),
            (
                "ben.txt",
                &listing(
                    "Ben van der Berg",
                    &[("Shared Systems Paper", 2024, "We share it.", "cs.DC")],
                ),
            ),
        ],
        "",
    )
}

/// `(name or property, content)` of every `<meta>` in a page.
fn metas(html: &str) -> Vec<(String, String)> {
    let doc = scraper::Html::parse_document(html);
    let selector = scraper::Selector::parse("meta[content]").unwrap();
    doc.select(&selector)
        .map(|e| {
            let v = e.value();
            let key = v.attr("name").or(v.attr("property")).unwrap_or("");
            (key.to_string(), v.attr("content").unwrap().to_string())
        })
        .collect()
}

fn meta_values(html: &str, name: &str) -> Vec<String> {
    metas(html)
        .into_iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v)
        .collect()
}

/// The JSON-LD blocks of a page, parsed.
fn json_ld(html: &str) -> Vec<serde_json::Value> {
    let doc = scraper::Html::parse_document(html);
    let selector = scraper::Selector::parse("script[type=\"application/ld+json\"]").unwrap();
    doc.select(&selector)
        .map(|e| serde_json::from_str(&e.text().collect::<String>()).unwrap())
        .collect()
}

fn scholar_tags_and_json_ld_without_and_with_a_complete_author_list() {
    let dir = two_author_site();
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let page = text(&site, "papers/shared-systems-paper/index.html");
    assert_eq!(
        meta_values(page, "citation_title"),
        ["Shared Systems Paper"]
    );
    assert!(meta_values(page, "citation_author").is_empty());
    assert_eq!(meta_values(page, "citation_publication_date"), ["2024"]);
    // The abstract is once in the page, summarised by the description
    // (which Open Graph shares), and in no other metadata.
    assert!(meta_values(page, "citation_abstract").is_empty());
    assert!(meta_values(page, "citation_abstract_html_url").is_empty());
    assert_eq!(meta_values(page, "description"), ["We share it."]);
    assert_eq!(meta_values(page, "og:description"), ["We share it."]);
    assert_eq!(page.matches("We share it.").count(), 3);
    assert!(meta_values(page, "citation_arxiv_id").is_empty());
    assert_eq!(meta_values(page, "og:type"), ["article"]);
    assert_eq!(
        meta_values(page, "og:url"),
        ["https://example.org/papers/shared-systems-paper/"]
    );
    let ld = json_ld(page);
    assert_eq!(ld.len(), 1);
    let article = &ld[0];
    assert_eq!(article["@type"], "ScholarlyArticle");
    assert_eq!(article["headline"], "Shared Systems Paper");
    assert_eq!(article["datePublished"], "2024");
    assert_eq!(article.get("abstract"), None);
    assert_eq!(
        article["keywords"],
        serde_json::json!(["Distributed, Parallel, and Cluster Computing"])
    );
    assert_eq!(
        article["author"],
        serde_json::json!([
            {"@type": "Person", "name": "Ben van der Berg", "url": "https://example.org/authors/ben-van-der-berg/"},
            {"@type": "Person", "name": "Ana Lima", "url": "https://example.org/authors/ana-lima/"},
        ])
    );
    assert!(page.contains("<p class=\"byline\">Listed by "));
    assert!(page.contains("(co-authors not listed)"));

    write(
        dir.path(),
        "content/papers/shared-systems-paper.md",
        "+++\narxiv = \"arXiv:2405.01234\"\ndoi = \"https://doi.org/10.1145/3600006.3613139\"\nauthors = [\"Ana Lima\", \"Carla Souza\", \"Ben van der Berg\"]\nvenue = \"SOSP 2024\"\ncode = \"https://github.com/lab/shared\"\n+++\nThe *artifact* won a badge.\n".as_bytes(),
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let page = text(&site, "papers/shared-systems-paper/index.html");
    assert_eq!(
        meta_values(page, "citation_author"),
        ["Ana Lima", "Carla Souza", "Ben van der Berg"]
    );
    assert_eq!(meta_values(page, "citation_arxiv_id"), ["2405.01234"]);
    assert_eq!(
        meta_values(page, "citation_doi"),
        ["10.1145/3600006.3613139"]
    );
    assert_eq!(
        meta_values(page, "citation_pdf_url"),
        ["https://arxiv.org/pdf/2405.01234"]
    );
    let article = &json_ld(page)[0];
    assert_eq!(
        article["author"][1],
        serde_json::json!({"@type": "Person", "name": "Carla Souza"})
    );
    assert_eq!(
        article["author"][2]["url"],
        "https://example.org/authors/ben-van-der-berg/"
    );
    assert_eq!(article["identifier"][0]["value"], "2405.01234");
    assert_eq!(article["identifier"][1]["propertyID"], "DOI");
    assert!(!page.contains("Listed by"));
    assert!(page.contains("Carla Souza"));
    assert!(!page.contains("co-authors not listed"));
    assert!(page.contains("<a href=\"https://arxiv.org/abs/2405.01234\">arXiv:2405.01234</a>"));
    assert!(page.contains("<a href=\"https://github.com/lab/shared\">Code</a>"));
    assert!(page.contains("<p>The <em>artifact</em> won a badge.</p>"));
    assert!(page.contains(
        "<p class=\"byline\"><a href=\"/authors/ana-lima/\">Ana Lima</a>, Carla Souza, <a href=\"/authors/ben-van-der-berg/\">Ben van der Berg</a></p>"
    ));

    // Past the 30th name, the rest behind "+N more"; names escaped.
    let mut names: Vec<String> = vec!["Ana Lima".into(), "Pat O'Brien & Co".into()];
    names.extend((3..=30).map(|n| format!("Author Number{n}")));
    names.push("Ben van der Berg".into());
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    write(
        dir.path(),
        "content/papers/shared-systems-paper.md",
        format!("+++\nauthors = [{}]\n+++\n", quoted.join(", ")).as_bytes(),
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let page = text(&site, "papers/shared-systems-paper/index.html");
    let middle: Vec<String> = (3..=30).map(|n| format!("Author Number{n}")).collect();
    let expected = format!(
        "<div class=\"byline\"><a href=\"/authors/ana-lima/\">Ana Lima</a>, Pat O&#39;Brien &amp; Co, {}, <details class=\"more-authors\"><summary>+1 more</summary><a href=\"/authors/ben-van-der-berg/\">Ben van der Berg</a></details></div>",
        middle.join(", ")
    );
    assert!(page.contains(&expected), "{page}");
}

fn a_hostile_title_leaves_one_valid_json_ld_element() {
    let hostile = "</script><script>alert(1)</script> & <b>bold</b>";
    let dir = temp_site(
        &[(
            "x.txt",
            &listing("Ana Lima", &[(hostile, 2024, hostile, "cs.CR")]),
        )],
        "",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let page = text(
        &site,
        "papers/script-script-alert-1-script-b-bold-b/index.html",
    );
    let ld = json_ld(page);
    assert_eq!(ld.len(), 1);
    assert_eq!(ld[0]["headline"], hostile);
    assert_eq!(
        page.matches("<script").count(),
        2,
        "JSON-LD and cite.js only"
    );
    assert_eq!(meta_values(page, "citation_title"), [hostile]);
    assert_eq!(meta_values(page, "description"), [hostile]);

    // A theme looping over the tags and printing the JSON-LD itself, as
    // the default theme did, makes the same page as its
    // `scholarly_meta_html`.
    let ours = include_str!("../themes/default/templates/paper.html");
    let loops = "{% for tag in citation_tags %}<meta name=\"{{ tag.name }}\" content=\"{{ tag.content }}\">\n{% endfor %}{% for tag in og_tags %}<meta property=\"{{ tag.name }}\" content=\"{{ tag.content }}\">\n{% endfor %}<script type=\"application/ld+json\">{{ json_ld | safe }}</script>";
    assert!(ours.contains("{{ scholarly_meta_html | safe }}"));
    let theirs = ours.replace("{{ scholarly_meta_html | safe }}", loops);
    write(dir.path(), "templates/paper.html", theirs.as_bytes());
    let (report, again) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let file = "papers/script-script-alert-1-script-b-bold-b/index.html";
    assert_eq!(text(&again, file), page);
}

fn bibtex_parses_back_and_author_files_hold_exactly_their_papers() {
    let dir = two_author_site();
    write(
        dir.path(),
        "content/papers/fast-graphs.md",
        b"+++\narxiv = \"2301.00001\"\n+++\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let bib = text(&site, "papers/fast-graphs/fast-graphs.bib");
    let parsed = biblatex::Bibliography::parse(bib).unwrap();
    let entry = parsed.iter().next().unwrap();
    assert_eq!(entry.key, "lima2023fast");
    assert_eq!(entry.entry_type, biblatex::EntryType::Misc);
    let authors = entry.author().unwrap();
    assert_eq!(authors.len(), 2);
    assert_eq!(
        (authors[0].name.as_str(), authors[0].given_name.as_str()),
        ("Lima", "Ana")
    );
    assert_eq!(authors[1].name, "others");
    let field = |name: &str| {
        use biblatex::ChunksExt;
        entry.get(name).map(|c| c.format_verbatim())
    };
    assert_eq!(field("eprint").as_deref(), Some("2301.00001"));
    assert_eq!(field("archiveprefix").as_deref(), Some("arXiv"));
    assert_eq!(field("primaryclass").as_deref(), Some("cs.DS"));
    assert_eq!(field("year").as_deref(), Some("2023"));

    let keys = |file: &str| -> BTreeSet<String> {
        biblatex::Bibliography::parse(text(&site, file))
            .unwrap()
            .iter()
            .map(|e| e.key.clone())
            .collect()
    };
    assert_eq!(
        keys("authors/ana-lima/ana-lima.bib"),
        BTreeSet::from([
            "lima2022wrongly".to_string(),
            "lima2023fast".to_string(),
            "berg2024shared".to_string()
        ])
    );
    assert_eq!(
        keys("authors/ben-van-der-berg/ben-van-der-berg.bib"),
        BTreeSet::from(["berg2024shared".to_string()])
    );

    let ris = text(&site, "papers/fast-graphs/fast-graphs.ris");
    let tags: Vec<&str> = ris.lines().map(|l| &l[..l.len().min(6)]).collect();
    assert_eq!(tags[0], "TY  - ");
    assert_eq!(*tags.last().unwrap(), "ER  - ");
    assert!(ris.contains("TI  - Fast Graphs\r\n"));
    assert!(ris.contains("AU  - Lima, Ana\r\nAU  - others\r\n"));
    assert!(ris.contains("PY  - 2023\r\n"));
    assert!(ris.contains("UR  - https://example.org/papers/fast-graphs/\r\n"));

    let csl: serde_json::Value =
        serde_json::from_str(text(&site, "papers/fast-graphs/fast-graphs.json")).unwrap();
    assert_eq!(csl[0]["id"], "lima2023fast");
    assert_eq!(csl[0]["issued"]["date-parts"][0][0], 2023);
    assert_eq!(csl[0]["author"][1]["literal"], "others");

    let page = text(&site, "papers/fast-graphs/index.html");
    assert!(page.contains("<dt>Citation key</dt>\n    <dd><code>lima2023fast</code></dd>"));
    // The Cite block: BibTeX once, inline, RIS and CSL-JSON as their files.
    assert!(page.contains(
        "<p>Download <a href=\"/papers/fast-graphs/fast-graphs.bib\" download>BibTeX</a>, \
         <a href=\"/papers/fast-graphs/fast-graphs.ris\" download>RIS</a> or \
         <a href=\"/papers/fast-graphs/fast-graphs.json\" download>CSL-JSON</a>.</p>"
    ));
    assert_eq!(page.matches("@misc{lima2023fast,").count(), 1);
    assert_eq!(page.matches("<pre").count(), 1);
    assert!(!page.contains("TY  - UNPB"));
    assert!(page.contains("data-copy=\"cite-bibtex-text\""));
}

/// A site of one listing (Ana Lima) with one paper, Fast Graphs (2023).
fn fast_graphs_site(config: &str) -> crate::common::TempDir {
    temp_site(
        &[(
            "ana.txt",
            &listing("Ana Lima", &[("Fast Graphs", 2023, "x", "cs.DS")]),
        )],
        config,
    )
}

fn per_paper_files_can_be_switched_off_keeping_the_cite_block() {
    let dir = fast_graphs_site("paper_exports = false\n");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert!(!site.contains_key("papers/fast-graphs/fast-graphs.bib"));
    assert!(site.contains_key("authors/ana-lima/ana-lima.bib"));
    let page = text(&site, "papers/fast-graphs/index.html");
    assert!(page.contains("@misc{lima2023fast,"));
    assert!(!page.contains(".bib\" download"));
    assert!(!page.contains(".ris\" download"));
    // Lists offer a paper's [BibTeX] only when its file is written.
    let author = text(&site, "authors/ana-lima/index.html");
    assert!(author.contains("<summary>Abstract</summary>"), "{author}");
    assert!(!author.contains(">BibTeX</a>"), "{author}");
    let with_files = fast_graphs_site("");
    let (_, site) = build_memory(with_files.path(), None);
    assert!(text(&site, "authors/ana-lima/index.html")
        .contains("<a href=\"/papers/fast-graphs/fast-graphs.bib\" download>BibTeX</a>"));
}

fn every_export_file_can_be_switched_off_keeping_the_cite_block() {
    let dir = fast_graphs_site("exports = false\n");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let exports: Vec<&str> = site
        .keys()
        .map(|f| &**f)
        .filter(|f| f.ends_with(".bib") || f.ends_with(".ris") || *f == "corpus.json")
        .collect();
    assert!(exports.is_empty(), "{exports:?}");
    assert!(!site.contains_key("papers/fast-graphs/fast-graphs.json"));
    let author = text(&site, "authors/ana-lima/index.html");
    assert!(author.contains("1 paper."), "{author}");
    assert!(!author.contains("All as BibTeX"));
    let page = text(&site, "papers/fast-graphs/index.html");
    assert!(page.contains("@misc{lima2023fast,"));
}

fn a_hidden_paper_is_gone_from_every_output_and_aliases_redirect() {
    let dir = two_author_site();
    write(
        dir.path(),
        "content/papers/wrongly-attributed-paper.md",
        b"+++\nhidden = true\naliases = [\"old/wrong/\"]\n+++\n",
    );
    write(
        dir.path(),
        "content/papers/fast-graphs.md",
        b"+++\naliases = [\"old/graphs/\"]\nselected = true\n+++\n",
    );
    write(
        dir.path(),
        "content/papers/no-such-paper.md",
        b"+++\nselected = true\n+++\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let warnings = messages(&report, Severity::Warning);
    assert!(
        warnings.iter().any(|w| w.starts_with("content/papers/no-such-paper.md:1: warning: expected the file name to be a paper's slug")),
        "{warnings:?}"
    );
    for (file, bytes) in &site {
        let body = String::from_utf8_lossy(bytes);
        assert!(
            !body.contains("Wrongly Attributed") && !body.contains("wrongly-attributed"),
            "{file} still mentions the hidden paper"
        );
    }
    assert!(
        !site.contains_key("years/2022/index.html"),
        "its only year is gone"
    );
    assert!(!site.contains_key("categories/cs-cr/index.html"));
    assert!(!site.contains_key("old/wrong/index.html"));
    let redirect = text(&site, "old/graphs/index.html");
    assert!(redirect.contains("https://example.org/papers/fast-graphs/"));
    let corpus: serde_json::Value = serde_json::from_str(text(&site, "corpus.json")).unwrap();
    assert_eq!(corpus["papers"].as_array().unwrap().len(), 2);
    assert_eq!(corpus["papers"][1]["selected"], true);
    assert_eq!(
        corpus["authors"][1]["papers"],
        serde_json::json!(["berg2024shared", "lima2023fast"])
    );
    assert!(text(&site, "authors/ana-lima/index.html").contains("2 papers."));
}

fn co_authors_and_papers_per_year_on_the_pages_and_coauthors_fixture() {
    let fixture = project().join("tests/fixtures/listings/valid/pages-and-coauthors");
    let seeds: Vec<(String, Vec<u8>)> = std::fs::read_dir(&fixture)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    let seeds: Vec<(&str, &[u8])> = seeds
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let dir = temp_site(&seeds, "");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let kenji = text(&site, "authors/kenji-sato/index.html");
    let doc = scraper::Html::parse_document(kenji);
    let select = |css: &str| -> Vec<String> {
        let selector = scraper::Selector::parse(css).unwrap();
        doc.select(&selector)
            .map(|e| {
                e.text()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    assert_eq!(select("h2#coauthors + ul li"), ["Mei Lin 1 paper"]);
    // Listings name no co-authors beyond their owners: the count says so.
    assert_eq!(
        select("h2#coauthors ~ p.panel-note"),
        ["Counted from what is known: 3 of 3 papers name only their listing authors."]
    );
    // Newest first, each row's bar a share of the busiest year's count.
    assert_eq!(
        select("table.counts tbody tr"),
        ["2024 1", "2023 1", "2019 1"]
    );
    assert_eq!(
        kenji
            .matches("<span class=\"bar\" style=\"width: 100%\"></span>")
            .count(),
        3
    );
    assert_eq!(
        select("h2#author-categories + ul li"),
        [
            "Programming Languages 2",
            "Data Structures and Algorithms 1"
        ]
    );
    let mei = text(&site, "authors/mei-lin/index.html");
    assert!(mei.contains(
        "<a href=\"/authors/kenji-sato/\">Kenji Satō</a> <span class=\"count\">1<span class=\"visually-hidden\"> paper</span></span>"
    ));

    let category = text(&site, "categories/cs-pl/index.html");
    assert!(
        category.contains("<p class=\"lede\">cs.PL · Computer Science · 2 papers · <a href="),
        "{category}"
    );
    assert!(category.contains(
        "<a href=\"/authors/kenji-sato/\">Kenji Satō</a> <span class=\"count\">2<span class=\"visually-hidden\"> papers</span></span>"
    ));
    let year = text(&site, "years/2019/index.html");
    assert!(year.contains("Data Structures and Algorithms</a> <span class=\"count\">1</span>"));

    // A theme of its own that loops over the counted lists gets them as
    // values (the default theme prints their HTML twins, and they are
    // made only for a template that names them).
    write(
        dir.path(),
        "templates/author.html",
        b"<p id=\"c\">{% for c in coauthors %}{{ c.name }} {{ c.url }} {{ c.count }};{% endfor %}|{% for y in year_counts %}{{ y.name }}={{ y.count }}/{{ y.share }};{% endfor %}|{% for c in category_counts %}{{ c.code }}={{ c.count }};{% endfor %}|{{ more_coauthors }}</p>",
    );
    write(
        dir.path(),
        "templates/category.html",
        b"<p id=\"t\">{% for a in top_authors %}{{ a.name }}={{ a.count }};{% endfor %}{{ top_authors_html | safe }}</p>",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(
        text(&site, "authors/kenji-sato/index.html"),
        "<p id=\"c\">Mei Lin /authors/mei-lin/ 1;|2024=1/100;2023=1/100;2019=1/100;|cs.PL=2;cs.DS=1;|0</p>"
    );
    assert_eq!(
        text(&site, "categories/cs-pl/index.html"),
        "<p id=\"t\">Kenji Satō=2;<li><a href=\"/authors/kenji-sato/\">Kenji Satō</a> <span class=\"count\">2<span class=\"visually-hidden\"> papers</span></span></li></p>"
    );
}

fn name_variants_merge_listings_from_a_profile_or_site_toml() {
    let seeds = [
        (
            "wu.txt",
            listing("Chuan Wu", &[("Paper One", 2024, "a", "cs.DC")]),
        ),
        (
            "cwu.txt",
            listing("C. Wu", &[("Paper Two", 2023, "b", "cs.DC")]),
        ),
    ];
    let seeds: Vec<(&str, &[u8])> = seeds.iter().map(|(n, b)| (*n, b.as_slice())).collect();

    let dir = temp_site(&seeds, "");
    write(
        dir.path(),
        "content/authors/chuan-wu.md",
        b"+++\naliases = [\"C. Wu\", \"Wu Chuan\", \"people/wu/\"]\n+++\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(report.counts[1], 1, "one author");
    assert!(!site.contains_key("authors/c-wu/index.html"));
    assert!(text(&site, "authors/chuan-wu/index.html").contains("2 papers."));
    assert!(
        site.contains_key("people/wu/index.html"),
        "path aliases still redirect"
    );
    let unmatched: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        unmatched.iter().any(|d| d.starts_with("content/authors/chuan-wu.md:2: warning: expected name variant `Wu Chuan` of chuan-wu to match a listing's author, found none")),
        "{unmatched:?}"
    );

    // A mistyped canonical name is named with the closest listed one.
    let dir = temp_site(&seeds, "[author_aliases]\n\"Chaun Wu\" = [\"C. Wu\"]\n");
    let (report, _) = build_memory(dir.path(), None);
    let warnings: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        warnings,
        ["site.toml:4: warning: expected `Chaun Wu` to name a listed author, found none; variant `C. Wu` is not merged; did you mean `Chuan Wu`?"]
    );

    let dir = temp_site(&seeds, "[author_aliases]\n\"Chuan Wu\" = [\"C. Wu\"]\n");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(report.counts[1], 1);
    let corpus: serde_json::Value = serde_json::from_str(text(&site, "corpus.json")).unwrap();
    assert_eq!(corpus["authors"][0]["name"], "Chuan Wu");
    assert_eq!(
        corpus["authors"][0]["papers"],
        serde_json::json!(["wu2023paper", "wu2024paper"]),
        "listing order: both are page 1, C. Wu's file first"
    );
}

fn the_papers_shortcode_embeds_lists_in_markdown_pages() {
    let dir = two_author_site();
    write(
        dir.path(),
        "content/papers/fast-graphs.md",
        b"+++\nselected = true\n+++\n",
    );
    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\nSelected work:\n{{ papers(selected=true) }}\n\nBy Ben:\n\n{{ papers(author=\"ben-van-der-berg\", limit=5) }}\n\n[home](/)\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let page = text(&site, "about/index.html");
    let doc = scraper::Html::parse_document(page);
    let selector = scraper::Selector::parse("ul.papers").unwrap();
    let lists: Vec<Vec<String>> = doc
        .select(&selector)
        .map(|ul| {
            let title = scraper::Selector::parse("a.paper-title").unwrap();
            ul.select(&title).map(|a| a.text().collect()).collect()
        })
        .collect();
    assert_eq!(
        lists,
        [
            vec!["Fast Graphs".to_string()],
            vec!["Shared Systems Paper".to_string()]
        ]
    );
    assert_eq!(
        report.content_links["about/index.html"].1,
        [("/".to_string(), 11)]
    );

    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\n\n{{ papers(author=\"nobody\") }}\n{{ papers(colour=\"red\") }}\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    let errors: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        errors.contains(&"content/about.md:6: error: expected one of author, year, category, selected, limit in papers(...), found `colour`".to_string()),
        "{errors:?}"
    );

    // An author's name is taken where one author has it; a mistyped slug,
    // argument or category is named with the closest one; a year the site
    // has no paper of is a warning, not a silent empty list.
    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\n{{ papers(author=\"Ben van der Berg\") }}\n{{ papers(author=\"ben-van-der-burg\") }}\n{{ papers(autor=\"ben\") }}\n{{ papers(category=\"cs.DX\") }}\n{{ papers(year=2099) }}\n{{ papers(author=\"ben-van-der-berg\", year=2023) }}\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    let problems: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        problems,
        [
            "content/about.md:5: error: expected an author slug (or name) of the site in papers(author=...), found `ben-van-der-burg`; did you mean `ben-van-der-berg`?",
            "content/about.md:6: error: expected one of author, year, category, selected, limit in papers(...), found `autor`; did you mean `author`?",
            "content/about.md:7: error: expected a category code of the site in papers(category=...), found `cs.DX`; did you mean `cs.DC`?",
            "content/about.md:8: warning: expected papers(...) to list papers, found none: the site has no paper of 2099 (its years run from 2022 to 2024)",
            "content/about.md:9: warning: expected papers(...) to list papers, found none",
        ],
        "{problems:?}"
    );
    assert!(site.is_empty(), "nothing is written on an error");
    // The about page listing one author's papers, built without a problem.
    let about_listing = |root: &std::path::Path, author: &str| {
        let page = format!("+++\ntitle = \"About\"\n+++\n{{{{ papers(author=\"{author}\") }}}}\n");
        write(root, "content/about.md", page.as_bytes());
        let (report, site) = build_memory(root, None);
        assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
        text(&site, "about/index.html").to_string()
    };
    let about = about_listing(dir.path(), "Ben van der Berg");
    assert!(about.contains(">Shared Systems Paper</a>"), "{about}");

    // Two names that slugify alike: the exact name wins over the slug.
    let zoe = listing("Zoe Chen", &[("Plain Name Paper", 2024, "A.", "cs.DC")]);
    let zoe_accented = listing("Zoë Chen", &[("Accented Name Paper", 2024, "B.", "cs.DC")]);
    for (first, second) in [(&zoe, &zoe_accented), (&zoe_accented, &zoe)] {
        let dir = temp_site(&[("a.txt", first), ("b.txt", second)], "");
        let about = about_listing(dir.path(), "Zoe Chen");
        assert!(about.contains(">Plain Name Paper</a>"), "{about}");
        assert!(!about.contains(">Accented Name Paper</a>"), "{about}");
    }
}

/// A profile or override whose file name is a mistyped slug is named
/// with the slug it was probably meant for.
fn misnamed_profiles_and_overrides_name_the_closest_slug() {
    let dir = two_author_site();
    write(dir.path(), "content/authors/ana-lina.md", b"+++\n+++\n");
    write(
        dir.path(),
        "content/papers/fast-graph.md",
        b"+++\nselected = true\n+++\n",
    );
    write(
        dir.path(),
        "content/papers/unrelated.md",
        b"+++\nselected = true\n+++\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    let problems: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        problems,
        [
            "content/authors/ana-lina.md:1: warning: expected the file name to be an author's slug, found `ana-lina`, which no listing has; did you mean `ana-lima`?",
            "content/papers/fast-graph.md:1: warning: expected the file name to be a paper's slug, found `fast-graph`, which no paper has; did you mean `fast-graphs`?",
            "content/papers/unrelated.md:1: warning: expected the file name to be a paper's slug, found `unrelated`, which no paper has",
        ]
    );
}

fn every_csl_export_renders_with_citeproc_js() {
    let site = bundled_copy();
    let public = build_to_disk(site.path());
    let papers = std::fs::read_dir(public.join("papers")).unwrap().count();
    assert_eq!(papers, 36);
    let count = papers.to_string();
    let report = node(
        &["--test", "tests/cite/"],
        &[
            ("VELLUM_SITE", public.as_os_str()),
            ("VELLUM_PAPERS", count.as_ref()),
        ],
    );
    assert!(report.contains("# pass 3"), "{report}");
}

/// Alphanumeric words of a text, with the names of LaTeX commands that
/// vanish in rendering (`\textbf`, `\times`) and math markers removed.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut word = String::new();
    while let Some(c) = chars.next() {
        if c == '\\' {
            let mut name = String::new();
            while let Some(&n) = chars.peek().filter(|n| n.is_ascii_alphabetic()) {
                name.push(n);
                chars.next();
            }

            // Unknown macros stay visible by name; known ones vanish.
            if name == "modelname" {
                word.push_str(&name);
            }
            continue;
        }
        if c.is_alphanumeric() {
            word.push(c);
        } else if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn every_abstract_of_the_real_listings_keeps_its_words_with_math_as_mathml() {
    let (report, site) = build_memory(&project(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let corpus: serde_json::Value = serde_json::from_str(text(&site, "corpus.json")).unwrap();
    let mut sources: std::collections::HashMap<String, String> = Default::default();
    for file in [
        "seeds/000_a6125076a0f68246.txt",
        "seeds/002_6e23376fd8dff3a4.txt",
    ] {
        let listing =
            vellum::input::listing::parse(&std::fs::read(project().join(file)).unwrap()).unwrap();
        for record in listing.records {
            sources.insert(record.title, record.abstract_paragraphs.join("\n\n"));
        }
    }
    let mut checked = 0;
    let mut with_math = 0;
    for paper in corpus["papers"].as_array().unwrap() {
        let slug = paper["slug"].as_str().unwrap();
        let page = text(&site, &format!("papers/{slug}/index.html"));
        let doc = scraper::Html::parse_document(page);
        let selector = scraper::Selector::parse("div.abstract").unwrap();
        let div = doc.select(&selector).next().unwrap();
        let html = div.inner_html();
        if html.contains("<math") {
            with_math += 1;
        }
        let outside_math: String = html
            .split("<math")
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    part
                } else {
                    part.split_once("</math>").map_or("", |(_, rest)| rest)
                }
            })
            .collect();
        assert!(
            !outside_math.contains('\\') && !outside_math.contains('$'),
            "{slug}: {outside_math}"
        );
        let plain = paper["abstract"].as_str().unwrap();
        assert!(
            !plain.contains('\\') && !plain.contains('$'),
            "{slug}: {plain}"
        );
        let source = &sources[paper["title_latex"].as_str().unwrap()];
        let visible: String = div.text().collect();
        assert_eq!(words(&visible), words(source), "{slug}");
        assert_eq!(words(plain), words(source), "{slug}");
        checked += 1;
    }
    assert_eq!(checked, 36);
    assert_eq!(with_math, 5, "abstracts with a formula");
    let all: String = site
        .iter()
        .filter(|(f, _)| f.starts_with("papers/") && f.ends_with("index.html"))
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .collect();
    for number in ["75.67%", "&lt;5%", "1.53", "20.57"] {
        assert!(all.contains(number), "{number}");
    }
}

fn a_malformed_formula_is_shown_as_written_with_a_warning_at_its_line() {
    let dir = temp_site(
        &[(
            "ana.txt",
            &listing(
                "Ana Lima",
                &[(
                    "Bounds for $\\frac{a$ Things",
                    2024,
                    "We show \\textbf{tight} bounds of $O(n^2)$ and $\\sqrt{x$.",
                    "cs.DS",
                )],
            ),
        )],
        "",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let warnings: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    // The title's problem at the title's line, the abstract's at the
    // abstract's.
    assert!(
        warnings[0]
            .starts_with("seeds/ana.txt:11: warning: expected a valid formula, found `$\\frac{a$`"),
        "{warnings:?}"
    );
    assert!(
        warnings[1]
            .starts_with("seeds/ana.txt:13: warning: expected a valid formula, found `$\\sqrt{x$`"),
        "{warnings:?}"
    );
    let page = text(&site, "papers/bounds-for-frac-a-things/index.html");
    assert!(
        page.contains("<h1>Bounds for <code class=\"latex-source\">$\\frac{a$</code> Things</h1>"),
        "{page}"
    );
    assert!(page.contains("We show <strong>tight</strong> bounds of <math>"));
    let title = page
        .split("<title>")
        .nth(1)
        .unwrap()
        .split("</title>")
        .next()
        .unwrap();
    assert!(!title.contains('$') && !title.contains('\\'), "{title}");
    assert!(
        title.starts_with("Bounds for ") && title.ends_with(" Things · Test"),
        "{title}"
    );
}

/// A profile's `family` pins a listing owner's family name (a Vietnamese
/// name, family first: the model alone takes `Van Anh`), and a BibTeX
/// `Last, First` pins a co-author's (`García Márquez`): sort names, the
/// index letter, BibTeX, RIS, CSL-JSON and citation keys follow; a
/// `family` that is not a part of the name is warned about at its line.
fn pinned_family_names_reach_every_output() {
    let seed = listing(
        "Nguyen Van Anh",
        &[("Sparse Graph Sketches", 2024, "Sketches.", "cs.DS")],
    );
    let other = listing(
        "Bob Ohm",
        &[("Sparse Graph Sketches", 2024, "Sketches.", "cs.DS")],
    );
    let bib = "@article{garcia2023,\n  author = {García Márquez, Gabriel and Nguyen Van Anh},\n  title = {Dense Graph Sketches},\n  year = {2023},\n}\n";
    let dir = temp_site(
        &[
            ("anh.txt", &seed),
            ("bob.txt", &other),
            ("lab.bib", bib.as_bytes()),
        ],
        "author_pages = \"listed\"\n",
    );
    write(
        dir.path(),
        "content/authors/nguyen-van-anh.md",
        b"+++\nfamily = \"Nguyen\"\n+++\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    let index = text(&site, "authors/index.html");
    let n = index
        .split("id=\"letter-n\">N</h2>")
        .nth(1)
        .expect("letter N");
    assert!(n.contains(">Nguyen, Van Anh</a>"), "{index}");
    let own = text(&site, "authors/nguyen-van-anh/nguyen-van-anh.bib");
    assert!(own.contains("@misc{nguyen2024sparse,"), "{own}");
    // Nguyen before Ohm: the pinned name orders the paper's authors too.
    assert!(
        own.contains("author = {Nguyen, Van Anh and Ohm, Bob and others},"),
        "{own}"
    );
    let paper = text(&site, "papers/sparse-graph-sketches/index.html");
    let byline = paper.split("Listed by").nth(1).unwrap();
    assert!(
        byline.find("Nguyen Van Anh") < byline.find("Bob Ohm"),
        "{byline}"
    );
    let slug = "dense-graph-sketches";
    let bibtex = text(&site, &format!("papers/{slug}/{slug}.bib"));
    assert!(
        bibtex.contains("author = {{García Márquez}, Gabriel and Nguyen, Van Anh},"),
        "{bibtex}"
    );
    let ris = text(&site, &format!("papers/{slug}/{slug}.ris"));
    assert!(ris.contains("AU  - García Márquez, Gabriel\r\n"), "{ris}");
    let csl: serde_json::Value =
        serde_json::from_str(text(&site, &format!("papers/{slug}/{slug}.json"))).unwrap();
    assert_eq!(
        csl[0]["author"],
        serde_json::json!([
            {"family": "García Márquez", "given": "Gabriel"},
            {"family": "Nguyen", "given": "Van Anh"}
        ])
    );

    write(
        dir.path(),
        "content/authors/nguyen-van-anh.md",
        b"+++\nhomepage = \"https://example.org/anh\"\nfamily = \"Tran\"\n+++\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert_eq!(
        messages(&report, Severity::Warning),
        ["content/authors/nguyen-van-anh.md:3: warning: expected `family` to be the first or last words of the name `Nguyen Van Anh`, found `Tran`; it is ignored"]
    );
    let index = text(&site, "authors/index.html");
    assert!(index.contains(">Van Anh, Nguyen</a>"), "{index}");
    let own = text(&site, "authors/nguyen-van-anh/nguyen-van-anh.bib");
    assert!(own.contains("@misc{ohm2024sparse,"), "{own}");
}

/// An unbalanced brace is kept as a character on the page and in plain
/// text, and warned about at the title's or the abstract's line.
fn an_unbalanced_brace_is_kept_with_a_warning_at_its_line() {
    let dir = temp_site(
        &[(
            "ana.txt",
            &listing(
                "Ana Lima",
                &[(
                    "Sets of Size} Two",
                    2024,
                    "We bound \\textbf{every {set by two.",
                    "cs.DS",
                )],
            ),
        )],
        "",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let warnings: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        warnings,
        [
            "seeds/ana.txt:11: warning: expected a `{` before the `}` after `Sets of Size`, found none (write `\\}` for a brace); it is shown as written",
            "seeds/ana.txt:13: warning: expected a `}` to close the `{` before `every {set by two.`, found the end of the text (write `\\{` for a brace); it is shown as written",
            "seeds/ana.txt:13: warning: expected a `}` to close the `{` before `set by two.`, found the end of the text (write `\\{` for a brace); it is shown as written",
        ]
    );
    let page = text(&site, "papers/sets-of-size-two/index.html");
    assert!(page.contains("<h1>Sets of Size} Two</h1>"), "{page}");
    assert!(
        page.contains("We bound <strong>{every {set by two.</strong>"),
        "{page}"
    );
    assert!(
        page.contains("<title>Sets of Size} Two · Test</title>"),
        "{page}"
    );
}

fn every_malformed_shortcode_of_a_page_is_reported_without_false_link_errors() {
    let dir = two_author_site();
    write(
        dir.path(),
        "content/papers/shared-systems-paper.md",
        b"+++\nauthors = [\"Ana Lima\", \"Carla Souza\", \"Ben van der Berg\"]\nselected = true\n+++\n",
    );
    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\n{{ papers(selected=true) }}\n",
    );
    write(
        dir.path(),
        "content/_index.md",
        b"+++\n+++\nSee [about](about/).\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let about = text(&site, "about/index.html");
    assert!(
        about.contains("<a href=\"/authors/ana-lima/\">Ana Lima</a>, Carla Souza, <a href=\"/authors/ben-van-der-berg/\">Ben van der Berg</a>"),
        "lists show the complete author list: {about}"
    );

    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\n{{ papers(foo=1) }}\n{{ papers(year=\"x\") }}\n{{ papers(\n",
    );
    let site_root = dir.path().to_str().unwrap();
    let out = vellum(&["check", "--root", site_root], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = error_lines(&stderr);
    assert_eq!(
        errors,
        [
            "content/about.md:4: error: expected one of author, year, category, selected, limit in papers(...), found `foo`",
            "content/about.md:5: error: expected a number for `year`, found `\"x\"`",
            "content/about.md:6: error: expected a shortcode closed on its line, `{{ papers(...) }}`, found `{{ papers(`",
        ],
        "{stderr}"
    );
    assert_eq!(out.status.code(), Some(1));
}

/// Papers whose citation keys would repeat get `a`, `b`, … in paper order
/// (year descending, then title); a key pinned by an override stays as
/// given and still counts as a use, so the other papers of that key get
/// letters.
fn repeated_citation_keys_get_letters_in_paper_order_and_a_pinned_key_stays() {
    let dir = temp_site(
        &[(
            "ana.txt",
            &listing(
                "Ana Lima",
                &[
                    ("Graphs Are Fast", 2024, "A.", "cs.DS"),
                    ("Graphs Are Slow", 2024, "B.", "cs.DS"),
                    ("Graphs Are Big", 2024, "C.", "cs.DS"),
                    ("Trees", 2024, "D.", "cs.DS"),
                ],
            ),
        )],
        "",
    );
    let slugs = [
        "graphs-are-big",
        "graphs-are-fast",
        "graphs-are-slow",
        "trees",
    ];
    // Each paper's citation key, from its BibTeX file.
    let keys = || {
        let (report, site) = build_memory(dir.path(), None);
        assert!(!report.failed(), "{:?}", report.diagnostics);
        slugs.map(|slug| {
            let bib = text(&site, &format!("papers/{slug}/{slug}.bib"));
            bib["@misc{".len()..bib.find(',').unwrap()].to_string()
        })
    };
    assert_eq!(
        keys(),
        [
            "lima2024graphsa",
            "lima2024graphsb",
            "lima2024graphsc",
            "lima2024trees"
        ]
    );
    write(
        dir.path(),
        "content/papers/graphs-are-fast.md",
        b"+++\nkey = \"lima2024graphs\"\n+++\n",
    );
    assert_eq!(
        keys(),
        [
            "lima2024graphsa",
            "lima2024graphs",
            "lima2024graphsb",
            "lima2024trees"
        ]
    );
}

/// Every value a paper's template value and its exports both show is the
/// same in each: the home page's `recent` values (with their abstracts)
/// against `corpus.json`, the CSL-JSON, RIS and BibTeX files, for papers
/// with and without a complete author list, arXiv id, DOI, PDF and venue.
fn the_page_and_every_export_agree_on_a_paper_s_shared_values() {
    use serde_json::{json, Value};
    let dir = two_author_site();
    write(
        dir.path(),
        "content/papers/shared-systems-paper.md",
        b"+++\narxiv = \"2405.01234\"\ndoi = \"10.1145/3600006.3613139\"\nauthors = [\"Ana Lima\", \"Carla Souza\", \"Ben van der Berg\"]\nvenue = \"SOSP 2024\"\npdf = \"https://example.org/shared.pdf\"\nselected = true\n+++\n",
    );
    write(
        dir.path(),
        "content/papers/fast-graphs.md",
        b"+++\narxiv = \"2301.00001\"\n+++\n",
    );
    // Each paper's values a line each, `name=value`, a list's a line an
    // item.
    write(
        dir.path(),
        "templates/index.html",
        b"{% for p in recent %}slug={{ p.slug | safe }}\nkey={{ p.key | safe }}\ntitle={{ p.title | safe }}\nurl={{ p.url | safe }}\nyear={{ p.year }}\nvenue={{ p.venue | default(value='') | safe }}\nselected={{ p.selected }}\ncomplete={{ p.authors_complete }}\n{% for n in p.byline %}author={{ n.name | safe }}\n{% endfor %}{% for c in p.categories %}category={{ c.code | safe }}\n{% endfor %}{% for l in p.links %}{{ l.label }}={{ l.url | safe }}\n{% endfor %}abstract={{ p.abstract_html | safe }}\n\n{% endfor %}",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let corpus: Value = serde_json::from_str(text(&site, "corpus.json")).unwrap();
    let base = corpus["base_url"].as_str().unwrap().trim_end_matches('/');
    let values: Vec<&str> = text(&site, "index.html").split_terminator("\n\n").collect();
    assert_eq!(values.len(), 3);
    let mut seen = BTreeSet::new();
    for value in values {
        let all = |name: &str| -> Vec<String> {
            let start = format!("{name}=");
            let lines = value.lines().filter_map(|l| l.strip_prefix(start.as_str()));
            lines.map(str::to_string).collect()
        };
        let one = |name: &str| all(name).pop().unwrap_or_default();
        let slug = one("slug");
        let papers = corpus["papers"].as_array().unwrap();
        let entry = papers.iter().find(|e| e["slug"] == slug).unwrap();
        let file = |ext: &str| text(&site, &format!("papers/{slug}/{slug}.{ext}"));
        let csl: Value = serde_json::from_str(file("json")).unwrap();
        let csl = &csl[0];
        let ris = file("ris");
        let tag = |name: &str| -> Vec<String> {
            let start = format!("{name}  - ");
            let lines = ris.lines().filter_map(|l| l.strip_prefix(start.as_str()));
            lines.map(str::to_string).collect()
        };
        let bib = biblatex::Bibliography::parse(file("bib")).unwrap();
        let bib = bib.iter().next().unwrap();
        let bib_field = |name: &str| {
            use biblatex::ChunksExt;
            bib.get(name).map(|c| c.format_verbatim())
        };
        let key = one("key");
        for export in [&entry["key"], &csl["id"]] {
            assert_eq!(export, &json!(key), "{slug}");
        }
        assert_eq!(tag("ID"), [key.as_str()]);
        assert_eq!(bib.key, key);

        let title = one("title");
        for export in [&entry["title"], &csl["title"]] {
            assert_eq!(export, &json!(title), "{slug}");
        }
        assert_eq!(tag("TI"), [title]);

        let url = format!("{base}{}", one("url"));
        for export in [&entry["url"], &csl["URL"]] {
            assert_eq!(export, &json!(url), "{slug}");
        }
        assert_eq!(tag("UR"), [url.as_str()]);
        assert_eq!(bib_field("url"), Some(url));

        let year = one("year");
        assert_eq!(entry["year"].to_string(), year, "{slug}");
        assert_eq!(csl["issued"]["date-parts"][0][0].to_string(), year);
        assert_eq!(tag("PY"), [year.as_str()]);
        assert_eq!(bib_field("year"), Some(year));

        let venue = all("venue").into_iter().filter(|v| !v.is_empty());
        let venue: Vec<String> = venue.collect();
        assert_eq!(entry["venue"].as_str(), venue.first().map(|v| v.as_str()));
        let csl_venue = csl.get("container-title").and_then(Value::as_str);
        assert_eq!(csl_venue, venue.first().map(|v| v.as_str()), "{slug}");
        assert_eq!(tag("T2"), venue);
        assert_eq!(bib_field("note"), venue.first().cloned(), "{slug}");

        assert_eq!(entry["selected"].to_string(), one("selected"), "{slug}");

        // Authors: the byline's names, all shown in so short a list.
        let names = all("author");
        assert_eq!(entry["authors"], json!(names), "{slug}");
        let complete = one("complete") == "true";
        assert_eq!(entry["authors_complete"], complete, "{slug}");
        let csl_authors = csl["author"].as_array().unwrap();
        assert_eq!(csl_authors.len(), names.len() + usize::from(!complete));
        let others = json!({"literal": "others"});
        assert_eq!(csl_authors.last() == Some(&others), !complete, "{slug}");
        assert_eq!(tag("AU").len(), names.len() + usize::from(!complete));

        let codes = all("category");
        assert_eq!(entry["categories"], json!(codes), "{slug}");
        assert_eq!(csl["keyword"], codes.join(", "), "{slug}");
        assert_eq!(tag("KW"), codes);

        // The links: arXiv's, the PDF and the DOI's, as the exports give
        // their identifiers.
        let arxiv = entry["arxiv_id"].as_str();
        let abs = arxiv.map(|id| format!("https://arxiv.org/abs/{id}"));
        assert_eq!(all("arXiv"), Vec::from_iter(abs), "{slug}");
        let number = arxiv.map(|id| format!("arXiv:{id}"));
        let csl_number = csl.get("number").and_then(Value::as_str);
        assert_eq!(csl_number, number.as_deref(), "{slug}");
        assert_eq!(tag("AN"), Vec::from_iter(number));
        assert_eq!(bib_field("eprint").as_deref(), arxiv, "{slug}");
        let doi = entry["doi"].as_str();
        let resolver = doi.map(|doi| format!("https://doi.org/{doi}"));
        assert_eq!(all("DOI"), Vec::from_iter(resolver), "{slug}");
        assert_eq!(csl.get("DOI").and_then(Value::as_str), doi, "{slug}");
        assert_eq!(tag("DO"), Vec::from_iter(doi.map(str::to_string)));
        assert_eq!(bib_field("doi").as_deref(), doi, "{slug}");
        assert_eq!(tag("L1"), all("PDF"), "{slug}");

        // The abstract: the list's HTML, the exports' plain text.
        let html = one("abstract");
        let plain = html.replace("<p>", "").replace("</p>", "");
        assert!(!plain.is_empty() && !plain.contains('<'), "{html}");
        for export in [&entry["abstract"], &csl["abstract"]] {
            assert_eq!(export, &json!(plain), "{slug}");
        }
        assert_eq!(tag("AB"), [plain.as_str()]);
        assert_eq!(bib_field("abstract"), Some(plain));
        seen.insert((
            complete,
            arxiv.is_some(),
            doi.is_some(),
            !all("PDF").is_empty(),
        ));
    }
    // The papers cover each kind the values differ by.
    assert_eq!(
        seen,
        BTreeSet::from([
            (true, true, true, true),
            (false, true, false, true),
            (false, false, false, false)
        ])
    );
}

/// This file's tests, for the harness in `tests/main.rs`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(scholarly: misnamed_profiles_and_overrides_name_the_closest_slug, scholar_tags_and_json_ld_without_and_with_a_complete_author_list, a_hostile_title_leaves_one_valid_json_ld_element, bibtex_parses_back_and_author_files_hold_exactly_their_papers, per_paper_files_can_be_switched_off_keeping_the_cite_block, every_export_file_can_be_switched_off_keeping_the_cite_block, a_hidden_paper_is_gone_from_every_output_and_aliases_redirect, co_authors_and_papers_per_year_on_the_pages_and_coauthors_fixture, name_variants_merge_listings_from_a_profile_or_site_toml, the_papers_shortcode_embeds_lists_in_markdown_pages, every_csl_export_renders_with_citeproc_js needs tools::citeproc(), every_abstract_of_the_real_listings_keeps_its_words_with_math_as_mathml, a_malformed_formula_is_shown_as_written_with_a_warning_at_its_line, an_unbalanced_brace_is_kept_with_a_warning_at_its_line, pinned_family_names_reach_every_output, every_malformed_shortcode_of_a_page_is_reported_without_false_link_errors, repeated_citation_keys_get_letters_in_paper_order_and_a_pinned_key_stays, the_page_and_every_export_agree_on_a_paper_s_shared_values)
}
