import { useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useClient, type AppError, type McpCredential, type McpRootsMode, type McpServerView, type McpTestReport, type McpTransport } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { McpTestReportView } from "./McpTestReport";
import { fromDraft, newVar, secondsToMs, toDraft, type ServerDraft, type VarDraft } from "./model";

const TRANSPORTS: McpTransport[] = ["stdio", "http", "sse"];
const ROOTS_MODES: McpRootsMode[] = ["none", "workspace", "folders"];

/**
 * Add or edit a server. stdio: command, arguments (one per line), environment, working
 * directory; HTTP / SSE: URL and headers. Env values and headers can be secret: they go to
 * the keyring and are never shown again (empty keeps the stored one). "Test" tries the
 * unsaved config without touching the running server.
 */
export function McpServerForm({ server, onDone }: { server?: McpServerView; onDone: (saved: McpServerView | null) => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [draft, setDraft] = useState<ServerDraft>(() => toDraft(server));
  const [doing, setDoing] = useState<"save" | "test">("save");
  const [report, setReport] = useState<McpTestReport | null>(null);
  const [warnings, setWarnings] = useState<AppError[]>([]);
  const [credentials, setCredentials] = useState<McpCredential[]>(server?.credentials ?? []);
  const id = useId();
  const ids = {
    name: `${id}-name`,
    transport: `${id}-transport`,
    command: `${id}-command`,
    args: `${id}-args`,
    cwd: `${id}-cwd`,
    url: `${id}-url`,
    connect: `${id}-connect`,
    call: `${id}-call`,
    roots: `${id}-roots`,
    rootsMode: `${id}-roots-mode`,
    rootsHelp: `${id}-roots-help`,
    argsHelp: `${id}-args-help`,
    trustHelp: `${id}-trust-help`,
  };
  const set: SetDraft = (k, v) => setDraft((d) => ({ ...d, [k]: v }));
  const builtin = draft.transport === "builtin";
  const badConnect = Number.isNaN(secondsToMs(draft.connectTimeout));
  const badCall = Number.isNaN(secondsToMs(draft.callTimeout));
  const canSubmit = draft.name.trim() !== "" && !badConnect && !badCall;

  // Save and test share one busy state and one error: one runs at a time.
  const action = useAction(async (what: "save" | "test") => {
    if (what === "test") {
      setReport(null);
      setReport(await client.mcp.test(fromDraft(draft)));
      return;
    }
    const saved = await client.mcp.save(fromDraft(draft));
    if (saved.warnings?.length) {
      // Saved, but some values look like credentials Cairn could not move: stay open to say so.
      setWarnings(saved.warnings);
      setDraft(toDraft(saved));
      setCredentials(saved.credentials ?? []);
      return;
    }
    onDone(saved);
  });
  const busy = action.busy ? doing : null;
  const error = action.error;
  const start = (what: "save" | "test") => {
    if (!canSubmit || action.busy) return;
    setDoing(what);
    void action.run(what);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start("save");
  };
  const test = () => start("test");

  return (
    <form className="mcp-form" onSubmit={submit} data-testid="mcp-form" autoComplete="off">
      <div className="mcp-form__grid">
        <label htmlFor={ids.name} className="field__label">
          {t("mcp.form.name")}
        </label>
        <input
          id={ids.name}
          className="input"
          value={draft.name}
          maxLength={100}
          placeholder={t("mcp.form.namePlaceholder")}
          onChange={(e) => set("name", e.target.value)}
          data-testid="mcp-form-name"
          autoFocus
        />

        <span className="field__label" id={ids.transport}>
          {t("mcp.form.transport")}
        </span>
        {builtin ? (
          <span className="badge">{t("mcp.transport.builtin")}</span>
        ) : (
          <div className="mcp-form__segmented" role="radiogroup" aria-labelledby={ids.transport}>
            {TRANSPORTS.map((tr) => (
              <label key={tr} className={`mcp-form__segment${draft.transport === tr ? " is-on" : ""}`} data-testid={`mcp-form-transport-${tr}`}>
                <input type="radio" name={`${id}-tr`} value={tr} checked={draft.transport === tr} onChange={() => set("transport", tr)} />
                <span>{t(`mcp.transport.${tr}`)}</span>
              </label>
            ))}
          </div>
        )}
        {!builtin && (
          <p className="field__help mcp-form__span">{t(`mcp.transport.${draft.transport}Help`)}</p>
        )}

        {draft.transport === "stdio" && (
          <>
            <label htmlFor={ids.command} className="field__label">
              {t("mcp.form.command")}
            </label>
            <input
              id={ids.command}
              className="input mono"
              value={draft.command}
              placeholder="npx"
              onChange={(e) => set("command", e.target.value)}
              data-testid="mcp-form-command"
            />
            <label htmlFor={ids.args} className="field__label">
              {t("mcp.form.args")}
            </label>
            <div>
              <textarea
                id={ids.args}
                className="input textarea mono mcp-form__lines"
                value={draft.args}
                rows={3}
                placeholder={"-y\n@modelcontextprotocol/server-filesystem\n/home/me/projects"}
                aria-describedby={ids.argsHelp}
                onChange={(e) => set("args", e.target.value)}
                data-testid="mcp-form-args"
              />
              <p id={ids.argsHelp} className="field__help">
                {t("mcp.form.argsHelp")}
              </p>
            </div>
            <label htmlFor={ids.cwd} className="field__label">
              {t("mcp.form.cwd")}
            </label>
            <input
              id={ids.cwd}
              className="input mono"
              value={draft.cwd}
              placeholder={t("mcp.form.cwdPlaceholder")}
              onChange={(e) => set("cwd", e.target.value)}
              data-testid="mcp-form-cwd"
            />
            <span className="field__label">{t("mcp.form.env")}</span>
            <VarsEditor kind="env" vars={draft.env} onChange={(v) => set("env", v)} />
          </>
        )}

        {(draft.transport === "http" || draft.transport === "sse") && (
          <>
            <label htmlFor={ids.url} className="field__label">
              {t("mcp.form.url")}
            </label>
            <input
              id={ids.url}
              className="input mono"
              type="url"
              value={draft.url}
              placeholder="https://example.com/mcp"
              onChange={(e) => set("url", e.target.value)}
              data-testid="mcp-form-url"
            />
            <span className="field__label">{t("mcp.form.headers")}</span>
            <VarsEditor kind="header" vars={draft.headers} onChange={(v) => set("headers", v)} />
          </>
        )}

        <label htmlFor={ids.connect} className="field__label">
          {t("mcp.form.connectTimeout")}
        </label>
        <div className="mcp-form__inline">
          <input
            id={ids.connect}
            className="input mcp-form__num"
            inputMode="decimal"
            value={draft.connectTimeout}
            placeholder="30"
            aria-invalid={badConnect || undefined}
            onChange={(e) => set("connectTimeout", e.target.value)}
            data-testid="mcp-form-connect-timeout"
          />
          <span className="muted">{t("mcp.form.seconds")}</span>
          <label htmlFor={ids.call} className="field__label mcp-form__inline-label">
            {t("mcp.form.callTimeout")}
          </label>
          <input
            id={ids.call}
            className="input mcp-form__num"
            inputMode="decimal"
            value={draft.callTimeout}
            placeholder={t("mcp.form.callTimeoutNone")}
            aria-invalid={badCall || undefined}
            onChange={(e) => set("callTimeout", e.target.value)}
            data-testid="mcp-form-call-timeout"
          />
          <span className="muted">{t("mcp.form.seconds")}</span>
        </div>
        {(badConnect || badCall) && <p className="field__help mcp-form__span mcp-form__invalid">{t("mcp.form.timeoutInvalid")}</p>}

        <label htmlFor={ids.rootsMode} className="field__label">
          {t("mcp.form.rootsMode")}
        </label>
        <div>
          <select
            id={ids.rootsMode}
            className="input select"
            value={draft.rootsMode}
            aria-describedby={ids.rootsHelp}
            onChange={(e) => set("rootsMode", e.target.value as McpRootsMode)}
            data-testid="mcp-form-roots-mode"
          >
            <option value="">
              {server?.rootsModeInEffect && (server.rootsMode ?? "") === draft.rootsMode
                ? t("mcp.form.rootsModeAuto", { mode: t(`mcp.form.rootsModeNames.${server.rootsModeInEffect}`) })
                : t("mcp.form.rootsModeAutoNew")}
            </option>
            {ROOTS_MODES.map((m) => (
              <option key={m} value={m}>
                {t(`mcp.form.rootsModeNames.${m}`)}
              </option>
            ))}
          </select>
          <p id={ids.rootsHelp} className="field__help">
            {t(`mcp.form.rootsModeHelp.${draft.rootsMode || "auto"}`)}
          </p>
        </div>
        {draft.rootsMode !== "none" && (
          <>
            <label htmlFor={ids.roots} className="field__label">
              {t("mcp.form.roots")}
            </label>
            <div>
              <textarea
                id={ids.roots}
                className="input textarea mono mcp-form__lines"
                rows={2}
                value={draft.roots}
                onChange={(e) => set("roots", e.target.value)}
                data-testid="mcp-form-roots"
              />
              <p className="field__help">{t("mcp.form.rootsHelp")}</p>
            </div>
          </>
        )}

        {draft.transport === "stdio" && <SandboxFields draft={draft} set={set} />}

        <span />
        <div>
          <label className="check-label">
            <input
              type="checkbox"
              checked={draft.trustReadOnlyHints}
              aria-describedby={ids.trustHelp}
              onChange={(e) => set("trustReadOnlyHints", e.target.checked)}
              data-testid="mcp-form-trust-hints"
            />
            {t("mcp.form.trustHints")}
          </label>
          <p id={ids.trustHelp} className="field__help">
            {t("mcp.form.trustHintsHelp")}
          </p>
        </div>

        {!server && (
          <>
            <span />
            <label className="check-label">
              <input type="checkbox" checked={draft.enabled} onChange={(e) => set("enabled", e.target.checked)} data-testid="mcp-form-enabled" />
              {t("mcp.form.enabled")}
            </label>
          </>
        )}
      </div>

      {credentials.length > 0 && <CredentialsNote credentials={credentials} />}
      {warnings.length > 0 && (
        <div className="mcp-form__warnings" role="status" data-testid="mcp-form-warnings">
          <p>{t("mcp.credentials.savedWithWarnings")}</p>
          {warnings.map((w, i) => (
            <ErrorView key={i} error={w} compact />
          ))}
        </div>
      )}
      {error && <ErrorView error={error} compact />}
      {report && <McpTestReportView report={report} onClose={() => setReport(null)} />}

      <div className="mcp-form__actions">
        <button type="button" className="btn" onClick={test} disabled={!canSubmit} aria-disabled={busy !== null || undefined} data-testid="mcp-form-test">
          {busy === "test" && <span className="spinner" aria-hidden="true" />}
          {busy === "test" ? t("mcp.testing") : t("mcp.test")}
        </button>
        <span className="spacer" />
        <button type="button" className="btn btn--quiet" onClick={() => onDone(null)}>
          {t("common:actions.cancel")}
        </button>
        <button type="submit" className="btn btn--primary" disabled={!canSubmit} aria-disabled={busy !== null || undefined} data-testid="mcp-form-save">
          {busy === "save" && <span className="spinner" aria-hidden="true" />}
          {t("common:actions.save")}
        </button>
      </div>
    </form>
  );
}

type SetDraft = <K extends keyof ServerDraft>(k: K, v: ServerDraft[K]) => void;

/**
 * The sandbox of a stdio server: on or off, and while on its writable and read-only
 * folders and the domains it may reach (one per line).
 */
function SandboxFields({ draft, set }: { draft: ServerDraft; set: SetDraft }) {
  const { t } = useTranslation("settings");
  const id = useId();
  const lists = [
    { key: "sandboxWrite", label: "sandboxWrite", help: "sandboxWriteHelp", testId: "mcp-form-sandbox-write", placeholder: "/home/me/projects/site" },
    { key: "sandboxRead", label: "sandboxRead", help: "sandboxReadHelp", testId: "mcp-form-sandbox-read", placeholder: "/home/me/docs" },
    { key: "sandboxDomains", label: "sandboxDomains", help: "sandboxDomainsHelp", testId: "mcp-form-sandbox-domains", placeholder: "api.example.com" },
  ] as const;
  return (
    <>
      <span className="field__label">{t("mcp.form.sandbox")}</span>
      <div>
        <label className="check-label">
          <input
            type="checkbox"
            checked={draft.sandbox}
            aria-describedby={`${id}-help`}
            onChange={(e) => set("sandbox", e.target.checked)}
            data-testid="mcp-form-sandbox"
          />
          {t("mcp.form.sandboxOn")}
        </label>
        <p id={`${id}-help`} className="field__help">
          {t("mcp.form.sandboxHelp")}
        </p>
      </div>
      {draft.sandbox &&
        lists.map((l) => (
          <SandboxList key={l.key} id={`${id}-${l.key}`} label={t(`mcp.form.${l.label}`)} help={t(`mcp.form.${l.help}`)} testId={l.testId}
            placeholder={l.placeholder} value={draft[l.key]} onChange={(v) => set(l.key, v)} />
        ))}
    </>
  );
}

function SandboxList(p: { id: string; label: string; help: string; testId: string; placeholder: string; value: string; onChange: (v: string) => void }) {
  return (
    <>
      <label htmlFor={p.id} className="field__label">
        {p.label}
      </label>
      <div>
        <textarea
          id={p.id}
          className="input textarea mono mcp-form__lines"
          rows={2}
          value={p.value}
          placeholder={p.placeholder}
          aria-describedby={`${p.id}-help`}
          onChange={(e) => p.onChange(e.target.value)}
          data-testid={p.testId}
        />
        <p id={`${p.id}-help`} className="field__help">
          {p.help}
        </p>
      </div>
    </>
  );
}

/** Rows of name, value and a "secret" switch; a stored secret shows only its last four characters. */
function VarsEditor({ kind, vars, onChange }: { kind: "env" | "header"; vars: VarDraft[]; onChange: (v: VarDraft[]) => void }) {
  const { t } = useTranslation("settings");
  const update = (key: number, patch: Partial<VarDraft>) => onChange(vars.map((v) => (v.key === key ? { ...v, ...patch } : v)));
  const prefix = `mcp-${kind}`;
  return (
    <div className="mcp-vars" data-testid={`${prefix}-editor`}>
      {vars.length > 0 && (
        <ul className="mcp-vars__list">
          {vars.map((v, i) => {
            const placeholder = v.secret
              ? v.stored
                ? v.last4
                  ? t("mcp.vars.storedLast4", { last4: v.last4 })
                  : t("mcp.vars.stored")
                : t("mcp.vars.secretPlaceholder")
              : t("mcp.vars.value");
            return (
              <li key={v.key} className="mcp-vars__row" data-testid={`${prefix}-row`}>
                <input
                  className="input mono mcp-vars__name"
                  value={v.name}
                  placeholder={kind === "env" ? "API_KEY" : "Authorization"}
                  aria-label={t(`mcp.vars.${kind}Name`, { n: i + 1 })}
                  onChange={(e) => update(v.key, { name: e.target.value })}
                  data-testid={`${prefix}-name`}
                />
                <input
                  className="input mono mcp-vars__value"
                  type={v.secret ? "password" : "text"}
                  value={v.value}
                  placeholder={placeholder}
                  aria-label={t(`mcp.vars.${kind}Value`, { n: i + 1 })}
                  autoComplete="off"
                  onChange={(e) => update(v.key, { value: e.target.value })}
                  data-testid={`${prefix}-value`}
                />
                <label className="check-label mcp-vars__secret" title={t("mcp.vars.secretHelp")}>
                  <input
                    type="checkbox"
                    checked={v.secret}
                    onChange={(e) => update(v.key, { secret: e.target.checked })}
                    data-testid={`${prefix}-secret`}
                  />
                  <Icon name="key" size={13} />
                  {t("mcp.vars.secret")}
                </label>
                <button
                  type="button"
                  className="icon-btn icon-btn--small"
                  aria-label={t("mcp.vars.remove", { name: v.name || String(i + 1) })}
                  onClick={() => onChange(vars.filter((x) => x.key !== v.key))}
                >
                  <Icon name="x" size={14} />
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <button type="button" className="btn btn--small btn--quiet mcp-vars__add" onClick={() => onChange([...vars, newVar({ secret: kind === "header" })])} data-testid={`${prefix}-add`}>
        <Icon name="plus" size={14} />
        {t(`mcp.vars.${kind}Add`)}
      </button>
      {vars.some((v) => v.secret) && <p className="field__help">{t("mcp.vars.secretNote")}</p>}
    </div>
  );
}

/** The credentials Cairn keeps in the keyring for this server, masked. */
function CredentialsNote({ credentials }: { credentials: McpCredential[] }) {
  const { t } = useTranslation("settings");
  return (
    <section className="mcp-form__credentials" aria-label={t("mcp.credentials.title")} data-testid="mcp-credentials">
      <p className="field__label">
        <Icon name="key" size={13} /> {t("mcp.credentials.title")}
      </p>
      <ul className="mcp-vars__list">
        {credentials.map((c) => (
          <li key={c.name} data-testid="mcp-credential">
            <code>{c.name}</code>{" "}
            <span className="muted">
              {c.set ? (c.last4 ? t("mcp.vars.storedLast4", { last4: c.last4 }) : t("mcp.vars.stored")) : t("mcp.credentials.missing")}
            </span>
          </li>
        ))}
      </ul>
      <p className="field__help">{t("mcp.credentials.help", { marker: "{{cairn-secret:…}}" })}</p>
    </section>
  );
}
