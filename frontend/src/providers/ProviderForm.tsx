import { useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useClient, useSecrets, type LLMHeader, type Model, type Preset, type Provider, type ProviderInput } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { ModelsEditor } from "./ModelsEditor";
import "./network.css";
import { ProviderNetwork } from "./ProviderNetwork";

export interface ProviderFormProps {
  /** The provider being edited; absent for a new one. */
  provider?: Provider;
  /** The preset it starts from (new) or was made from (edit). */
  preset?: Preset;
  /** Names already taken (a new provider gets a free one). */
  takenNames: string[];
  onDone: (saved: Provider | null) => void;
  /** Called each time the form stored the provider (Save, or before fetching models). */
  onPersisted?: (saved: Provider) => void;
}

/** Where requests to a base URL go (scheme, host, port); null when it is not a URL. */
export function originOf(url: string): string | null {
  try {
    const u = new URL(url.trim());
    return `${u.protocol}//${u.host}`;
  } catch {
    return null;
  }
}

function freeName(base: string, taken: string[]): string {
  const lower = new Set(taken.map((n) => n.toLowerCase()));
  if (!base || !lower.has(base.toLowerCase())) return base;
  for (let i = 2; ; i++) if (!lower.has(`${base} ${i}`.toLowerCase())) return `${base} ${i}`;
}

/**
 * Adds or edits a provider. The API key field only sends: it starts empty, what the user
 * types goes to SaveProvider once, and the field is cleared again — the stored key is
 * never shown, only whether one is set and its last four characters.
 */
export function ProviderForm({ provider, preset, takenNames, onDone, onPersisted }: ProviderFormProps) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const ids = { name: useId(), url: useId(), key: useId(), keyHelp: useId(), keepHelp: useId() };
  const [id, setId] = useState(provider?.id);
  const [stored, setStored] = useState<Provider | undefined>(provider);
  const [name, setName] = useState(provider?.name ?? freeName(preset?.id === "custom" ? "" : (preset?.name ?? ""), takenNames));
  const [baseUrl, setBaseUrl] = useState(provider?.baseUrl ?? preset?.baseUrl ?? "");
  const [key, setKey] = useState("");
  const [clearKey, setClearKey] = useState(false);
  // The address the user agreed to send the stored key to; another address asks again.
  const [keepFor, setKeepFor] = useState<string | null>(null);
  const [models, setModels] = useState<Model[]>(provider?.models ?? preset?.models ?? []);
  const [defaultModel, setDefaultModel] = useState(provider?.defaultModel ?? preset?.models?.[0]?.id ?? "");
  const [headers, setHeaders] = useState<LLMHeader[]>(provider?.headers ?? []);
  const [proxy, setProxy] = useState(provider?.proxy ?? "system");
  const [dirty, setDirty] = useState(!provider);
  const [doing, setDoing] = useState<"save" | "fetch">("save");
  const [fetched, setFetched] = useState<number | null>(null);

  const presetId = provider?.preset ?? preset?.id ?? "custom";
  // The stored key would go to another host: the user types the key again or says to keep it.
  const newOrigin = originOf(baseUrl);
  const oldOrigin = stored ? originOf(stored.baseUrl) : null;
  const hostMoved = Boolean(stored?.keySet) && !key.trim() && !clearKey && newOrigin !== null && newOrigin !== oldOrigin;
  const keepKey = hostMoved && keepFor === newOrigin;
  const needsKey = stored?.needsKey ?? preset?.needsKey ?? false;
  const edit = <T,>(fn: (v: T) => void) => (v: T) => {
    fn(v);
    setDirty(true);
  };

  const persist = async (): Promise<Provider> => {
    // Rows left without a name are dropped; a secret's empty value keeps the stored one.
    const sent = headers.filter((h) => h.name.trim()).map((h) => ({ name: h.name.trim(), value: h.value ?? "", secret: Boolean(h.secret) }));
    const input: ProviderInput = { name, preset: presetId, baseUrl, models, defaultModel, headers: sent, proxy };
    if (id) input.id = id;
    if (key.trim()) input.apiKey = key.trim();
    else if (clearKey) input.clearKey = true;
    else if (keepKey) input.keepKey = true;
    const saved = await client.providers.save(input);
    // The key went to the backend; it is not kept in this window.
    setKey("");
    setClearKey(false);
    setKeepFor(null);
    setId(saved.id);
    setStored(saved);
    setModels(saved.models);
    setDefaultModel(saved.defaultModel);
    setHeaders(saved.headers ?? []);
    setProxy(saved.proxy ?? "system");
    setDirty(false);
    onPersisted?.(saved);
    return saved;
  };

  // Save and fetch share one busy state and one error: one runs at a time.
  const action = useAction(async (what: "save" | "fetch") => {
    if (what === "save") {
      onDone(await persist());
      return;
    }
    setFetched(null);
    const p = !id || dirty || key.trim() ? await persist() : stored!;
    const got = await client.providers.fetchModels(p.id);
    setStored(got);
    setModels(got.models);
    setDefaultModel(got.defaultModel);
    setFetched(got.models.length);
  });
  const busy = action.busy ? doing : null;
  const error = action.error;
  const start = (what: "save" | "fetch") => {
    if (action.busy) return;
    setDoing(what);
    void action.run(what);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start("save");
  };
  const fetchModels = () => start("fetch");

  const keyInFile = useSecrets().data?.backend === "file";
  // A typed key wins over what is stored: the badge says what saving will do.
  const keyStatus = key.trim()
    ? t(stored?.keySet ? "providers.key.replacing" : "providers.key.typed")
    : clearKey
      ? t("providers.key.removing")
      : stored?.keySet
        ? stored.keyLast4
          ? t("providers.key.setLast4", { last4: stored.keyLast4 })
          : t("providers.key.set")
        : needsKey
          ? t("providers.key.notSet")
          : t("providers.key.notNeeded");

  return (
    <form className="provider-form" onSubmit={submit} data-testid="provider-form" autoComplete="off">
      <div className="provider-form__grid">
        <Field id={ids.name} label={t("providers.form.name")}>
          <input
          id={ids.name}
          className="input"
          value={name}
          maxLength={64}
          required
          onChange={(e) => edit(setName)(e.target.value)}
          data-testid="provider-name"
          />
        </Field>

        <Field id={ids.url} label={t("providers.form.baseUrl")}>
          <input
          id={ids.url}
          className="input"
          type="url"
          value={baseUrl}
          placeholder={preset?.baseUrl || "https://…/v1"}
          spellCheck={false}
          onChange={(e) => edit(setBaseUrl)(e.target.value)}
          data-testid="provider-base-url"
          />
        </Field>

        <label htmlFor={ids.key} className="field__label">
          {t("providers.form.apiKey")}
        </label>
        <div className="provider-form__key">
          <input
            id={ids.key}
            className="input"
            type="password"
            value={key}
            autoComplete="new-password"
            spellCheck={false}
            placeholder={stored?.keySet ? t("providers.key.replacePlaceholder") : t("providers.key.placeholder")}
            aria-describedby={ids.keyHelp}
            onChange={(e) => {
              setKey(e.target.value);
              if (e.target.value) setClearKey(false);
            }}
            data-testid="provider-key"
          />
          <p id={ids.keyHelp} className="field__help">
            <span className={`badge ${stored?.keySet ? "badge--ok" : ""}`} data-testid="provider-key-status">
              {keyStatus}
            </span>{" "}
            {t(keyInFile ? "providers.key.helpFile" : "providers.key.help")}
            {preset?.keyUrl && (
              <>
                {" "}
                <a href={preset.keyUrl} target="_blank" rel="noreferrer noopener">
                  {t("providers.key.getOne")}
                </a>
              </>
            )}
          </p>
          {stored?.keySet && (
            <label className="check-label">
              <input
                type="checkbox"
                checked={clearKey}
                disabled={Boolean(key)}
                onChange={(e) => edit(setClearKey)(e.target.checked)}
                data-testid="provider-clear-key"
              />
              {t("providers.key.clear")}
            </label>
          )}
          {hostMoved && (
            <div role="group" aria-labelledby={ids.keepHelp}>
              <p id={ids.keepHelp} className="field__help" data-testid="provider-host-moved">
                {t("providers.key.hostMoved", { from: oldOrigin ?? "", to: newOrigin })}
              </p>
              <label className="check-label">
                <input
                  type="checkbox"
                  checked={keepKey}
                  onChange={(e) => edit(setKeepFor)(e.target.checked ? newOrigin : null)}
                  data-testid="provider-keep-key"
                />
                {t("providers.key.keep", { to: newOrigin })}
              </label>
            </div>
          )}
        </div>
      </div>

      <div className="provider-form__models">
        <div className="group__header">
          <h4 className="group__title">{t("providers.models.title")}</h4>
          <button
            type="button"
            className="btn btn--small"
            onClick={fetchModels}
            disabled={busy !== null || !baseUrl.trim() || !name.trim()}
            data-testid="provider-fetch-models"
          >
            <Icon name="refresh" size={14} />
            {busy === "fetch" ? t("providers.models.fetching") : t("providers.models.fetch")}
          </button>
        </div>
        <p className="field__help">{id ? t("providers.models.help") : t("providers.models.helpNew")}</p>
        {fetched !== null && (
          <p className="field__help" role="status">
            {t("providers.models.fetched", { count: fetched })}
          </p>
        )}
        <ModelsEditor
          models={models}
          defaultModel={defaultModel}
          onChange={edit(setModels)}
          onDefault={edit(setDefaultModel)}
          reasoning={stored?.reasoningControls ?? preset?.reasoningControls}
        />
      </div>

      <ProviderNetwork headers={headers} proxy={proxy} onHeaders={edit(setHeaders)} onProxy={edit(setProxy)} />

      {error && <ErrorView error={error} compact />}

      <div className="provider-form__actions">
        <button type="button" className="btn btn--quiet" onClick={() => onDone(stored && !provider ? stored : null)}>
          {t("common:actions.cancel")}
        </button>
        <button type="submit" className="btn btn--primary" disabled={busy !== null} data-testid="provider-save">
          {busy === "save" ? t("common:status.saving") : t("common:actions.save")}
        </button>
      </div>
    </form>
  );
}
