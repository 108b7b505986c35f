// A Firefox tab for e2e/browser TestFirefoxJoins: puppeteer-core starts
// Debian's firefox-esr (argv[2]) headless over WebDriver BiDi (no browser
// is downloaded), with a fresh profile whose prefs let WebRTC gather
// loopback host candidates without a permission prompt (as the Chromium
// tabs' flags do), opens the page argv[3] and prints one line a second:
//   status <the page peer's status() as JSON>   (or "status null")
// and "console <text>" for the page's console. It closes the browser and
// exits when its stdin closes (the test's end) or after argv[4] seconds.
import puppeteer from "puppeteer-core";

const [exe, url, maxS] = process.argv.slice(2);
const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath: exe,
  headless: true,
  protocol: "webDriverBiDi",
  extraPrefsFirefox: {
    "media.peerconnection.ice.loopback": true,
    "media.peerconnection.ice.obfuscate_host_addresses": false,
    "media.navigator.permission.disabled": true,
    "media.peerconnection.ice.default_address_only": false,
  },
});
let done = false;
const finish = async (code) => {
  if (done) return;
  done = true;
  try { await browser.close(); } catch (e) { /* already gone */ }
  process.exit(code);
};
process.stdin.on("end", () => finish(0));
process.stdin.on("close", () => finish(0));
process.stdin.resume();
setTimeout(() => finish(2), (+maxS || 300) * 1000);
try {
  const page = await browser.newPage();
  page.on("console", (m) => console.log("console " + m.text().replace(/\n/g, " ")));
  await page.goto(url);
  console.log("ua " + await page.evaluate(() => navigator.userAgent));
  for (;;) {
    try {
      const s = await page.evaluate(() => window.peerlearnPeer ? JSON.stringify(window.peerlearnPeer.status()) : "null");
      console.log("status " + s);
    } catch (e) {
      console.log("error " + String(e && e.message || e).replace(/\n/g, " "));
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
} catch (e) {
  console.log("error " + String(e && e.stack || e).replace(/\n/g, " "));
  await finish(1);
}
