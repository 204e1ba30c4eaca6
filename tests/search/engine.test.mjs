// Tests of themes/default/static/search-engine.js against the token vectors
// and against built sites' search indexes.
//   VELLUM_SEARCH_SITE=<public dir> VELLUM_SEARCH_TINY=<public dir, tiny shards> node --test tests/search/
// The index tests are skipped when the variables are unset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import {
  tokenize, decodeNumbers, compareCodePoints, escapeHtml, fnv1a, SearchIndex,
} from '../../themes/default/static/search-engine.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const SITE = process.env.VELLUM_SEARCH_SITE;
const TINY = process.env.VELLUM_SEARCH_TINY;
const ORIGIN = 'http://site.test';

/**
 * An index over a public dir, served as if at ORIGIN; records the files
 * fetched (a range request as `path#start-end`). With ignoreRanges, range
 * requests get the whole file, as from a host without range support.
 */
function openIndex(dir, { ignoreRanges = false, ...options } = {}) {
  const fetched = [];
  const pathOf = (url) => decodeURIComponent(new URL(url).pathname);
  const fetchJson = async (url) => {
    fetched.push(pathOf(url));
    return JSON.parse(await readFile(join(dir, pathOf(url)), 'utf8'));
  };
  const fetchRange = async (url, start, end) => {
    const path = pathOf(url);
    if (ignoreRanges) {
      fetched.push(path);
      return { bytes: new Uint8Array(await readFile(join(dir, path))), start: 0, whole: true };
    }
    fetched.push(`${path}#${start}-${end}`);
    const file = await open(join(dir, path));
    try {
      const bytes = new Uint8Array(end - start);
      const { bytesRead } = await file.read(bytes, 0, end - start, start);
      return { bytes: bytes.subarray(0, bytesRead), start, whole: false };
    } finally {
      await file.close();
    }
  };
  const index = new SearchIndex(`${ORIGIN}/search/index.json`, fetchJson, { fetchRange, ...options });
  return { index, fetched };
}

/** Kind of a fetched index file: index, t, p, b, c, f, l, m or a. */
const kind = (path) => (path.endsWith('/index.json') ? 'index' : path.split('/').pop()[0]);

/** Fetched paths without their ranges, each once. */
const files = (fetched) => [...new Set(fetched.map((p) => p.split('#')[0]))];

const SERVERLESS_MOE = 'Optimizing Distributed Deployment of Mixture-of-Experts Model Inference in Serverless Computing';

test('tokenizer reproduces every vector of tokens.json', async () => {
  const vectors = JSON.parse(await readFile(join(here, 'tokens.json'), 'utf8'));
  assert.ok(vectors.length >= 20);
  for (const [input, expected] of vectors) assert.deepEqual(tokenize(input), expected, input);
});

test('numbers decode least significant digit first', () => {
  assert.deepEqual(decodeNumbers('AfgBkDgywe'), [0, 31, 32, 100, 1000000]);
  assert.deepEqual(decodeNumbers(''), []);
  assert.throws(() => decodeNumbers('g'));
});

test('strings compare in code-point (UTF-8 byte) order', () => {
  assert.ok(compareCodePoints('a', 'b') < 0);
  assert.ok(compareCodePoints('learn', 'learn model') < 0);
  // U+FF21 sorts before U+1F600 in UTF-8, after it in UTF-16 units.
  assert.ok(compareCodePoints('\uff21', '\u{1f600}') < 0);
  assert.equal(compareCodePoints('\u{1f600}', '\u{1f600}'), 0);
});

test('HTML escaping', () => {
  assert.equal(escapeHtml(`<a href="x">&'</a>`), '&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;');
});

/** Encodes numbers as the Rust builder does (encode_number). */
function encodeNumbers(numbers) {
  const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef';
  const more = 'ghijklmnopqrstuvwxyz0123456789-_';
  let out = '';
  for (let n of numbers) {
    while (n >= 32) { out += more[n % 32]; n = Math.floor(n / 32); }
    out += last[n];
  }
  return out;
}

test('number encoding round trip', () => {
  const numbers = [0, 1, 31, 32, 33, 1023, 1024, 99999, 2 ** 40];
  assert.deepEqual(decodeNumbers(encodeNumbers(numbers)), numbers);
});

/** A pack (docs/search-index.md): hex offsets, then the records' bytes. */
function pack(records) {
  let offset = (records.length + 1) * 8 + 1;
  let header = '';
  for (const record of records) {
    header += offset.toString(16).padStart(8, '0');
    offset += record.length;
  }
  header += `${offset.toString(16).padStart(8, '0')}\n`;
  return new Uint8Array(Buffer.concat([Buffer.from(header), ...records]));
}

/** A metadata pack: each record a JSON array and a newline. */
const metadataPack = (records) => pack(records.map((r) => Buffer.from(`${JSON.stringify(r)}\n`)));

/** An impact's level: round(log_1.05(100 × impact)); `impact` is given × 100. */
const level = (impact) => Math.round(Math.log(impact) / Math.log(1.05));

/** Inline postings: (document, impact × 100) pairs as numbers of distances and levels. */
const postings = (pairs) => encodeNumbers(pairs.flatMap(([d, i], k) => [k ? d - pairs[k - 1][0] : d, level(i)]));

/** Postings as a pack stream: LEB128 distances, then levels, deflated. */
function packedPostings(pairs) {
  const bytes = [];
  pairs.forEach(([d], k) => {
    let n = k ? d - pairs[k - 1][0] : d;
    while (n >= 0x80) { bytes.push((n & 0x7f) | 0x80); n = Math.floor(n / 128); }
    bytes.push(n);
  });
  return deflateSync(Buffer.from([...bytes, ...pairs.map(([, i]) => level(i))]));
}

/**
 * A hand-made index: two documents, terms split over three shards, `model`
 * in a postings pack, the bigram `ranking b` in the one phrase bucket.
 */
function syntheticIndex() {
  const model = packedPostings([[1, 300]]);
  const files = {
    'index.json': {
      version: 3,
      documents: 2,
      prefix_weight: 0.7,
      impact_step: 1.05,
      terms: [['', 't0.json'], ['ranker', 't1.json'], ['ranking', 't2.json']],
      postings: ['p0.bin'],
      phrases: { buckets: 1, per_file: 4096, files: ['b0.bin'] },
      categories_of: 'c0.json',
      authors_of: { documents: 1, bytes: 40, files: ['f0.json', 'f1.json'] },
      metadata: { documents: 1, files: ['m0.bin', 'm1.bin'] },
      authors: { count: 2, per_file: 4096, files: ['a0.json'] },
      years: [[2024, 0]],
      categories: [['cs.XX', 'X <y>']],
      urls: { papers: '/sub/papers/' },
    },
    // Integer-like keys first, as a JSON object may list them in any order.
    't0.json': { terms: { 2: [1, postings([[1, 100]])], b: [1, postings([[0, 400]])], bold: [1, postings([[0, 300]])],
      model: [1, 0, 3, 3 + model.length], rank: [1, postings([[1, 300]])] } },
    't1.json': { terms: { ranker: [1, postings([[0, 200]])] } },
    't2.json': { terms: { ranking: [1, postings([[0, 300]])] } },
    'p0.bin': new Uint8Array(Buffer.concat([Buffer.from('pad'), model])),
    'b0.bin': pack([deflateSync(Buffer.from(JSON.stringify({ 'ranking b': postings([[0, 300]]) })))]),
    // Document 0 in category 0, document 1 in none.
    'c0.json': { runs: encodeNumbers([1, 1, 0, 1, 0]) },
    'f0.json': { documents: [encodeNumbers([0])] },
    'f1.json': { documents: [encodeNumbers([1])] },
    'm0.bin': metadataPack([['ranking', 'Ranking <b>bold</b> & rankers', 2024, ['Ana <Lima>'], ['cs.XX'],
      'About <script>alert(1)</script> bold things.']]),
    'm1.bin': metadataPack([['rank', 'Rank 2 models', 2024, ['Ben'], [], '']]),
    'a0.json': { authors: ['Ana <Lima>', 'Ben'] },
  };
  const fetched = [];
  const nameOf = (url) => new URL(url).pathname.replace('/sub/search/', '');
  const index = new SearchIndex(`${ORIGIN}/sub/search/index.json`, async (url) => {
    fetched.push(nameOf(url));
    if (!files[nameOf(url)]) throw new Error(`404 ${url}`);
    return structuredClone(files[nameOf(url)]);
  }, {
    fetchRange: async (url, start, end) => {
      fetched.push(`${nameOf(url)}#${start}-${end}`);
      return { bytes: files[nameOf(url)].slice(start, end), start, whole: false };
    },
  });
  return { index, fetched };
}

test('FNV-1a of UTF-8 bytes, as the Rust index writer hashes bigrams', () => {
  assert.equal(fnv1a(''), 0x811c9dc5);
  assert.equal(fnv1a('a'), 0xe40c292c);
  assert.equal(fnv1a('foobar'), 0xbf9cf968);
});

test('synthetic index: escaping, highlights, prefixes across shards', async () => {
  const { index, fetched } = syntheticIndex();
  const bold = await index.search('bold');
  assert.equal(bold.total, 1);
  const [hit] = bold.results;
  assert.equal(hit.titleHtml, 'Ranking &lt;b&gt;<mark>bold</mark>&lt;/b&gt; &amp; rankers');
  assert.equal(hit.snippetHtml, 'About &lt;script&gt;alert(1)&lt;/script&gt; <mark>bold</mark> things.');
  assert.equal(hit.url, `${ORIGIN}/sub/papers/ranking/`);
  assert.deepEqual(bold.facets.authors, [{ value: 0, name: 'Ana <Lima>', count: 1 }]);
  assert.deepEqual(bold.facets.categories, [{ value: 'cs.XX', name: 'X <y>', count: 1 }]);
  assert.deepEqual(bold.facets.years, [{ value: 2024, count: 1 }]);
  // The offsets of record 0 (bytes 0–16 of the pack), then the record.
  assert.deepEqual(fetched.sort(), ['a0.json', 'c0.json', 'f0.json', 'index.json', 'm0.bin#0-16', 'm0.bin#17-138', 't0.json']);

  // `rank`: the exact term (document 1) and, by prefix over the next two
  // shards, `ranker` and `ranking` (document 0); bigrams are in no shard.
  const rank = await index.search('rank');
  assert.deepEqual(rank.results.map((r) => r.id), [1, 0]);
  assert.ok(rank.results[0].score > rank.results[1].score);
  assert.equal(rank.results[1].titleHtml, '<mark>Ranking</mark> &lt;b&gt;bold&lt;/b&gt; &amp; <mark>rankers</mark>');
  assert.ok(fetched.includes('t1.json') && fetched.includes('t2.json'));
  // A token that is not last matches exactly when it can: `rank 2`.
  const rank2 = await index.search('rank 2');
  assert.deepEqual(rank2.results.map((r) => r.id), [1]);
  // AND: `bold model` is in no document; `model`, from the postings
  // pack (bytes 3 to the end, after 3 bytes of padding), is in document 1.
  assert.equal((await index.search('bold model')).total, 0);
  const modelBytes = packedPostings([[1, 300]]).length;
  assert.ok(fetched.includes(`p0.bin#3-${3 + modelBytes}`), fetched.join());
  assert.deepEqual((await index.search('models')).results.map((r) => r.id), [1]);
  // Phrase boost: `ranking b` adds the bigram's score, from the bucket
  // (its offsets, then its bytes); `b ranking` has no bigram there.
  const phrase = await index.search('ranking b');
  const reversed = await index.search('b ranking');
  assert.equal(phrase.total, 1);
  assert.ok(phrase.results[0].score > reversed.results[0].score);
  assert.ok(fetched.includes('b0.bin#0-16'), fetched.join());
  // Filters: a facet value outside the results stays listed, with 0.
  const other = await index.search('bold', { year: 1999 });
  assert.equal(other.total, 0);
  assert.deepEqual(other.facets.years, [{ value: 2024, count: 1 }, { value: 1999, count: 0 }]);
  const byBen = await index.search('rank', { author: 1 });
  assert.deepEqual(byBen.results.map((r) => r.id), [1]);
  assert.deepEqual(byBen.facets.authors.map((a) => [a.name, a.count]), [['Ana <Lima>', 1], ['Ben', 1]]);
  // No token and no filter: nothing; filters alone list their documents.
  assert.equal((await index.search('the of')).total, 0);
  assert.equal((await index.search('', { category: 'cs.XX' })).total, 1);
  // Every file fetched once.
  assert.equal(fetched.length, new Set(fetched).size);
});

/** An index that counts the author facet from the author shards, as for a few results. */
class ByShards extends SearchIndex {
  async countByAuthorLists(entry, counted) {
    const docs = [];
    counted.forEach((marked, d) => { if (marked) docs.push(d); });
    const authorsOf = await this.authorsOf(entry, docs);
    const counts = new Map();
    for (const d of docs) for (const a of new Set(authorsOf(d))) counts.set(a, (counts.get(a) ?? 0) + 1);
    return counts;
  }
}

/**
 * A hand-made index of 40 documents (2025: 0–19, 2024: 20–39) and 10
 * listed authors, author shards of 5 documents, author lists of one author
 * a block, 3 blocks a file; no terms (filter-only queries).
 */
function authorListsIndex({ ignoreRanges = false } = {}) {
  const N = 40;
  // Author a lists document d when (d · (a + 3) + a) mod (a + 2) is 0: 20 to 4 documents.
  const rows = Array.from({ length: N }, (_, d) => [...Array(10).keys()].filter((a) => (d * (a + 3) + a) % (a + 2) === 0));
  const lists = [...Array(10).keys()].map((a) => rows.flatMap((authors, d) => (authors.includes(a) ? [d] : [])));
  const leb = (n, out) => { while (n >= 0x80) { out.push((n & 0x7f) | 0x80); n = Math.floor(n / 128); } out.push(n); };
  const ranked = [...Array(10).keys()].filter((a) => lists[a].length).sort((a, b) => lists[b].length - lists[a].length || a - b);
  const blocks = ranked.map((a) => {
    const out = [];
    leb(a, out);
    leb(lists[a].length, out);
    lists[a].forEach((d, k) => leb(k ? d - lists[a][k - 1] : d, out));
    return deflateSync(Buffer.from(out));
  });
  const files = {
    'index.json': {
      version: 3, documents: N, prefix_weight: 0.7, impact_step: 1.05,
      terms: [['', 't0.json']], postings: [], phrases: { buckets: 1, per_file: 4096, files: ['b0.bin'] },
      categories_of: 'c0.json',
      authors_of: { documents: 5, bytes: 1e6, files: [...Array(8).keys()].map((i) => `f${i}.json`) },
      author_lists: { blocks: blocks.length, per_file: 3, files: [0, 1, 2, 3].slice(0, Math.ceil(blocks.length / 3)).map((i) => `l${i}.bin`) },
      metadata: { documents: N, files: ['m0.bin'] },
      authors: { count: 10, per_file: 4096, files: ['a0.json'] },
      years: [[2025, 0], [2024, 20]], categories: [], urls: { papers: '/papers/' },
    },
    't0.json': { terms: {} },
    'c0.json': { runs: encodeNumbers([N, 0]) },
    'm0.bin': metadataPack(Array.from({ length: N }, (_, d) => [`p${d}`, `Paper ${d}`, d < 20 ? 2025 : 2024, [], [], ''])),
    'a0.json': { authors: [...Array(10).keys()].map((a) => `Author ${a}`) },
  };
  for (let i = 0; i < 8; i++) files[`f${i}.json`] = { documents: rows.slice(i * 5, i * 5 + 5).map(encodeNumbers) };
  for (let f = 0; f * 3 < blocks.length; f++) files[`l${f}.bin`] = pack(blocks.slice(f * 3, f * 3 + 3));
  const fetched = [];
  const nameOf = (url) => new URL(url).pathname.replace('/search/', '');
  const fetchJson = async (url) => { fetched.push(nameOf(url)); return structuredClone(files[nameOf(url)]); };
  const fetchRange = async (url, start, end) => {
    if (ignoreRanges) { fetched.push(nameOf(url)); return { bytes: files[nameOf(url)], start: 0, whole: true }; }
    fetched.push(`${nameOf(url)}#${start}-${end}`);
    return { bytes: files[nameOf(url)].slice(start, end), start, whole: false };
  };
  return { fetched, lists, make: (Cls, options = {}) => new Cls(`${ORIGIN}/search/index.json`, fetchJson, { fetchRange, ...options }) };
}

test('the author facet from the author lists: exact top authors, fewer blocks read for fewer facets', async () => {
  const read = {};
  for (const ignoreRanges of [false, true]) {
    for (const authorFacets of [1, 2, 3, 20]) {
      for (const year of [2025, 2024]) {
        const { fetched, make } = authorListsIndex({ ignoreRanges });
        const got = await make(SearchIndex, { authorFacets }).search('', { year, authors: true });
        const blocks = fetched.filter((f) => kind(f) === 'l');
        const expected = await make(ByShards, { authorFacets }).search('', { year, authors: true });
        assert.deepEqual(got.facets.authors, expected.facets.authors, `${authorFacets} facets, ${year}`);
        assert.equal(got.facets.authors.length, Math.min(authorFacets, 10));
        if (!ignoreRanges) read[`${authorFacets}/${year}`] = blocks.length;
        else assert.equal(blocks.length, new Set(blocks).size, 'each file whole, once');
      }
    }
  }
  // Authors by documents: 20, 13, 10, 8, 7, 6, 5, 5, 4, 4 (half in each
  // year). The top author of 2025 (10 documents) is settled after the
  // second batch, blocks 2 to 4, once the last author read has 7 < 10:
  // 5 of 10 blocks, in 6 requests (offsets, then bytes, per file and
  // batch). A second facet (6 documents) needs every block: 12 requests.
  assert.equal(read['1/2025'], 6, JSON.stringify(read));
  assert.equal(read['2/2025'], 12, JSON.stringify(read));
  assert.equal(read['20/2024'], 12, JSON.stringify(read));
  // Nothing counted (a year without documents): no block read.
  const { fetched, make } = authorListsIndex();
  const none = await make(SearchIndex).search('', { year: 2025, category: 'cs.XX', authors: true });
  assert.deepEqual(none.facets.authors, []);
  assert.ok(!fetched.some((f) => kind(f) === 'l'), fetched.join());
});

test('the author facet is counted when asked or small, else left null', async () => {
  const { index, fetched } = syntheticIndex();
  index.eagerAuthorBytes = 39; // the author shards hold 40 bytes
  const lazy = await index.search('bold');
  assert.equal(lazy.facets.authors, null);
  assert.ok(!fetched.some((f) => f.startsWith('f')), fetched.join());
  assert.deepEqual(lazy.facets.categories, [{ value: 'cs.XX', name: 'X <y>', count: 1 }]);
  const asked = await index.search('bold', { authors: true });
  assert.deepEqual(asked.facets.authors, [{ value: 0, name: 'Ana <Lima>', count: 1 }]);
  // An author filter needs the authors: counted too.
  const filtered = await index.search('rank', { author: 1 });
  assert.deepEqual(filtered.results.map((r) => r.id), [1]);
  assert.equal(filtered.facets.authors.length, 2);
});

/** The query cases run against both indexes. */
async function runCases(dir, options = {}) {
  const { index, fetched } = openIndex(dir, options);
  const out = {};
  out.serverless = await index.search('serverless moe');
  out.mixture2025 = await index.search('mixture experts', { year: 2025 });
  out.xiaowen = await index.search('xiaowen');
  out.xiaowenMore = await index.search('xiaowen', { offset: 10 });
  out.zoe = await index.search('zoe');
  out.sched = await index.search('sched');
  out.schedDc = await index.search('sched', { category: 'cs.DC' });
  out.models = await index.search('training models', { limit: 30 });
  out.none = await index.search('serverless xyzzyqq');
  return { out, fetched, index };
}

const corpusTitles2025 = async (dir) => {
  const corpus = JSON.parse(await readFile(join(dir, 'corpus.json'), 'utf8'));
  return corpus.papers.filter((p) => p.year === 2025).map((p) => p.title).sort();
};

test('queries on the default index', { skip: !SITE && 'VELLUM_SEARCH_SITE is unset' }, async (t) => {
  const { out } = await runCases(SITE);

  await t.test('serverless moe ranks the serverless MoE paper first', () => {
    assert.ok(out.serverless.total >= 1);
    const first = out.serverless.results[0];
    assert.equal(first.title, SERVERLESS_MOE);
    assert.match(first.titleHtml, /<mark>Serverless<\/mark>/);
    assert.match(first.snippetHtml, /<mark>/);
    assert.equal(first.url, `${ORIGIN}/papers/${first.slug}/`);
    assert.equal(first.year, 2025);
  });

  await t.test('mixture experts in 2025 gives the two 2025 papers', async () => {
    const titles = await corpusTitles2025(SITE);
    assert.equal(titles.length, 2);
    assert.equal(out.mixture2025.total, 2);
    assert.deepEqual(out.mixture2025.results.map((r) => r.title).sort(), titles);
    assert.deepEqual(out.mixture2025.results.map((r) => r.year), [2025, 2025]);
    // The year facet counts ignore the year filter itself.
    const years = Object.fromEntries(out.mixture2025.facets.years.map((f) => [f.value, f.count]));
    assert.equal(years[2025], 2);
    assert.ok(years[2024] > 0);
  });

  await t.test('xiaowen gives Xiaowen Chu\'s 18 papers', () => {
    assert.equal(out.xiaowen.total, 18);
    assert.equal(out.xiaowen.results.length, 10);
    const author = out.xiaowen.facets.authors.find((a) => a.name === 'Xiaowen Chu');
    assert.ok(author, 'author facet lists Xiaowen Chu');
    assert.equal(author.count, 18);
    for (const r of out.xiaowen.results) assert.ok(r.authors.includes('Xiaowen Chu'), r.title);
    // Equal scores: document id order; the next page continues it.
    const ids = [...out.xiaowen.results, ...out.xiaowenMore.results].map((r) => r.id);
    assert.equal(ids.length, 18);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    assert.equal(new Set(ids).size, 18);
  });

  await t.test('zoe finds the Zoë Chen paper', () => {
    assert.equal(out.zoe.results[0]?.title, 'Accents in Author Names');
    assert.ok(out.zoe.results[0].authors.includes('Zoë Chen'));
    assert.deepEqual(out.zoe.facets.authors.map((a) => a.name), ['Zoë Chen']);
  });

  await t.test('sched finds scheduling papers by prefix', () => {
    assert.ok(out.sched.total >= 2);
    const titles = out.sched.results.map((r) => r.title);
    assert.ok(titles.some((title) => /scheduling/i.test(title)), titles.join('\n'));
    assert.ok(out.sched.results.some((r) => /<mark>Scheduling<\/mark>/.test(r.titleHtml)));
  });

  await t.test('a category facet filters the results and keeps its own counts', () => {
    const dc = out.sched.facets.categories.find((c) => c.value === 'cs.DC');
    assert.ok(dc);
    assert.equal(out.schedDc.total, dc.count);
    assert.ok(out.schedDc.total < out.sched.total);
    for (const r of out.schedDc.results) assert.ok(r.categories.includes('cs.DC'));
    assert.deepEqual(out.schedDc.facets.categories, out.sched.facets.categories);
  });

  await t.test('every query token must match', () => {
    assert.equal(out.none.total, 0);
    assert.deepEqual(out.none.results, []);
  });

  await t.test('results are sorted by score, then document id', () => {
    const r = out.models.results;
    assert.ok(r.length > 1);
    for (let i = 1; i < r.length; i++) {
      assert.ok(r[i - 1].score > r[i].score || (r[i - 1].score === r[i].score && r[i - 1].id < r[i].id));
    }
  });

  await t.test('a one-result query fetches the entry, one term shard, the categories, an author shard, one record and author names', async () => {
    const { index, fetched } = openIndex(SITE);
    const answer = await index.search('accents');
    assert.equal(answer.total, 1);
    // The record: two range requests, its offsets (16 bytes), then itself.
    const ranges = fetched.filter((f) => f.includes('#')).map((f) => f.split('#')[1].split('-').map(Number));
    assert.equal(ranges.length, 2);
    assert.equal(ranges[0][1] - ranges[0][0], 16);
    assert.deepEqual(fetched.map(kind).sort(), ['a', 'c', 'f', 'index', 'm', 'm', 't']);
    // A second query re-fetches nothing already cached: it adds the phrase
    // bucket of `accent author` (its offsets, then its bytes).
    await index.search('accents author');
    assert.deepEqual(fetched.slice(7).map(kind), ['b', 'b']);
    assert.equal(fetched.length, 9);
  });

  await t.test('a host that ignores range requests gives the same answers', async () => {
    const { out, fetched } = await runCases(SITE, { ignoreRanges: true });
    const normal = await runCases(SITE);
    assert.deepEqual(out, normal.out);
    // Each pack (metadata, postings, phrase buckets) downloaded once,
    // whole, though the queries' terms asked for several parts at once.
    for (const k of ['m', 'p', 'b']) {
      const packs = fetched.filter((f) => kind(f) === k);
      assert.ok(packs.length >= 1, k);
      assert.equal(packs.length, new Set(packs).size, k);
    }
  });
});

test('tiny shards give the same answers', { skip: (!SITE || !TINY) && 'VELLUM_SEARCH_SITE or VELLUM_SEARCH_TINY is unset' }, async () => {
  const normal = await runCases(SITE);
  const tiny = await runCases(TINY);
  for (const name of Object.keys(normal.out)) {
    assert.deepEqual(tiny.out[name], normal.out[name], name);
  }
  const kinds = (fetched) => {
    const count = {};
    for (const path of new Set(fetched)) count[kind(path)] = (count[kind(path)] ?? 0) + 1;
    return count;
  };
  const n = kinds(files(normal.fetched));
  const k = kinds(files(tiny.fetched));
  assert.ok(k.t >= 3 && k.t > n.t, `tiny fetched ${k.t} term shards, the default ${n.t}`);
  assert.ok(k.m >= 3, `tiny fetched ${k.m} metadata packs`);
  assert.ok(k.f >= 2, `tiny fetched ${k.f} author shards`);
  // Files are fetched once each.
  assert.equal(tiny.fetched.length, new Set(tiny.fetched).size);
  // Not every shard: only those the queries needed.
  const entry = await tiny.index.entry();
  assert.ok(k.t < entry.terms.length, `${k.t} of ${entry.terms.length} term shards`);
});

test('the author facet from the author lists equals the one from the author shards', { skip: !TINY && 'VELLUM_SEARCH_TINY is unset' }, async () => {
  // The filter-only queries match all 37 documents, which reach all six
  // author shards of 7; the year or category then narrows what is counted.
  for (const [query, options] of [['', { year: 2024 }], ['distributed', {}], ['', { category: 'cs.DC' }]]) {
    const { index, fetched } = openIndex(TINY);
    const lists = await index.search(query, { authors: true, ...options });
    const listed = [...fetched]; // ByShards below logs to the same list
    const shards = new ByShards(index.indexUrl, index.fetchJson, { fetchRange: index.fetchRange });
    const expected = await shards.search(query, { authors: true, ...options });
    assert.deepEqual(lists.facets.authors, expected.facets.authors, `${query} ${JSON.stringify(options)}`);
    assert.ok(lists.facets.authors.length >= 2);
    // Counted from the lists, not the shards it is compared with.
    assert.ok(listed.some((f) => kind(f) === 'l'), listed.join());
    assert.ok(!listed.some((f) => kind(f) === 'f'), listed.join());
  }
});

test('prefix expansion follows terms across shard boundaries', { skip: !TINY && 'VELLUM_SEARCH_TINY is unset' }, async () => {
  const { index, fetched } = openIndex(TINY);
  const entry = await index.entry();
  // A shard boundary inside a run of terms sharing a prefix: the prefix of a
  // shard's first term that the previous shard also holds.
  let probe = null;
  for (let i = 1; i < entry.terms.length && !probe; i++) {
    const first = entry.terms[i][0];
    const previous = await index.termShard(entry, i - 1);
    for (let len = first.length - 1; len >= 2 && !probe; len--) {
      const prefix = first.slice(0, len);
      if (previous.sorted.some((t) => t.startsWith(prefix) && t !== prefix)
        && tokenize(prefix).join() === prefix) probe = prefix;
    }
  }
  assert.ok(probe, "no shard boundary inside a prefix run");
  const normal = await openIndex(SITE ?? TINY).index.search(probe, { limit: 50 });
  const split = await index.search(probe, { limit: 50 });
  assert.ok(split.total > 0, probe);
  assert.deepEqual(split, normal, probe);
  assert.ok(files(fetched).filter((p) => kind(p) === 't').length >= 2);
});
