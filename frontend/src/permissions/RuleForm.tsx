import { useId, useMemo, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useClient, useSessionList, useTopic, type PermissionRule } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { BEHAVIORS, draftHasCondition, ruleDraft, ruleFromDraft, type RuleDraft } from "./model";
import { RuleTester } from "./RuleTester";

/** Tool globs worth suggesting besides the registered wire names. */
const NAMESPACE_GLOBS = ["*", "sandbox_*", "file_*", "web_*", "mcp:*", "mcp__*"];

/**
 * Add or edit a rule: behavior, tool glob, path glob, command prefix, the conversation it
 * applies to, a note. "Test" tries the draft against a sample call before it is saved.
 */
export function RuleForm({ rule, onDone }: { rule?: PermissionRule; onDone: () => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const tools = useTopic(client.stores.tools).data?.tools;
  const sessions = useSessionList().data?.sessions ?? [];
  const [draft, setDraft] = useState<RuleDraft>(() => ruleDraft(rule));
  const [testing, setTesting] = useState(false);
  const id = useId();
  const ids = { behavior: `${id}-b`, tool: `${id}-tool`, path: `${id}-path`, command: `${id}-cmd`, scope: `${id}-scope`, note: `${id}-note`, tools: `${id}-tools` };
  const set = <K extends keyof RuleDraft>(k: K, v: RuleDraft[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const suggestions = useMemo(() => {
    const ns = new Set<string>();
    for (const x of tools ?? []) if (x.namespace) ns.add(x.namespace.startsWith("mcp:") ? x.namespace : `${x.namespace}_*`);
    return [...new Set([...NAMESPACE_GLOBS, ...ns, ...(tools ?? []).map((x) => x.name)])];
  }, [tools]);
  const ok = draftHasCondition(draft);
  const current = ruleFromDraft(draft, rule);

  const save = useAction(async (r: PermissionRule) => {
    await client.permissions.saveRule(r);
    onDone();
  });
  const { busy, error } = save;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (ok) void save.run(current);
  };

  return (
    <form className="rule-form" onSubmit={submit} data-testid="permission-rule-form" autoComplete="off">
      <div className="rule-form__grid">
        <span className="field__label" id={ids.behavior}>
          {t("permissions.rule.behavior")}
        </span>
        <div className="perm-segmented" role="radiogroup" aria-labelledby={ids.behavior}>
          {BEHAVIORS.map((b) => (
            <label key={b} className={`perm-segmented__item perm-segmented__item--${b}${draft.behavior === b ? " is-on" : ""}`}>
              <input type="radio" name={`${id}-behavior`} value={b} checked={draft.behavior === b} onChange={() => set("behavior", b)} data-testid={`rule-behavior-${b}`} />
              <span>{t(`permissions.behavior.${b}`)}</span>
            </label>
          ))}
        </div>
        <p className="field__help rule-form__span">{t(`permissions.behaviorHelp.${draft.behavior}`)}</p>

        <Field id={ids.tool} label={t("permissions.rule.tool")} help={t("permissions.rule.toolHelp")}>
          <input
            id={ids.tool}
            className="input mono"
            list={ids.tools}
            value={draft.tool}
            placeholder="sandbox_bash, mcp:*, mcp__github__*"
            onChange={(e) => set("tool", e.target.value)}
            data-testid="rule-tool"
          />
          <datalist id={ids.tools}>
            {suggestions.map((s) => (
              <option key={s} value={s} />
            ))}
          </datalist>
        </Field>

        <Field id={ids.path} label={t("permissions.rule.path")} help={t("permissions.rule.pathHelp")}>
          <input id={ids.path} className="input mono" value={draft.path} placeholder="~/projects/**, **/.env" onChange={(e) => set("path", e.target.value)} data-testid="rule-path" />
        </Field>

        <Field id={ids.command} label={t("permissions.rule.command")} help={t("permissions.rule.commandHelp")}>
          <input id={ids.command} className="input mono" value={draft.command} placeholder="git status" onChange={(e) => set("command", e.target.value)} data-testid="rule-command" />
        </Field>

        <label htmlFor={ids.scope} className="field__label">
          {t("permissions.rule.scope")}
        </label>
        <select id={ids.scope} className="input select" value={draft.sessionId} onChange={(e) => set("sessionId", e.target.value)} data-testid="rule-scope">
          <option value="">{t("permissions.rule.scopeAll")}</option>
          {draft.sessionId && !sessions.some((s) => s.id === draft.sessionId) && <option value={draft.sessionId}>{draft.sessionId}</option>}
          {sessions.map((s) => (
            <option key={s.id} value={s.id}>
              {t("permissions.rule.scopeSession", { title: s.title || t("permissions.rule.untitled") })}
            </option>
          ))}
        </select>

        <label htmlFor={ids.note} className="field__label">
          {t("permissions.rule.note")}
        </label>
        <input id={ids.note} className="input" value={draft.note} maxLength={500} placeholder={t("permissions.rule.notePlaceholder")} onChange={(e) => set("note", e.target.value)} data-testid="rule-note" />
      </div>

      {rule?.fingerprint && draft.behavior === "allow" && <p className="field__help">{t("permissions.rules.fingerprintHelp")}</p>}
      {!ok && <p className="field__help rule-form__hint">{t("permissions.rule.needsCondition")}</p>}
      {error && <ErrorView error={error} compact />}

      <div className="rule-form__actions">
        <button type="button" className="btn" aria-expanded={testing} onClick={() => setTesting((v) => !v)} disabled={!ok} data-testid="rule-form-test">
          <Icon name="shield" size={14} />
          {t("permissions.rule.test")}
        </button>
        <span className="spacer" />
        <button type="button" className="btn btn--quiet" onClick={onDone}>
          {t("common:actions.cancel")}
        </button>
        <button type="submit" className="btn btn--primary" disabled={!ok} aria-disabled={busy || undefined} data-testid="permission-rule-save">
          {busy && <span className="spinner" aria-hidden="true" />}
          {t("common:actions.save")}
        </button>
      </div>
      {testing && ok && <RuleTester draft={current} embedded />}
    </form>
  );
}
