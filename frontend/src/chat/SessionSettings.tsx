import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  PERMISSION_MODES,
  toAppError,
  useClient,
  useToolsets,
  type AppError,
  type PermissionMode,
  type Provider,
  type ReasoningChoice,
  type Session,
  type SessionPatch,
} from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { BypassWarning } from "../permissions/BypassWarning";
import type { SessionModeState } from "../permissions/useSessionMode";
import { hasReasoningControls, ReasoningControl } from "../providers/ReasoningControl";
import { ModelPicker } from "./ModelPicker";

/** The provider and model a session's choice resolves to ("" = the defaults). */
function resolveModel(providers: readonly Provider[], providerId: string, model: string) {
  const provider = providerId ? providers.find((p) => p.id === providerId) : providers[0];
  const id = model || provider?.defaultModel || provider?.models[0]?.id || "";
  return { provider, model: provider?.models.find((m) => m.id === id), modelId: id };
}

/** A count as the field shows it: 0 (the default) is empty. */
const numText = (n: number | undefined) => (n ? String(n) : "");

/** The session's model, system prompt, sampling, history, toolsets and mode, saved together. */
export function SessionSettings({
  open,
  onClose,
  session,
  providers,
  defaultSystemPrompt,
  permission,
}: {
  open: boolean;
  onClose: () => void;
  session: Session;
  providers: readonly Provider[];
  defaultSystemPrompt: string;
  /** The session's permission mode (useSessionPermissionMode); absent = no picker. */
  permission?: SessionModeState;
}) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const promptId = useId();
  const tempId = useId();
  const [prompt, setPrompt] = useState(session.systemPrompt);
  const [temp, setTemp] = useState<number | null>(session.temperature);
  const topPId = useId();
  const maxId = useId();
  const ctxId = useId();
  const [topP, setTopP] = useState<number | null>(session.topP);
  const [maxTokens, setMaxTokens] = useState(numText(session.maxTokens));
  const [contextMessages, setContextMessages] = useState(numText(session.contextMessages));
  const [toolsets, setToolsets] = useState<string[]>(session.toolsets ?? []);
  const choosable = useToolsets().filter((ts) => !ts.fixed);
  const [model, setModel] = useState({ providerId: session.providerId, model: session.model });
  const [reasoning, setReasoning] = useState<ReasoningChoice>(session.reasoning ?? {});
  const [error, setError] = useState<AppError | null>(null);
  const [busy, setBusy] = useState(false);
  const modeId = useId();
  const ownMode = (): PermissionMode | "" => (permission?.own && permission.effective ? permission.effective : "");
  const [mode, setMode] = useState<PermissionMode | "">(ownMode);

  useEffect(() => {
    if (!open) return;
    setPrompt(session.systemPrompt);
    setTemp(session.temperature);
    setTopP(session.topP);
    setMaxTokens(numText(session.maxTokens));
    setContextMessages(numText(session.contextMessages));
    setToolsets(session.toolsets ?? []);
    setModel({ providerId: session.providerId, model: session.model });
    setReasoning(session.reasoning ?? {});
    setMode(ownMode());
    setError(null);
    // only when it opens: later broadcasts must not overwrite what the user is typing
  }, [open]);

  const save = async () => {
    const patch: SessionPatch = { systemPrompt: prompt, toolsets };
    if (temp === null) patch.resetTemperature = true;
    else patch.temperature = temp;
    if (topP === null) patch.resetTopP = true;
    else patch.topP = topP;
    patch.maxTokens = Number(maxTokens) || 0;
    patch.contextMessages = Number(contextMessages) || 0;
    if (model.providerId !== session.providerId) patch.providerId = model.providerId;
    if (model.model !== session.model || model.providerId !== session.providerId) patch.model = model.model;
    patch.reasoning = { effort: reasoning.effort || undefined, budget: reasoning.budget || undefined };
    setBusy(true);
    setError(null);
    try {
      await client.chat.updateSession(session.id, patch);
      if (permission && mode !== ownMode()) await permission.set(mode);
      onClose();
    } catch (e) {
      setError(toAppError(e));
    } finally {
      setBusy(false);
    }
  };

  const target = resolveModel(providers, model.providerId, model.model);
  const controls = target.provider?.reasoningControls;
  const modelEffort = target.model?.reasoningEffort;
  const reasoningDefault = t("settings.reasoningModel", {
    choice: modelEffort ? t(`settings:providers.reasoning.efforts.${modelEffort}`, { defaultValue: modelEffort }) : t("settings:providers.reasoning.providerDefault"),
  });

  const toggle = (ts: string) => setToolsets((cur) => (cur.includes(ts) ? cur.filter((x) => x !== ts) : [...cur, ts].sort()));

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={t("settings.title")}
      testId="session-settings"
      size="wide"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t("common:actions.cancel")}
          </button>
          <button type="button" className="btn btn--primary" onClick={() => void save()} disabled={busy} data-testid="session-settings-save">
            {t("common:actions.save")}
          </button>
        </>
      }
    >
      <div className="session-settings">
        <div className="session-settings__field">
          <span className="field__label">{t("settings.model")}</span>
          <ModelPicker
            session={{ ...session, providerId: model.providerId, model: model.model }}
            providers={providers}
            onChange={(p) =>
              setModel((cur) =>
                p.providerId !== undefined ? { providerId: p.providerId, model: "" } : { ...cur, model: p.model ?? "" },
              )
            }
          />
        </div>
        <div className="session-settings__field">
          <label htmlFor={promptId} className="field__label">
            {t("settings.systemPrompt")}
          </label>
          <textarea
            id={promptId}
            className="input textarea"
            value={prompt}
            placeholder={defaultSystemPrompt ? t("settings.systemPromptDefault", { prompt: defaultSystemPrompt.slice(0, 200) }) : t("settings.systemPromptNone")}
            onChange={(e) => setPrompt(e.target.value)}
            data-testid="session-system-prompt"
          />
          <p className="field__help">{t("settings.systemPromptHelp")}</p>
        </div>
        <div className="session-settings__field">
          <label htmlFor={tempId} className="field__label">
            {t("settings.temperature")}
          </label>
          <div className="session-settings__temp">
            <label className="check-label">
              <input type="checkbox" checked={temp === null} onChange={(e) => setTemp(e.target.checked ? null : (session.temperature ?? 0.7))} />
              {t("settings.temperatureDefault")}
            </label>
            <input
              id={tempId}
              type="range"
              min={0}
              max={2}
              step={0.1}
              disabled={temp === null}
              value={temp ?? 1}
              onChange={(e) => setTemp(Number(e.target.value))}
              data-testid="session-temperature"
            />
            <output className="session-settings__temp-value">{temp === null ? "—" : temp.toFixed(1)}</output>
          </div>
        </div>
        <div className="session-settings__field">
          <label htmlFor={topPId} className="field__label">
            {t("settings.topP")}
          </label>
          <div className="session-settings__temp">
            <label className="check-label">
              <input type="checkbox" checked={topP === null} onChange={(e) => setTopP(e.target.checked ? null : (session.topP ?? 1))} data-testid="session-top-p-default" />
              {t("settings.topPDefault")}
            </label>
            <input
              id={topPId}
              type="range"
              min={0}
              max={1}
              step={0.05}
              disabled={topP === null}
              value={topP ?? 1}
              onChange={(e) => setTopP(Number(e.target.value))}
              data-testid="session-top-p"
            />
            <output className="session-settings__temp-value">{topP === null ? "—" : topP.toFixed(2)}</output>
          </div>
        </div>
        <div className="session-settings__field">
          <label htmlFor={maxId} className="field__label">
            {t("settings.maxTokens")}
          </label>
          <input
            id={maxId}
            className="input"
            type="number"
            inputMode="numeric"
            min={0}
            max={1000000}
            value={maxTokens}
            onChange={(e) => setMaxTokens(e.target.value)}
            aria-describedby={`${maxId}-help`}
            data-testid="session-max-tokens"
          />
          <p className="field__help" id={`${maxId}-help`}>
            {t("settings.maxTokensHelp")}
          </p>
        </div>
        <div className="session-settings__field">
          <label htmlFor={ctxId} className="field__label">
            {t("settings.contextMessages")}
          </label>
          <input
            id={ctxId}
            className="input"
            type="number"
            inputMode="numeric"
            min={0}
            max={10000}
            value={contextMessages}
            onChange={(e) => setContextMessages(e.target.value)}
            aria-describedby={`${ctxId}-help`}
            data-testid="session-context-messages"
          />
          <p className="field__help" id={`${ctxId}-help`}>
            {t("settings.contextMessagesHelp")}
          </p>
        </div>
        {hasReasoningControls(controls) && (
          <div className="session-settings__field">
            <span className="field__label">{t("settings.reasoning")}</span>
            <ReasoningControl
              controls={controls}
              value={reasoning}
              onChange={setReasoning}
              defaultLabel={reasoningDefault}
              label={target.modelId}
              testId="session-reasoning"
            />
            <p className="field__help">{t("settings.reasoningHelp")}</p>
          </div>
        )}
        <fieldset className="session-settings__field session-settings__toolsets">
          <legend className="field__label">{t("settings.toolsets")}</legend>
          <p className="field__help">{t("settings.toolsetsHelp")}</p>
          <div className="toolset-grid">
            {choosable.map((ts) => (
              <label key={ts.name} className="check-label" data-testid={`toolset-${ts.name}`}>
                <input type="checkbox" checked={toolsets.includes(ts.name)} onChange={() => toggle(ts.name)} />
                {t(ts.label)}
              </label>
            ))}
          </div>
        </fieldset>
        {permission && (
          <div className="session-settings__field">
            <label htmlFor={modeId} className="field__label">
              {t("permission.mode")}
            </label>
            <select
              id={modeId}
              className="input select"
              value={mode}
              onChange={(e) => setMode(e.target.value as PermissionMode | "")}
              data-testid="session-permission-mode"
            >
              <option value="">{t("permission.followDefault", { mode: t(`settings:permissions.modes.${permission.defaultMode}.label`) })}</option>
              {PERMISSION_MODES.map((m) => (
                <option key={m} value={m}>
                  {t(`settings:permissions.modes.${m}.label`)}
                </option>
              ))}
            </select>
            <p className="field__help">
              {t(`settings:permissions.modes.${mode || permission.defaultMode}.description`)}
            </p>
            {(mode || permission.defaultMode) === "bypassPermissions" && <BypassWarning scope="session" testId="session-settings-bypass-warning" />}
            {permission.error && <ErrorView error={permission.error} compact />}
          </div>
        )}
        {error && <ErrorView error={error} compact />}
      </div>
    </Dialog>
  );
}
