// dashboard.cjs watches and steers a running mirror from its dashboard in
// a real browser: headless Chromium, driven by puppeteer-core.
//
//   node dashboard.cjs SHOTS URL
//
// URL is the dashboard's address with ?token=. It loads the page, waits for
// the page's own script to redraw the count of items done and the chart
// (server-sent events), presses Pause with the mouse held down while the
// page redraws twice, then Resume, and prints one JSON line: {"done0",
// "done1", "points0", "points1", "paused", "resumed", "presses",
// "heldThrough", "errors"}: the counts and the chart's points before and
// after the redraw, the state line after each button, how many presses
// each button took, the redraws the held press outlasted, and the page's
// script errors.
// Screenshots go to SHOTS. Chromium is $CHROMIUM or /usr/bin/chromium;
// puppeteer-core is found through NODE_PATH.
'use strict';
const path = require('path');
const puppeteer = require('puppeteer-core');

const [shots, url] = process.argv.slice(2);

async function main() {
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const out = { errors: [] };
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1000, height: 1400 });
    page.on('pageerror', (e) => out.errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') out.errors.push(m.text()); });
    await page.goto(url, { waitUntil: 'load', timeout: 60000 });
    const done = () => page.$eval('#done', (e) => Number(e.textContent));
    const points = () => page.$eval('#items-over-time polyline', (e) => e.getAttribute('points'));
    out.done0 = await done();
    out.points0 = await points();
    // The page redraws itself: no reload.
    await page.waitForFunction((n) => Number(document.querySelector('#done').textContent) > n + 5, { timeout: 60000 }, out.done0);
    out.done1 = await done();
    out.points1 = await points();
    await page.screenshot({ path: path.join(shots, 'running.png'), fullPage: true });
    // The README's picture: the top of the page, as a browser window shows it.
    await page.setViewport({ width: 900, height: 1100 });
    await page.screenshot({ path: path.join(shots, 'dashboard.png'), clip: { x: 0, y: 0, width: 900, height: 1100 } });
    // Clicked in the page, where the element is found and pressed at once:
    // a redraw between finding and pressing would detach it. The form's
    // answer is a redirect back to the page; the wait is for what the page
    // then says, which outlives the navigation (a navigation's own events
    // can be missed by the driver when the page is slow to start it).
    // The page is pressed once it has loaded whole; a press whose form was
    // never sent (no request reached the server: it has been seen, rarely,
    // on a loaded machine) is pressed again, and out.presses counts them.
    out.presses = {};
    // A person's click, held while the page redraws: the mouse goes down
    // on the button, stays down until two redraws' parts of the page have
    // come (the second is asked for only once the first has been drawn,
    // or held back), and comes up. The click must reach the button.
    const held = async (button) => {
      // The button is found and placed in one step in the page, and the
      // mouse goes down where it is: a redraw may replace it meanwhile,
      // and move it. A press that did not land on it (the page's own
      // pointerdown says where it landed) is let go off the page's
      // controls and made again.
      for (let landed = false, i = 0; !landed; i++) {
        if (i === 5) {
          throw new Error(`${button}: the mouse never came down on it`);
        }
        const at = await page.$eval(button, (b) => {
          window.goferDown = '';
          document.addEventListener('pointerdown', (e) => { window.goferDown = e.target.id; }, { capture: true, once: true });
          b.scrollIntoView({ block: 'center' });
          const r = b.getBoundingClientRect();
          return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
        });
        await page.mouse.move(at.x, at.y);
        await page.mouse.down();
        landed = (await page.evaluate(() => window.goferDown)) === button.slice(1);
        if (!landed) {
          await page.mouse.move(1, 1);
          await page.mouse.up();
        }
      }
      let parts = 0;
      let on;
      const twice = new Promise((resolve) => {
        on = (r) => { if (r.url().includes('part=live') && ++parts === 2) { resolve(); } };
        page.on('requestfinished', on);
      });
      const waited = await Promise.race([twice.then(() => true), new Promise((r) => setTimeout(() => r(false), 30000))]);
      page.off('requestfinished', on);
      await page.mouse.up();
      out.heldThrough = parts;
      if (!waited) {
        throw new Error(`${button} held 30 s: ${parts} redraws came, want 2`);
      }
    };
    const press = async (button, state, other, click) => {
      const sent = () => page.waitForRequest((r) => r.url().includes('/api/' + button.slice(1)), { timeout: 15000 })
        .then(() => true, () => false);
      let e;
      for (let i = 1; i <= 3; i++) {
        out.presses[button] = i;
        const request = sent();
        await click(button);
        if (!(await request) && i < 3) {
          continue;
        }
        try {
          await page.waitForFunction((s, o) => {
            const e = document.querySelector('#state');
            return document.readyState === 'complete' && e && e.textContent.startsWith(s) && document.querySelector(o);
          }, { timeout: 60000, polling: 'mutation' }, state, other);
          return page.$eval('#state', (e) => e.textContent);
        } catch (err) {
          e = err;
          break;
        }
      }
      await page.screenshot({ path: path.join(shots, 'stuck.png'), fullPage: true }).catch(() => {});
      const now = await page.$eval('#state', (x) => x.textContent).catch((x) => String(x));
      throw new Error(`after ${button} (${out.presses[button]} presses): ${e ? e.message : 'no request sent'}; the page ${page.url()} says ${JSON.stringify(now)}`);
    };
    out.paused = await press('#pause', 'Paused', '#resume', held);
    await page.screenshot({ path: path.join(shots, 'paused.png'), fullPage: true });
    out.resumed = await press('#resume', 'Running', '#pause', (b) => page.$eval(b, (e) => e.click()));
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(out));
}

main().catch((e) => { console.error(e); process.exit(1); });
