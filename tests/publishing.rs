//! Publishing: feeds, sitemap and robots.txt parsed back, links under a
//! sub-path, redirects for aliases, `vellum check` and `vellum init`.

use crate::common::*;
use std::collections::HashSet;
use std::process::Command;
use vellum::diagnostics::Severity;

const BASE: &str = "https://example.org/sub/dir/";

/// An Atom feed of the site, parsed back with atom_syndication's reader.
fn feed(site: &Pages, file: &str) -> atom_syndication::Feed {
    atom_syndication::Feed::read_from(site.get(file).unwrap().as_slice())
        .unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// `<loc>` values of a sitemap or sitemap index, parsed with quick-xml.
fn locations(xml: &str) -> Vec<String> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut in_loc = false;
    let mut out = Vec::new();
    loop {
        match reader.read_event().unwrap() {
            quick_xml::events::Event::Start(e) if e.name().as_ref() == b"loc" => in_loc = true,
            quick_xml::events::Event::Text(t) if in_loc => {
                out.push(t.decode().unwrap().into_owned());
                in_loc = false;
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    out
}

fn feeds_are_valid_atom_with_stable_unique_ids_in_order() {
    let (report, site) = build_memory(&project(), Some(BASE));
    assert!(!report.failed());
    let all = feed(&site, "atom.xml");
    assert_eq!(all.entries.len(), 36, "fewer papers than feed_limit");
    let ids: HashSet<&str> = all.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(all.title.as_str(), "Distributed ML Publications");
    assert_eq!(ids.len(), 36);
    for entry in &all.entries {
        assert!(
            entry.id.starts_with("https://example.org/sub/dir/papers/"),
            "{}",
            entry.id
        );
        assert_eq!(entry.links[0].href, entry.id);
        assert!(resolve(&site, BASE, "atom.xml", &entry.links[0].href)
            .unwrap()
            .is_some());
    }

    // Documented order: year descending, then title.
    let years: Vec<i32> = all.entries.iter().map(|e| year(&e.updated)).collect();
    assert_eq!(&years[..2], [2025, 2025]);
    assert!(years.windows(2).all(|w| w[0] >= w[1]));
    assert_eq!(year(&all.updated), 2025);
    assert!(all.entries.iter().all(|e| e.published == Some(e.updated)));
    let titles: Vec<String> = all.entries[2..]
        .iter()
        .map(|e| e.title.as_str().to_lowercase())
        .collect();
    assert!(titles.windows(2).all(|w| w[0] <= w[1]), "{titles:?}");

    let author = feed(&site, "authors/chuan-wu/atom.xml");
    assert_eq!(author.entries.len(), 18);
    assert!(author
        .entries
        .iter()
        .all(|e| e.authors[0].name == "Chuan Wu"));
    assert_eq!(feed(&site, "categories/cs-ce/atom.xml").entries.len(), 1);

    // Same input, same ids.
    let (_, again) = build_memory(&project(), Some(BASE));
    assert_eq!(site.get("atom.xml"), again.get("atom.xml"));
    // Linked from page heads.
    assert!(text(&site, "index.html").contains(r#"<link rel="alternate" type="application/atom+xml" title="Distributed ML Publications: recent papers" href="/sub/dir/atom.xml">"#));
    assert!(text(&site, "authors/chuan-wu/index.html")
        .contains(r#"href="/sub/dir/authors/chuan-wu/atom.xml""#));
}

/// The year of an Atom date (RFC 3339: `2025-01-01T00:00:00+00:00`).
fn year(date: &atom_syndication::FixedDateTime) -> i32 {
    date.to_rfc3339()[..4].parse().unwrap()
}

fn feed_limit_caps_every_feed() {
    let site_dir = bundled_copy();
    let config = std::fs::read_to_string(site_dir.path().join("site.toml")).unwrap();
    std::fs::write(
        site_dir.path().join("site.toml"),
        format!("{config}\nfeed_limit = 5\n"),
    )
    .unwrap();
    let (_, site) = build_memory(site_dir.path(), None);
    for file in [
        "atom.xml",
        "authors/xiaowen-chu/atom.xml",
        "categories/cs-lg/atom.xml",
    ] {
        assert_eq!(feed(&site, file).entries.len(), 5, "{file}");
    }
    assert_eq!(feed(&site, "categories/cs-ai/atom.xml").entries.len(), 1);
}

fn sitemap_lists_every_page_and_splits_past_the_threshold() {
    let (_, site) = build_memory(&project(), Some(BASE));
    let pages: Vec<&std::sync::Arc<str>> =
        site.keys().filter(|f| f.ends_with("index.html")).collect();
    let urls = locations(text(&site, "sitemap.xml"));
    assert_eq!(urls.len(), pages.len());
    for url in &urls {
        assert!(url.starts_with(BASE), "{url}");
        assert!(
            resolve(&site, BASE, "sitemap.xml", url).unwrap().is_some(),
            "{url}"
        );
    }
    assert_eq!(urls[0], BASE);
    assert_eq!(
        text(&site, "robots.txt"),
        "User-agent: *\nAllow: /\n\nSitemap: https://example.org/sub/dir/sitemap.xml\n"
    );

    let site_dir = bundled_copy();
    let config = std::fs::read_to_string(site_dir.path().join("site.toml")).unwrap();
    std::fs::write(
        site_dir.path().join("site.toml"),
        format!("{config}\nsitemap_max_urls = 10\n"),
    )
    .unwrap();
    let (_, split) = build_memory(site_dir.path(), Some(BASE));
    let index = text(&split, "sitemap.xml");
    assert!(index.contains("<sitemapindex"));
    let parts = locations(index);
    let expected_parts = urls.len().div_ceil(10);
    assert_eq!(parts.len(), expected_parts);
    let mut all = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        assert_eq!(part, &format!("{BASE}sitemap-{}.xml", i + 1));
        let file = part.strip_prefix(BASE).unwrap();
        let listed = locations(text(&split, file));
        assert!(listed.len() <= 10);
        all.extend(listed);
    }
    assert_eq!(all, urls);
}

fn not_found_page_links_resolve_from_any_depth() {
    let (_, site) = build_memory(&project(), Some(BASE));
    let page = text(&site, "404.html");
    for link in links(page) {
        // Served at /sub/dir/a/b/c/missing/: resolve as if it lived there.
        if link.starts_with('#') {
            continue;
        }
        assert!(
            resolve(&site, BASE, "a/b/c/missing/index.html", &link)
                .unwrap()
                .is_some(),
            "{link}"
        );
    }
}

fn aliases_become_redirect_pages_and_collisions_are_errors() {
    let dir = olumide_site();
    write(
        dir.path(),
        "content/authors/olumide-adeyemi.md",
        b"+++\naliases = [\"/people/olu\", \"old/olu.html\"]\n+++\n",
    );
    let (report, site) = build_memory(dir.path(), Some("https://example.org/sub/"));
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let target = "https://example.org/sub/authors/olumide-adeyemi/";
    for file in ["people/olu/index.html", "old/olu.html"] {
        let page = text(&site, file);
        assert!(
            page.contains(&format!("<link rel=\"canonical\" href=\"{target}\">")),
            "{page}"
        );
        assert!(page.contains(&format!(
            "<meta http-equiv=\"refresh\" content=\"0; url={target}\">"
        )));
    }
    let sitemap = text(&site, "sitemap.xml");
    assert!(
        !sitemap.contains("people/olu"),
        "redirects are not in the sitemap"
    );

    write(
        dir.path(),
        "content/authors/olumide-adeyemi.md",
        b"+++\nhomepage = \"https://x.org\"\naliases = [\"years/\"]\n+++\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    let error = report
        .diagnostics
        .iter()
        .find(|d| d.severity == Severity::Error)
        .expect("collision");
    assert_eq!(error.to_string(), "content/authors/olumide-adeyemi.md:3: error: expected alias `years/` to be a free path, found /years/index.html which is the index page; choose another old path or remove the alias");
}

/// Slugs name the letters of math (`√n` → `sqrt-n`, a lone `α` →
/// `alpha`), and a paper whose slug changed with that rule keeps its
/// former URL (the flat text earlier versions slugged) as a redirect; a title
/// without math has none.
fn titles_with_math_keep_their_former_slug_as_a_redirect() {
    let seed = listing(
        "Ada Byron",
        &[
            (
                r"Rates of $\sqrt{n}$ Growth",
                2024,
                "Abstract one.",
                "math.PR",
            ),
            (
                "α-Synuclein Aggregation Kinetics",
                2023,
                "Abstract two.",
                "q-bio.BM",
            ),
            ("A Plain Title", 2022, "Abstract three.", "cs.DC"),
            // Two titles whose former slugs collided: `a-rays` and
            // `a-rays-` with the hash of the second's title.
            (r"$\alpha$ Rays", 2021, "Abstract four.", "physics.optics"),
            (r"$\sqrt{a}$ Rays", 2020, "Abstract five.", "physics.optics"),
        ],
    );
    let dir = temp_site(&[("ada.txt", &seed)], "");
    // An override still named by the former slug is applied, with a warning.
    write(
        dir.path(),
        "content/papers/rates-of-n-growth.md",
        b"+++\nvenue = \"Annals of Growth\"\n+++\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(
        messages(&report, Severity::Warning),
        ["content/papers/rates-of-n-growth.md:1: warning: expected the file name to be the paper's slug `rates-of-sqrt-n-growth`, found its former slug `rates-of-n-growth`; it is applied: rename the file to content/papers/rates-of-sqrt-n-growth.md"]
    );
    let former_rays = vellum::permalink::assign_unique_slugs(vec![
        (r"$\alpha$ Rays", "a-rays".to_string()),
        (r"$\sqrt{a}$ Rays", "a-rays".to_string()),
    ]);
    let second_rays = format!("papers/{}/index.html", former_rays[1]);
    let paper = text(&site, "papers/rates-of-sqrt-n-growth/index.html");
    assert!(
        paper.contains("<meta name=\"citation_title\" content=\"Rates of √n Growth\">"),
        "{paper}"
    );
    assert!(paper.contains("Annals of Growth"), "{paper}");
    assert!(site.contains_key("papers/alpha-synuclein-aggregation-kinetics/index.html"));
    let redirects: Vec<(&str, &str)> = [
        (
            "papers/rates-of-n-growth/index.html",
            "papers/rates-of-sqrt-n-growth/",
        ),
        (
            "papers/a-synuclein-aggregation-kinetics/index.html",
            "papers/alpha-synuclein-aggregation-kinetics/",
        ),
        ("papers/a-rays/index.html", "papers/alpha-rays/"),
        (&second_rays, "papers/sqrt-a-rays/"),
    ]
    .into_iter()
    .collect();
    for (file, target) in &redirects {
        assert!(
            text(&site, file).contains(&format!(
                "<meta http-equiv=\"refresh\" content=\"0; url=https://example.org/{target}\">"
            )),
            "{file}"
        );
    }
    let moved: Vec<&str> = site
        .keys()
        .map(|f| &**f)
        .filter(|f| f.starts_with("papers/") && text(&site, f).contains("http-equiv=\"refresh\""))
        .collect();
    assert_eq!(moved.len(), redirects.len(), "{moved:?}");
    assert!(!text(&site, "sitemap.xml").contains("rates-of-n-growth"));
}

/// `vellum check` reads a link as a browser does, its character
/// references decoded: a base URL with `'` and `&` (written `&#39;` and
/// `&amp;` in every link) and a file with `&` in its name are found, in
/// Markdown and raw HTML, which the build writes under the base path; a
/// link to no page is still an error at its line, named as the browser
/// reads it.
fn check_reads_links_with_character_references_as_a_browser_does() {
    let dir = olumide_site();
    std::fs::write(
        dir.path().join("site.toml"),
        "title = \"Lab\"\nbase_url = \"https://example.org/o'brien&co/\"\n",
    )
    .unwrap();
    write(dir.path(), "static/files/notes&slides.txt", b"notes\n");
    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\nSee [Olumide](/authors/olumide-adeyemi/), [the notes](/files/notes&slides.txt)\nand <a href=\"/o&#39;brien&amp;co/nowhere&amp;more/\">a page that is not there</a>.\n\n<a href=\"/files/notes&amp;slides.txt\">Raw</a>\n",
    );
    let root = dir.path().to_str().unwrap();
    let out = vellum(&["check", "--root", root], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        error_lines(&stderr),
        ["content/about.md:5: error: expected a link to an existing page, found `/o'brien&co/nowhere&more/` (no file nowhere&more/index.html)"],
        "{stderr}"
    );
    let out = vellum(&["build", "--root", root, "--quiet"], &[]);
    assert!(out.status.success());
    let about = std::fs::read_to_string(dir.path().join("public/about/index.html")).unwrap();
    for fragment in [
        "<a href=\"/o&#39;brien&amp;co/authors/olumide-adeyemi/\">Olumide</a>",
        "<a href=\"/o&#39;brien&amp;co/files/notes&amp;slides.txt\">the notes</a>",
        "<a href=\"/o&#39;brien&amp;co/files/notes&amp;slides.txt\">Raw</a>",
    ] {
        assert!(about.contains(fragment), "{fragment} in {about}");
    }
}

/// A site under a sub-path whose Markdown links are written the ways users
/// write them: root-relative (`/authors/...`), Zola's `@/page.md`,
/// relative `.md` links against the file, and the same in raw HTML. The
/// build rewrites them under the base path, warns about a root-relative
/// link to nothing of the site and fails on a missing `.md` target, each at
/// its Markdown line; served under the sub-path on loopback, every link of
/// the site resolves.
fn markdown_links_work_under_a_sub_path() {
    let dir = olumide_site();
    std::fs::write(
        dir.path().join("site.toml"),
        "title = \"Lab\"\nbase_url = \"https://lab.github.io/papers/\"\n",
    )
    .unwrap();
    write(
        dir.path(),
        "content/group/members.md",
        b"+++\ntitle = \"Members\"\n+++\nSee [Olumide](/authors/olumide-adeyemi/), [about](../about.md#history),\n[the home page](@/_index.md) and <a href=\"/years/\">years</a>.\n\n<img src=\"/favicon.svg\" alt=\"\">\n",
    );
    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\n## History\n\nOur [members](@/group/members.md) and [my CV](/~olu/cv.pdf).\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert_eq!(
        messages(&report, Severity::Warning),
        ["content/about.md:6: warning: expected `/~olu/cv.pdf` to be a page or file of this site, found none; it is left as written (a link outside the site). To link a Markdown page, write `@/page.md`"]
    );
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let members = text(&site, "group/members/index.html");
    for fragment in [
        "<a href=\"/papers/authors/olumide-adeyemi/\">Olumide</a>",
        "<a href=\"/papers/about/#history\">about</a>",
        "<a href=\"/papers/\">the home page</a>",
        "<a href=\"/papers/years/\">years</a>",
        "<img src=\"/papers/favicon.svg\" alt=\"\">",
    ] {
        assert!(members.contains(fragment), "{fragment} in {members}");
    }
    let about = text(&site, "about/index.html");
    assert!(
        about.contains("<a href=\"/papers/group/members/\">members</a>"),
        "{about}"
    );
    assert!(
        about.contains("<a href=\"/~olu/cv.pdf\">my CV</a>"),
        "{about}"
    );

    // Served under the sub-path, every link of the site resolves (the
    // outside link aside, which the crawler does not follow off the path).
    if have_node() {
        let out = build_to_disk(dir.path());
        let crawled = node(
            &["tests/browser/crawl.mjs", out.to_str().unwrap(), "/papers/"],
            &[],
        );
        assert!(crawled.contains("none broken"), "{crawled}");
    }

    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\nOur [team](team.md) and [list](@/people.md).\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        [
            "content/about.md:4: error: expected `@/people.md` to name a Markdown file under content/, found no content/people.md",
            "content/about.md:4: error: expected `team.md` to name a Markdown file beside content/about.md, found no content/team.md",
        ]
    );
}

/// A site written in Zola's habits (`tests/fixtures/zola-habits`):
/// `config.title`, `get_url` (of a page and, cache-busted, of a static
/// file), `[extra]` of `site.toml` and of front matter, a quoted date and
/// `@/` links. It builds without a problem and its pages show the values.
fn a_site_in_zola_habits_builds_and_shows_its_values() {
    let dir = tempdir();
    copy_dir(&project().join("tests/fixtures/zola-habits"), dir.path());
    copy_dir(&project().join("themes"), &dir.path().join("themes"));
    let (report, site) = build_memory(dir.path(), None);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    let members = text(&site, "group/members/index.html");
    let hash = format!("{:016x}", xxhash_rust::xxh3::xxh3_64(b"lab logo\n"));
    for fragment in [
        "<h1>Members · Adeyemi Lab</h1>".to_string(),
        "<time datetime=\"2024-05-01\">2024-05-01</time>".to_string(),
        "<p class=\"lead\">Led by Olumide Adeyemi</p>".to_string(),
        "<p class=\"social\">@lab@example.social</p>".to_string(),
        "<a href=\"https://lab.github.io/papers/about/\">About</a>".to_string(),
        format!("<a href=\"https://lab.github.io/papers/logo.txt?h={hash}\">logo</a>"),
        "led by <a href=\"/papers/\">Olumide</a>, wrote <a href=\"/papers/about/\">the about page</a>".to_string(),
    ] {
        assert!(members.contains(&fragment), "{fragment} in {members}");
    }
    let about = text(&site, "about/index.html");
    assert!(
        about.contains("<a href=\"/papers/group/members/\">the members</a>"),
        "{about}"
    );
    assert!(!about.contains("class=\"lead\""), "{about}");
    // YAML front matter, as Hugo writes it.
    let news = text(&site, "news/index.html");
    for fragment in [
        "<h1>News · Adeyemi Lab</h1>",
        "<time datetime=\"2024-06-02\">2024-06-02</time>",
        "<p class=\"lead\">Led by Ada Lovelace</p>",
        "see <a href=\"/papers/about/\">the about page</a>",
    ] {
        assert!(news.contains(fragment), "{fragment} in {news}");
    }
    // The site's robots.txt template replaces the generated file.
    assert_eq!(
        text(&site, "robots.txt"),
        "User-agent: *\nDisallow: /drafts/\nSitemap: https://lab.github.io/papers/sitemap.xml\n"
    );
    // A quoted date that is no date says what it expects, at its line.
    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\ndate = \"May 2024\"\n+++\nHi.\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["content/about.md:3: error: expected `date` to be a date such as 2024-05-01 or 2024-05-01T09:30:00Z, found `May 2024`"]
    );
    // YAML front matter's errors name the key, what it should be and the fix.
    for (front, expected) in [
        (
            "titel: News",
            "content/news.md:3: error: expected one of `title`, `description`, `date`, `draft`, `template`, `weight`, `extra`, found unknown field `titel`; did you mean `title`?",
        ),
        (
            "weight: first",
            "content/news.md:3: error: expected `weight` to be a whole number, found `first`",
        ),
        (
            "title: [News",
            "content/news.md:3: error: expected `title` to be a string (quote it when it starts with `[`, `{` or `*`), found `[News`",
        ),
        (
            "title: a\ntitle: b",
            "content/news.md:4: error: expected each key once, found `title` a second time; remove one of them",
        ),
    ] {
        write(
            dir.path(),
            "content/news.md",
            format!("---\ndraft: false\n{front}\n---\nHi.\n").as_bytes(),
        );
        let (report, _) = build_memory(dir.path(), None);
        let errors = messages(&report, Severity::Error);
        assert!(errors.contains(&expected.to_string()), "{expected} in {errors:?}");
    }
}

/// A content page may not take a generated page's path, and an alias may
/// not take a content page's (added to the plan after the generated pages).
fn content_pages_and_aliases_clashing_with_added_pages_are_errors() {
    let dir = olumide_site();
    write(
        dir.path(),
        "content/authors.md",
        b"+++\ntitle = \"People\"\n+++\nHi.\n",
    );
    write(
        dir.path(),
        "content/about.md",
        b"+++\ntitle = \"About\"\n+++\nHi.\n",
    );
    write(
        dir.path(),
        "content/authors/olumide-adeyemi.md",
        b"+++\naliases = [\"about/\"]\n+++\n",
    );
    let (report, _) = build_memory(dir.path(), None);
    let errors = messages(&report, Severity::Error);
    assert_eq!(
        errors,
        [
            "content/authors/olumide-adeyemi.md:2: error: expected alias `about/` to be a free path, found /about/index.html which is the content page content/about.md; choose another old path or remove the alias",
            "content/authors.md:1: error: expected a path of its own, found /authors/ which is also the generated index page",
        ]
    );
}

/// A static file taking a generated page's path is an error naming both;
/// the other static files are staged as usual.
fn a_static_file_clashing_with_a_generated_page_is_an_error() {
    let dir = olumide_site();
    write(dir.path(), "static/authors/index.html", b"<p>mine</p>");
    write(dir.path(), "static/notes.txt", b"notes");
    let (report, _) = build_memory(dir.path(), None);
    assert_eq!(
        messages(&report, Severity::Error),
        ["static/authors/index.html: error: expected a path of its own, found /authors/index.html which is also a generated page"]
    );
    std::fs::remove_file(dir.path().join("static/authors/index.html")).unwrap();
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert_eq!(
        site.get("notes.txt").map(|b| b.as_slice()),
        Some(&b"notes"[..])
    );
    // `robots.txt` is the one generated file a static file may replace.
    assert!(text(&site, "robots.txt").starts_with("User-agent: *\nAllow: /\n"));
    write(
        dir.path(),
        "static/robots.txt",
        b"User-agent: *\nDisallow: /drafts/\n",
    );
    let (report, site) = build_memory(dir.path(), None);
    assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    assert_eq!(
        text(&site, "robots.txt"),
        "User-agent: *\nDisallow: /drafts/\n"
    );
}

/// `vellum check` names the citation exports and `corpus.json` without
/// making them: links to them resolve, and their bytes are all that its
/// count lacks beside a build's.
fn check_names_the_corpus_data_files_without_making_them() {
    let dir = temp_site(&[("good.txt", &olumide_listing())], "");
    let bib = "authors/olumide-adeyemi/olumide-adeyemi.bib";
    let page =
        format!("+++\ntitle = \"Data\"\n+++\n\n[BibTeX](/{bib}) and [data](/corpus.json).\n");
    write(dir.path(), "content/data.md", page.as_bytes());
    let (built, site) = build_memory(dir.path(), None);
    assert!(built.diagnostics.is_empty(), "{:?}", built.diagnostics);
    // The one paper's BibTeX, RIS and CSL-JSON files, the author's BibTeX file
    // and `corpus.json`.
    let data: Vec<(&str, u64)> = site
        .iter()
        .filter(|(path, _)| {
            let export = path.starts_with("papers/") && !path.ends_with(".html");
            export || path.ends_with(".bib") || path.as_ref() == "corpus.json"
        })
        .map(|(path, bytes)| (&**path, bytes.len() as u64))
        .collect();
    assert_eq!(data.len(), 5, "{data:?}");
    assert!(
        text(&site, bib).starts_with("@misc{"),
        "{}",
        text(&site, bib)
    );
    let options = vellum::build::BuildOptions {
        root: dir.path().to_path_buf(),
        ..Default::default()
    };
    let checked = vellum::check::check(&options);
    assert!(checked.diagnostics.is_empty(), "{:?}", checked.diagnostics);
    // `--verbose` shows the link check after the build's stages.
    let stages: Vec<&str> = checked.timings.stages.iter().map(|s| s.name).collect();
    assert_eq!(stages.last(), Some(&"links"), "{stages:?}");
    let (built, checked) = (built.written.unwrap(), checked.written.unwrap());
    assert_eq!(checked.files, built.files);
    let data_bytes: u64 = data.iter().map(|(_, len)| len).sum();
    assert_eq!(checked.bytes + data_bytes, built.bytes);
}

fn check_reports_every_problem_with_file_and_line_and_writes_nothing() {
    let errors_dir = project().join("tests/fixtures/listings/errors");
    let no_title = std::fs::read(errors_dir.join("no-title.txt")).unwrap();
    let bad_year = std::fs::read(errors_dir.join("bad-year.txt")).unwrap();
    let good = olumide_listing();
    let dir = temp_site(
        &[
            ("a.txt", &no_title),
            ("b.txt", &bad_year),
            ("good.txt", &good),
        ],
        "",
    );
    write(dir.path(), "content/about.md", b"+++\ntitle = \"About\"\n+++\n\nSee [our papers](/authors/olumide-adeyemi/).\n\nAnd [a missing page](/nowhere/) and [an anchor](/about/#nope).\n");
    let out = vellum(&["check", "--root", dir.path().to_str().unwrap()], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let errors: Vec<&str> = error_lines(&stderr);
    assert_eq!(errors.len(), 4, "{stderr}");
    assert!(
        errors[0].starts_with(
            "content/about.md:7: error: expected a link to an existing page, found `/nowhere/`"
        ),
        "{stderr}"
    );
    assert!(
        errors[1].starts_with("content/about.md:7: error: expected an anchor `#nope`"),
        "{stderr}"
    );
    assert!(errors[2].starts_with("seeds/a.txt:9: error:"), "{stderr}");
    assert!(errors[3].starts_with("seeds/b.txt:9: error:"), "{stderr}");
    assert!(!dir.path().join("public").exists());

    // Independent problems of every kind, one run: a setting, a listing,
    // front matter, a template that does not load (the theme's stands in
    // for it), one that fails on one page kind (its pages count as
    // present for the link check), and a link.
    write(
        dir.path(),
        "site.toml",
        b"title = \"Test\"\npaginate_by = 0\n",
    );
    write(
        dir.path(),
        "content/news.md",
        b"+++\ntitel = \"News\"\n+++\n",
    );
    write(
        dir.path(),
        "templates/page.html",
        b"{% extends \"base.html\" %}\n{% block content %}{% if page %}{% endblock content %}\n",
    );
    write(
        dir.path(),
        "templates/year.html",
        b"{% extends \"base.html\" %}\n{% block content %}{{ yaer }}{% endblock content %}\n",
    );
    let out = vellum(&["check", "--root", dir.path().to_str().unwrap()], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = error_lines(&stderr);
    let expected = [
        "content/about.md:7: error: expected a link to an existing page, found `/nowhere/` (no file nowhere/index.html)",
        "content/about.md:7: error: expected an anchor `#nope` on about/index.html, found no element with that id (link `/about/#nope`)",
        "content/news.md:2: error: expected one of `title`, `description`, `date`, `draft`, `template`, `weight`, `extra`, found unknown field `titel`; did you mean `title`?",
        "seeds/a.txt:9: error:",
        "seeds/b.txt:9: error:",
        "site.toml:2: error: expected `paginate_by` to be a whole number of at least 1, found integer `0`",
        "templates/page.html:2: error: expected `{% endif %}` to close the `{% if %}` of line 2, found `{% endblock %}` at line 2; add `{% endif %}` where the block ends",
        "templates/year.html:2: error: expected a valid template, found Variable `yaer` is not defined. Available variables: config, page, paginator, site, year; did you mean `year`? (page kind: year; 1 page, first years/2021/index.html)",
    ];
    assert_eq!(errors.len(), expected.len(), "{stderr}");
    for (error, expected) in errors.iter().zip(expected) {
        assert!(
            error.starts_with(expected),
            "{error} is not {expected}\n{stderr}"
        );
    }
    assert_eq!(
        stderr.lines().last(),
        Some("error: check found 8 errors"),
        "{stderr}"
    );

    // The bundled site passes, and --strict turns its warnings into errors.
    let bundled = project();
    assert_eq!(
        vellum(&["check", "--root", bundled.to_str().unwrap()], &[])
            .status
            .code(),
        Some(0)
    );
    let strict = vellum(
        &["check", "--root", bundled.to_str().unwrap(), "--strict"],
        &[],
    );
    assert_eq!(strict.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&strict.stderr)
        .contains("seeds/000_a6125076a0f68246.txt:7: error: expected listing pages 1 to 3"));
}

fn init_then_build_in_an_empty_directory() {
    let dir = crate::common::tempdir();
    let site = dir.path().join("new-site");
    let init = vellum(&["init", site.to_str().unwrap()], &[]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let built = vellum(&["build", "--root", site.to_str().unwrap()], &[]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    assert!(String::from_utf8_lossy(&built.stdout)
        .starts_with("Built 2 papers, 1 author, 2 years, 2 categories"));
    assert!(site
        .join("public/papers/a-survey-of-sparse-training/index.html")
        .exists());
    let checked = vellum(
        &["check", "--root", site.to_str().unwrap(), "--strict"],
        &[],
    );
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    // A second init over it refuses, and says how to add to it.
    let again = vellum(&["init", site.to_str().unwrap()], &[]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&again.stderr),
        format!(
            "error: {} exists and is not empty; choose a new or empty directory, or pass --force \
             to add the site's files beside yours (none of yours is overwritten)\n",
            site.display()
        )
    );
    // With --force, into a folder of the user's: their file is kept.
    let mine = dir.path().join("mine");
    write(&mine, "site.toml", b"title = \"Mine\"\n");
    let forced = vellum(&["init", "--force", mine.to_str().unwrap()], &[]);
    assert!(forced.status.success());
    assert_eq!(
        String::from_utf8_lossy(&forced.stderr),
        format!(
            "warning: {} exists; it is kept as it is\n",
            mine.join("site.toml").display()
        )
    );
    assert_eq!(
        std::fs::read(mine.join("site.toml")).unwrap(),
        b"title = \"Mine\"\n"
    );
    assert!(mine.join("themes/default/templates/base.html").exists());
    // `init` with no directory makes the site in the current one; `-r`
    // before the subcommand, and Zola's short flags, work.
    let here = dir.path().join("here");
    std::fs::create_dir_all(&here).unwrap();
    let made = Command::new(env!("CARGO_BIN_EXE_vellum"))
        .arg("init")
        .current_dir(&here)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    assert!(here.join("site.toml").exists());
    let short = vellum(
        &[
            "-r",
            here.to_str().unwrap(),
            "build",
            "-o",
            "out",
            "-u",
            "https://lab.github.io/papers/",
            "-q",
        ],
        &[],
    );
    assert!(
        short.status.success(),
        "{}",
        String::from_utf8_lossy(&short.stderr)
    );
    assert!(std::fs::read_to_string(here.join("out/index.html"))
        .unwrap()
        .contains("href=\"/papers/authors/\""));
}

/// Counts in the command line's summaries agree with their numbers, and
/// `build --dry-run` counts what `build` writes.
fn summaries_say_one_paper_and_two_papers() {
    let dir = olumide_site();
    let root = dir.path().to_str().unwrap();
    let checked = vellum(&["check", "-r", root], &[]);
    assert_eq!(
        String::from_utf8_lossy(&checked.stdout),
        "Checked 1 paper and 1 author: no errors, 0 warnings\n"
    );
    let built = vellum(&["build", "-r", root, "-o", "out"], &[]);
    let stdout = String::from_utf8_lossy(&built.stdout);
    assert!(stdout.starts_with("Built 1 paper, 1 author, 1 year, 3 categories: "));
    // A dry run renders the same files and bytes and writes none.
    let counts = stdout.split(": ").nth(1).unwrap();
    let (files, rest) = counts.split_once(" (").unwrap();
    let bytes = rest
        .split(", ")
        .nth(2)
        .unwrap()
        .split(" bytes)")
        .next()
        .unwrap();
    let dry = vellum(&["build", "-r", root, "-o", "dry", "--dry-run"], &[]);
    assert_eq!(dry.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&dry.stdout),
        format!("Rendered 1 paper, 1 author, 1 year, 3 categories: {files} ({bytes} bytes); nothing written (--dry-run)\n")
    );
    assert!(!dir.path().join("dry").exists());
    write(dir.path(), "templates/paper.html", b"{% if %}\n");
    let failed = vellum(&["build", "-r", root, "--dry-run"], &[]);
    assert_eq!(failed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failed.stderr)
        .ends_with("error: build failed with 1 error; nothing written (--dry-run)\n"));
}

/// `vellum completion <shell>` prints a completion script naming the
/// subcommands and flags.
fn completion_scripts_name_the_subcommands() {
    for shell in ["bash", "zsh", "fish"] {
        let out = vellum(&["completion", shell], &[]);
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8_lossy(&out.stdout);
        for word in ["build", "serve", "output-dir", "root"] {
            assert!(script.contains(word), "{shell}: {word}");
        }
    }
    let bad = vellum(&["completion", "cmd"], &[]);
    assert_eq!(bad.status.code(), Some(2));
}

fn a_template_error_is_reported_once_without_false_link_errors() {
    let dir = olumide_site();
    write(
        dir.path(),
        "templates/paper.html",
        b"{% extends \"base.html\" %}\n{% block content %}\n{{ nosuchvar.field }}\n{% endblock content %}\n",
    );
    let out = vellum(&["check", "--root", dir.path().to_str().unwrap()], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = error_lines(&stderr);
    assert_eq!(errors.len(), 1, "{stderr}");
    assert_eq!(
        errors[0],
        "templates/paper.html:3: error: expected a valid template, found Variable `nosuchvar` is not defined. Available variables: abstract_html, cite, config, details, page, paper, site (page kind: paper; 1 page, first papers/routing-tokens-in-mixture-of-experts/index.html)",
        "{stderr}"
    );
    // Each template mistake below: the exact message, at the line to
    // mend, with the fix.
    let base =
        std::fs::read_to_string(project().join("themes/default/templates/base.html")).unwrap();
    let cases: [(&str, String, &str); 10] = [
        (
            "templates/base.html",
            base.replace("{{ site.title }}</a>", "{{ site.titel }}</a>"),
            "templates/base.html:18: error: expected a valid template, found Field `titel` is not defined. Available fields: author_count, authors_script, base_path, base_url, category_count, cite_script, description, extra, favicon, feed_url, language, paper_count, search_index, search_script, search_url, stylesheet, title, urls, year_count; did you mean `title`? (page kinds: 404, author, authors index, categories index, category, home, paper, search, year and years index; 12 pages, first 404.html)",
        ),
        (
            "templates/paper.html",
            "{% extends \"base.html\" %}\n{% block content %}\n{% if paper %}\n{{ paper.title }}\n{% endblock content %}\n".into(),
            "templates/paper.html:3: error: expected `{% endif %}` to close the `{% if %}` of line 3, found `{% endblock %}` at line 5; add `{% endif %}` where the block ends",
        ),
        (
            "templates/paper.html",
            "{% extends \"base.html\" %}\n{% block content %}\n{% for a in paper.authors %}\n{{ a.name }}\n".into(),
            "templates/paper.html:3: error: expected `{% endfor %}` to close the `{% for %}` of line 3, found the end of the file; add `{% endfor %}` where the block ends",
        ),
        (
            "templates/paper.html",
            "{% extends \"layout.html\" %}\n{% block content %}x{% endblock content %}\n".into(),
            "templates/paper.html:1: error: expected the template `layout.html` that `{% extends %}` names in the site's templates/ or the theme's, found no such file; the theme's layout, which pages extend, is `base.html`",
        ),
        (
            "templates/paper.html",
            "{% extends \"bse.html\" %}\n{% block content %}x{% endblock content %}\n".into(),
            "templates/paper.html:1: error: expected the template `bse.html` that `{% extends %}` names in the site's templates/ or the theme's, found no such file; did you mean `base.html`?",
        ),
        (
            "templates/paper.html",
            "{% extends \"base.html\" %}\n{% block content %}\n{% iff paper %}x{% endif %}{% endblock content %}\n".into(),
            "templates/paper.html:3: error: expected a tag such as `if`, `for`, `block`, `set` or `include`, found unknown tag `iff`; did you mean `if`?",
        ),
        (
            "templates/paper.html",
            "{% extends \"base.html\" %}\n{% block content %}\n{% if paper %}a{% else %}b\n{% else %}c{% endif %}{% endblock content %}\n".into(),
            "templates/paper.html:4: error: expected no `{% else %}` after the `{% else %}` of line 3, found one; use `{% elif %}` before the `{% else %}`",
        ),
        (
            "templates/paper.html",
            "{% extends \"base.html\" %}\n{% block content %}\n{% include \"partials/paper_itme.html\" %}{% endblock content %}\n".into(),
            "templates/paper.html:3: error: expected a valid template, found Unknown template `partials/paper_itme.html`; did you mean `partials/paper_item.html`?",
        ),
        (
            "templates/paper.html",
            "{% import \"macros.html\" as m %}\n{% extends \"base.html\" %}\n".into(),
            "templates/paper.html:1: error: expected a tag Tera 2 has, found `import`: Tera 2 has no macros; use `{% include %}` or a `{% component %}`",
        ),
        (
            "templates/base.html",
            base.replace("<a class=\"skip-link\"", "<a href=\"/contact/\">Contact</a><a class=\"skip-link\""),
            "(page 404.html): error: expected a link to an existing page, found `/contact/` (no file contact/index.html) (and on 11 more pages: a link a template writes)",
        ),
    ];
    for (file, text, expected) in cases {
        let _ = std::fs::remove_file(dir.path().join("templates/paper.html"));
        let _ = std::fs::remove_file(dir.path().join("templates/base.html"));
        write(dir.path(), file, text.as_bytes());
        let out = vellum(&["check", "--root", dir.path().to_str().unwrap()], &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let errors: Vec<&str> = error_lines(&stderr);
        assert_eq!(errors, [expected], "{stderr}");
    }
}

/// The mistakes a newcomer from Zola or Hugo makes, each reported once
/// at its file and line with the fix (issue 24's review): links in a
/// profile or override body, shortcodes Vellum does not have, Hugo's
/// syntax, a duplicate argument, a shortcode in a profile, TOML written
/// as YAML and the reverse, a stray end tag inside a block, and a broken
/// template of the site's own that is not also called missing.
fn newcomer_mistakes_are_reported_once_at_their_line_with_the_fix() {
    let dir = olumide_site();
    let root = dir.path();
    let files: [(&str, &[u8]); 11] = [
        ("content/authors/olumide-adeyemi.md", b"+++\n+++\nSee [x](nope.md) and [z](@/gone.md).\n\n{{ papers(year=2021) }}\n"),
        ("content/papers/routing-tokens-in-mixture-of-experts.md", b"---\nvenue: X\n---\nSee [w](/papers/nowhere/).\n"),
        ("content/pubs.md", b"+++\ntitle = \"Pubs\"\n+++\n{{ paper(year=2021) }}\n\nSee [about]({{< ref \"about.md\" >}}).\n\n    {{ papers(author=\"nobody\") }}\n\n{{ papers(author='olumide-adeyemi', author=\"x\") }}\n\n{{ papers(author='Olumide Adeyemi') }}\n"),
        ("content/yaml.md", b"---\ntitle: Note: on things\n---\n"),
        ("content/toml.md", b"+++\nweight = \"heavy\"\n+++\n"),
        ("content/hugo.md", b"+++\ntitle: \"A\"\n+++\n"),
        ("content/custom.md", b"+++\ntemplate = \"custom.html\"\n+++\n"),
        ("templates/custom.html", b"{% extends \"base.html\" %}\n{% block content %}{% if page %}{% endblock content %}\n"),
        ("templates/404.html", b"{% extends \"base.html\" %}\n{% block content %}\n<h1>404</h1>\n{% endif %}\n{% endblock content %}\n"),
        ("templates/sitemap.xml", b"<urlset></urlset>\n"),
        // An opening fence ending in a space is taken, as a closing one is.
        ("content/spaced.md", b"--- \ntitle: Spaced\n---  \nHi.\n"),
    ];
    for (path, bytes) in files {
        write(root, path, bytes);
    }
    let out = vellum(&["check", "--root", root.to_str().unwrap()], &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("templates/sitemap.xml: warning: expected no `sitemap.xml` template, found one: Vellum writes the sitemap itself and does not read it; remove it"), "{stderr}");
    let errors: Vec<&str> = error_lines(&stderr);
    assert_eq!(
        errors,
        [
            "content/authors/olumide-adeyemi.md:3: error: expected `@/gone.md` to name a Markdown file under content/, found no content/gone.md",
            "content/authors/olumide-adeyemi.md:3: error: expected `nope.md` to name a Markdown file beside content/authors/olumide-adeyemi.md, found no content/authors/nope.md",
            "content/authors/olumide-adeyemi.md:5: error: expected no `{{ papers(...) }}` shortcode in a profile or per-paper override, found one; shortcodes are expanded in content pages only (content/*.md)",
            "content/hugo.md:2: error: expected `key = value` (TOML) between `+++` lines, found `title: \"A\"`; write `=`, or put YAML's `key: value` between `---` lines",
            "content/papers/routing-tokens-in-mixture-of-experts.md:4: error: expected a link to an existing page, found `/papers/nowhere/` (no file papers/nowhere/index.html)",
            "content/pubs.md:4: error: expected the shortcode `{{ papers(...) }}`, the one Vellum has, found `paper(...)`; did you mean `papers`?",
            "content/pubs.md:6: error: expected no Hugo shortcode, found `{{< ref \"about.md\" >}}`; link a page as `[text](@/page.md)`",
            "content/pubs.md:10: error: expected each argument of papers(...) once, found `author` twice; remove one",
            "content/toml.md:2: error: expected `weight` to be a whole number, found string \"heavy\"",
            "content/yaml.md:2: error: expected one `key: value` on the line, found a second `: ` in `title: Note: on things`; quote the value: `title: \"Note: on things\"`",
            "templates/404.html:4: error: expected a `{% if %}` before this `{% endif %}`, found none open; remove it or open the block",
            "templates/custom.html:2: error: expected `{% endif %}` to close the `{% if %}` of line 2, found `{% endblock %}` at line 2; add `{% endif %}` where the block ends",
        ],
        "{stderr}"
    );
    write(root, "site.toml", b"title = \"T\"\ntheme = \"defualt\"\n");
    let out = vellum(&["check", "--root", root.to_str().unwrap()], &[]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).lines().next(),
        Some("site.toml:2: error: expected a theme directory themes/defualt/ (the `theme` setting), found none; did you mean `default`?")
    );
}

/// This file's tests, for the harness in `tests/main.rs`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(publishing: newcomer_mistakes_are_reported_once_at_their_line_with_the_fix, feeds_are_valid_atom_with_stable_unique_ids_in_order, feed_limit_caps_every_feed, sitemap_lists_every_page_and_splits_past_the_threshold, not_found_page_links_resolve_from_any_depth, aliases_become_redirect_pages_and_collisions_are_errors, titles_with_math_keep_their_former_slug_as_a_redirect, markdown_links_work_under_a_sub_path, check_reads_links_with_character_references_as_a_browser_does, a_site_in_zola_habits_builds_and_shows_its_values, content_pages_and_aliases_clashing_with_added_pages_are_errors, a_static_file_clashing_with_a_generated_page_is_an_error, check_names_the_corpus_data_files_without_making_them, check_reports_every_problem_with_file_and_line_and_writes_nothing, init_then_build_in_an_empty_directory, completion_scripts_name_the_subcommands, summaries_say_one_paper_and_two_papers, a_template_error_is_reported_once_without_false_link_errors)
}
