// Summarizes one client's run of the MCP conformance suite (run.sh calls it).
//
// Usage: node summarize.mjs LABEL RAW_DIR SCENARIOS_FILE SUMMARY_JSON [BASELINE_YML]
//
// RAW_DIR is the suite's --output-dir: one <scenario>-<timestamp>/checks.json per
// scenario. Checks are counted like the suite's own summary (SUCCESS passed, FAILURE
// failed, WARNING warnings; INFO is a log line, not a check). Because the suite records a
// check per request (e.g. one valid-bearer-token per authenticated request), the totals
// depend on how many requests a client makes; the distinct counts collapse each check id
// of a scenario into one (passed only when every occurrence passed).
import fs from 'node:fs';
import path from 'node:path';

const [label, rawDir, scenariosFile, summaryFile, baselineFile] = process.argv.slice(2);
if (!summaryFile) {
  console.error('usage: node summarize.mjs LABEL RAW_DIR SCENARIOS_FILE SUMMARY_JSON [BASELINE_YML]');
  process.exit(2);
}

const names = fs.readFileSync(scenariosFile, 'utf8')
  .split('\n').map((l) => l.match(/^\s*-\s+(\S+)/)?.[1]).filter(Boolean);

// baseline.yml is a flat list under `client:`; read it without a YAML parser.
const expected = new Set();
if (baselineFile) {
  let inClient = false;
  for (const line of fs.readFileSync(baselineFile, 'utf8').split('\n')) {
    if (/^\S/.test(line)) inClient = /^client:\s*$/.test(line);
    const m = inClient && line.match(/^\s+-\s+(\S+)/);
    if (m) expected.add(m[1]);
  }
}

function findChecks(dir) {
  const out = new Map();
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'checks.json') {
        const rel = path.relative(dir, d).split(path.sep).join('/');
        out.set(rel.replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, ''), p);
      }
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

const files = findChecks(rawDir);
const scenarios = [];
const totals = { passed: 0, failed: 0, warnings: 0, distinctPassed: 0, distinctFailed: 0, scenariosPassed: 0, scenariosFailed: 0 };
for (const name of names) {
  const s = { name, passed: 0, failed: 0, warnings: 0, checks: [], failures: [], expectedFailure: expected.has(name) };
  const file = files.get(name);
  let checks = [];
  if (file) {
    checks = JSON.parse(fs.readFileSync(file, 'utf8'));
  } else {
    checks = [{ id: 'scenario-result', status: 'FAILURE', errorMessage: 'no checks.json: the scenario did not run' }];
  }
  const byId = new Map();
  for (const c of checks) {
    if (c.status === 'INFO') continue;
    if (c.status === 'SUCCESS') s.passed++;
    else if (c.status === 'FAILURE') s.failed++;
    else if (c.status === 'WARNING') s.warnings++;
    const agg = byId.get(c.id) ?? { id: c.id, status: 'SUCCESS', count: 0 };
    agg.count++;
    if (c.status === 'FAILURE' || (c.status === 'WARNING' && agg.status === 'SUCCESS')) agg.status = c.status;
    byId.set(c.id, agg);
    if (c.status !== 'SUCCESS') s.failures.push({ id: c.id, status: c.status, message: c.errorMessage || c.description || '' });
  }
  s.checks = [...byId.values()];
  s.ok = s.failed === 0 && s.warnings === 0 && s.passed > 0;
  totals.passed += s.passed;
  totals.failed += s.failed;
  totals.warnings += s.warnings;
  for (const c of s.checks) {
    if (c.status === 'SUCCESS') totals.distinctPassed++;
    else totals.distinctFailed++;
  }
  if (s.ok) totals.scenariosPassed++;
  else totals.scenariosFailed++;
  scenarios.push(s);
}
const unexpected = scenarios.filter((s) => !s.ok && !s.expectedFailure).map((s) => s.name);
const stale = baselineFile ? scenarios.filter((s) => s.ok && s.expectedFailure).map((s) => s.name) : [];

const width = Math.max(...names.map((n) => n.length));
console.log(`== ${label}`);
for (const s of scenarios) {
  const mark = s.ok ? '✓' : '✗';
  const warn = s.warnings ? `, ${s.warnings} warnings` : '';
  const note = !s.ok && s.expectedFailure ? '  (expected: baseline.yml)' : '';
  console.log(`  ${mark} ${s.name.padEnd(width)}  ${String(s.passed).padStart(3)} passed, ${s.failed} failed${warn}${note}`);
  for (const f of s.failures) console.log(`      - ${f.id} ${f.status}: ${f.message.split('\n')[0].slice(0, 160)}`);
}
console.log(`  ${label}: checks ${totals.passed} passed, ${totals.failed} failed, ${totals.warnings} warnings; ` +
  `distinct check ids ${totals.distinctPassed} passed, ${totals.distinctFailed} failed; ` +
  `scenarios ${totals.scenariosPassed} passed, ${totals.scenariosFailed} failed`);
if (baselineFile) {
  if (unexpected.length) console.log(`  unexpected failures (not in baseline.yml): ${unexpected.join(', ')}`);
  if (stale.length) console.log(`  stale baseline.yml entries (now passing): ${stale.join(', ')}`);
}

fs.writeFileSync(summaryFile, JSON.stringify({ label, scenarios, totals, unexpected, stale }, null, 2) + '\n');
