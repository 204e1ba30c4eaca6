// Vellum search page: drives the markup of templates/search.html with
// search-engine.js. The input is a combobox whose listbox holds the
// results (each option a real link, out of the tab order); facets are
// toggle buttons; the query and facets live in the URL (?q=&year=&category=&author=).
import { SearchIndex, escapeHtml } from './search-engine.js';

const PAGE = 10;
const DEBOUNCE_MS = 150;
const PARAMS = ['year', 'category', 'author'];
const FACET_TITLES = { year: 'Year', category: 'Category', author: 'Author' };

const root = document.getElementById('search');
if (root) start(root);

function start(root) {
  const form = root.querySelector('.search-form');
  const input = root.querySelector('#search-input');
  const status = root.querySelector('.search-status');
  const facetsBox = root.querySelector('.search-facets');
  const list = root.querySelector('#search-results');
  const more = root.querySelector('.search-more');
  const index = new SearchIndex(new URL(root.dataset.index, document.baseURI).href);

  const params = new URLSearchParams(location.search);
  const state = { query: params.get('q') ?? '', year: null, category: null, author: null };
  for (const key of PARAMS) state[key] = params.get(key) || null;
  input.value = state.query;

  let shown = [];
  let total = 0;
  let facets = null;
  let active = -1;
  let sequence = 0;
  let timer = 0;
  // On a large index the author facet is counted only once asked for
  // (it needs every matching document's authors); then for every query.
  let countAuthors;

  function hasFilters() {
    return PARAMS.some((key) => state[key] !== null);
  }

  function updateUrl() {
    const next = new URLSearchParams();
    if (state.query) next.set('q', state.query);
    for (const key of PARAMS) if (state[key] !== null) next.set(key, state[key]);
    const search = next.toString();
    const url = location.pathname + (search ? `?${search}` : '') + location.hash;
    if (url !== location.pathname + location.search + location.hash) history.replaceState(history.state, '', url);
  }

  async function run({ append = false } = {}) {
    clearTimeout(timer);
    const mine = ++sequence;
    state.query = input.value;
    if (!append) updateUrl();
    if (!state.query.trim() && !hasFilters()) {
      render({ total: 0, results: [], facets: null }, false);
      status.textContent = '';
      return;
    }
    list.setAttribute('aria-busy', 'true');
    try {
      const answer = await index.search(state.query, {
        year: state.year,
        category: state.category,
        author: state.author,
        offset: append ? shown.length : 0,
        limit: PAGE,
        authors: countAuthors,
      });
      if (mine !== sequence) return;
      render(answer, append);
      announce(append);
    } catch (error) {
      if (mine !== sequence) return;
      console.error(error);
      render({ total: 0, results: [], facets: null }, false);
      status.textContent = 'Search is unavailable: the search index could not be loaded.';
    } finally {
      if (mine === sequence) list.removeAttribute('aria-busy');
    }
  }

  function render(answer, append) {
    if (!append) {
      shown = [];
      list.textContent = '';
      setActive(-1);
    }
    total = answer.total;
    facets = answer.facets;
    const fragment = document.createDocumentFragment();
    for (const result of answer.results) {
      fragment.append(resultItem(result, shown.length));
      shown.push(result);
    }
    list.append(fragment);
    input.setAttribute('aria-expanded', String(shown.length > 0));
    more.hidden = shown.length >= total;
    renderFacets();
  }

  function resultItem(result, n) {
    const id = `search-result-${n}`;
    const item = document.createElement('li');
    item.setAttribute('role', 'none');
    item.className = 'search-result';
    const meta = [
      result.authors.map(escapeHtml).join(', '),
      escapeHtml(result.year),
      result.categories.map((c) => `<span class="category">${escapeHtml(c)}</span>`).join(' '),
    ].filter(Boolean).join(' · ');
    // Every text from the index is escaped: titleHtml and snippetHtml are
    // built escaped by the engine, the rest here.
    item.innerHTML = `<a class="search-hit" role="option" id="${id}" href="${escapeHtml(result.url)}"`
      + ` tabindex="-1" aria-selected="false">`
      + `<span class="search-hit-title">${result.titleHtml}</span>`
      + `<span class="search-hit-meta">${meta}</span>`
      + `<span class="search-hit-snippet">${result.snippetHtml}</span></a>`;
    item.firstElementChild.addEventListener('mousemove', () => { if (active !== n) setActive(n, false); });
    return item;
  }

  function renderFacets() {
    const focused = document.activeElement?.closest?.('.search-facet-button');
    const focusKey = focused ? `${focused.dataset.facet}=${focused.dataset.value}` : null;
    facetsBox.textContent = '';
    if (!facets || (!total && !hasFilters())) {
      if (focusKey) input.focus();
      return;
    }
    const groups = [
      ['year', facets.years.map((f) => ({ value: String(f.value), label: String(f.value), count: f.count }))],
      ['category', facets.categories.map((f) => ({ value: f.value, label: f.name, code: f.value, count: f.count }))],
      ['author', (facets.authors ?? []).map((f) => ({ value: String(f.value), label: f.name, count: f.count }))],
    ];
    for (const [key, values] of groups) {
      if (key === 'author' && facets.authors === null && total) {
        const group = document.createElement('div');
        group.className = 'search-facet';
        group.innerHTML = `<h2 class="search-facet-title">${FACET_TITLES[key]}</h2>`
          + '<button type="button" class="search-count-authors">Count authors</button>';
        facetsBox.append(group);
        continue;
      }
      if (!values.length) continue;
      const group = document.createElement('div');
      group.className = 'search-facet';
      group.setAttribute('role', 'group');
      group.setAttribute('aria-labelledby', `search-facet-${key}`);
      let html = `<h2 class="search-facet-title" id="search-facet-${key}">${FACET_TITLES[key]}</h2><ul class="search-facet-list">`;
      for (const v of values) {
        const pressed = state[key] === v.value;
        const code = v.code ? ` <span class="category">${escapeHtml(v.code)}</span>` : '';
        html += `<li><button type="button" class="search-facet-button" data-facet="${key}" data-value="${escapeHtml(v.value)}"`
          + ` aria-pressed="${pressed}"><span class="search-facet-label">${escapeHtml(v.label)}</span>${code}`
          + ` <span class="search-facet-count">${v.count}<span class="visually-hidden"> result${v.count === 1 ? '' : 's'}</span></span></button></li>`;
      }
      group.innerHTML = html + '</ul>';
      facetsBox.append(group);
    }
    if (focusKey) {
      const same = [...facetsBox.querySelectorAll('.search-facet-button')]
        .find((button) => `${button.dataset.facet}=${button.dataset.value}` === focusKey);
      (same ?? input).focus();
    }
  }

  function describeFilters() {
    const parts = [];
    if (state.year !== null) parts.push(`in ${state.year}`);
    if (state.category !== null) parts.push(`in ${state.category}`);
    if (state.author !== null) {
      const name = facets?.authors?.find((a) => String(a.value) === state.author)?.name;
      parts.push(`by ${name ?? 'the selected author'}`);
    }
    return parts.length ? ` ${parts.join(' ')}` : '';
  }

  function announce(append) {
    const query = state.query.trim();
    const what = (query ? ` for “${query}”` : '') + describeFilters();
    if (!total) {
      status.textContent = `No results${what}`;
    } else {
      const count = `${total} result${total === 1 ? '' : 's'}${what}`;
      status.textContent = append || shown.length < total ? `${count}, showing ${shown.length}` : count;
    }
  }

  function options() {
    return list.querySelectorAll('[role="option"]');
  }

  function setActive(n, scroll = true) {
    const all = options();
    if (active >= 0 && all[active]) all[active].setAttribute('aria-selected', 'false');
    active = n >= 0 && n < all.length ? n : -1;
    if (active < 0) {
      input.removeAttribute('aria-activedescendant');
      return;
    }
    const option = all[active];
    option.setAttribute('aria-selected', 'true');
    input.setAttribute('aria-activedescendant', option.id);
    if (scroll) option.scrollIntoView({ block: 'nearest' });
  }

  input.addEventListener('input', () => {
    setActive(-1);
    clearTimeout(timer);
    timer = setTimeout(() => run(), DEBOUNCE_MS);
  });

  input.addEventListener('keydown', (event) => {
    if (event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    const count = options().length;
    switch (event.key) {
      case 'ArrowDown':
        if (!count) return;
        event.preventDefault();
        setActive(Math.min(active + 1, count - 1));
        break;
      case 'ArrowUp':
        if (active < 0) return;
        event.preventDefault();
        setActive(active - 1);
        break;
      case 'Home':
      case 'End':
        if (active < 0) return;
        event.preventDefault();
        setActive(event.key === 'Home' ? 0 : count - 1);
        break;
      case 'Enter':
        if (active < 0) return;
        event.preventDefault();
        options()[active].click();
        break;
      case 'Escape':
        event.preventDefault();
        if (active >= 0) {
          setActive(-1);
        } else if (input.value) {
          input.value = '';
          run();
        }
        break;
      default:
    }
  });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    run();
  });

  facetsBox.addEventListener('click', async (event) => {
    if (event.target.closest('.search-count-authors')) {
      countAuthors = true;
      await run();
      facetsBox.querySelector('[data-facet="author"]')?.focus();
      return;
    }
    const button = event.target.closest('.search-facet-button');
    if (!button) return;
    const key = button.dataset.facet;
    state[key] = button.getAttribute('aria-pressed') === 'true' ? null : button.dataset.value;
    run();
  });

  more.addEventListener('click', async () => {
    const first = shown.length;
    await run({ append: true });
    if (more.hidden) {
      // The button is gone: continue from the first new result.
      input.focus();
      if (options().length > first) setActive(first);
    }
  });

  if (state.query || hasFilters()) run();
}
