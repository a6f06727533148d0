// The peers' page pipeline, timed on the same pages as Cairn's: jsdom parses the page,
// @mozilla/readability finds the article, turndown (with its GFM plugin, for tables)
// writes Markdown. Modules come from the bench-local folder in PEER_MODULES.
// Usage: PEER_MODULES=DIR node peer.mjs PAGES_DIR SECONDS NAME...
// Prints one JSON object: {name: {pages, seconds, markdown}}.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const require = createRequire(join(process.env.PEER_MODULES, "package.json"));
const { JSDOM, VirtualConsole } = require("jsdom");
const { Readability } = require("@mozilla/readability");
const TurndownService = require("turndown");
const { gfm } = require("turndown-plugin-gfm");

const [dir, seconds, ...names] = process.argv.slice(2);
const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
turndown.use(gfm);
const quiet = new VirtualConsole();

function toMarkdown(html) {
  const dom = new JSDOM(html, { url: "http://bench.example/", virtualConsole: quiet });
  try {
    const article = new Readability(dom.window.document).parse();
    return article ? turndown.turndown(article.content) : "";
  } finally {
    dom.window.close();
  }
}

const out = {};
for (const name of names) {
  const html = readFileSync(join(dir, name + ".html"), "utf8");
  let markdown = toMarkdown(html); // warm-up
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(Number(seconds) * 1e9));
  let pages = 0;
  let elapsed = 0n;
  while (pages < 2 || elapsed < budget) {
    markdown = toMarkdown(html);
    pages++;
    elapsed = process.hrtime.bigint() - start;
  }
  out[name] = { pages, seconds: Number(elapsed) / 1e9, markdown };
}
process.stdout.write(JSON.stringify(out));
