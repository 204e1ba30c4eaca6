//! End-to-end builds: the bundled site, links under a sub-path base URL,
//! failed builds leaving output untouched, no-op rebuilds, determinism,
//! content pages, template overrides and errors, and a generated corpus.

use crate::common::*;
use std::collections::{BTreeMap, BTreeSet};
use std::time::SystemTime;
use vellum::diagnostics::Severity;
use vellum::render::templates::{Templates, PAPER_ITEM};
use vellum::render::views::{Views, PAPER_FIELDS};
use vellum::text::escape_html;

fn page<'a>(site: &'a Pages, file: &str) -> &'a str {
    std::str::from_utf8(site.get(file).unwrap_or_else(|| panic!("{file} missing"))).unwrap()
}

fn count_pages(site: &Pages, prefix: &str) -> usize {
    site.keys()
        .filter(|k| k.starts_with(prefix) && k.ends_with("/index.html") && !k.contains("/page/"))
        .filter(|k| k[prefix.len()..].matches('/').count() == 1)
        .count()
}

fn bundled_site_has_the_expected_corpus_and_pages() {
    let (report, site) = build_memory(&project(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(report.counts, [36, 2, 2, 7]);
    assert_eq!(count_pages(&site, "papers/"), 36);
    assert_eq!(count_pages(&site, "authors/"), 2);
    assert_eq!(count_pages(&site, "years/"), 2);
    assert_eq!(count_pages(&site, "categories/"), 7);

    let years = page(&site, "years/index.html");
    assert!(
        years.contains(r#"<a href="/years/2024/">2024</a> <span class="count">34 papers</span>"#),
        "{years}"
    );
    assert!(
        years.contains(r#"<a href="/years/2025/">2025</a> <span class="count">2 papers</span>"#)
    );
    let categories = page(&site, "categories/index.html");
    for (code, slug, count) in [
        ("cs.LG", "cs-lg", 14),
        ("cs.DC", "cs-dc", 9),
        ("cs.CL", "cs-cl", 6),
        ("cs.CV", "cs-cv", 3),
        ("cs.RO", "cs-ro", 2),
        ("cs.AI", "cs-ai", 1),
        ("cs.CE", "cs-ce", 1),
    ] {
        let noun = if count == 1 { "paper" } else { "papers" };
        let fragment = format!("<span class=\"count\">{code} · {count} {noun}</span>");
        assert!(categories.contains(&fragment), "{fragment}");
        assert!(site.contains_key(format!("categories/{slug}/index.html").as_str()));
    }
    assert!(categories.contains("<h2 id=\"group-1\">Computer Science</h2>"));
    assert!(categories.contains(">Distributed, Parallel, and Cluster Computing</a>"));

    // paginate_by = 10: 18 papers give two author pages.
    // A year page does not repeat its year on every item, nor a category
    // page its category; each shows the other.
    let year_page = page(&site, "years/2024/index.html");
    let category_page = page(&site, "categories/cs-dc/index.html");
    let year_link = "<a href=\"/years/2024/\">2024</a>";
    let category_link =
        "<a href=\"/categories/cs-dc/\" title=\"Distributed, Parallel, and Cluster Computing\">cs.DC</a>";
    assert!(!year_page.contains(year_link) && year_page.contains(category_link));
    assert!(!category_page.contains(category_link) && category_page.contains(year_link));
    let author = page(&site, "authors/chuan-wu/index.html");
    assert!(author.contains("18 of at least 55 records are listed here."));
    assert!(author.contains(r#"<a href="/authors/chuan-wu/page/2/" rel="next">"#));
    assert!(author.contains("<h2 class=\"group-heading\" id=\"year-2025\">2025</h2>"));
    let second = page(&site, "authors/chuan-wu/page/2/index.html");
    assert!(second.contains("Papers 11–18 of 18"));
    assert!(!site.contains_key("authors/chuan-wu/page/3/index.html"));
    assert!(page(&site, "authors/xiaowen-chu/index.html").contains("18 of at least 91 records"));
    let authors = page(&site, "authors/index.html");
    let chu = authors.find("Chu, Xiaowen").unwrap();
    let wu = authors.find("Wu, Chuan").unwrap();
    assert!(chu < wu, "family-name order");

    let paper = page(&site, "papers/optimizing-distributed-deployment-of-mixture-of-experts-model-inference-in/index.html");
    assert!(paper.contains("<title>Optimizing Distributed Deployment of Mixture-of-Experts Model Inference in Serverless Computing · Distributed ML Publications</title>"));
    assert!(paper.contains(
        "<p class=\"byline\">Listed by <a href=\"/authors/chuan-wu/\">Chuan Wu</a> <span class=\"muted\">(co-authors not listed)</span></p>"
    ));
    assert!(paper.contains("<a href=\"/years/2025/\">2025</a>"));
    assert!(paper.contains(
        "<a href=\"/categories/cs-dc/\">Distributed, Parallel, and Cluster Computing</a> (cs.DC)"
    ));
    assert!(paper.contains("at least 75.67% compared to CPU clusters"));
    // Page weight: the abstract once, BibTeX the one citation inline
    // (issue 25), so the median paper page grows no heavier than d21e658
    // left it.
    let mut sizes: Vec<usize> = site
        .iter()
        .filter(|(f, _)| f.starts_with("papers/") && f.ends_with("/index.html"))
        .map(|(_, b)| b.len())
        .collect();
    sizes.sort_unstable();
    assert!(sizes[sizes.len() / 2] <= 6_843, "{sizes:?}");
    assert_eq!(
        paper
            .matches("at least 75.67% compared to CPU clusters")
            .count(),
        1
    );
    assert_eq!(paper.matches("<pre").count(), 1);
    assert!(paper.contains("<link rel=\"canonical\" href=\"https://example.org/papers/optimizing-distributed-deployment-of-mixture-of-experts-model-inference-in/\">"));

    let home = page(&site, "index.html");
    assert!(home.contains("<html lang=\"en\">"));
    assert!(home.contains("· 36 papers</p>"));
    assert!(home.contains("This site lists papers from the arXiv listings"));
    assert_eq!(home.matches("<li class=\"paper\">").count(), 10);
    let about = page(&site, "about/index.html");
    assert!(about.contains("<table>") && about.contains("<h1>About this site</h1>"));
}

fn every_page_has_title_description_canonical_lang_and_nav() {
    let (_, site) = build_memory(&project(), None);
    for (file, bytes) in site.iter().filter(|(f, _)| f.ends_with(".html")) {
        let html = std::str::from_utf8(bytes).unwrap();
        let doc = scraper::Html::parse_document(html);
        for selector in [
            "html[lang=en]",
            "head > title",
            "meta[name=description][content]",
            "link[rel=canonical][href^='https://example.org/']",
            "nav[aria-label=Main]",
        ] {
            let s = scraper::Selector::parse(selector).unwrap();
            assert_eq!(doc.select(&s).count(), 1, "{file}: {selector}");
        }
        // The navigation marks the part of the site the page is in.
        let current =
            scraper::Selector::parse("nav[aria-label=Main] a[aria-current=page]").unwrap();
        let marked: Vec<String> = doc.select(&current).map(|a| a.text().collect()).collect();
        let expected: &[&str] = match file.split('/').next().unwrap() {
            "authors" => &["Authors"],
            "years" => &["Years"],
            "categories" => &["Categories"],
            "search" => &["Search"],
            _ => &[],
        };
        assert_eq!(marked, expected, "{file}");
    }
}

fn assert_links_resolve(base: &str) {
    let (report, site) = build_memory(&project(), Some(base));
    assert!(!report.failed());
    let mut checked = 0;
    for (file, bytes) in site.iter().filter(|(f, _)| f.ends_with(".html")) {
        let html = std::str::from_utf8(bytes).unwrap();
        for link in links(html) {
            match resolve(&site, base, file, &link) {
                Ok(Some(_)) => checked += 1,
                Ok(None) => {}
                Err(why) => panic!("{file}: {why}"),
            }
        }
    }
    assert!(checked > 1000, "{checked} links checked");
}

fn every_internal_link_resolves_at_the_root() {
    assert_links_resolve("https://example.org/");
}

fn every_internal_link_resolves_under_a_sub_path() {
    assert_links_resolve("https://example.org/sub/dir/");
    let (_, site) = build_memory(&project(), Some("https://example.org/sub/dir/"));
    let home = page(&site, "index.html");
    assert!(home.contains("href=\"/sub/dir/style.css\""));
    assert!(home.contains("<link rel=\"canonical\" href=\"https://example.org/sub/dir/\">"));
    // 404.html is served at any depth: its links are rooted, never relative.
    for link in links(page(&site, "404.html")) {
        assert!(
            link.starts_with("/sub/dir/")
                || link.starts_with("https://example.org/sub/dir/")
                || link.starts_with('#'),
            "{link}"
        );
    }
}

fn titles_are_escaped_once() {
    let listing = "Ann Lee\n\nPublications and source records attributed to Ann Lee.\n\narXiv2020\n\nA <script> & B\n\nAbstract with <b>tags</b> & ampersands.\n\ncs.LG\n";
    let dir = temp_site(&[("ann.txt", listing.as_bytes())], "");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let paper = page(&site, "papers/a-script-b/index.html");
    assert!(
        paper.contains("<h1>A &lt;script&gt; &amp; B</h1>"),
        "{paper}"
    );
    assert!(paper.contains("<title>A &lt;script&gt; &amp; B · Test</title>"));
    assert!(
        paper.contains("<p>Abstract with &lt;b&gt;tags&lt;&#x2F;b&gt; &amp; ampersands.</p>")
            || paper.contains("<p>Abstract with &lt;b&gt;tags&lt;/b&gt; &amp; ampersands.</p>"),
        "{paper}"
    );
    assert!(!paper.contains("<script>"));
}

fn mtimes(dir: &std::path::Path) -> BTreeMap<String, SystemTime> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                e.metadata().unwrap().modified().unwrap(),
            )
        })
        .collect()
}

fn failed_build_leaves_output_untouched_and_rebuild_rewrites_nothing() {
    let site = bundled_copy();
    let root = site.path().to_str().unwrap();
    let out = vellum(&["build", "--root", root], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let public = site.path().join("public");
    let before = read_tree(&public);
    let before_times = mtimes(&public);
    assert!(before.len() > 50);

    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = vellum(&["build", "--root", root], &[]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("(0 written, 0 removed"));
    assert_eq!(
        mtimes(&public),
        before_times,
        "a no-op rebuild rewrites no file"
    );

    let bad =
        std::fs::read(project().join("tests/fixtures/listings/errors/no-category.txt")).unwrap();
    write(site.path(), "seeds/zz-bad.txt", &bad);
    write(
        site.path(),
        "content/new.md",
        b"+++\ntitle = \"New\"\n+++\nnew page\n",
    );
    let failed = vellum(&["build", "--root", root], &[]);
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1));
    assert!(stderr.contains("seeds/zz-bad.txt:9: error: expected a category line ending the record at line 9, found the next marker (line 15)"), "{stderr}");
    assert_eq!(
        read_tree(&public),
        before,
        "failed build changed the output"
    );
    assert_eq!(mtimes(&public), before_times);
}

fn builds_are_byte_identical_whatever_the_thread_count() {
    let site = bundled_copy();
    let root = site.path().to_str().unwrap();
    let one = site.path().join("one");
    let two = site.path().join("two");
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        let out = vellum(
            &[
                "build",
                "--root",
                root,
                "--output-dir",
                dir.to_str().unwrap(),
            ],
            &[("RAYON_NUM_THREADS", threads)],
        );
        assert!(out.status.success());
    }
    let (a, b) = (read_tree(&one), read_tree(&two));
    assert!(a.len() > 50);
    assert_eq!(a, b);
}

/// A template looping over a map's keys and values (`site.extra`, as
/// Zola sites list their social links) gets them in one order on every
/// build: the order of the value's fields, a table's keys sorted.
fn maps_are_iterated_in_the_same_order_on_every_build() {
    let dir = temp_site(
        &[("olumide.txt", &olumide_listing())],
        "[extra]\nmastodon = \"m\"\ngithub = \"g\"\nbluesky = \"b\"\n",
    );
    write(
        dir.path(),
        "templates/404.html",
        b"{% extends \"base.html\" %}{% block content %}<p id=\"o\">{% for k, v in page %}{{ k }},{% endfor %}|{% for k, v in site.extra %}{{ k }}={{ v }},{% endfor %}</p>{% endblock content %}",
    );
    for _ in 0..3 {
        let out = vellum(
            &["build", "--quiet", "--root", dir.path().to_str().unwrap()],
            &[],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let html = std::fs::read_to_string(dir.path().join("public/404.html")).unwrap();
        assert!(
            html.contains("<p id=\"o\">kind,section,title,description,url,permalink,extra,|bluesky=b,github=g,mastodon=m,</p>"),
            "{html}"
        );
    }
}

fn usage_errors_exit_2() {
    assert_eq!(
        vellum(&["build", "--no-such-flag"], &[]).status.code(),
        Some(2)
    );
    assert_eq!(vellum(&["frobnicate"], &[]).status.code(), Some(2));
    let version = vellum(&["--version"], &[]);
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("vellum 0."));
    let site = bundled_copy();
    let out = vellum(
        &[
            "build",
            "--root",
            site.path().to_str().unwrap(),
            "--output-dir",
            "seeds",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(2), "refuses to write over inputs");
}

/// The text of built file `file` of `site` between the first `start` and
/// the `end` after it.
fn between(site: &Pages, file: &str, start: &str, end: &str) -> String {
    let html = page(site, file);
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("{start} in {file}"))
        + start.len();
    html[from..from + html[from..].find(end).unwrap()].to_string()
}

/// A list item's venue, year and categories (`meta_html`) and its small
/// links (`links_html`): every list shows them all, but a year's page
/// leaves out the year and a category's page that category.
fn list_items_leave_out_the_year_or_category_of_their_page() {
    let dir = olumide_site();
    let root = dir.path();
    let override_file = "content/papers/routing-tokens-in-mixture-of-experts.md";
    write(
        root,
        override_file,
        b"+++\nvenue = \"Systems & ML\"\narxiv = \"2105.01234\"\ndoi = \"10.1000/a&b\"\n+++\n",
    );
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let item_meta =
        |site: &Pages, file: &str| between(site, file, "<span class=\"paper-meta\">", "</span>\n");
    let paper = "papers/routing-tokens-in-mixture-of-experts/index.html";
    let paper_meta = |site: &Pages| between(site, paper, "<p class=\"paper-meta\">", "</p>");
    let venue = "<span class=\"venue\">Systems &amp; ML</span>";
    let year = "<a href=\"/years/2021/\">2021</a>";
    let lg = "<a href=\"/categories/cs-lg/\" title=\"Machine Learning\">cs.LG</a>";
    let dc = "<a href=\"/categories/cs-dc/\" title=\"Distributed, Parallel, and Cluster Computing\">cs.DC</a>";
    let ml = "<a href=\"/categories/stat-ml/\" title=\"Machine Learning\">stat.ML</a>";
    let all = format!("{venue}{year}{lg}{dc}{ml}");
    let author = "authors/olumide-adeyemi/index.html";
    assert_eq!(item_meta(&site, author), all);
    assert_eq!(item_meta(&site, "index.html"), all);
    assert_eq!(paper_meta(&site), all);
    for (file, want) in [
        ("years/2021/index.html", format!("{venue}{lg}{dc}{ml}")),
        (
            "categories/cs-lg/index.html",
            format!("{venue}{year}{dc}{ml}"),
        ),
        (
            "categories/cs-dc/index.html",
            format!("{venue}{year}{lg}{ml}"),
        ),
        (
            "categories/stat-ml/index.html",
            format!("{venue}{year}{lg}{dc}"),
        ),
    ] {
        assert_eq!(item_meta(&site, file), want, "{file}");
    }
    let links = "<a href=\"https://arxiv.org/abs/2105.01234\">arXiv</a><a href=\"https://arxiv.org/pdf/2105.01234\">PDF</a><a href=\"https://doi.org/10.1000/a&amp;b\">DOI</a>";
    for file in [
        author,
        "years/2021/index.html",
        "categories/cs-lg/index.html",
    ] {
        assert_eq!(between(&site, file, "</span>\n    ", "\n"), links, "{file}");
    }

    // An empty venue is left out, as the templates' `{% if %}` left it.
    write(root, override_file, b"+++\nvenue = \"\"\n+++\n");
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let dated = format!("{year}{lg}{dc}{ml}");
    assert_eq!(item_meta(&site, author), dated);
    assert_eq!(paper_meta(&site), dated);
}

/// A list's items are the same whether Vellum fills in the default
/// theme's `partials/paper_item.html` itself or tera renders an item
/// template it cannot (here one with a loop), which sees the page's
/// variables as an include in the page's loop did; a page whose own
/// template loops over the papers' values gets them.
fn list_items_are_the_same_from_any_item_template() {
    let dir = olumide_site();
    let root = dir.path();
    let items = |site: &Pages, file: &str| between(site, file, "<ul class=\"papers\">", "</ul>");
    let pages = [
        "index.html",
        "authors/olumide-adeyemi/index.html",
        "years/2021/index.html",
        "categories/cs-lg/index.html",
    ];
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let filled: Vec<String> = pages.iter().map(|file| items(&site, file)).collect();
    let title = "<a class=\"paper-title\" href=\"/papers/routing-tokens-in-mixture-of-experts/\">Routing Tokens in Mixture-of-Experts</a>";
    for (file, html) in pages.iter().zip(&filled) {
        assert!(html.contains(title), "{file}: {html}");
    }
    let theirs = include_str!("../themes/default/templates/partials/paper_item.html");
    write(
        root,
        "templates/partials/paper_item.html",
        format!("{theirs}{{% for name in paper.byline %}}{{% endfor %}}<i>{{{{ page.kind }}}}{{% if group %}} {{{{ group.heading }}}} {{{{ author.name }}}}{{% endif %}}</i>\n").as_bytes(),
    );
    write(
        root,
        "templates/year.html",
        b"{% extends \"base.html\" %}{% block content %}{% for paper in papers %}<p class=\"t\">{{ paper.key }}</p>{% endfor %}{% endblock content %}",
    );
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    for (file, html) in pages.iter().zip(&filled) {
        if *file == "years/2021/index.html" {
            continue;
        }
        let kind = match *file {
            "index.html" => "<i>index</i>\n".to_string(),
            "categories/cs-lg/index.html" => "<i>category</i>\n".to_string(),
            _ => "<i>author 2021 Olumide Adeyemi</i>\n".to_string(),
        };
        let theirs = items(&site, file);
        assert!(theirs.contains(&kind), "{file}: {theirs}");
        assert_eq!(&theirs.replace(&kind, ""), html, "{file}");
    }
    let year = page(&site, "years/2021/index.html");
    let in_2021 = filled[2].matches("<li class=\"paper\">").count();
    assert_eq!(in_2021, 1, "{}", filled[2]);
    assert_eq!(year.matches("<p class=\"t\">").count(), in_2021, "{year}");
    assert!(!year.contains("<p class=\"t\"></p>"), "{year}");
}

/// Items printed alone and safe are spliced in after the render; any
/// other use of them (a filter block, a test, printed twice) sees the
/// items themselves, and no page keeps a mark.
fn rendered_lists_are_the_items_however_a_template_prints_them() {
    let dir = olumide_site();
    let root = dir.path();
    let items = |site: &Pages, file: &str| {
        between(site, file, "<ul class=\"papers\">", "</ul>")
            .trim()
            .to_string()
    };
    let (_, site) = build_memory(root, None);
    let year_items = items(&site, "years/2021/index.html");
    let category_items = items(&site, "categories/cs-lg/index.html");
    let home_items = items(&site, "index.html");
    assert_eq!(
        year_items.matches("<li class=\"paper\">").count(),
        1,
        "{year_items}"
    );
    let list = |body: &str| {
        format!("{{% extends \"base.html\" %}}{{% block content %}}{body}{{% endblock content %}}")
    };
    write(
        root,
        "templates/year.html",
        list("{% filter upper %}<ul class=\"papers\">{{ papers_html | safe }}</ul>{% endfilter %}")
            .as_bytes(),
    );
    write(
        root,
        "templates/category.html",
        list("<ul class=\"papers\">{{ papers_html | safe }}</ul>{% if papers_html %}<ul class=\"again\">{{- papers_html|safe -}}</ul>{% endif %}").as_bytes(),
    );
    write(
        root,
        "templates/index.html",
        list("<ul class=\"papers\">{{ recent_html | safe }}</ul><ul class=\"again\">{{ recent_html | safe }}</ul>").as_bytes(),
    );
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(items(&site, "index.html"), home_items);
    assert_eq!(
        between(&site, "index.html", "<ul class=\"again\">", "</ul>").trim(),
        home_items
    );
    let year = page(&site, "years/2021/index.html");
    assert!(
        year.contains(&year_items.to_uppercase()) && year.contains("<UL CLASS=\"PAPERS\">"),
        "{year}"
    );
    assert_eq!(items(&site, "categories/cs-lg/index.html"), category_items);
    assert_eq!(
        between(
            &site,
            "categories/cs-lg/index.html",
            "<ul class=\"again\">",
            "</ul>"
        )
        .trim(),
        category_items
    );
    for (file, bytes) in &site {
        let text = String::from_utf8_lossy(bytes);
        assert!(!text.contains('\u{fdd0}'), "{file} keeps a mark");
    }

    // Items captured by a block `set` are the items, not a mark.
    write(
        root,
        "templates/year.html",
        list("<p id=\"n\">{% set items %}{{ papers_html | safe }}{% endset %}{{ items | length }}</p>").as_bytes(),
    );
    // A profile cannot hold a mark, even as a character reference.
    write(
        root,
        "content/authors/olumide-adeyemi.md",
        b"+++\n+++\nMark &#xFDD0;0&#xFDD0; here.\n",
    );
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let length = between(&site, "years/2021/index.html", "<p id=\"n\">", "</p>");
    let (_, default_site) = build_memory(olumide_site().path(), None);
    let raw_items = between(
        &default_site,
        "years/2021/index.html",
        "<ul class=\"papers\">\n",
        "</ul>",
    );
    // The template puts a line feed after the items.
    let items_length = raw_items.strip_suffix('\n').unwrap().chars().count();
    assert_eq!(length, items_length.to_string());
    let author = page(&site, "authors/olumide-adeyemi/index.html");
    assert!(
        author.contains("<p>Mark \u{fffd}0\u{fffd} here.</p>"),
        "{author}"
    );
    assert_eq!(
        author.matches("<li class=\"paper\">").count(),
        1,
        "{author}"
    );
}

/// A paper page's `paper` holds every field, whichever its template
/// reads.
fn a_paper_page_gets_every_field_its_template_reads() {
    let dir = olumide_site();
    let root = dir.path();
    let file = "papers/routing-tokens-in-mixture-of-experts/index.html";
    let template = "{% extends \"base.html\" %}{% block content %}<p id=\"f\">{{ paper.key }}|{{ paper.url }}|{{ paper.year }}|{{ paper.more_authors }}|{% for n in paper.byline %}{{ n.name }}{% endfor %}|{% for c in paper.categories %}{{ c.code }} {% endfor %}|{{ paper.byline_html | safe }}|{{ paper.selected }}</p>{% endblock content %}";
    write(root, "templates/paper.html", template.as_bytes());
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(
        between(&site, file, "<p id=\"f\">", "</p>"),
        "adeyemi2021routing|/papers/routing-tokens-in-mixture-of-experts/|2021|0|Olumide Adeyemi|cs.LG cs.DC stat.ML |<a href=\"/authors/olumide-adeyemi/\">Olumide Adeyemi</a>|false"
    );
    // Every field, whichever the template reads, in the value's order.
    write(
        root,
        "templates/paper.html",
        b"<p id=\"f\">{% for name, value in paper %}{{ name }} {% endfor %}</p>",
    );
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(
        between(&site, file, "<p id=\"f\">", "</p>"),
        "slug key selected venue url title title_html year year_url authors byline byline_html meta_html links_html more_authors authors_complete categories links bib_url abstract_html categories_html category_count "
    );
    // A template reading one field, and testing one no paper has.
    write(
        root,
        "templates/paper.html",
        b"{{ paper.title }}{% if paper.nosuch %}x{% endif %}",
    );
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(page(&site, file), "Routing Tokens in Mixture-of-Experts");
}

/// An author page's papers come as values (`papers`), which a template
/// groups by year itself, and rendered (`papers_html`, each group's
/// `papers_html`); a group has no `papers` of its own, and a template
/// reading a value its page does not have fails at its line, once,
/// rather than being rendered again with more values.
fn an_author_page_gives_its_papers_as_values_and_a_missing_value_fails_at_its_line() {
    let dir = olumide_site();
    let root = dir.path();
    let file = "authors/olumide-adeyemi/index.html";
    write(
        root,
        "templates/author.html",
        b"{% for year, run in papers | group_by(attribute=\"year\") %}<p class=\"y\">{{ year }}:{% for p in run %} {{ p.key }}{% endfor %}</p>{% endfor %}<ul>{{ papers_html | safe }}</ul>",
    );
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(
        between(&site, file, "<p class=\"y\">", "</p>"),
        "2021: adeyemi2021routing"
    );
    let items = between(&site, file, "<ul>", "</ul>");
    assert_eq!(items.matches("<li class=\"paper\">").count(), 1, "{items}");
    write(
        root,
        "templates/author.html",
        b"{% for group in groups %}\n<h2>{{ group.heading }}</h2>\n{% for p in group.papers %}{{ p.key }}{% endfor %}{% endfor %}",
    );
    let (report, _) = build_memory(root, None);
    let errors = messages(&report, vellum::diagnostics::Severity::Error);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(
        errors[0],
        "templates/author.html:3: error: expected a valid template, found Iteration not possible on type `undefined` (page kind: author; 1 page, first authors/olumide-adeyemi/index.html)"
    );
}

fn content_pages_sections_drafts_and_profiles() {
    let dir = olumide_site();
    let root = dir.path();
    write(
        root,
        "content/group/_index.md",
        b"+++\ntitle = \"Group\"\n+++\nOur group.\n",
    );
    write(
        root,
        "content/group/zeta.md",
        b"+++\ntitle = \"Zeta\"\nweight = 1\n+++\n# Zeta page\n",
    );
    write(
        root,
        "content/group/alpha.md",
        b"+++\ntitle = \"Alpha\"\nweight = 2\ndate = 2024-05-01\n+++\nA ~~struck~~ word.\n",
    );
    write(
        root,
        "content/draft.md",
        b"+++\ntitle = \"Draft\"\ndraft = true\n+++\nhidden\n",
    );
    write(root, "content/authors/olumide-adeyemi.md", b"+++\nhomepage = \"https://example.net/olu\"\norcid = \"0000-0002-1825-0097\"\n+++\nWorks on **routing**.\n");
    let (report, site) = build_memory(root, None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let section = page(&site, "group/index.html");
    let zeta = section.find("/group/zeta/").unwrap();
    let alpha = section.find("/group/alpha/").unwrap();
    assert!(zeta < alpha, "weight orders the section");
    assert!(page(&site, "group/zeta/index.html").contains("<h1 id=\"zeta-page\">Zeta page</h1>"));
    assert!(page(&site, "group/alpha/index.html").contains("<time datetime=\"2024-05-01\">"));
    assert!(!site.contains_key("draft/index.html"));
    let author = page(&site, "authors/olumide-adeyemi/index.html");
    assert!(author.contains("Works on <strong>routing</strong>."));
    assert!(
        author.contains("<h1>Olumide Adeyemi</h1>"),
        "the profile is shown on the generated author page"
    );
    let sitemap = page(&site, "sitemap.xml");
    assert_eq!(
        sitemap.matches("/authors/olumide-adeyemi/<").count(),
        1,
        "a profile is not a page of its own"
    );
    assert!(author.contains("<a href=\"https://orcid.org/0000-0002-1825-0097\">"));

    let mut sink = vellum::output::MemorySink::default();
    let options = vellum::build::BuildOptions {
        root: root.to_path_buf(),
        drafts: true,
        ..Default::default()
    };
    vellum::build::build(&options, &mut sink);
    assert!(sink.site.contains_key("draft/index.html"));
}

fn content_page_colliding_with_a_generated_page_is_an_error_naming_both() {
    let dir = olumide_site();
    write(
        dir.path(),
        "content/authors/olumide-adeyemi/_index.md",
        b"+++\ntitle = \"Clash\"\n+++\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    let errors = messages(&report, Severity::Error);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with("content/authors/olumide-adeyemi/_index.md:1: error:"),
        "{}",
        errors[0]
    );
    assert!(
        errors[0].contains("page of author Olumide Adeyemi"),
        "{}",
        errors[0]
    );
}

fn site_templates_override_the_theme_and_errors_name_the_template_line() {
    let dir = olumide_site();
    write(dir.path(), "templates/404.html", b"{% extends \"base.html\" %}\n{% block content %}<p>Custom 404</p>{% endblock content %}\n");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed());
    assert!(page(&site, "404.html").contains("<p>Custom 404</p>"));

    for (template, line) in [
        ("{% extends \"base.html\" %}\n{% block content %}\n{{ page.title | nofilter }}\n{% endblock content %}\n", 3),
        ("{% extends \"base.html\" %}\n{% block content %}\n\n{{ page.nosuch.x }}\n{% endblock content %}\n", 4),
        ("{% extends \"base.html\" %}\n{% block content %}\n{% if %}\n{% endblock content %}\n", 3),
    ] {
        write(dir.path(), "templates/404.html", template.as_bytes());
        let (report, _) = build_memory(dir.path(), None);
        let error = report.diagnostics.iter().find(|d| d.severity == Severity::Error).expect("an error");
        assert_eq!((error.file.to_str().unwrap(), error.line), ("templates/404.html", line), "{error}");
    }
}

fn now_and_random_functions_are_not_available_to_templates() {
    let dir = olumide_site();
    for call in ["now()", "get_random(start=1, end=9)"] {
        let template = format!("{{% extends \"base.html\" %}}{{% block content %}}{{{{ {call} }}}}{{% endblock content %}}");
        write(dir.path(), "templates/404.html", template.as_bytes());
        let (report, _) = build_memory(dir.path(), None);
        assert!(report.failed(), "{call} must not exist");
    }
}

fn site_toml_errors_name_the_line() {
    let dir = temp_site(&[], "paginate_by = \"ten\"\n");
    let out = vellum(&["build", "--root", dir.path().to_str().unwrap()], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("site.toml:3: error:"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn generated_corpus_builds_every_paper_and_author() {
    let (_work, corpus_dir) = crate::common::gen_corpus(10000, 2000);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(corpus_dir.join("manifest.json")).unwrap())
            .unwrap();
    let site_dir = temp_site(&[], "paginate_by = 20\n");
    copy_dir(&corpus_dir.join("listings"), &site_dir.path().join("seeds"));
    let (report, site) = build_memory(site_dir.path(), None);
    assert!(
        !report.failed(),
        "{:?}",
        report.diagnostics.iter().take(5).collect::<Vec<_>>()
    );
    assert_eq!(
        count_pages(&site, "papers/") as u64,
        manifest["papers"].as_u64().unwrap()
    );
    assert_eq!(
        count_pages(&site, "authors/") as u64,
        manifest["authors"].as_u64().unwrap()
    );
    // The most prolific author's BibTeX file, written in runs of 256
    // entries: every paper once, in the author's order (as corpus.json
    // lists them), an entry a line apart, nothing after the last.
    let corpus: serde_json::Value = serde_json::from_str(text(&site, "corpus.json")).unwrap();
    let prolific = corpus["authors"]
        .as_array()
        .unwrap()
        .iter()
        .max_by_key(|a| a["papers"].as_array().unwrap().len())
        .unwrap();
    let papers: Vec<&str> = prolific["papers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|key| key.as_str().unwrap())
        .collect();
    assert!(papers.len() > 1000, "{}", papers.len());
    let slug = prolific["slug"].as_str().unwrap();
    let bib = text(&site, &format!("authors/{slug}/{slug}.bib"));
    let keys: Vec<&str> = bib
        .lines()
        .filter_map(|line| line.strip_prefix("@misc{"))
        .map(|rest| rest.trim_end_matches(','))
        .collect();
    assert_eq!(keys, papers);
    assert_eq!(bib.matches("@misc{").count(), papers.len());
    assert!(!bib.contains("\n\n") && bib.ends_with('}'));
    // Past 1,000 authors the authors index is one page per initial letter:
    // `/authors/` holds the first, `/authors/letter/x/` each other; every
    // author is on exactly one, and the A-Z bar of each links them all.
    let mut index_pages: Vec<&str> = site
        .keys()
        .map(|k| &**k)
        .filter(|k| k.starts_with("authors/letter/"))
        .collect();
    assert!(index_pages.len() >= 15, "{index_pages:?}");
    index_pages.push("authors/index.html");
    let mut listed = Vec::new();
    for file in &index_pages {
        let html = text(&site, file);
        for link in html.split("<li><a href=\"/authors/").skip(1) {
            if let Some(slug) = link
                .split(['/', '"'])
                .next()
                .filter(|s| !s.is_empty() && *s != "letter")
            {
                listed.push(slug.to_string());
            }
        }
        for file in &index_pages {
            let url = format!("/{}", file.trim_end_matches("index.html"));
            assert!(
                html.contains(&format!("href=\"{url}\"")),
                "{url} from {file}"
            );
        }
        assert!(html.len() < 150_000, "{file}: {} bytes", html.len());
    }
    listed.sort();
    let twice: Vec<&String> = listed
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| &w[0])
        .collect();
    assert!(twice.is_empty(), "on two index pages: {twice:?}");
    listed.dedup();
    let mut pages: Vec<String> = site
        .keys()
        .filter(|k| k.starts_with("authors/") && k.ends_with("/index.html"))
        .filter(|k| k.matches('/').count() == 2 && !k.starts_with("authors/letter/"))
        .map(|k| k.split('/').nth(1).unwrap().to_string())
        .collect();
    pages.sort();
    assert_eq!(listed, pages);
    assert!(text(&site, "authors/index.html")
        .contains("<a href=\"/authors/\" aria-current=\"page\">A</a>"));
    // A site's own authors.html from before the letter pages is warned
    // about: it would list only the first letter's authors.
    crate::common::write(
        site_dir.path(),
        "templates/authors.html",
        b"{% extends \"base.html\" %}{% block content %}{% for a in authors %}{{ a.name }}{% endfor %}{% endblock content %}",
    );
    let (report, _) = build_memory(site_dir.path(), None);
    let warnings = crate::common::messages(&report, vellum::diagnostics::Severity::Warning);
    assert!(
        warnings.iter().any(|w| w.starts_with("templates/authors.html:1: warning: expected the authors index to link its letter pages")),
        "{warnings:?}"
    );
    assert_eq!(
        report.counts[0] as u64,
        manifest["papers"].as_u64().unwrap()
    );
    assert_eq!(report.counts[2] as u64, manifest["years"].as_u64().unwrap());
    assert_eq!(
        report.counts[3] as u64,
        manifest["categories"].as_u64().unwrap()
    );

    // Each sampled paper has a page with its title, year, category and authors.
    let samples = manifest["sample"].as_array().unwrap();
    assert_eq!(samples.len(), 20);
    for sample in samples {
        // Titles are LaTeX (`1.5$\times$`): the heading holds their HTML.
        let title = vellum::text::latex::render(sample["title"].as_str().unwrap()).html;
        let heading = format!("<h1>{title}</h1>");
        let (file, html) = site
            .iter()
            .filter(|(f, _)| f.starts_with("papers/"))
            .map(|(f, b)| (f, std::str::from_utf8(b).unwrap()))
            .find(|(_, html)| html.contains(&heading))
            .unwrap_or_else(|| panic!("no page titled {title}"));
        let year = sample["year"].as_u64().unwrap();
        assert!(html.contains(&format!(">{year}</a>")), "{file}: year");
        assert!(
            html.contains(&format!("</a> ({})", sample["category"].as_str().unwrap())),
            "{file}: category"
        );
        for author in sample["authors"].as_array().unwrap() {
            let name = escape_html(author.as_str().unwrap());
            assert!(
                html.contains(&format!(">{name}</a>")),
                "{file}: author {name}"
            );
        }
        let listed = html.matches("/authors/").count();
        assert!(listed >= sample["authors"].as_array().unwrap().len());
    }
}

fn output_dir_never_cleans_files_vellum_did_not_write() {
    let site = bundled_copy();
    let root = site.path();
    write(root, "src/main.rs", b"fn main() {}");
    write(root, "notes.md", b"notes");
    for (dir, code) in [
        ("src", 1),
        ("notes.md", 1),
        ("site.toml", 2),
        ("seeds/new", 2),
        ("content/x/y", 2),
    ] {
        let out = vellum(
            &[
                "build",
                "--root",
                root.to_str().unwrap(),
                "--output-dir",
                dir,
            ],
            &[],
        );
        assert_eq!(
            out.status.code(),
            Some(code),
            "{dir}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        std::fs::read(root.join("src/main.rs")).unwrap(),
        b"fn main() {}"
    );
    assert_eq!(std::fs::read(root.join("notes.md")).unwrap(), b"notes");
    assert!(!root.join("seeds/new").exists() && !root.join("content/x").exists());
    // Relative to the current directory too.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vellum"))
        .args(["build", "--output-dir", "seeds/new"])
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

fn a_huge_page_number_is_one_short_warning() {
    let listing = "Ana Lima\n\nAt least 3 records · Page 4000000000\n\narXiv2023\n\nT\n\ncs.LG\n";
    let dir = temp_site(&[("x.txt", listing.as_bytes())], "");
    let (report, _) = build_memory(dir.path(), None);
    assert!(!report.failed());
    let warning = report.diagnostics[0].to_string();
    assert_eq!(
        warning,
        "seeds/x.txt:3: warning: expected listing pages 1 to 4000000000 for Ana Lima, found no page 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 3999999989 more"
    );
}

/// A real site with papers of every kind a list item shows: the bundled
/// site's listings (abstracts, several authors, two listing owners),
/// Olumide Adeyemi's listing with an override giving its details (a
/// venue with `&` and `<`, links, selected, a complete author list
/// longer than a list shows), pybtex's `xampl.bib` (entries with a
/// journal, without an abstract, without a category) and biblatex's
/// `libra.bib` (an entry without a year).
/// `extra` is appended to `site.toml`.
fn site_of_every_kind(extra: &str) -> TempDir {
    let dir = bundled_copy();
    let root = dir.path();
    write(root, "seeds/olumide.txt", &olumide_listing());
    for bib in ["pybtex/xampl.bib", "biblatex/libra.bib"] {
        let bytes = std::fs::read(project().join("tests/fixtures/bibtex").join(bib)).unwrap();
        write(
            root,
            &format!("seeds/{}", bib.split('/').nth(1).unwrap()),
            &bytes,
        );
    }
    write(
        root,
        "content/papers/routing-tokens-in-mixture-of-experts.md",
        b"+++\nvenue = \"Systems & ML <2021>\"\narxiv = \"2105.01234\"\ndoi = \"10.1000/a&b\"\nselected = true\nauthors = [\"Olumide Adeyemi\", \"Chuan Wu\", \"A. O'Neil\", \"B\", \"C\", \"D\", \"E\", \"F\", \"G\", \"H\"]\n+++\n",
    );
    let site_toml = std::fs::read_to_string(root.join("site.toml")).unwrap();
    write(
        root,
        "site.toml",
        format!("{site_toml}\n{extra}\n").as_bytes(),
    );
    dir
}

/// [`site_of_every_kind`] built in memory, with what renders its pages
/// again (whose inputs the tests read).
fn papers_of_every_kind(extra: &str) -> (TempDir, vellum::render::Snapshot) {
    let dir = site_of_every_kind(extra);
    let options = vellum::build::BuildOptions {
        root: dir.path().to_path_buf(),
        snapshot: true,
        ..Default::default()
    };
    let report = vellum::build::build(&options, &mut vellum::output::MemorySink::default());
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let snapshot = report.snapshot.expect("a snapshot of the build");
    (dir, snapshot)
}

/// A paper's list item: (views of its site, paper, abstract, list, its
/// tera value).
type Item<'v> = (
    &'v Views<'v>,
    usize,
    vellum::render::site::Abstract,
    vellum::render::views::List,
    tera::Value,
);

/// Every paper of `corpus`, the site of `views`, in every list it is
/// shown in (others, its year's, each of its authors', each of its
/// categories'), with and without its abstract.
fn items_of<'v>(views: &'v Views<'v>, corpus: &vellum::corpus::Corpus) -> Vec<Item<'v>> {
    use vellum::render::site::Abstract;
    use vellum::render::views::List;
    let mut items = Vec::new();
    for (id, paper) in corpus.papers.iter().enumerate() {
        let lists = [List::Other, List::Year]
            .into_iter()
            .chain(paper.authors.iter().map(|&a| List::Author(a)))
            .chain(paper.categories.iter().map(|&c| List::Category(c)));
        for list in lists {
            for with in [Abstract::Included, Abstract::Left] {
                items.push((views, id, with, list, views.paper(id, with, list)));
            }
        }
    }
    items
}

/// Loads `source` as the site's only template, `partials/paper_item.html`;
/// `None` when tera refuses it.
fn item_templates(source: &str) -> Option<Templates> {
    let files = vec![(
        PAPER_ITEM.to_string(),
        std::path::PathBuf::from("templates").join(PAPER_ITEM),
        source.to_string(),
    )];
    match Templates::load(files) {
        (Some(templates), errors) if errors.is_empty() => Some(templates),
        _ => None,
    }
}

/// Whether the item template of `templates` is filled in without tera
/// (`Ok(true)`) or left to tera (`Ok(false)`). Errors: the first of
/// `items` whose filled-in bytes differ from those tera renders with
/// the same paper value (as a page's list renders it), with both texts.
fn compare_fast_items(templates: &Templates, items: &[Item]) -> Result<bool, String> {
    let Some(item) = templates.paper_item() else {
        return Ok(false);
    };
    for (views, id, with, list, value) in items {
        let values = views.paper_values(*id, *with, *list);
        let mut filled = String::new();
        item.fill(&mut filled, &|field| field.value(&values));
        let mut context = tera::Context::new();
        context.insert_value("paper", value.clone());
        let rendered = templates
            .render(PAPER_ITEM, &context)
            .map_err(|e| format!("paper {id}: tera fails on a compiled item template: {e}"))?;
        if filled != rendered {
            return Err(format!(
                "paper {id}: filled in\n{filled:?}\ntera renders\n{rendered:?}"
            ));
        }
    }
    Ok(true)
}

/// Every item template in the repo (each theme's and any in the test
/// fixtures) is filled in without tera, and gives for every paper in
/// every list, on a site with and without per-paper exports, the bytes
/// tera renders; the papers hold every field both true and false.
fn every_item_template_in_the_repo_is_filled_in_as_tera_renders_it() {
    let (_dir, snapshot) = papers_of_every_kind("");
    let (_without_dir, without) = papers_of_every_kind("paper_exports = false");
    let (site, site_without) = (snapshot.site(), without.site());
    let views = [Views::new(&site), Views::new(&site_without)];
    let items: Vec<Item> = items_of(&views[0], site.corpus)
        .into_iter()
        .chain(items_of(&views[1], site_without.corpus))
        .collect();
    for field in PAPER_FIELDS.iter().filter(|field| !field.is_list()) {
        let truthy: BTreeSet<bool> = items
            .iter()
            .map(|(views, id, with, list, _)| {
                field
                    .value(&views.paper_values(*id, *with, *list))
                    .is_truthy()
            })
            .collect();
        let constant = ["slug", "key", "url", "title", "title_html", "byline_html"];
        let want = if constant.contains(&field.name) { 1 } else { 2 };
        assert_eq!(truthy.len(), want, "{}: {truthy:?}", field.name);
    }
    let mut sources: Vec<std::path::PathBuf> = walkdir::WalkDir::new(project().join("themes"))
        .into_iter()
        .chain(walkdir::WalkDir::new(project().join("tests/fixtures")))
        .filter_map(Result::ok)
        .map(|entry| entry.into_path())
        .filter(|path| path.ends_with(PAPER_ITEM))
        .collect();
    sources.sort();
    assert!(!sources.is_empty());
    for path in sources {
        let source = std::fs::read_to_string(&path).unwrap();
        let templates = item_templates(&source).expect("the item template loads");
        assert_eq!(
            compare_fast_items(&templates, &items),
            Ok(true),
            "{}",
            path.display()
        );
    }
}

/// A generated item template: text (with `{`, `%`, `#`, `}`), prints of
/// fields of `paper` (every field of [`PAPER_FIELDS`] and a few it does
/// not have) plain, `safe` or filtered, `if`/`else` nested, whitespace
/// control, comments, other variables, loops, comparisons, tests, `set`
/// and raw blocks: what the item fast path accepts and what it must
/// refuse.
fn item_template() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let (lists, fields): (Vec<_>, Vec<_>) = PAPER_FIELDS.iter().partition(|f| f.is_list());
    let mut unknown: Vec<&str> = lists.iter().map(|field| field.name).collect();
    unknown.extend(["nope", "Title", "title_htm", "url.x"]);
    let fields: Vec<&str> = fields.iter().map(|field| field.name).collect();
    let field = prop_oneof![
        5 => proptest::sample::select(fields),
        1 => proptest::sample::select(unknown),
    ];
    // Each construct as a choice of forms: those the fast path accepts
    // (weighted up, so that many templates are compiled) and those it
    // must refuse.
    let forms = |accepted: Vec<&'static str>, refused: Vec<&'static str>| {
        prop_oneof![
            5 => proptest::sample::select(accepted),
            1 => proptest::sample::select(refused),
        ]
    };
    let text = forms(
        vec![
            "<li class=\"paper\">",
            "</li>\n",
            " ",
            "\n",
            "a{b}",
            "50%",
            "#x",
            "&amp;",
            "é",
        ],
        vec!["{", "}", "%", "#", "{ {", "}}", "%}", "#}", "{ %"],
    );
    let print = forms(
        vec![
            "{{ paper.F }}",
            "{{paper.F}}",
            "{{ paper.F | safe }}",
            "{{paper.F|safe}}",
            "{{\n  paper.F\t}}",
        ],
        vec![
            "{{ paper.F | upper }}",
            "{{ paper.F | safe | upper }}",
            "{{- paper.F -}}",
            "{{ paper.F -}}",
            "{{ paper['F'] }}",
            "{{ paper.F ~ \"x\" }}",
        ],
    );
    let other = forms(
        vec!["{# a comment #}", "{# {{ other }} #}", "{#\n{% if %}\n#}"],
        vec![
            "{{ other }}",
            "{{ paper }}",
            "{#- trimmed -#}",
            "{% for a in paper.authors %}{{ a.name }}{% endfor %}",
            "{% for name in paper.byline %}[{{ name.name }}]{% endfor %}",
            "{% set x = paper.title %}{{ x }}",
            "{% raw %}{{ paper.title }}{% endraw %}",
            "{{ \"}}\" }}",
            "{{ site.title }}",
        ],
    );
    let open = forms(
        vec!["{% if paper.F %}", "{%if paper.F%}", "{%  if\tpaper.F\n%}"],
        vec![
            "{%- if paper.F -%}",
            "{% if paper.F == \"x\" %}",
            "{% if not paper.F %}",
            "{% if paper.F is defined %}",
            "{% if other %}",
        ],
    );
    let leaf = prop_oneof![
        3 => text.prop_map(str::to_string),
        3 => (field.clone(), print).prop_map(|(field, form)| form.replace('F', field)),
        1 => other.prop_map(str::to_string),
    ];
    leaf.prop_recursive(3, 24, 4, move |inner| {
        let body = proptest::collection::vec(inner, 0..4).prop_map(|parts| parts.concat());
        (
            field.clone(),
            open.clone(),
            body.clone(),
            proptest::option::of(body.clone()),
            body,
        )
            .prop_map(|(field, open, then, otherwise, after)| {
                let otherwise = otherwise.map_or(String::new(), |o| format!("{{% else %}}{o}"));
                let open = open.replace('F', field);
                format!("{open}{then}{otherwise}{{% endif %}}{after}")
            })
    })
}

/// Generated item templates that tera accepts: each one the fast path
/// compiles gives, for every paper in every list, the bytes tera
/// renders with the same paper value; of the others nothing is asserted.
/// Both kinds are generated, many of each.
fn generated_item_templates_are_filled_in_as_tera_renders_them() {
    use proptest::test_runner::{Config, TestCaseError, TestRunner};
    let (_dir, snapshot) = papers_of_every_kind("");
    let site = snapshot.site();
    let views = Views::new(&site);
    let items = items_of(&views, site.corpus);
    let counts = std::cell::Cell::new([0usize; 3]);
    let mut runner = TestRunner::new(Config {
        cases: 2000,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&item_template(), |source| {
        let mut seen = counts.get();
        let Some(templates) = item_templates(&source) else {
            seen[0] += 1;
            counts.set(seen);
            return Ok(());
        };
        let compiled = compare_fast_items(&templates, &items)
            .map_err(|e| TestCaseError::fail(format!("{source:?}: {e}")))?;
        seen[if compiled { 2 } else { 1 }] += 1;
        counts.set(seen);
        Ok(())
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
    let [refused_by_tera, left_to_tera, compiled] = counts.get();
    assert!(
        compiled >= 200 && left_to_tera >= 500 && refused_by_tera >= 50,
        "tera refused {refused_by_tera}, left to tera {left_to_tera}, compiled {compiled}"
    );
}

/// The templates of the site at `root`: the default theme's, overridden
/// by the site's own, as (name, path, text).
fn site_templates(root: &std::path::Path) -> Vec<(String, std::path::PathBuf, String)> {
    let mut files = Vec::new();
    for dir in [
        root.join("themes/default/templates"),
        root.join("templates"),
    ] {
        let mut found: Vec<_> = walkdir::WalkDir::new(&dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_file())
            .map(|entry| entry.into_path())
            .collect();
        found.sort();
        for path in found {
            let name = path
                .strip_prefix(&dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&path).unwrap();
            files.push((name, path, text));
        }
    }
    files
}

/// Lists spliced in after the render, and items filled in without tera,
/// give the pages tera renders with the lists in the context, for every
/// page template in the repo: the default theme's on a site of every
/// kind of paper, and the Zola-habits fixture's. An empty `filter` block
/// in `base.html`, which every page extends, keeps every page from
/// splicing, and an item template that prints an empty string leaves
/// the items to tera; neither prints anything.
fn spliced_lists_give_the_pages_tera_renders() {
    let zola = tempdir();
    copy_dir(&project().join("tests/fixtures/zola-habits"), zola.path());
    copy_dir(&project().join("themes"), &zola.path().join("themes"));
    let every_kind = site_of_every_kind("");
    for dir in [every_kind, zola] {
        let root = dir.path();
        let (report, fast) = build_memory(root, None);
        assert!(!report.failed(), "{:?}", report.diagnostics);
        let names: Vec<String> = site_templates(root)
            .into_iter()
            .map(|(name, ..)| name)
            .collect();
        let splices = |templates: &Templates| -> Vec<&String> {
            names
                .iter()
                .filter(|name| templates.splices_lists(name))
                .collect()
        };
        let templates = Templates::load(site_templates(root)).0.unwrap();
        assert!(templates.paper_item().is_some());
        assert!(!splices(&templates).is_empty());

        let theme = root.join("themes/default/templates");
        let base = std::fs::read_to_string(theme.join("base.html")).unwrap();
        write(
            root,
            "templates/base.html",
            format!("{base}{{% filter upper %}}{{% endfilter %}}").as_bytes(),
        );
        let item = std::fs::read_to_string(theme.join(PAPER_ITEM)).unwrap();
        write(
            root,
            &format!("templates/{PAPER_ITEM}"),
            format!("{item}{{{{ \"\" }}}}").as_bytes(),
        );
        let templates = Templates::load(site_templates(root)).0.unwrap();
        assert!(templates.paper_item().is_none());
        assert!(splices(&templates).is_empty(), "{:?}", splices(&templates));
        let (report, by_tera) = build_memory(root, None);
        assert!(!report.failed(), "{:?}", report.diagnostics);
        let files = |site: &Pages| site.keys().cloned().collect::<BTreeSet<_>>();
        assert_eq!(files(&fast), files(&by_tera));
        for (file, bytes) in &fast {
            assert!(by_tera[file] == *bytes, "{file}");
        }
    }
}

/// This file's tests, for the harness in `tests/main.rs`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(build: bundled_site_has_the_expected_corpus_and_pages, every_page_has_title_description_canonical_lang_and_nav, every_internal_link_resolves_at_the_root, every_internal_link_resolves_under_a_sub_path, titles_are_escaped_once, failed_build_leaves_output_untouched_and_rebuild_rewrites_nothing, builds_are_byte_identical_whatever_the_thread_count, maps_are_iterated_in_the_same_order_on_every_build, usage_errors_exit_2, content_pages_sections_drafts_and_profiles, list_items_leave_out_the_year_or_category_of_their_page, list_items_are_the_same_from_any_item_template, rendered_lists_are_the_items_however_a_template_prints_them, a_paper_page_gets_every_field_its_template_reads, an_author_page_gives_its_papers_as_values_and_a_missing_value_fails_at_its_line, content_page_colliding_with_a_generated_page_is_an_error_naming_both, site_templates_override_the_theme_and_errors_name_the_template_line, now_and_random_functions_are_not_available_to_templates, site_toml_errors_name_the_line, generated_corpus_builds_every_paper_and_author, output_dir_never_cleans_files_vellum_did_not_write, a_huge_page_number_is_one_short_warning, every_item_template_in_the_repo_is_filled_in_as_tera_renders_it, generated_item_templates_are_filled_in_as_tera_renders_them, spliced_lists_give_the_pages_tera_renders)
}
