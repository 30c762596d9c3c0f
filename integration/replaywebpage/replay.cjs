// replay.cjs opens WACZ captures in ReplayWeb.page the way an archivist
// does, in a browser: headless Chromium, driven by puppeteer-core.
//
//   node replay.cjs SITE WACZ URL...
//
// SITE is the http://127.0.0.1:PORT origin serving ReplayWeb.page's static
// files (index.html, ui.js, sw.js); WACZ is the package's path on that
// origin. For each URL it opens SITE/?source=WACZ#view=replay&url=URL,
// waits for the replay frame that ReplayWeb.page's service worker serves
// from /w/<collection>/<timestamp>mp_/URL to finish loading, and prints
// one JSON line: {"url", "frame", "title", "shown", "status", "body"}:
// the frame's address, its document title and rendered text, and the
// status and text of the frame's address fetched again from the service
// worker (the archived payload). The browser's console goes to stderr.
// Chromium is $CHROMIUM or /usr/bin/chromium; puppeteer-core is found
// through NODE_PATH. It exits 1, naming the frames it saw, when a replay
// frame does not load within $REPLAY_TIMEOUT_MS (default 60000).
'use strict';
const puppeteer = require('puppeteer-core');

const [site, wacz, ...urls] = process.argv.slice(2);
const timeout = Number(process.env.REPLAY_TIMEOUT_MS || 60000);

function replayFrame(page, url) {
  const marker = 'mp_/' + url;
  const find = () => page.frames().find((f) => f.url().endsWith(marker));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      page.off('framenavigated', look);
      reject(new Error(`no replay frame for ${url} in ${timeout}ms; frames: ${page.frames().map((f) => f.url()).join(' ')}`));
    }, timeout);
    function look() {
      const f = find();
      if (f) {
        clearTimeout(timer);
        page.off('framenavigated', look);
        resolve(f);
      }
    }
    page.on('framenavigated', look);
    look();
  });
}

async function main() {
  if (!site || !wacz || urls.length === 0) {
    throw new Error('usage: node replay.cjs SITE WACZ URL...');
  }
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    // Root in a container: no sandbox; /dev/shm may be small.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    page.on('console', (m) => console.error(`console ${m.type()}: ${m.text()}`));
    for (const url of urls) {
      await page.goto(`${site}/?source=${encodeURIComponent(wacz)}#view=replay&url=${encodeURIComponent(url)}`);
      const frame = await replayFrame(page, url);
      await frame.waitForFunction(() => document.readyState === 'complete' && document.body !== null, { timeout });
      const seen = await frame.evaluate(async (addr) => {
        const r = await fetch(addr);
        return { title: document.title, shown: document.body.innerText, status: r.status, body: await r.text() };
      }, frame.url());
      process.stdout.write(JSON.stringify({ url, frame: frame.url(), ...seen }) + '\n');
    }
  } finally {
    await browser.close();
  }
}

main().catch((err) => {
  console.error(err.message || err);
  process.exit(1);
});
