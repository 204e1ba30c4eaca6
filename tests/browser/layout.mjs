// Checks the default theme's layout in headless Debian chromium (driven by
// playwright-core) on a built site served on loopback:
//   node layout.mjs SITE_DIR AUTHOR_PATH MATH_PAGE_PATH BYLINE_PAGE_PATH PAGE_PATH...
// - at 1280x800 the header (site title, sections, search field) is one row
//   on every PAGE_PATH;
// - at 390x844 the first paper of AUTHOR_PATH starts on the first screen;
// - the papers-per-year table (`table.counts`) is laid out as a table, at
//   both widths;
// - on MATH_PAGE_PATH, a bracket stretched around a display fraction is
//   taller than a line of text (the theme's math font has a MATH table);
// - on BYLINE_PAGE_PATH, a paper page with more than 30 authors, "+N more"
//   sits in the byline on the line of the last name shown, and opened, it
//   gives way to the other names, which go on from that line.
// Prints one line per check and exits 1 when any fails.
import { serveDir } from './serve-dir.mjs';
import { chromium } from 'playwright-core';

const [root, authorPath, mathPath, bylinePath, ...pages] = process.argv.slice(2);
const { origin, close } = await serveDir(root);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let failures = 0;
const check = (ok, what) => {
  console.log(`${ok ? 'ok' : 'FAILED'}: ${what}`);
  if (!ok) failures += 1;
};

try {
  const desktop = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  for (const path of pages) {
    await desktop.goto(origin + path);
    // One row: every child of the header's bar is centred within the
    // first child's vertical extent.
    const rows = await desktop.evaluate(() => {
      const bar = document.querySelector('.site-header .wrap');
      const boxes = [...bar.children].filter((c) => c.offsetParent !== null).map((c) => c.getBoundingClientRect());
      const first = boxes[0];
      return boxes.filter((b) => {
        const middle = (b.top + b.bottom) / 2;
        return middle < first.top || middle > first.bottom;
      }).length;
    });
    check(rows === 0, `${path} at 1280 px: the header is one row (${rows} item(s) below it)`);
  }

  const tables = async (page, width) => {
    await page.goto(origin + authorPath);
    const display = await page.evaluate(() => {
      document.querySelectorAll('details.panel').forEach((d) => { d.open = true; });
      const table = document.querySelector('table.counts');
      if (!table) return null;
      const row = table.querySelector('tbody tr');
      return [getComputedStyle(table).display, getComputedStyle(row).display, table.getBoundingClientRect().height > 0];
    });
    check(JSON.stringify(display) === '["table","table-row",true]', `${authorPath} at ${width} px: table.counts is laid out as a table (${JSON.stringify(display)})`);
  };
  await tables(desktop, 1280);

  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await phone.goto(origin + authorPath);
  const top = await phone.evaluate(() => {
    const title = document.querySelector('.paper .paper-title');
    return title ? title.getBoundingClientRect().bottom + window.scrollY : null;
  });
  check(top !== null && top <= 844, `${authorPath} at 390x844: the first paper's title ends ${Math.round(top)} px down, on the first screen`);
  await tables(phone, 390);

  await desktop.goto(origin + mathPath);
  const heights = await desktop.evaluate(async () => {
    // The math font loads when the page first lays out math; measure once
    // it has loaded and the page is laid out again.
    await document.fonts.load('16px "Vellum Math"', '(');
    await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const math = [...document.querySelectorAll('math[display="block"]')].find((m) => m.querySelector('mfrac'));
    if (!math) return null;
    const bracket = [...math.querySelectorAll('mo')].find((mo) => mo.textContent.trim() === '(');
    const line = parseFloat(getComputedStyle(math.closest('p') ?? math.parentElement).lineHeight);
    return { bracket: bracket.getBoundingClientRect().height, line };
  });
  check(heights !== null && heights.bracket > heights.line,
    `${mathPath}: a bracket around a display fraction is ${heights && heights.bracket.toFixed(1)} px tall, a text line ${heights && heights.line.toFixed(1)} px`);

  await desktop.goto(origin + bylinePath);
  const more = await desktop.evaluate(() => {
    const details = document.querySelector('.byline > details.more-authors');
    if (!details) return null;
    const summary = details.querySelector('summary');
    // The ", " after the last name shown (the end of a text node that may
    // run over several lines), and the toggle after it.
    const before = details.previousSibling;
    const range = document.createRange();
    range.setStart(before, before.length - 2);
    range.setEnd(before, before.length);
    const comma = range.getBoundingClientRect();
    const closed = summary.getBoundingClientRect();
    // Closed, the names it holds are not shown (not rendered, so not in
    // its text as rendered).
    const lastName = details.lastChild.textContent.split(', ').pop();
    const hiddenClosed = !details.innerText.includes(lastName);
    summary.click();
    // Opened: the first name it held goes on from the comma's line, in
    // the byline's colour, and the last is shown.
    const first = summary.nextSibling;
    range.selectNodeContents(first);
    const firstBox = range.getClientRects()[0];
    return {
      hiddenClosed,
      sameLine: Math.abs(comma.top - closed.top) < closed.height / 2,
      hidden: summary.getClientRects().length === 0,
      continues: firstBox !== undefined && Math.abs(firstBox.top - comma.top) < closed.height / 2,
      colour: getComputedStyle(details).color === getComputedStyle(details.parentElement).color,
      shown: details.innerText.includes(lastName),
    };
  });
  check(JSON.stringify(more) === '{"hiddenClosed":true,"sameLine":true,"hidden":true,"continues":true,"colour":true,"shown":true}',
    `${bylinePath}: "+N more" follows the last name shown, and opened, shows the other names in its place (${JSON.stringify(more)})`);
} finally {
  await browser.close();
  close();
}
process.exit(failures ? 1 : 0);
