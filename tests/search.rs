//! The search index: files named by their content, every term in the shard
//! the entry file points to, postings that decode to the right documents,
//! the same answers with tiny shards, deterministic bytes. The query engine
//! (JavaScript) is tested under Node by `search_engine_under_node`.

use crate::common::*;
use serde_json::Value;

fn json(site: &Pages, file: &str) -> Value {
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

/// Postings `(document, level)` from an inline numbers string of
/// (distance, level) pairs.
fn inline_postings(text: &str) -> Vec<(u64, u64)> {
    let mut doc = 0;
    decode(text)
        .chunks(2)
        .map(|pair| {
            doc += pair[0];
            (doc, pair[1])
        })
        .collect()
}

/// One unsigned LEB128 number from `bytes`; `None` at their end.
fn read_leb128(bytes: &mut impl Iterator<Item = u8>) -> Option<u64> {
    let (mut n, mut shift) = (0u64, 0);
    loop {
        let b = bytes.next()?;
        n |= u64::from(b & 0x7f) << shift;
        shift += 7;
        if b < 0x80 {
            return Some(n);
        }
    }
}

/// A zlib stream, inflated.
fn inflate(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::ZlibDecoder::new(bytes)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// The records of a pack (metadata or phrase buckets), by its offset header.
fn pack_records(pack: &[u8]) -> Vec<&[u8]> {
    let offset = |k: usize| {
        let digits = std::str::from_utf8(&pack[k * 8..k * 8 + 8]).unwrap();
        usize::from_str_radix(digits, 16).unwrap()
    };
    let header = offset(0);
    let count = (header - 1) / 8 - 1;
    assert_eq!(pack[header - 1], b'\n');
    assert_eq!(offset(count), pack.len());
    (0..count)
        .map(|k| &pack[offset(k)..offset(k + 1)])
        .collect()
}

/// 32-bit FNV-1a, as docs/search-index.md assigns phrase buckets.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Every term of the index with its postings `(document, impact level)`,
/// checking that each term sits in the shard the entry file assigns it,
/// that its document frequency is its postings' count, and that each
/// title bigram sits in the phrase bucket its hash names.
fn all_terms(site: &Pages) -> std::collections::BTreeMap<String, Vec<(u64, u64)>> {
    let entry = json(site, "search/index.json");
    let shards = entry["terms"].as_array().unwrap();
    let packs: Vec<&[u8]> = entry["postings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| &site[format!("search/{}", f.as_str().unwrap()).as_str()][..])
        .collect();
    let mut terms = std::collections::BTreeMap::new();
    for (i, shard) in shards.iter().enumerate() {
        let first = shard[0].as_str().unwrap();
        let next = shards.get(i + 1).map(|s| s[0].as_str().unwrap());
        let file = json(site, &format!("search/{}", shard[1].as_str().unwrap()));
        for (term, value) in file["terms"].as_object().unwrap() {
            assert!(
                term.as_str() >= first,
                "{term} before its shard's first {first}"
            );
            assert!(
                next.is_none_or(|n| term.as_str() < n),
                "{term} past its shard"
            );
            assert!(!term.contains(' '), "{term}: a bigram in a term shard");
            let value = value.as_array().unwrap();
            let df = value[0].as_u64().unwrap() as usize;
            let list = if let [_, text] = &value[..] {
                inline_postings(text.as_str().unwrap())
            } else {
                let n = |k: usize| value[k].as_u64().unwrap() as usize;
                let bytes = inflate(&packs[n(1)][n(2)..n(3)]);
                let mut distances = bytes.iter().copied();
                let mut doc = 0;
                let mut list = Vec::new();
                for _ in 0..df {
                    doc += read_leb128(&mut distances).unwrap();
                    list.push(doc);
                }
                assert_eq!(distances.len(), df, "{term}: a level after each distance");
                let levels = &bytes[bytes.len() - df..];
                list.into_iter()
                    .zip(levels.iter().map(|&l| u64::from(l)))
                    .collect()
            };
            assert_eq!(list.len(), df, "{term}");
            terms.insert(term.clone(), list);
        }
    }
    let phrases = &entry["phrases"];
    let buckets = phrases["buckets"].as_u64().unwrap() as u32;
    let per_file = phrases["per_file"].as_u64().unwrap() as u32;
    let mut bucket = 0;
    for file in phrases["files"].as_array().unwrap() {
        let pack = &site[format!("search/{}", file.as_str().unwrap()).as_str()];
        let records = pack_records(pack);
        assert!(records.len() as u32 <= per_file);
        for record in records {
            if !record.is_empty() {
                let found: Value = serde_json::from_slice(&inflate(record)).unwrap();
                for (term, text) in found.as_object().unwrap() {
                    assert!(term.contains(' '), "{term}: not a bigram");
                    assert_eq!(fnv1a(term) % buckets, bucket, "{term}");
                    terms.insert(term.clone(), inline_postings(text.as_str().unwrap()));
                }
            }
            bucket += 1;
        }
    }
    assert_eq!(bucket, buckets);
    terms
}

/// Every document's metadata record, in document order, read from the
/// metadata packs by their offset headers.
fn records(site: &Pages) -> Vec<Value> {
    let entry = json(site, "search/index.json");
    let mut out = Vec::new();
    for file in entry["metadata"]["files"].as_array().unwrap() {
        let pack = &site[format!("search/{}", file.as_str().unwrap()).as_str()];
        for record in pack_records(pack) {
            assert_eq!(record.last(), Some(&b'\n'));
            out.push(serde_json::from_slice(record).unwrap());
        }
    }
    out
}

/// Each document's category ids, from the category runs file.
fn category_runs(site: &Pages) -> Vec<Vec<u64>> {
    let entry = json(site, "search/index.json");
    let file = json(
        site,
        &format!("search/{}", entry["categories_of"].as_str().unwrap()),
    );
    let numbers = decode(file["runs"].as_str().unwrap());
    let mut out = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let (count, n) = (numbers[i] as usize, numbers[i + 1] as usize);
        let categories = numbers[i + 2..i + 2 + n].to_vec();
        out.extend(std::iter::repeat_n(categories, count));
        i += 2 + n;
    }
    out
}

/// Each document's listed author ids, from the author shards.
fn author_rows(site: &Pages) -> Vec<Vec<u64>> {
    let entry = json(site, "search/index.json");
    let mut rows = Vec::new();
    for file in entry["authors_of"]["files"].as_array().unwrap() {
        let shard = json(site, &format!("search/{}", file.as_str().unwrap()));
        for text in shard["documents"].as_array().unwrap() {
            rows.push(decode(text.as_str().unwrap()));
        }
    }
    rows
}

/// The author lists, in order: (author id, its documents).
fn author_lists(site: &Pages) -> Vec<(u64, Vec<u64>)> {
    let entry = json(site, "search/index.json");
    let lists = &entry["author_lists"];
    let mut out = Vec::new();
    let mut blocks = 0;
    for file in lists["files"].as_array().unwrap() {
        let pack = &site[format!("search/{}", file.as_str().unwrap()).as_str()];
        for record in pack_records(pack) {
            blocks += 1;
            let bytes = inflate(record);
            let mut bytes = bytes.iter().copied();
            let mut next = || read_leb128(&mut bytes);
            while let Some(author) = next() {
                let total = next().unwrap();
                let mut doc = 0;
                let docs = (0..total)
                    .map(|_| {
                        doc += next().unwrap();
                        doc
                    })
                    .collect();
                out.push((author, docs));
            }
        }
    }
    assert_eq!(blocks, lists["blocks"].as_u64().unwrap());
    out
}

fn bundled_with_zoe(extra_config: &str) -> crate::common::TempDir {
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
fn the_index_is_sharded_content_hashed_and_decodes_to_the_right_documents() {
    let dir = bundled_with_zoe("");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    let entry = json(&site, "search/index.json");
    assert_eq!(entry["version"], 3);
    assert_eq!(entry["documents"], 37);
    assert_eq!(
        entry["years"],
        serde_json::json!([[2025, 0], [2024, 2], [2022, 36]])
    );
    let mut listed: Vec<String> = site
        .keys()
        .filter(|f| f.starts_with("search/") && f.as_bytes().get(8) == Some(&b'-'))
        .map(|f| f.to_string())
        .collect();
    listed.sort();
    let mut kinds: Vec<&str> = listed.iter().map(|f| &f[7..8]).collect();
    let term_shards = kinds.iter().filter(|&&k| k == "t").count();
    kinds.dedup();
    assert_eq!(
        kinds,
        ["a", "b", "c", "f", "l", "m", "p", "t"],
        "one file of each other kind"
    );
    // The default term shard budget: at least 8 KiB a shard (all but the last).
    assert_eq!(term_shards, entry["terms"].as_array().unwrap().len());
    assert!(term_shards >= 2, "{term_shards} term shards");
    for shard in &entry["terms"].as_array().unwrap()[..term_shards - 1] {
        let file = format!("search/{}", shard[1].as_str().unwrap());
        assert!(site[file.as_str()].len() >= 8 * 1024, "{file}");
    }
    for file in &listed {
        let hash = xxhash_rust::xxh3::xxh3_64(&site[file.as_str()]);
        let name = file.rsplit('/').next().unwrap();
        assert_eq!(&name[2..18], format!("{hash:016x}"), "{file}");
    }

    // The author lists: each listed author's documents, the author shards
    // turned inside out, most documents first, ties by id.
    let rows = author_rows(&site);
    assert_eq!(rows.len(), 37);
    let lists = author_lists(&site);
    assert_eq!(lists.len(), 3, "Chuan Wu, Xiaowen Chu, Zoë Chen");
    for (author, docs) in &lists {
        let expected: Vec<u64> = (0..rows.len() as u64)
            .filter(|&d| rows[d as usize].contains(author))
            .collect();
        assert_eq!(docs, &expected, "author {author}");
    }
    let order: Vec<(usize, u64)> = lists.iter().map(|(a, d)| (d.len(), *a)).collect();
    let mut sorted = order.clone();
    sorted.sort_by_key(|&(n, a)| (std::cmp::Reverse(n), a));
    assert_eq!(order, sorted);
    assert_eq!(lists[1].1.len(), 18, "Xiaowen Chu's 18 papers");

    // Documents in index order: by year, then category list.
    let terms = all_terms(&site);
    let corpus: Value = serde_json::from_slice(&site["corpus.json"]).unwrap();
    let records = records(&site);
    assert_eq!(records.len(), 37);
    let categories = category_runs(&site);
    assert_eq!(categories.len(), 37);
    for (d, record) in records.iter().enumerate() {
        let paper = corpus["papers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["slug"] == record[0])
            .unwrap();
        assert_eq!(record[1], paper["title"]);
        assert_eq!(record[2], paper["year"]);
        assert_eq!(record[3], paper["authors"]);
        assert!(record[5].as_str().unwrap().chars().count() <= 301);
        let codes: Vec<&str> = categories[d]
            .iter()
            .map(|&c| entry["categories"][c as usize][0].as_str().unwrap())
            .collect();
        assert_eq!(record[4], serde_json::json!(codes), "document {d}");
    }
    assert!(records
        .windows(2)
        .all(|w| w[0][2].as_u64() >= w[1][2].as_u64()));
    let papers: Vec<&Value> = records.iter().collect();
    let docs_of = |term: &str| -> Vec<u64> { terms[term].iter().map(|&(d, _)| d).collect() };
    let xiaowen: Vec<u64> = papers
        .iter()
        .enumerate()
        .filter(|(_, p)| p[3].as_array().unwrap().iter().any(|a| a == "Xiaowen Chu"))
        .map(|(i, _)| i as u64)
        .collect();
    assert_eq!(xiaowen.len(), 18);
    assert_eq!(docs_of("xiaowen"), xiaowen);
    let zoe = papers
        .iter()
        .position(|p| p[1] == "Accents in Author Names")
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
        .position(|p| p[1].as_str().unwrap().contains("Serverless"))
        .unwrap() as u64;
    let max = serverless.iter().map(|&(_, i)| i).max().unwrap();
    assert_eq!(
        serverless.iter().find(|&&(d, _)| d == in_title).unwrap().1,
        max
    );
}

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
        entry["authors_of"]["files"].as_array().unwrap().len(),
        6,
        "37 documents by 7"
    );
    assert_eq!(all_terms(&tiny), all_terms(&default));
    assert_eq!(records(&tiny), records(&default));
    assert_eq!(author_lists(&tiny), author_lists(&default));
    let (_, again) = build_memory(tiny_dir.path(), None);
    let search_files = |site: &Pages| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = site
            .iter()
            .filter(|(f, _)| f.starts_with("search/"))
            .map(|(f, b)| (f.to_string(), b.to_vec()))
            .collect();
        files.sort();
        files
    };
    assert_eq!(search_files(&tiny), search_files(&again));
}

fn search_can_be_switched_off() {
    let dir = bundled_with_zoe("search = false");
    let (report, site) = build_memory(dir.path(), None);
    assert!(!report.failed(), "{:?}", report.diagnostics);
    assert!(!site.keys().any(|f| f.starts_with("search/")));
    assert!(!std::str::from_utf8(&site["index.html"])
        .unwrap()
        .contains("header-search"));
}

fn search_engine_under_node() {
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

fn search_page_end_to_end_in_chromium() {
    let site = bundled_with_zoe("");
    let public = build_to_disk(site.path());
    node(&["tests/browser/search.mjs", public.to_str().unwrap()], &[]);
}

/// This file's tests, for the harness in `tests/main.rs`.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    trials!(search: the_index_is_sharded_content_hashed_and_decodes_to_the_right_documents, tiny_shards_hold_the_same_terms_and_builds_are_deterministic, search_can_be_switched_off, search_engine_under_node needs tools::node(), search_page_end_to_end_in_chromium needs tools::chromium())
}
