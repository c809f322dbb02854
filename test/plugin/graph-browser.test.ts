import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { PNG } from 'pngjs';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * The memory graph rendered in real headless Chromium: the plugin's sigma.js renderer and its
 * ForceAtlas2 worker on 3,000 synthetic memories (ENGRAM_GRAPH_N=10000 for the size the bench
 * measures: the suite's run was 31 s of its 3 minutes at 10,000), with the plugin's styles.css.
 * Checks what a person sees (labels, the five tier colours, the legend), a hover, a search, a
 * click; records the first frame and the main-thread tasks over 50 ms in .work/graph-N.json (the targets
 * are measured by `npm run bench:graph`, on a quiet machine, not asserted here: the CI machine is
 * shared). WebGL runs on SwiftShader through the GPU process, as Obsidian runs it on a GPU;
 * `--disable-gpu` would force software compositing, which reads every WebGL frame back on the
 * main thread (Obsidian does that only with hardware acceleration switched off).
 */
// Debian's chromium by default; CI points ENGRAM_CHROMIUM at the runner's Chrome
const CHROMIUM = process.env.ENGRAM_CHROMIUM || '/usr/bin/chromium';
/** Memories drawn: a multiple of 20 (every 20th is core; i mod 4 gives the other tiers). */
const N = Number(process.env.ENGRAM_GRAPH_N ?? 3000);
const ROOT = path.join(__dirname, '..', '..');
const suite = existsSync(CHROMIUM) ? describe : describe.skip;
if (!existsSync(CHROMIUM)) console.warn(`graph browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-background-networking', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

/** Tier hues (styles.css fallbacks), to classify pixels: the graph fades colours towards the background. */
const TIERS: Record<string, [number, number, number]> = {
  core: [0xa8, 0x82, 0xff],
  active: [0x44, 0xcf, 0x6e],
  warm: [0xe0, 0xac, 0x00],
  cold: [0x02, 0x7a, 0xff],
  archive: [0x8a, 0x8a, 0x8a],
};
const BACKGROUND: [number, number, number] = [0x1e, 0x1e, 0x1e];

/** Whether a pixel is the colour faded towards the background by some amount in [0.3, 1]. */
function isFadedFrom(px: [number, number, number], colour: [number, number, number]): boolean {
  const span = colour.map((c, i) => c - BACKGROUND[i]!);
  const len2 = span.reduce((s, v) => s + v * v, 0);
  const t = px.reduce((s, v, i) => s + (v - BACKGROUND[i]!) * span[i]!, 0) / len2;
  if (t < 0.3 || t > 1.05) return false;
  return px.every((v, i) => Math.abs(BACKGROUND[i]! + t * span[i]! - v) <= 6);
}

export async function servePage(): Promise<{ server: Server; base: string }> {
  const bundle = await build({ entryPoints: [path.join(ROOT, 'test', 'fixtures', 'graph-page.ts')], bundle: true, format: 'iife', platform: 'browser', target: 'chrome114', write: false, minify: true, logLevel: 'warning' });
  const script = bundle.outputFiles[0]!.text;
  const css = readFileSync(path.join(ROOT, 'styles.css'), 'utf8');
  const page = `<!doctype html><html><head><style>${css} body{margin:0;background:#1e1e1e} .host{position:relative;width:1200px;height:800px}</style></head><body><script src="/graph.js"></script></body></html>`;
  const server = createServer((req, res) => {
    const url = (req.url ?? '/').split('?')[0];
    res.writeHead(200, { 'content-type': url === '/graph.js' ? 'text/javascript' : 'text/html' });
    res.end(url === '/graph.js' ? script : page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

type LongTask = { at: number; ms: number };
const longTasksSince = (page: Page, from: number) => page.evaluate((f) => (window as unknown as { __longTasks: LongTask[] }).__longTasks.filter((t) => t.at >= f), from);
const now = (page: Page) => page.evaluate(() => performance.now());

suite('memory graph view in headless Chromium', () => {
  let server: Server;
  let base: string;
  let browser: Browser;

  beforeAll(async () => {
    ({ server, base } = await servePage());
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  it('draws thousands of memories with labels and the five tier colours; hover, search and click work', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/?n=${N}&layout=3000`);
    await page.waitForFunction(() => (window as unknown as { __result?: unknown }).__result !== undefined, undefined, { timeout: 60_000 });
    const result = await page.evaluate(() => (window as unknown as { __result: { n: number; edges: number; firstFrameMs: number; legend: string[] } }).__result);
    const layoutStart = await now(page);
    // a ceiling, not a target: the layout runs 3 s, then the edges are added a slice per frame; at
    // load 15 on the shared 2-core machine 10,000 memories took more than 30 s to settle
    await page.waitForFunction(() => (window as unknown as { __renderer: { settled: boolean } }).__renderer.settled, undefined, { timeout: 90_000 });
    const duringLayout = await longTasksSince(page, layoutStart);
    await page.waitForTimeout(500);
    const shot = await page.screenshot();
    const labels = await page.evaluate(() => (window as unknown as { __renderer: { sigma: { getNodeDisplayedLabels(): Set<string> } } }).__renderer.sigma.getNodeDisplayedLabels().size);

    // hover: the tooltip names the memory with its tier, strength and last access
    type Pos = { x: number; y: number };
    const ids = await page.evaluate(() => (window as unknown as { __ids: string[] }).__ids);
    const position = (id: string) => page.evaluate((i) => (window as unknown as { __renderer: { screenPosition(id: string): Pos | null } }).__renderer.screenPosition(i), id);
    const hoverStart = await now(page);
    let target: string | null = null;
    let at: Pos | null = null;
    for (const id of ids.slice(0, 600)) {
      const p = await position(id);
      if (!p || p.x < 320 || p.x > 1150 || p.y < 140 || p.y > 620) continue;
      await page.mouse.move(p.x, p.y);
      const tip = await page.evaluate(() => {
        const el = document.querySelector<HTMLElement>('.engram-graph-tooltip')!;
        return el.hidden ? '' : (el.querySelector('.engram-graph-tooltip-id')?.textContent ?? '');
      });
      if (tip === id) {
        target = id;
        at = p;
        break;
      }
    }
    expect(target).not.toBeNull();
    const tooltip = await page.evaluate(() => Array.from(document.querySelectorAll('.engram-graph-tooltip div')).map((d) => d.textContent));
    expect(tooltip[0]).toMatch(/note \d+/); // the memory's first words
    expect(tooltip.some((t) => /^(core|active|warm|cold|archive) · (episodic|semantic|decision) · strength \d\.\d\d · half-life \d+\.\d d$/.test(t ?? ''))).toBe(true);
    expect(tooltip.some((t) => /^last access 2026-\d\d-\d\d/.test(t ?? ''))).toBe(true);
    const duringHover = await longTasksSince(page, hoverStart);
    await page.mouse.click(at!.x, at!.y);
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (window as unknown as { __opened: string[] }).__opened)).toEqual([target]);

    // search: typing highlights the matching memories
    const searchStart = await now(page);
    await page.fill('.engram-graph-search', 'note 2424');
    await page.waitForFunction(() => document.querySelector('.engram-graph-status')?.textContent === '1 found', undefined, { timeout: 30_000 });
    await page.keyboard.press('Enter');
    await page.waitForTimeout(600);
    const duringSearch = await longTasksSince(page, searchStart);
    expect(errors).toEqual([]);

    const figures = {
      n: result.n,
      edges: result.edges,
      firstFrameMs: Math.round(result.firstFrameMs),
      layoutLongTasks: duringLayout.length,
      layoutLongestTaskMs: Math.max(0, ...duringLayout.map((t) => t.ms)),
      hoverLongestTaskMs: Math.max(0, ...duringHover.map((t) => t.ms)),
      searchLongestTaskMs: Math.max(0, ...duringSearch.map((t) => t.ms)),
      labelsDrawn: labels,
    };
    mkdirSync(path.join(ROOT, '.work'), { recursive: true });
    writeFileSync(path.join(ROOT, '.work', `graph-${N}.png`), shot);
    writeFileSync(path.join(ROOT, '.work', `graph-${N}.json`), JSON.stringify(figures, null, 2));
    await page.close();

    // memory i was last accessed 2, 14, 40 or 90 days ago (i mod 4: active, warm, cold, archive);
    // every 20th (all among the 2-day ones) is core
    // (3,000: core 150, active 600, warm, cold and archive 750 each)
    expect(result.legend).toEqual([`core (${N / 20})`, `active (${N / 4 - N / 20})`, `warm (${N / 4})`, `cold (${N / 4})`, `archive (${N / 4})`]);
    expect(result.n).toBe(N);
    expect(labels).toBeGreaterThan(10);

    const png = PNG.sync.read(shot);
    const counts: Record<string, number> = {};
    let light = 0;
    for (let y = 0; y < png.height; y++) {
      for (let x = 320; x < png.width; x++) {
        const i = (y * png.width + x) * 4;
        const px: [number, number, number] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
        for (const [tier, rgb] of Object.entries(TIERS)) if (isFadedFrom(px, rgb)) counts[tier] = (counts[tier] ?? 0) + 1;
        if (px.every((v) => v > 200)) light++; // label text (#dadada)
      }
    }
    for (const tier of Object.keys(TIERS)) expect([tier, (counts[tier] ?? 0) > 300]).toEqual([tier, true]);
    expect(light).toBeGreaterThan(200);
  }, 240_000);
});
