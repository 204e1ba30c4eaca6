//! The search index: files named by their content, every term in the shard
//! the entry file points to, postings that decode to the right documents,
//! the same answers with tiny shards, deterministic bytes. The query engine
//! (JavaScript) is tested under Node by `search_engine_under_node`.

mod common;

use common::*;
use serde_json::Value;
use vellum::output::SiteOutput;

fn json(site: &SiteOutput, file: &str) -> Value {
    serde_json::from_slice(site.get(file).unwrap_or_else(|| panic!("{file} missing"))).unwrap()
}

/// Decodes the index's number strings (docs/search-index.md).
fn decode(text: &str) -> Vec<u64> {
    const LAST: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef";
    const MORE: &str = "ghijklmnopqrstuvwxyz0123456789-_";
    let mut out = Vec::new();
    let (mut value, mut scale) = (0u64, 1u64);
    for c in text.chars() {
        if let Some(d) = MORE.find(c) {
            value += d as u64 * scale;
            scale *= 32;
        } else {
            value += LAST.find(c).unwrap() as u64 * scale;
            out.push(value);
            (value, scale) = (0, 1);
        }
    }
    out
}

/// Every term of the index with its postings `(document, impact)`,
/// checking that each term sits in the shard the entry file assigns it.
fn all_terms(site: &SiteOutput) -> std::collections::BTreeMap<String, Vec<(u64, u64)>> {
    let entry = json(site, "search/index.json");
    let shards = entry["terms"].as_array().unwrap();
    let mut terms = std::collections::BTreeMap::new();
    for (i, shard) in shards.iter().enumerate() {
        let first = shard[0].as_str().unwrap();
        let next = shards.get(i + 1).map(|s| s[0].as_str().unwrap());
        let file = json(site, &format!("search/{}", shard[1].as_str().unwrap()));
        for (term, postings) in file["terms"].as_object().unwrap() {
            assert!(
                term.as_str() >= first,
                "{term} before its shard's first {first}"
            );
            assert!(
                next.is_none_or(|n| term.as_str() < n),
                "{term} past its shard"
            );
            let numbers = decode(postings.as_str().unwrap());
            let mut doc = 0;
            let list = numbers
                .chunks(2)
                .map(|pair| {
                    doc += pair[0];
                    (doc, pair[1])
                })
                .collect();
            terms.insert(term.clone(), list);
        }
    }
    terms
}

fn bundled_with_zoe(extra_config: &str) -> tempfile::TempDir {
    let dir = bundled_copy();
    std::fs::copy(
        project().join("tests/fixtures/listings/valid/accents/zoe-umlaut.txt"),
        dir.path().join("seeds/zoe-umlaut.txt"),
    )
    .unwrap();
    if !extra_config.is_empty() {
        let config = dir.path().join("site.toml");
        let text = std::fs::read_to_string(&config).unwrap();
        std::fs::write(&config, format!("{text}\n{extra_config}")).unwrap();
    }
    dir
}

const TINY: &str =
    "search_term_shard_bytes = 2000\nsearch_metadata_documents = 5\nsearch_facet_documents = 7\n";

#[test]
fn the_index_is_sharded_content_hashed_and_decodes_to_the_right_documents() {
    let dir = bundled_with_zoe("");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let entry = json(&site, "search/index.json");
    assert_eq!(entry["version"], 1);
    assert_eq!(entry["documents"], 37);
    assert_eq!(
        entry["years"],
        serde_json::json!([[2025, 0], [2024, 2], [2022, 36]])
    );
    let listed: Vec<String> = site
        .keys()
        .filter(|f| f.starts_with("search/") && f.ends_with(".json") && *f != "search/index.json")
        .cloned()
        .collect();
    assert_eq!(listed.len(), 4, "one shard of each kind: {listed:?}");
    for file in &listed {
        let hash = xxhash_rust::xxh3::xxh3_64(&site[file]);
        let name = file.rsplit('/').next().unwrap();
        assert_eq!(&name[2..18], format!("{hash:016x}"), "{file}");
    }

    let terms = all_terms(&site);
    let corpus: Value = serde_json::from_slice(&site["corpus.json"]).unwrap();
    let papers = corpus["papers"].as_array().unwrap();
    let docs_of = |term: &str| -> Vec<u64> { terms[term].iter().map(|&(d, _)| d).collect() };
    let xiaowen: Vec<u64> = papers
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p["authors"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a == "Xiaowen Chu")
        })
        .map(|(i, _)| i as u64)
        .collect();
    assert_eq!(xiaowen.len(), 18);
    assert_eq!(docs_of("xiaowen"), xiaowen);
    let zoe = papers
        .iter()
        .position(|p| p["title"] == "Accents in Author Names")
        .unwrap();
    assert_eq!(docs_of("zoe"), [zoe as u64]);
    assert!(terms.contains_key("serverless computing"), "a title bigram");
    assert!(
        terms.contains_key("mixtureofexpert"),
        "a hyphenated compound"
    );
    assert!(!terms.contains_key("the"), "stop word");
    // A title word outweighs the same word in an abstract only.
    let serverless = &terms["serverless"];
    let in_title = papers
        .iter()
        .position(|p| p["title"].as_str().unwrap().contains("Serverless"))
        .unwrap() as u64;
    let max = serverless.iter().map(|&(_, i)| i).max().unwrap();
    assert_eq!(
        serverless.iter().find(|&&(d, _)| d == in_title).unwrap().1,
        max
    );

    let metadata = json(
        &site,
        &format!("search/{}", entry["metadata"]["files"][0].as_str().unwrap()),
    );
    let first = &metadata["documents"][0];
    assert_eq!(first[0], papers[0]["slug"]);
    assert_eq!(first[1], papers[0]["title"]);
    assert_eq!(first[2], 2025);
    assert!(first[5].as_str().unwrap().chars().count() <= 301);
}

#[test]
fn tiny_shards_hold_the_same_terms_and_builds_are_deterministic() {
    let (_, default) = build_memory(bundled_with_zoe("").path(), None);
    let tiny_dir = bundled_with_zoe(TINY);
    let (report, tiny) = build_memory(tiny_dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let entry = json(&tiny, "search/index.json");
    assert!(entry["terms"].as_array().unwrap().len() > 10);
    assert_eq!(
        entry["metadata"]["files"].as_array().unwrap().len(),
        8,
        "37 documents by 5"
    );
    assert_eq!(
        entry["facets"]["files"].as_array().unwrap().len(),
        6,
        "37 documents by 7"
    );
    assert_eq!(all_terms(&tiny), all_terms(&default));
    let (_, again) = build_memory(tiny_dir.path(), None);
    let search_files = |site: &SiteOutput| -> Vec<(String, Vec<u8>)> {
        site.iter()
            .filter(|(f, _)| f.starts_with("search/"))
            .map(|(f, b)| (f.clone(), b.clone()))
            .collect()
    };
    assert_eq!(search_files(&tiny), search_files(&again));
}

#[test]
fn search_can_be_switched_off() {
    let dir = bundled_with_zoe("search = false");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert!(!site.keys().any(|f| f.starts_with("search/")));
    assert!(!std::str::from_utf8(&site["index.html"])
        .unwrap()
        .contains("header-search"));
}

#[test]
fn search_engine_under_node() {
    if !tool_present(have_node(), "Node.js") {
        return;
    }
    let default = bundled_with_zoe("");
    let tiny = bundled_with_zoe(TINY);
    let (default, tiny) = (build_to_disk(default.path()), build_to_disk(tiny.path()));
    let report = node(
        &["--test", "tests/search/"],
        &[
            ("VELLUM_SEARCH_SITE", default.as_os_str()),
            ("VELLUM_SEARCH_TINY", tiny.as_os_str()),
        ],
    );
    assert!(
        report.contains("# fail 0") && report.contains("# skipped 0"),
        "{report}"
    );
}

#[test]
fn search_page_end_to_end_in_chromium() {
    let playwright = project().join("tests/browser/node_modules/playwright-core");
    let chromium = std::path::Path::new("/usr/bin/chromium");
    if !tool_present(
        have_node() && playwright.exists() && chromium.exists(),
        "node, playwright-core (npm ci in tests/browser) or /usr/bin/chromium",
    ) {
        return;
    }
    let site = bundled_with_zoe("");
    let public = build_to_disk(site.path());
    node(&["tests/browser/search.mjs", public.to_str().unwrap()], &[]);
}
