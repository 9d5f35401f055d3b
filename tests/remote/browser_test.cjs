// The explorer page in headless Chromium, through its DOM, against a running demo:
//   node tests/remote/browser_test.cjs STRESS_HARNESS_EXE NPM_PREFIX [CHROMIUM]
// Starts `stress_harness --remote 0` (a free port), loads `/`, and checks that the page shows the
// world summary, entities, archetypes, components and systems; edits a field through the page and
// sees the world change; runs a query (and a bad one); opens the live view. Exit status 0 on success.
'use strict';
const { spawn } = require('child_process');
const path = require('path');

const [harness, prefix, chromium = '/usr/bin/chromium'] = process.argv.slice(2);
if (!harness || !prefix) {
  console.error('usage: node browser_test.cjs STRESS_HARNESS_EXE NPM_PREFIX [CHROMIUM]');
  process.exit(2);
}
const puppeteer = require(path.resolve(prefix, 'node_modules', 'puppeteer-core'));

function fail(message) {
  console.error('browser test: FAILED: ' + message);
  process.exitCode = 1;
  throw new Error(message);
}
function check(cond, message) {
  if (!cond) fail(message);
  console.log('ok - ' + message);
}

async function main() {
  const demo = spawn(harness, ['--remote', '0', '--entities', '400'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the demo printed no URL: ' + out)), 20000);
    demo.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) { clearTimeout(timer); resolve(m[0]); }
    });
    demo.on('exit', (code) => reject(new Error('the demo exited with ' + code)));
  });
  console.log('demo at ' + url);
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(15000);
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForSelector('body[data-ready="1"]');
    const text = (sel) => page.$eval(sel, (e) => e.textContent);

    // Summary, entities, archetypes, components, systems.
    check(Number(await text('#stat-entities')) > 0, 'the summary shows the entity count (' + (await text('#stat-entities')) + ')');
    check((await page.$$('#entity-list li')).length > 0, 'the entity list has entries');
    check((await page.$$('#archetype-chart .barrow .bar')).length > 0, 'the archetype chart has bars');
    check((await page.$('#component-table tr[data-component="Mass"]')) !== null, 'the component table lists Mass');
    await page.waitForSelector('#systems-chart .barrow[data-system="integrate"]');
    check(/integrate/.test(await text('#systems-plan')), 'the systems panel shows the plan');

    // Filter by component, select an entity, edit a field through the page.
    await page.type('#filter-with', 'Mass');
    await page.waitForFunction(() => {
      const li = document.querySelector('#entity-list li');
      return li && li.textContent.includes('Mass');
    });
    // Clicked inside the page: the list may be rebuilt between a lookup and a click from here.
    const id = await page.$eval('#entity-list li', (e) => { e.click(); return e.dataset.id; });
    const field = '#entity-detail input[data-component="Mass"][data-path=\'["value"]\']';
    await page.waitForSelector(field);
    // Typed and saved inside the page, in one go: the detail view refreshes itself every second.
    await page.$eval(field, (e) => {
      e.value = '42.5';
      e.dispatchEvent(new Event('input'));
      document.querySelector('#entity-detail button[data-save="Mass"]').click();
    });
    await page.waitForFunction((f) => document.querySelector('#entity-detail').dataset.saved === 'Mass' &&
      document.querySelector(f) && document.querySelector(f).value === '42.5', {}, field);
    const stored = await page.evaluate(async (ref) => (await (await fetch('/api/entity/' + ref)).json()).components.Mass.value, id);
    check(stored === 42.5, 'the edit reached the world (Mass.value of ' + id + ' = ' + stored + ')');

    // Query console: a good expression and a bad one.
    await page.type('#query-input', 'Position, Mass');
    await page.$eval('#query-run', (e) => e.click());
    await page.waitForFunction(() => Number(document.querySelector('#query-total').textContent) > 0);
    check((await page.$$('#query-rows tr')).length > 0, 'the query console lists rows (total ' + (await text('#query-total')) + ')');
    await page.$eval('#query-input', (e) => { e.value = 'Position, Nope'; });
    await page.$eval('#query-run', (e) => e.click());
    await page.waitForFunction(() => document.querySelector('#query-error').textContent.length > 0);
    check(/byte/.test(await text('#query-error')), 'a bad expression shows its byte offset: ' + (await text('#query-error')));

    // Live view over /api/watch.
    await page.$eval('#query-input', (e) => { e.value = 'Position, Velocity'; });
    await page.$eval('#watch-run', (e) => e.click());
    await page.waitForFunction(() => Number(document.querySelector('#live-events').textContent) >= 2);
    check((await page.$$('#live-rows tr')).length > 0, 'the live view receives events (' + (await text('#live-events')) + ')');
    check(errors.length === 0, 'no script errors on the page' + (errors.length ? ': ' + errors.join('; ') : ''));
  } finally {
    await browser.close();
    demo.kill('SIGTERM');
  }
}

main().then(() => console.log('browser test: OK'), (e) => {
  console.error('browser test: ' + e.message);
  process.exit(1);
});
