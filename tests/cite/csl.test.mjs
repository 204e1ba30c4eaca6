// Renders the CSL-JSON items the Rust module produces (tests/cite/fixtures/items.json,
// kept current by the Rust test `csl_fixture_is_current`) with citeproc-js and
// checks the formatted bibliography text. No network: style and locale are local.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import CSL from "citeproc";

const here = (name) => new URL(name, import.meta.url);
const items = JSON.parse(readFileSync(here("fixtures/items.json"), "utf8"));
const style = readFileSync(here("style.csl"), "utf8");
const locale = readFileSync(here("locale-en-US.xml"), "utf8");

function render(ids) {
  const byId = Object.fromEntries(items.map((item) => [item.id, item]));
  const sys = {
    retrieveLocale: () => locale,
    retrieveItem: (id) => byId[id],
  };
  const engine = new CSL.Engine(sys, style, "en-US");
  engine.setOutputFormat("text");
  engine.updateItems(ids);
  const [meta, entries] = engine.makeBibliography();
  assert.equal(meta.bibliography_errors.length, 0);
  return entries.map((entry) => entry.trim());
}

test("complete author list, venue and arXiv data", () => {
  assert.deepEqual(render(["chu2024fusionllm"]), [
    "Chu, X., & van der Berg, A. (2024). FusionLLM: Optimizing MoE Training on GPUs. NeurIPS 2024. [Preprint] arXiv. https://vellum.example/papers/chu2024fusionllm/",
  ]);
});

test("incomplete author list ends with others", () => {
  assert.deepEqual(render(["berg2023gpus"]), [
    "Chu, X., van der Berg, A., & others (2023). 50% of GPUs & <5% cost_x O(n^2) Fast. https://vellum.example/papers/chu2024fusionllm/",
  ]);
});

// Every per-paper CSL-JSON file of a built site (VELLUM_SITE, set by the
// Rust test `every_csl_export_renders_with_citeproc_js`) renders to one
// reference holding the paper's year and title.
const site = process.env.VELLUM_SITE;
test("every CSL-JSON export of a built site", { skip: !site && "VELLUM_SITE not set" }, () => {
  const dir = new URL(`file://${site}/papers/`);
  let count = 0;
  for (const slug of readdirSync(dir)) {
    const file = new URL(`${slug}/${slug}.json`, dir);
    const [item] = JSON.parse(readFileSync(file, "utf8"));
    const engine = new CSL.Engine(
      { retrieveLocale: () => locale, retrieveItem: () => item },
      style,
      "en-US",
    );
    engine.setOutputFormat("text");
    engine.updateItems([item.id]);
    const [meta, entries] = engine.makeBibliography();
    assert.equal(meta.bibliography_errors.length, 0, slug);
    assert.equal(entries.length, 1, slug);
    const text = entries[0];
    assert.ok(text.includes(`(${item.issued["date-parts"][0][0]})`), `${slug}: ${text}`);
    assert.ok(text.includes(item.title), `${slug}: ${text}`);
    assert.ok(text.includes("others"), `${slug}: listed authors end with others: ${text}`);
    count += 1;
  }
  assert.equal(count, Number(process.env.VELLUM_PAPERS));
});
