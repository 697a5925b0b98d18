import { chromium } from "playwright-core";
const { default: packaged } = await import("@sparticuz/chromium");
const exe = await packaged.executablePath();
const bad = new Set(["--disable-web-security", "--allow-running-insecure-content", "--single-process"]);
const browser = await chromium.launch({ executablePath: exe, args: [...packaged.args.filter((a) => !bad.has(a)), "--headless", "--no-sandbox"] });
const url = process.argv[2];
for (const js of [true, false]) {
  const ctx = await browser.newContext({ javaScriptEnabled: js, viewport: { width: 1280, height: 860 } });
  const page = await ctx.newPage();
  const reqs = [];
  page.on("request", (r) => reqs.push(r.url()));
  page.on("console", (m) => console.log("console", m.type(), m.text()));
  page.on("pageerror", (e) => console.log("pageerror", e.message));
  await page.goto(url);
  await page.waitForTimeout(1500);
  await page.screenshot({ path: `/tmp/paywall-${js ? "js" : "nojs"}.png`, fullPage: true });
  console.log(js ? "JS" : "NOJS", reqs);
  await ctx.close();
}
await browser.close();
