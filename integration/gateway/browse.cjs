// browse.cjs uses gofer serve's pages as a person does, in a real browser:
// headless Chromium, driven by puppeteer-core.
//
//   node browse.cjs SHOTS STEPS
//
// STEPS is a JSON array; each step does one thing and then waits for the
// page it leads to: {"name", "goto": URL}, {"name", "type": [SELECTOR,
// TEXT]} (typed into the field, then Enter submits its form), or {"name",
// "click": TEXT} (the first link whose text holds TEXT); a step's
// "viewport": [WIDTH, HEIGHT] sets the window's size from it on. After
// each step it saves a screenshot SHOTS/NAME.png and prints one JSON
// line: {"name",
// "url", "status", "title", "text", "pwned"}, where pwned is whatever a
// script from a page set window.pwned to (null when none ran). Chromium is
// $CHROMIUM or /usr/bin/chromium; puppeteer-core is found through
// NODE_PATH.
'use strict';
const path = require('path');
const puppeteer = require('puppeteer-core');

const [shots, stepsJSON] = process.argv.slice(2);

async function main() {
  const steps = JSON.parse(stepsJSON);
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1000, height: 800 });
    page.on('console', (m) => console.error(`console ${m.type()}: ${m.text()}`));
    let status = 0;
    page.on('response', (r) => { if (r.request().isNavigationRequest() && r.frame() === page.mainFrame()) status = r.status(); });
    for (const s of steps) {
      const nav = () => page.waitForNavigation({ waitUntil: 'load', timeout: 60000 });
      if (s.viewport) await page.setViewport({ width: s.viewport[0], height: s.viewport[1] });
      if (s.goto) {
        await page.goto(s.goto, { waitUntil: 'load', timeout: 60000 });
      } else if (s.type) {
        await page.type(s.type[0], s.type[1]);
        await Promise.all([nav(), page.keyboard.press('Enter')]);
      } else if (s.click) {
        const links = await page.$$('a');
        let hit = null;
        for (const a of links) {
          if ((await a.evaluate((e) => e.textContent)).includes(s.click)) { hit = a; break; }
        }
        if (!hit) throw new Error(`step ${s.name}: no link holds ${JSON.stringify(s.click)}`);
        await Promise.all([nav(), hit.click()]);
      }
      if (!s.goto && !s.type && !s.click) throw new Error(`step ${s.name} does nothing`);
      await page.screenshot({ path: path.join(shots, `${s.name}.png`) });
      const seen = await page.evaluate(() => ({
        title: document.title,
        text: document.body ? document.body.innerText : '',
        pwned: window.pwned === undefined ? null : window.pwned,
      }));
      console.log(JSON.stringify({ name: s.name, url: page.url(), status, ...seen }));
    }
  } finally {
    await browser.close();
  }
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
