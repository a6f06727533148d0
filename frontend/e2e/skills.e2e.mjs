// Agent skills in real Chromium: a skill in the data directory's skills/ (and a broken one
// beside it) is listed in Settings → Skills with its source and the broken one's error; a
// model (fakeopenai's "call" scenario) calls skill_load and the card shows the skill and
// its files; a skill dropped into the folder while Cairn runs shows up without a reload;
// switching the skill off in Settings makes the next skill_load fail with skill_off.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createSession, lastAssistant, saveFakeProvider, sendWithEnter, sessionHash, startFakeOpenAI, storedAnswer, waitAssistantStatus, waitSessionState } from "./lib/chat.mjs";
import { SUITE_TIMEOUT_MS, locale, msg, openApp, screenshot, startServer, withContext } from "./lib/harness.mjs";

const en = { chat: locale("en", "chat"), settings: locale("en", "settings"), errors: locale("en", "errors") };
const render = (template, params) => template.replace(/\{\{(\w+)\}\}/g, (_, k) => String(params[k]));

function writeSkill(dir, text, files = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "SKILL.md"), text);
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(dir, p, ".."), { recursive: true });
    writeFileSync(join(dir, p), c);
  }
}

describe("skills: listed, loaded by the model, picked up while running, switched off", { timeout: SUITE_TIMEOUT_MS }, () => {
  let server, fake, session, dataDir, home;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cairn-e2e-skills-"));
    home = mkdtempSync(join(tmpdir(), "cairn-e2e-home-"));
    writeSkill(join(dataDir, "skills", "garden"), "---\nname: garden\ndescription: Care for tomato plants and aphids.\n---\n# Garden\nWater in the morning.\n", {
      "reference.md": "Aphids: soapy water.",
      "scripts/spray.sh": "echo spray",
    });
    writeSkill(join(dataDir, "skills", "broken"), "---\nname: broken\n---\nNo description.\n");
    // HOME is a folder of its own, so the other agents' folders are this test's (empty).
    [server, fake] = await Promise.all([startServer({ dataDir, env: { HOME: home } }), startFakeOpenAI()]);
    const provider = await saveFakeProvider(server, fake, { name: "Fake", models: ["fake-call"] });
    session = await createSession(server, { providerId: provider.id, title: "Skills e2e", toolsets: ["skill"] });
  });
  after(async () => {
    await Promise.all([server?.stop(), fake?.stop()]);
    for (const d of [dataDir, home]) if (d) rmSync(d, { recursive: true, force: true });
  });

  test("the model loads a skill, the card shows it; Settings lists, picks up and switches skills", async () => {
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(session.id) });
      await waitSessionState(page, "idle");
      await sendWithEnter(page, 'skill_load {"name":"garden"}');
      await waitAssistantStatus(page, 0, "complete");
      const card = lastAssistant(page).locator('[data-testid="tool-card"][data-tool="skill_load"]');
      assert.equal(await card.getAttribute("data-state"), "done");
      await card.locator(".tool-card__head").click();
      const loaded = card.getByTestId("skill-loaded");
      await loaded.waitFor();
      assert.match(await loaded.innerText(), new RegExp(render(msg(en.chat, "skills.card.loaded"), { name: "garden" })));
      assert.match(await loaded.innerText(), new RegExp(msg(en.settings, "skills.source.data")));
      await loaded.locator("summary").first().click();
      assert.match(await card.getByTestId("skill-resources").innerText(), /scripts\/spray\.sh/);
      await screenshot(page, "skills-01-card");

      await page.goto(`${server.origin}/#/settings/skills`);
      await page.getByTestId("skills-section").waitFor();
      const garden = page.locator('[data-testid="skill-row"][data-name="garden"]');
      await garden.waitFor();
      assert.equal(await garden.getAttribute("data-state"), "on");
      assert.equal(await garden.getAttribute("data-source"), "data");
      const broken = page.locator('[data-testid="skill-row"][data-name="broken"]');
      assert.equal(await broken.getAttribute("data-state"), "broken");
      assert.match(await broken.getByTestId("skill-error").innerText(), /has no description/);

      // dropped into the folder while Cairn runs: the watcher picks it up, the page follows
      writeSkill(join(dataDir, "skills", "notes"), "---\nname: notes\ndescription: Take notes.\n---\nWrite them down.\n");
      await page.locator('[data-testid="skill-row"][data-name="notes"]').waitFor({ timeout: 15_000 });
      await screenshot(page, "skills-02-settings");

      await garden.getByTestId("skill-enabled").click();
      await page.waitForSelector('[data-testid="skill-row"][data-name="garden"][data-state="off"]');
      const list = await server.result("ListSkills");
      assert.equal(list.find((s) => s.name === "garden").enabled, false);

      await page.goto(`${server.origin}/${sessionHash(session.id)}`);
      await waitSessionState(page, "idle");
      await sendWithEnter(page, 'skill_load {"name":"garden"}');
      await waitAssistantStatus(page, 1, "complete");
      const off = lastAssistant(page).locator('[data-testid="tool-card"][data-tool="skill_load"]');
      assert.equal(await off.getAttribute("data-state"), "error");
      // an error card opens by itself; the error is the catalogue's, in the window's words
      if ((await off.getByTestId("error-view").count()) === 0) await off.locator(".tool-card__head").click();
      const err = off.getByTestId("error-view");
      await err.waitFor();
      assert.equal(await err.getAttribute("data-error-code"), "skill_off");
      assert.match(await err.innerText(), new RegExp(render(msg(en.errors, "skill_off"), { name: "garden" })));
      await screenshot(page, "skills-03-off");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });

  test("a conversation turns on a skill Settings has off, and only names and descriptions reach the prompt", async () => {
    const sys = await saveFakeProvider(server, fake, { name: "FakeSystem", models: ["fake-system"] });
    const s2 = await createSession(server, { providerId: sys.id, title: "Skills prompt e2e", toolsets: ["skill"] });
    await withContext(async (ctx) => {
      const page = await openApp(ctx, server, { hash: sessionHash(s2.id) });
      await waitSessionState(page, "idle");
      const picker = page.getByTestId("skill-picker");
      await picker.filter({ hasText: render(msg(en.chat, "skills.buttonCount"), { count: 1 }) }).waitFor(); // notes; garden is off in Settings
      await picker.click();
      await page.getByTestId("skill-pick-garden").selectOption("on");
      await picker.filter({ hasText: render(msg(en.chat, "skills.buttonCount"), { count: 2 }) }).waitFor();
      await screenshot(page, "skills-04-picker");
      await page.keyboard.press("Escape");
      const own = await server.result("GetSessionSkills", s2.id);
      assert.deepEqual(own.find((s) => s.name === "garden"), { name: "garden", enabled: true, own: true, global: false });

      await sendWithEnter(page, "Which skills do you have?");
      await waitAssistantStatus(page, 0, "complete");
      const prompt = (await storedAnswer(server, s2.id)).text;
      assert.match(prompt, /<available_skills>/);
      assert.match(prompt, /<skill name="garden">Care for tomato plants and aphids\.<\/skill>/);
      assert.match(prompt, /<skill name="notes">Take notes\.<\/skill>/);
      assert.doesNotMatch(prompt, /Water in the morning|broken/, "a skill's body and a broken skill stay out of the prompt");
      assert.deepEqual(ctx.pageErrors, []);
    });
  });
});
