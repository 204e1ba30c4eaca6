// Vellum search engine: reads the sharded static index written by
// src/render/search.rs (format: docs/search-index.md) and answers queries.
// Plain ES module, no DOM access, no dependencies: the search page and the
// Node tests (tests/search/engine.test.mjs) both import it.

// ---------------------------------------------------------------- tokenizer

const STOP_WORDS = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'has', 'have', 'in', 'is',
  'it', 'its', 'of', 'on', 'or', 'that', 'the', 'this', 'to', 'was', 'were', 'which', 'with',
]);

// Letters that do not decompose under NFKD, folded to ASCII.
const FOLD = {
  'ø': 'o', 'đ': 'd', 'ð': 'd', 'ł': 'l', 'ı': 'i', 'ħ': 'h', 'ŧ': 't',
  'ß': 'ss', 'æ': 'ae', 'œ': 'oe', 'þ': 'th',
};
const FOLD_RE = /[øđðłıħŧßæœþ]/g;
const MARK_RE = /\p{M}/gu;
// Rust's char::is_alphanumeric: Alphabetic or a numeric category (Nd, Nl, No).
const WORD_SOURCE = '[\\p{Alphabetic}\\p{Nd}\\p{Nl}\\p{No}]+';
const STARTS_ALNUM_RE = /^[\p{Alphabetic}\p{Nd}\p{Nl}\p{No}]/u;
const NUMERIC_RE = /[\p{Nd}\p{Nl}\p{No}]/u;
const ASCII_RE = /^[\x00-\x7f]*$/;
const HYPHENS = new Set(['-', '\u2010', '\u2011']);

/** Text normalised as the Rust tokenizer does: NFKD, marks removed, lowercase, folded. */
function normalizeText(text) {
  if (ASCII_RE.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(MARK_RE, '').toLowerCase().replace(FOLD_RE, (c) => FOLD[c]);
}

/** Harman's S-stemmer, for words of more than 3 code points without a numeric character. */
function stem(word) {
  if ([...word].length <= 3 || NUMERIC_RE.test(word)) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) {
    return word.slice(0, -3) + 'y';
  }
  if (word.endsWith('es') && !word.endsWith('aes') && !word.endsWith('ees') && !word.endsWith('oes')) {
    return word.slice(0, -2) + 'e';
  }
  if (word.endsWith('s') && !word.endsWith('us') && !word.endsWith('ss')) {
    return word.slice(0, -1);
  }
  return word;
}

/**
 * Calls emit(token, compound) for each token of text, in order; compound is
 * true for the concatenation of a hyphenated compound when at least one of
 * its parts was emitted itself.
 */
function forEachToken(text, emit) {
  const normal = normalizeText(String(text ?? ''));
  const words = [];
  const flush = () => {
    let emitted = 0;
    for (const w of words) {
      if (w && !STOP_WORDS.has(w)) { emit(stem(w), false); emitted += 1; }
    }
    if (words.length > 1) {
      const joined = words.join('');
      if (!STOP_WORDS.has(joined)) emit(stem(joined), emitted > 0);
    }
    words.length = 0;
  };
  const re = new RegExp(WORD_SOURCE, 'gu');
  let m;
  while ((m = re.exec(normal)) !== null) {
    words.push(m[0]);
    const end = m.index + m[0].length;
    // A single hyphen between two words continues a compound.
    const joined = HYPHENS.has(normal[end]) && STARTS_ALNUM_RE.test(normal.slice(end + 1, end + 3));
    if (!joined) flush();
  }
  flush();
}

/** The tokens of text, by the rules of docs/search-index.md (same as src/render/search.rs). */
export function tokenize(text) {
  const tokens = [];
  forEachToken(text, (t) => tokens.push(t));
  return tokens;
}

// ----------------------------------------------------------------- numbers

const LAST = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef';
const MORE = 'ghijklmnopqrstuvwxyz0123456789-_';
const DIGIT = new Int8Array(128).fill(-1);
const IS_LAST = new Uint8Array(128);
for (let i = 0; i < 32; i++) {
  DIGIT[LAST.charCodeAt(i)] = i; IS_LAST[LAST.charCodeAt(i)] = 1;
  DIGIT[MORE.charCodeAt(i)] = i;
}

/** Decodes a string of numbers in the index's base-32 encoding. */
export function decodeNumbers(text) {
  const out = [];
  let value = 0;
  let scale = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const d = c < 128 ? DIGIT[c] : -1;
    if (d < 0) throw new Error(`bad character in number string: ${JSON.stringify(text[i])}`);
    value += d * scale;
    if (IS_LAST[c]) { out.push(value); value = 0; scale = 1; } else scale *= 32;
  }
  if (scale !== 1) throw new Error('number string ends inside a number');
  return out;
}

// ------------------------------------------------------------------ strings

/** Compares strings in code-point order (= UTF-8 byte order), not UTF-16 order. */
export function compareCodePoints(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (U+D800–DFFF) stand for code points above U+FFFF.
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text escaped for HTML content and attribute values. */
export function escapeHtml(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

// Words of original (unnormalised) text, with marks kept inside and
// hyphenated compounds as one span.
const SPAN_PART = '[\\p{Alphabetic}\\p{N}\\p{M}]+';
const SPAN_SOURCE = `${SPAN_PART}(?:[-\\u2010\\u2011]${SPAN_PART})*`;
const SPLIT_HYPHEN_RE = /([-\u2010\u2011])/;

/**
 * Ranges [start, end) of text to highlight: words (or compound parts)
 * whose token satisfies isMatch.
 */
function highlightRanges(text, isMatch) {
  const ranges = [];
  const re = new RegExp(SPAN_SOURCE, 'gu');
  let m;
  while ((m = re.exec(text)) !== null) {
    const span = m[0];
    const pieces = span.split(SPLIT_HYPHEN_RE); // words at even positions, hyphens between
    const found = [];
    let at = m.index;
    for (let i = 0; i < pieces.length; i++) {
      if (i % 2 === 0 && tokenize(pieces[i]).some(isMatch)) found.push([at, at + pieces[i].length]);
      at += pieces[i].length;
    }
    if (found.length) ranges.push(...found);
    else if (pieces.length > 1 && tokenize(pieces.filter((_, i) => i % 2 === 0).join('')).some(isMatch)) {
      // Only the compound's concatenation matched (a query like `finegrained`).
      ranges.push([m.index, m.index + span.length]);
    }
  }
  return ranges;
}

/** text[start, end) as HTML, ranges (sorted, disjoint) wrapped in <mark>. */
function markHtml(text, ranges, start = 0, end = text.length) {
  let html = '';
  let at = start;
  for (const [s, e] of ranges) {
    if (e <= start || s >= end) continue;
    const from = Math.max(s, start);
    const to = Math.min(e, end);
    html += escapeHtml(text.slice(at, from)) + '<mark>' + escapeHtml(text.slice(from, to)) + '</mark>';
    at = to;
  }
  return html + escapeHtml(text.slice(at, end));
}

/** An excerpt of text around its first highlighted range, as HTML. */
function snippetHtml(text, ranges, size) {
  if (!text) return '';
  if (text.length <= size) return markHtml(text, ranges);
  let start = 0;
  if (ranges.length && ranges[0][1] > size - 40) {
    start = Math.max(0, ranges[0][0] - Math.floor(size / 4));
    const space = text.indexOf(' ', start);
    start = space >= 0 && space < ranges[0][0] ? space + 1 : Math.min(start, ranges[0][0]);
  }
  let end = Math.min(text.length, start + size);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + size / 2) end = space;
  }
  // Do not cut a surrogate pair.
  const isLow = (i) => i > 0 && i < text.length && (text.charCodeAt(i) & 0xfc00) === 0xdc00;
  if (isLow(start)) start -= 1;
  if (isLow(end)) end += 1;
  const head = start > 0 ? '…' : '';
  const body = markHtml(text, ranges, start, end).trim();
  const tail = end < text.length ? '…' : '';
  return head + body + tail;
}

// ------------------------------------------------------------------- index

const DEFAULT_PREFIX_LIMIT = 100;
const DEFAULT_AUTHOR_FACETS = 20;
const SNIPPET_CHARS = 240;
const EAGER_AUTHOR_BYTES = 65536;
const OFFSET_DIGITS = 8;
// Ranges of a postings pack this close are fetched by one request.
const MERGE_GAP = 4096;

function defaultFetchJson(url) {
  return fetch(url).then((r) => {
    if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
    return r.json();
  });
}

/**
 * Bytes [start, end) of url by an HTTP range request. A host that ignores
 * the Range header answers 200 with the whole file: then `whole` is true.
 * @returns {Promise<{bytes: Uint8Array, start: number, whole: boolean}>}
 */
async function defaultFetchRange(url, start, end) {
  const r = await fetch(url, { headers: { Range: `bytes=${start}-${end - 1}` } });
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  const bytes = new Uint8Array(await r.arrayBuffer());
  if (r.status !== 206) return { bytes, start: 0, whole: true };
  const first = /^bytes (\d+)-/.exec(r.headers.get('content-range') ?? '');
  return { bytes, start: first ? Number(first[1]) : start, whole: false };
}

const UTF8 = new TextDecoder();

function resolve(name, base) {
  try {
    return new URL(name, base).href;
  } catch {
    // A relative base without a document: resolve by hand.
    if (name.startsWith('/')) return name;
    return base.replace(/[^/]*$/, '') + name;
  }
}

const compareNumbers = (a, b) => a - b;

/**
 * Index of the last element of sorted whose key is ≤ value (−1 if none);
 * keys compare as strings in code-point order unless compare is given.
 */
function lastAtMost(sorted, value, key, compare = compareCodePoints) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(key(sorted[mid]), value) <= 0) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}

/** Postings decoded from an inline numbers string: (distance, level) pairs. */
function decodeInline(text) {
  const numbers = decodeNumbers(text);
  const docs = new Array(numbers.length / 2);
  const levels = new Uint8Array(numbers.length / 2);
  let doc = 0;
  for (let i = 0; i < numbers.length; i += 2) {
    doc += numbers[i];
    docs[i / 2] = doc;
    levels[i / 2] = numbers[i + 1];
  }
  return { docs, levels };
}

/** Reads unsigned LEB128 numbers from bytes in turn; `what` names them in errors. */
function leb128Reader(bytes, what) {
  let i = 0;
  return {
    next() {
      let n = 0;
      let scale = 1;
      let b;
      do {
        if (i >= bytes.length) throw new Error(`${what} end inside a number`);
        b = bytes[i++];
        n += (b & 0x7f) * scale;
        scale *= 128;
      } while (b >= 0x80);
      return n;
    },
    get position() { return i; },
  };
}

/** Postings decoded from an inflated pack stream: df LEB128 distances, then df levels. */
function decodePacked(bytes, df) {
  const docs = new Array(df);
  const distances = leb128Reader(bytes, 'postings');
  let doc = 0;
  for (let k = 0; k < df; k++) {
    doc += distances.next();
    docs[k] = doc;
  }
  const i = distances.position;
  if (bytes.length - i !== df) throw new Error(`postings hold ${bytes.length - i} levels, not ${df}`);
  return { docs, levels: bytes.subarray(i) };
}

/** Bytes of a zlib stream, inflated (the browser's and Node's DecompressionStream). */
async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const UTF8_ENCODER = new TextEncoder();
/** 32-bit FNV-1a of text's UTF-8 bytes: a title bigram's phrase bucket. */
export function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (const byte of UTF8_ENCODER.encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/** The index (entry file plus shards), fetched lazily and cached. */
export class SearchIndex {
  /**
   * @param {string} indexUrl URL of search/index.json (shards are resolved against it)
   * @param {(url: string) => Promise<object>} fetchJson loads and parses one JSON file
   * @param {{fetchRange?: Function, prefixLimit?: number, minPrefix?: number,
   *   authorFacets?: number, eagerAuthorBytes?: number, snippetChars?: number}} options
   *   fetchRange(url, start, end): bytes of a pack (see defaultFetchRange);
   *   prefixLimit: most frequent terms a prefix expands to (100); minPrefix: shortest
   *   token (code points) expanded as a prefix (2); authorFacets: authors listed in
   *   the author facet (20, plus the selected one); eagerAuthorBytes: the author
   *   facet is counted unasked when all author shards hold at most this many bytes
   *   (65,536); snippetChars: snippet length (240)
   */
  constructor(indexUrl, fetchJson = defaultFetchJson, options = {}) {
    this.indexUrl = indexUrl;
    this.fetchJson = fetchJson;
    this.fetchRange = options.fetchRange ?? defaultFetchRange;
    this.prefixLimit = options.prefixLimit ?? DEFAULT_PREFIX_LIMIT;
    this.minPrefix = options.minPrefix ?? 2;
    this.authorFacets = options.authorFacets ?? DEFAULT_AUTHOR_FACETS;
    this.eagerAuthorBytes = options.eagerAuthorBytes ?? EAGER_AUTHOR_BYTES;
    this.snippetChars = options.snippetChars ?? SNIPPET_CHARS;
    this.files = new Map(); // url → Promise<object>
    // url → Promise of its first range request's answer (the whole file
    // from a host that ignores Range)
    this.firstRequests = new Map();
    this.sortedTerms = new Map(); // term shard index → sorted term list
    this.postings = new Map(); // term → Promise<{docs, levels}>
    this.impacts = null; // impact level → impact × 100
    this.buckets = new Map(); // phrase bucket → Promise<{bigram: numbers}>
    this.authorRows = new Map(); // document → author ids
    this.authorBatches = new Map(); // "from-to" → Promise of author-list blocks, inflated
    this.records = new Map(); // document → metadata record
    this.categoryRuns = null; // {ends, categories}: run k covers documents < ends[k]
  }

  /** One file, fetched once (a failed fetch is retried next time). */
  load(name) {
    const url = name === null ? this.indexUrl : resolve(name, this.indexUrl);
    let promise = this.files.get(url);
    if (!promise) {
      promise = Promise.resolve().then(() => this.fetchJson(url));
      this.files.set(url, promise);
      promise.catch(() => this.files.delete(url));
    }
    return promise;
  }

  /** The entry file (search/index.json). */
  async entry() {
    const entry = await this.load(null);
    if (entry.version !== 3) throw new Error(`unsupported search index version ${entry.version}`);
    if (!this.impacts) {
      // A level's impact × 100: impact_step ** level (docs/search-index.md).
      this.impacts = Float64Array.from({ length: 256 }, (_, l) => entry.impact_step ** l);
    }
    return entry;
  }

  async termShard(entry, i) {
    const shard = await this.load(entry.terms[i][1]);
    let sorted = this.sortedTerms.get(i);
    if (!sorted) {
      // Object key order is not term order (integer-like keys come first).
      sorted = Object.keys(shard.terms).sort(compareCodePoints);
      this.sortedTerms.set(i, sorted);
    }
    return { terms: shard.terms, sorted };
  }

  /**
   * The postings {docs, levels} of term, whose term-shard value is
   * `[df, "numbers"]` (inline) or `[df, pack, start, end]`; cached by term.
   */
  async postingsOf(entry, term, value) {
    let p = this.postings.get(term);
    if (!p) {
      p = value.length === 2
        ? Promise.resolve(decodeInline(value[1]))
        : this.packed(entry, [value]).then(([bytes]) => decodePacked(bytes, value[0]));
      this.postings.set(term, p);
      p.catch(() => this.postings.delete(term));
    }
    return p;
  }

  /**
   * The inflated postings of the given `[df, pack, start, end]` values, in
   * order. Ranges of one pack less than MERGE_GAP bytes apart are fetched
   * by one request (a prefix's terms are neighbours in their pack).
   */
  async packed(entry, values) {
    const order = values.map((v, i) => i).sort((a, b) => values[a][1] - values[b][1] || values[a][2] - values[b][2]);
    const spans = [];
    for (const i of order) {
      const [, pack, start, end] = values[i];
      const last = spans[spans.length - 1];
      if (last && last.pack === pack && start - last.end <= MERGE_GAP) {
        last.end = Math.max(last.end, end);
        last.items.push(i);
      } else spans.push({ pack, start, end, items: [i] });
    }
    const out = new Array(values.length);
    await Promise.all(spans.map(async ({ pack, start, end, items }) => {
      const bytes = await this.bytes(entry.postings[pack], start, end);
      await Promise.all(items.map(async (i) => {
        out[i] = await inflate(bytes.subarray(values[i][2] - start, values[i][3] - start));
      }));
    }));
    return out;
  }

  /** The postings of term, or null when the index lacks it. */
  async exact(entry, term) {
    const i = lastAtMost(entry.terms, term, (t) => t[0]);
    if (i < 0) return null;
    const { terms } = await this.termShard(entry, i);
    const value = Object.prototype.hasOwnProperty.call(terms, term) ? terms[term] : undefined;
    return value === undefined ? null : this.postingsOf(entry, term, value);
  }

  /** The postings of a title bigram, from its phrase bucket, or null. */
  async phrase(entry, pair) {
    const { buckets, per_file: perFile, files } = entry.phrases;
    const b = fnv1a(pair) % buckets;
    const name = files[Math.floor(b / perFile)];
    let bucket = this.buckets.get(b);
    if (!bucket) {
      bucket = this.recordBytes(name, b % perFile)
        .then(async (bytes) => (bytes.length ? JSON.parse(UTF8.decode(await inflate(bytes))) : {}));
      this.buckets.set(b, bucket);
      bucket.catch(() => this.buckets.delete(b));
    }
    const text = (await bucket)[pair];
    return typeof text === 'string' ? decodeInline(text) : null;
  }

  /**
   * Terms (not bigrams) that start with prefix and are longer than it, the
   * prefixLimit most frequent (ties in term order), with their postings.
   * Terms with a prefix are contiguous but may span several shards.
   */
  async expand(entry, prefix) {
    const found = [];
    const first = Math.max(0, lastAtMost(entry.terms, prefix, (t) => t[0]));
    for (let i = first; i < entry.terms.length; i++) {
      // A later shard holds prefixed terms only if its first term has the prefix.
      if (i > first && !entry.terms[i][0].startsWith(prefix)) break;
      const { terms, sorted } = await this.termShard(entry, i);
      let j = lastAtMost(sorted, prefix, (t) => t) + 1; // first term > prefix
      for (; j < sorted.length && sorted[j].startsWith(prefix); j++) found.push([sorted[j], terms[sorted[j]]]);
      if (j < sorted.length) break; // the run ended inside this shard
    }
    const ranked = found
      .sort((a, b) => b[1][0] - a[1][0] || compareCodePoints(a[0], b[0]))
      .slice(0, this.prefixLimit);
    // Postings not yet cached, fetched together.
    const missing = ranked.filter(([term, value]) => value.length === 4 && !this.postings.has(term));
    if (missing.length) {
      const fetched = this.packed(entry, missing.map(([, value]) => value));
      missing.forEach(([term, value], k) => {
        const p = fetched.then((all) => decodePacked(all[k], value[0]));
        this.postings.set(term, p);
        p.catch(() => this.postings.delete(term));
      });
    }
    return Promise.all(ranked.map(async ([term, value]) => ({ term, postings: await this.postingsOf(entry, term, value) })));
  }

  /** The category ids of each document, from the category runs file. */
  async categoriesOf(entry) {
    if (!this.categoryRuns) {
      const { runs } = await this.load(entry.categories_of);
      const n = decodeNumbers(runs);
      const ends = [];
      const categories = [];
      let end = 0;
      for (let i = 0; i < n.length; i += 2 + n[i + 1]) {
        end += n[i];
        ends.push(end);
        categories.push(n.slice(i + 2, i + 2 + n[i + 1]));
      }
      this.categoryRuns = { ends, categories };
    }
    const { ends, categories } = this.categoryRuns;
    // The first run that ends after d.
    return (d) => categories[lastAtMost(ends, d, (end) => end, compareNumbers) + 1] ?? [];
  }

  /** Listed author ids of the given documents (fetching their author shards). */
  async authorsOf(entry, docs) {
    const size = entry.authors_of.documents;
    const needed = new Set();
    for (const d of docs) if (!this.authorRows.has(d)) needed.add(Math.floor(d / size));
    await Promise.all([...needed].map(async (s) => {
      const shard = await this.load(entry.authors_of.files[s]);
      shard.documents.forEach((text, k) => {
        const d = s * size + k;
        if (!this.authorRows.has(d)) this.authorRows.set(d, decodeNumbers(text));
      });
    }));
    return (d) => this.authorRows.get(d) ?? [];
  }

  /**
   * Blocks [from, to) of the author lists, inflated: from each file its
   * blocks' offsets (one range request), then their bytes (one more).
   */
  authorBlocks(entry, from, to) {
    // Batches are the same from query to query: cached by their range.
    const key = `${from}-${to}`;
    let blocks = this.authorBatches.get(key);
    if (!blocks) {
      blocks = this.fetchAuthorBlocks(entry, from, to);
      this.authorBatches.set(key, blocks);
      blocks.catch(() => this.authorBatches.delete(key));
    }
    return blocks;
  }

  async fetchAuthorBlocks(entry, from, to) {
    const { per_file: perFile, files } = entry.author_lists;
    const out = [];
    for (let f = Math.floor(from / perFile); f * perFile < to; f++) {
      const k0 = Math.max(from, f * perFile) - f * perFile;
      const k1 = Math.min(to, (f + 1) * perFile) - f * perFile;
      const header = UTF8.decode(await this.bytes(files[f], k0 * OFFSET_DIGITS, (k1 + 1) * OFFSET_DIGITS));
      const offsets = [];
      for (let i = 0; i <= k1 - k0; i++) offsets.push(parseInt(header.slice(i * OFFSET_DIGITS, (i + 1) * OFFSET_DIGITS), 16));
      const body = await this.bytes(files[f], offsets[0], offsets[k1 - k0]);
      for (let i = 0; i < k1 - k0; i++) {
        out.push(await inflate(body.subarray(offsets[i] - offsets[0], offsets[i + 1] - offsets[0])));
      }
    }
    return out;
  }

  /**
   * The author facet over the documents marked in `counted` (author id →
   * count), from the author lists: blocks read from the first, in batches
   * growing by half, until the authorFacets-th count exceeds the documents
   * of the last author read (authors come most documents first), so that
   * no author left unread could enter the top authorFacets.
   */
  async countByAuthorLists(entry, counted) {
    const counts = new Map();
    if (!counted.includes(1)) return counts; // nothing to count: read nothing
    const { blocks } = entry.author_lists;
    let read = 0;
    let batch = 2;
    let lastTotal = Infinity;
    while (read < blocks) {
      const upto = Math.min(blocks, read + batch);
      for (const bytes of await this.authorBlocks(entry, read, upto)) {
        const numbers = leb128Reader(bytes, 'author lists');
        while (numbers.position < bytes.length) {
          const author = numbers.next();
          const total = numbers.next();
          let doc = 0;
          let count = 0;
          for (let k = 0; k < total; k++) {
            doc += numbers.next();
            count += counted[doc] ?? 0;
          }
          if (count > 0) counts.set(author, count);
          lastTotal = total;
        }
      }
      read = upto;
      batch = Math.ceil(batch * 1.5);
      if (counts.size >= this.authorFacets) {
        const settled = [...counts.values()].sort((a, b) => b - a)[this.authorFacets - 1];
        if (settled > lastTotal) break;
      }
    }
    return counts;
  }

  /**
   * Bytes [start, end) of an index file, by range request (or from the
   * whole file). Until a file's first request is answered, requests for
   * it wait: a host that ignores ranges sends the file whole, once.
   */
  async bytes(name, start, end) {
    const url = resolve(name, this.indexUrl);
    const first = this.firstRequests.get(url);
    let got;
    if (first) {
      got = await first;
      if (!got.whole) got = await this.fetchRange(url, start, end);
    } else {
      const request = this.fetchRange(url, start, end);
      this.firstRequests.set(url, request);
      request.catch(() => this.firstRequests.delete(url));
      got = await request;
    }
    if (got.whole) return got.bytes.subarray(start, end);
    return got.bytes.subarray(start - got.start, end - got.start);
  }

  /** Record k of a pack (metadata or phrase buckets): its offsets from the header, then its bytes. */
  async recordBytes(name, k) {
    const offsets = UTF8.decode(await this.bytes(name, k * OFFSET_DIGITS, (k + 2) * OFFSET_DIGITS));
    const start = parseInt(offsets.slice(0, OFFSET_DIGITS), 16);
    const end = parseInt(offsets.slice(OFFSET_DIGITS), 16);
    return start === end ? new Uint8Array(0) : this.bytes(name, start, end);
  }

  /** One metadata record. */
  async record(name, k) {
    return JSON.parse(UTF8.decode(await this.recordBytes(name, k)));
  }

  /**
   * Metadata records of the given documents, all at once: a host that
   * ignores range requests still sends a pack once (`bytes()` waits on a
   * file's first request).
   */
  async metadataOf(entry, docs) {
    const size = entry.metadata.documents;
    const rows = this.records;
    const packs = new Map();
    for (const d of docs) {
      if (rows.has(d)) continue;
      const p = Math.floor(d / size);
      if (!packs.has(p)) packs.set(p, []);
      packs.get(p).push(d);
    }
    await Promise.all([...packs].map(async ([p, inPack]) => {
      const name = entry.metadata.files[p];
      const read = async (d) => rows.set(d, await this.record(name, d % size));
      await Promise.all(inPack.map(read));
    }));
    return (d) => rows.get(d);
  }

  /** Names of the given author ids (fetching their author-name shards). */
  async authorNames(entry, ids) {
    const per = entry.authors.per_file;
    const shards = new Map();
    await Promise.all([...new Set(ids.map((a) => Math.floor(a / per)))].map(async (s) => {
      if (entry.authors.files[s]) shards.set(s, await this.load(entry.authors.files[s]));
    }));
    return (a) => shards.get(Math.floor(a / per))?.authors[a % per] ?? `#${a}`;
  }

  /**
   * Answers a query. Every query token must match (an exact term, or for
   * the last token and any token without an exact term, the terms it
   * prefixes); a hyphenated compound's concatenation only adds to the score.
   *
   * The author facet needs every matching document's authors: it is
   * counted when `authors` is true, when an author filter is set, or
   * (`authors` undefined) when the author shards are small
   * (eagerAuthorBytes); otherwise `facets.authors` is null.
   *
   * @returns {Promise<{total, results, facets: {years, categories, authors}, tokens}>}
   */
  async search(query, {
    year = null, category = null, author = null, offset = 0, limit = 10, authors: countAuthors,
  } = {}) {
    const entry = await this.entry();
    const N = entry.documents;
    const prefixWeight = entry.prefix_weight ?? 0.7;
    const idf = (df) => Math.log(1 + (N - df + 0.5) / (df + 0.5));
    const { impacts } = this;

    // Query tokens: parts are required, compound concatenations optional.
    const sequence = [];
    forEachToken(query, (token, compound) => sequence.push({ token, compound }));
    const lastIndex = sequence.length - 1;
    const prefixAt = new Set();
    if (lastIndex >= 0) {
      prefixAt.add(lastIndex);
      // A compound at the end: its last part is being typed too.
      if (sequence[lastIndex].compound && lastIndex > 0) prefixAt.add(lastIndex - 1);
    }
    const clauses = new Map(); // token → {required, prefix}
    sequence.forEach(({ token, compound }, i) => {
      const c = clauses.get(token) ?? { required: false, prefix: false };
      c.required ||= !compound;
      c.prefix ||= prefixAt.has(i);
      clauses.set(token, c);
    });

    const given = (v) => v !== null && v !== undefined && v !== '';
    const integer = (v) => (given(v) && Number.isInteger(Number(v)) ? Number(v) : null);
    const filters = {
      year: integer(year),
      category: given(category) ? String(category) : null,
      author: integer(author),
    };
    const categoryId = filters.category === null ? null
      : entry.categories.findIndex(([code]) => code === filters.category);

    // Scores of the documents matching every required token.
    let scores = null; // Map doc → score; null = every document (no token)
    const highlight = { exact: new Set(), prefixes: [] };
    const matchedClauses = await Promise.all([...clauses].map(async ([token, c]) => {
      const exact = await this.exact(entry, token);
      const parts = [];
      if (exact) parts.push({ postings: exact, weight: 1 });
      // Prefixes of one character would fetch a large part of a big index.
      if ((c.prefix || !exact) && [...token].length >= this.minPrefix) {
        for (const { postings } of await this.expand(entry, token)) parts.push({ postings, weight: prefixWeight });
      }
      return { token, ...c, exact: !!exact, parts };
    }));
    const tokenScores = (clause) => {
      const best = new Map();
      for (const { postings: { docs, levels }, weight } of clause.parts) {
        const w = weight * idf(docs.length) / 100;
        for (let k = 0; k < docs.length; k++) {
          const s = w * impacts[levels[k]];
          const before = best.get(docs[k]);
          if (before === undefined || s > before) best.set(docs[k], s);
        }
      }
      return best;
    };
    const required = matchedClauses.filter((c) => c.required || matchedClauses.every((o) => !o.required));
    const optional = matchedClauses.filter((c) => !required.includes(c));
    for (const c of [...required, ...optional]) {
      if (!c.parts.length) continue;
      if (c.exact) highlight.exact.add(c.token);
      if (c.prefix || !c.exact) highlight.prefixes.push(c.token);
    }
    if (required.length) {
      const perToken = required.map(tokenScores);
      // Intersect, smallest first; sum in query order for stable scores.
      const order = perToken.map((m, i) => i).sort((a, b) => perToken[a].size - perToken[b].size);
      scores = new Map();
      for (const d of perToken[order[0]].keys()) {
        if (order.every((i) => perToken[i].has(d))) {
          let s = 0;
          for (const m of perToken) s += m.get(d);
          scores.set(d, s);
        }
      }
      for (const c of optional) {
        for (const [d, s] of tokenScores(c)) if (scores.has(d)) scores.set(d, scores.get(d) + s);
      }
      // Phrase boost: adjacent query tokens that are adjacent in a title.
      const pairs = new Set();
      for (let i = 0; i + 1 < sequence.length; i++) pairs.add(`${sequence[i].token} ${sequence[i + 1].token}`);
      await Promise.all([...pairs].map(async (pair) => {
        // A boost only: a bucket that cannot be read leaves the scores.
        const p = await this.phrase(entry, pair).catch(() => null);
        if (!p) return;
        const w = idf(p.docs.length) / 100;
        for (let k = 0; k < p.docs.length; k++) {
          const d = p.docs[k];
          if (scores.has(d)) scores.set(d, scores.get(d) + w * impacts[p.levels[k]]);
        }
      }));
    } else if (filters.year === null && filters.category === null && filters.author === null) {
      return { total: 0, results: [], facets: { years: [], categories: [], authors: null }, tokens: [] };
    }
    const matched = scores ? [...scores.keys()] : Array.from({ length: N }, (_, d) => d);

    // Facets: each counted over the matches with the other facets applied.
    const years = entry.years;
    const yearOf = (d) => years[lastAtMost(years, d, ([, first]) => first, compareNumbers)]?.[0] ?? null;
    const withAuthors = filters.author !== null
      || (countAuthors ?? entry.authors_of.bytes <= this.eagerAuthorBytes);
    // When the matches reach three quarters of the author shards (of at
    // least 4), the author lists cost about as much at most: read from the
    // most prolific author until the top authors are settled.
    const shards = entry.authors_of.files.length;
    const byLists = withAuthors && filters.author === null && shards >= 4
      && new Set(matched.map((d) => Math.floor(d / entry.authors_of.documents))).size * 4 >= shards * 3;
    const [categoriesOf, authorsOf] = await Promise.all([
      this.categoriesOf(entry),
      withAuthors && !byLists ? this.authorsOf(entry, matched) : () => [],
    ]);
    const yearCounts = new Map();
    const categoryCounts = new Map();
    let authorCounts = new Map();
    const counted = byLists ? new Uint8Array(N) : null; // documents the author facet counts
    const hits = [];
    for (const d of matched) {
      const y = yearOf(d);
      const categories = categoriesOf(d);
      const authors = authorsOf(d);
      const okYear = filters.year === null || y === filters.year;
      const okCategory = categoryId === null || categories.includes(categoryId);
      const okAuthor = filters.author === null || authors.includes(filters.author);
      if (okCategory && okAuthor) yearCounts.set(y, (yearCounts.get(y) ?? 0) + 1);
      if (okYear && okAuthor) for (const c of new Set(categories)) categoryCounts.set(c, (categoryCounts.get(c) ?? 0) + 1);
      if (okYear && okCategory) for (const a of new Set(authors)) authorCounts.set(a, (authorCounts.get(a) ?? 0) + 1);
      if (okYear && okCategory && counted) counted[d] = 1;
      if (okYear && okCategory && okAuthor) hits.push(d);
    }
    if (counted) authorCounts = await this.countByAuthorLists(entry, counted);
    const score = (d) => (scores ? scores.get(d) : 0);
    hits.sort((a, b) => score(b) - score(a) || a - b);

    // A selected value is always listed (so that it can be unselected).
    const facetYears = years
      .filter(([y]) => y !== null && (yearCounts.has(y) || y === filters.year))
      .map(([y]) => ({ value: y, count: yearCounts.get(y) ?? 0 }));
    if (filters.year !== null && !facetYears.some((f) => f.value === filters.year)) {
      facetYears.push({ value: filters.year, count: 0 });
    }
    const facetCategories = entry.categories
      .map(([code, name], id) => ({ id, value: code, name, count: categoryCounts.get(id) ?? 0 }))
      .filter((c) => c.count > 0 || c.id === categoryId)
      .sort((a, b) => b.count - a.count || compareCodePoints(a.value, b.value))
      .map(({ value, name, count }) => ({ value, name, count }));
    if (categoryId === -1) facetCategories.push({ value: filters.category, name: filters.category, count: 0 });
    let topAuthors = [...authorCounts]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, this.authorFacets);
    if (filters.author !== null && !topAuthors.some(([a]) => a === filters.author)) {
      topAuthors.push([filters.author, authorCounts.get(filters.author) ?? 0]);
    }

    const page = hits.slice(Math.max(0, offset), Math.max(0, offset) + Math.max(0, limit));
    const [rowOf, nameOf] = await Promise.all([
      this.metadataOf(entry, page),
      this.authorNames(entry, topAuthors.map(([a]) => a)),
    ]);
    const isMatch = (t) => highlight.exact.has(t) || highlight.prefixes.some((p) => t.startsWith(p));
    const papersUrl = entry.urls?.papers ?? '/papers/';
    const results = page.map((d) => {
      const [slug, title, y, authors, categories, abstract] = rowOf(d);
      return {
        id: d,
        slug,
        url: resolve(papersUrl + slug + '/', this.indexUrl),
        title,
        titleHtml: markHtml(title, highlightRanges(title, isMatch)),
        year: y,
        authors,
        categories,
        snippetHtml: snippetHtml(abstract ?? '', highlightRanges(abstract ?? '', isMatch), this.snippetChars),
        score: score(d),
      };
    });
    return {
      total: hits.length,
      results,
      facets: {
        years: facetYears,
        categories: facetCategories,
        authors: withAuthors
          ? topAuthors.map(([a, count]) => ({ value: a, name: nameOf(a), count }))
          : null,
      },
      tokens: sequence.map(({ token }) => token),
    };
  }
}
