import { useId, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  PERMISSION_MODES,
  toAppError,
  useClient,
  useSessionList,
  useTopic,
  type AppError,
  type PermissionMode,
  type PermissionRule,
  type PermissionTestResult,
  type ShellLine,
} from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { behaviorBadge } from "./model";
import { RuleSummary } from "./RuleSummary";

const SAMPLE_ARGS = '{"command": "git status"}';

/**
 * "Test a rule": the verdict a sample call would get — with the stored rules, or with a
 * draft rule as if it were saved — and why: the deciding rule, the mode, the resolved
 * paths and the parsed shell command. Nothing runs and nothing is stored.
 */
export function RuleTester({ draft, embedded }: { draft?: PermissionRule; embedded?: boolean }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const tools = useTopic(client.stores.tools).data?.tools;
  const rules = useTopic(client.stores.permissionRules).data?.rules;
  const sessions = useSessionList().data?.sessions ?? [];
  const [tool, setTool] = useState(() => (draft?.tool && !/[*?[{]/.test(draft.tool) ? draft.tool : "sandbox_bash"));
  const [args, setArgs] = useState(() => (draft?.path ? JSON.stringify({ path: "~/example.txt" }) : SAMPLE_ARGS));
  const [sessionId, setSessionId] = useState("");
  const [mode, setMode] = useState<PermissionMode | "">("");
  const [flags, setFlags] = useState({ readOnly: false, destructive: false, needsApproval: true });
  const [only, setOnly] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<AppError | null>(null);
  const [result, setResult] = useState<PermissionTestResult | null>(null);
  const id = useId();
  const ids = { tool: `${id}-tool`, args: `${id}-args`, session: `${id}-session`, mode: `${id}-mode`, list: `${id}-list`, heading: `${id}-h` };

  const parsed = useMemo(() => {
    if (!args.trim()) return { ok: true as const, value: undefined };
    try {
      return { ok: true as const, value: JSON.parse(args) as unknown };
    } catch {
      return { ok: false as const, value: undefined };
    }
  }, [args]);
  const registered = tools?.some((x) => x.name === tool.trim());
  const canRun = tool.trim() !== "" && parsed.ok;

  const run = async () => {
    if (!canRun || busy) return;
    setBusy(true);
    setError(null);
    try {
      setResult(
        await client.permissions.test({
          tool: tool.trim(),
          args: parsed.value,
          sessionId: sessionId || undefined,
          mode: mode || undefined,
          ...flags,
          rule: draft,
          only: draft ? only : undefined,
        }),
      );
    } catch (e) {
      setResult(null);
      setError(toAppError(e));
    } finally {
      setBusy(false);
    }
  };

  const decidingRule = result?.verdict.ruleId
    ? result.ruleDecides && draft
      ? draft
      : rules?.find((r) => r.id === result.verdict.ruleId)
    : undefined;

  const body = (
    <div className="rule-tester__body" onKeyDown={(e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void run();
      }
    }}>
      <div className="rule-form__grid">
        <label htmlFor={ids.tool} className="field__label">
          {t("permissions.tester.tool")}
        </label>
        <div>
          <input id={ids.tool} className="input mono" list={ids.list} value={tool} onChange={(e) => setTool(e.target.value)} data-testid="permission-test-tool" />
          <datalist id={ids.list}>
            {(tools ?? []).map((x) => (
              <option key={x.name} value={x.name} />
            ))}
          </datalist>
        </div>
        <label htmlFor={ids.args} className="field__label">
          {t("permissions.tester.args")}
        </label>
        <div>
          <textarea
            id={ids.args}
            className="input textarea mono rule-tester__args"
            rows={3}
            spellCheck={false}
            value={args}
            aria-invalid={!parsed.ok || undefined}
            onChange={(e) => setArgs(e.target.value)}
            data-testid="permission-test-args"
          />
          <p className="field__help">{parsed.ok ? t("permissions.tester.argsHelp") : t("permissions.tester.argsInvalid")}</p>
        </div>
        <label htmlFor={ids.session} className="field__label">
          {t("permissions.tester.session")}
        </label>
        <select id={ids.session} className="input select" value={sessionId} onChange={(e) => setSessionId(e.target.value)} data-testid="permission-test-session">
          <option value="">{t("permissions.tester.noSession")}</option>
          {sessions.map((s) => (
            <option key={s.id} value={s.id}>
              {s.title || t("permissions.rule.untitled")}
            </option>
          ))}
        </select>
        <label htmlFor={ids.mode} className="field__label">
          {t("permissions.tester.mode")}
        </label>
        <select id={ids.mode} className="input select" value={mode} onChange={(e) => setMode(e.target.value as PermissionMode | "")} data-testid="permission-test-mode">
          <option value="">{t("permissions.tester.modeSession")}</option>
          {PERMISSION_MODES.map((m) => (
            <option key={m} value={m}>
              {t(`permissions.modes.${m}.label`)}
            </option>
          ))}
        </select>
        {!registered && (
          <>
            <span className="field__label">{t("permissions.tester.flags")}</span>
            <div>
              <div className="rule-tester__flags">
                {(["readOnly", "destructive", "needsApproval"] as const).map((f) => (
                  <label key={f} className="check-label">
                    <input type="checkbox" checked={flags[f]} onChange={(e) => setFlags((x) => ({ ...x, [f]: e.target.checked }))} />
                    {t(`permissions.tester.flag.${f}`)}
                  </label>
                ))}
              </div>
              <p className="field__help">{t("permissions.tester.flagsHelp")}</p>
            </div>
          </>
        )}
      </div>
      {draft && (
        <div className="rule-tester__draft">
          <span className="muted">{t("permissions.tester.withDraft")}</span> <RuleSummary rule={draft} />
          <label className="check-label">
            <input type="checkbox" checked={only} onChange={(e) => setOnly(e.target.checked)} data-testid="permission-test-only" />
            {t("permissions.tester.only")}
          </label>
        </div>
      )}
      <div className="rule-tester__actions">
        <button type="button" className="btn btn--primary" onClick={() => void run()} disabled={!canRun} aria-disabled={busy || undefined} data-testid="permission-test-run">
          {busy && <span className="spinner" aria-hidden="true" />}
          {t("permissions.tester.run")}
        </button>
      </div>
      {error && <ErrorView error={error} compact />}
      {result && <TestResultView result={result} decidingRule={decidingRule} draftDecides={Boolean(draft && result.ruleDecides)} />}
    </div>
  );

  if (embedded) return <div className="rule-tester rule-tester--embedded" data-testid="permission-tester">{body}</div>;
  return (
    <section className="group rule-tester" aria-labelledby={ids.heading} data-testid="permission-tester">
      <h3 id={ids.heading} className="group__title">
        {t("permissions.tester.title")}
      </h3>
      <p className="group__description">{t("permissions.tester.intro")}</p>
      <div className="perm-card">{body}</div>
    </section>
  );
}

function TestResultView({
  result: r,
  decidingRule,
  draftDecides,
}: {
  result: PermissionTestResult;
  decidingRule?: PermissionRule;
  draftDecides: boolean;
}) {
  const { t } = useTranslation("settings");
  const v = r.verdict;
  return (
    <div className="test-result" data-testid="permission-test-result" data-behavior={v.behavior} role="status">
      <div className="test-result__head">
        <span className={`badge test-result__verdict ${behaviorBadge(v.behavior)}`} data-testid="permission-test-verdict">
          {t(`permissions.verdict.${v.behavior}`, { defaultValue: v.behavior })}
        </span>
        <span className="test-result__reason" data-testid="permission-test-reason">
          {v.reason}
        </span>
      </div>
      <dl className="test-result__facts">
        <dt>{t("permissions.tester.decidedBy")}</dt>
        <dd>
          {decidingRule ? (
            <>
              {draftDecides ? t("permissions.tester.byDraft") : t("permissions.tester.byRule")} <RuleSummary rule={decidingRule} />
            </>
          ) : v.ruleId ? (
            t("permissions.tester.byRuleId", { id: v.ruleId })
          ) : (
            t(`permissions.source.${v.source}`, { defaultValue: v.source })
          )}
        </dd>
        <dt>{t("permissions.tester.mode")}</dt>
        <dd>{t(`permissions.modes.${r.mode}.label`, { defaultValue: r.mode })}</dd>
        <dt>{t("permissions.tester.toolFacts")}</dt>
        <dd>
          <code>{r.tool.name}</code>
          {r.tool.namespace && <span className="muted"> · {r.tool.namespace}</span>}
          {" · "}
          {[
            r.registered ? t("permissions.tester.registered") : t("permissions.tester.unregistered"),
            r.tool.readOnly && t("permissions.tester.flag.readOnly"),
            r.tool.destructive && t("permissions.tester.flag.destructive"),
            r.tool.approval === "ask" && t("permissions.tester.flag.needsApproval"),
          ]
            .filter(Boolean)
            .join(" · ")}
        </dd>
        {(r.paths?.length ?? 0) > 0 && (
          <>
            <dt>{t("permissions.tester.paths")}</dt>
            <dd>
              <ul className="test-result__paths">
                {r.paths!.map((p, i) => (
                  <li key={i}>
                    <code>{p.raw}</code>
                    {p.real && p.real !== p.raw ? (
                      <>
                        {" → "}
                        <code>{p.real}</code>
                      </>
                    ) : p.abs && p.abs !== p.raw ? (
                      <>
                        {" → "}
                        <code>{p.abs}</code>
                      </>
                    ) : null}
                  </li>
                ))}
              </ul>
              <span className="muted">{r.insideWorkspace ? t("permissions.tester.inside") : t("permissions.tester.outside")}</span>
            </dd>
          </>
        )}
        {(r.shell?.length ?? 0) > 0 && (
          <>
            <dt>{t("permissions.tester.shell")}</dt>
            <dd>
              {r.shell!.map((l, i) => (
                <ShellLineView key={i} line={l} />
              ))}
            </dd>
          </>
        )}
      </dl>
      {(v.staleRules?.length ?? 0) > 0 && (
        <p className="note note--warn test-result__stale">
          <Icon name="alert" size={15} />
          {t("permissions.tester.stale", { count: v.staleRules!.length })}
        </p>
      )}
    </div>
  );
}

function ShellLineView({ line: l }: { line: ShellLine }) {
  const { t } = useTranslation("settings");
  const top = l.top ?? [];
  return (
    <div className="shell-line" data-testid="permission-test-shell">
      <code className="shell-line__source">{l.source}</code>
      {l.parseError ? (
        <p className="shell-line__warn">{t("permissions.tester.parseError", { error: l.parseError })}</p>
      ) : (
        <p className="muted">
          {t("permissions.tester.commands", { count: top.length })}{" "}
          {top.map((c, i) => (
            <code key={i} className="shell-line__cmd">
              {[...(c.assigns ?? []), ...c.words.map((w) => w || "…")].join(" ")}
            </code>
          ))}
        </p>
      )}
      {(l.hidden?.length ?? 0) > 0 && <p className="shell-line__warn">{t("permissions.tester.hidden", { what: l.hidden!.join(", ") })}</p>}
      {(l.writes?.length ?? 0) > 0 && <p className="muted">{t("permissions.tester.writes", { paths: l.writes!.join(", ") })}</p>}
    </div>
  );
}
