import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useProviders, useSecrets, type AppError, type Preset, type Provider, type TestResult } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { KeyStorageNote } from "../settings/SecretsPanel";
import { ProviderForm } from "./ProviderForm";
import { ModelPrices } from "./ModelPrices";

type Editing = { kind: "new"; preset: Preset } | { kind: "edit"; id: string } | null;

/** Settings → Providers: the configured providers, add from a preset, edit, test, delete. */
export function ProvidersSection() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const { data, error } = useProviders();
  const secrets = useSecrets().data;
  const [presets, setPresets] = useState<Preset[] | null>(null);
  const [presetsError, setPresetsError] = useState<AppError | null>(null);
  const [choosing, setChoosing] = useState(false);
  const [editing, setEditing] = useState<Editing>(null);
  const [removing, setRemoving] = useState<Provider | null>(null);
  const [removeError, setRemoveError] = useState<AppError | null>(null);
  // A new provider the open "new" form already stored (to fetch its models): shown by the
  // form, not twice in the list.
  const [draftId, setDraftId] = useState<string | null>(null);
  const headingId = useId();

  useEffect(() => {
    let live = true;
    client.providers.presets().then(
      (p) => live && setPresets(p),
      (e: unknown) => live && setPresetsError(toAppError(e)),
    );
    return () => {
      live = false;
    };
  }, [client]);

  const providers = data?.providers ?? [];
  const presetOf = (id: string) => presets?.find((p) => p.id === id);
  const taken = providers.map((p) => p.name);

  const remove = async (p: Provider) => {
    setRemoving(null);
    setRemoveError(null);
    try {
      await client.providers.remove(p.id);
      if (editing?.kind === "edit" && editing.id === p.id) setEditing(null);
    } catch (e) {
      setRemoveError(toAppError(e));
    }
  };

  return (
    <section className="group providers" aria-labelledby={headingId} data-testid="providers-section">
      <div className="group__header">
        <h3 id={headingId} className="group__title">
          {t("providers.title")}
        </h3>
        <button
          type="button"
          className="btn btn--small btn--primary"
          onClick={() => {
            setChoosing((c) => !c);
            setEditing(null);
            setDraftId(null);
          }}
          aria-expanded={choosing}
          data-testid="provider-add"
        >
          <Icon name="plus" size={14} />
          {t("providers.add")}
        </button>
      </div>

      {secrets?.backend === "file" && <KeyStorageNote secrets={secrets} />}
      {error && !data && <ErrorView error={error} onRetry={() => void client.stores.providers.reload()} />}
      {removeError && <ErrorView error={removeError} compact />}

      {choosing && (
        <div className="preset-picker" data-testid="preset-picker">
          <p className="group__description">{t("providers.choosePreset")}</p>
          {presetsError && <ErrorView error={presetsError} compact />}
          <div className="preset-grid">
            {(presets ?? []).map((p) => (
              <button
                key={p.id}
                type="button"
                className="preset"
                data-testid={`preset-${p.id}`}
                onClick={() => {
                  setChoosing(false);
                  setEditing({ kind: "new", preset: p });
                }}
              >
                <span className="preset__name">{p.id === "custom" ? t("providers.custom") : p.name}</span>
                <span className="preset__url">{p.baseUrl || t("providers.customHint")}</span>
                <span className="preset__key">{p.needsKey ? t("providers.needsKey") : t("providers.noKey")}</span>
              </button>
            ))}
          </div>
        </div>
      )}

      {editing?.kind === "new" && (
        <div className="provider-card provider-card--editing">
          <h4 className="provider-card__title">{t("providers.newTitle", { name: editing.preset.id === "custom" ? t("providers.custom") : editing.preset.name })}</h4>
          <ProviderForm
            preset={editing.preset}
            takenNames={taken.filter((_, i) => providers[i]?.id !== draftId)}
            onPersisted={(p) => setDraftId(p.id)}
            onDone={() => {
              setEditing(null);
              setDraftId(null);
            }}
          />
        </div>
      )}

      {data && providers.length === 0 && editing === null && !choosing && (
        <div className="empty-state providers__empty" data-testid="providers-empty">
          <Icon name="plug" size={24} />
          <p className="empty-state__title">{t("providers.empty")}</p>
          <p className="empty-state__hint">{t(secrets?.backend === "file" ? "providers.emptyHintFile" : "providers.emptyHint")}</p>
        </div>
      )}

      <ul className="provider-list">
        {providers
          .filter((p) => !(editing?.kind === "new" && p.id === draftId))
          .map((p) => (
          <li key={p.id} className="provider-card" data-testid="provider-card" data-provider-id={p.id}>
            {editing?.kind === "edit" && editing.id === p.id ? (
              <>
                <h4 className="provider-card__title">{t("providers.editTitle", { name: p.name })}</h4>
                <ProviderForm
                  provider={p}
                  preset={presetOf(p.preset)}
                  takenNames={taken.filter((n) => n !== p.name)}
                  onDone={() => setEditing(null)}
                />
              </>
            ) : (
              <ProviderSummary
                provider={p}
                presetName={p.preset === "custom" ? t("providers.custom") : (presetOf(p.preset)?.name ?? p.preset)}
                onEdit={() => {
                  setChoosing(false);
                  setEditing({ kind: "edit", id: p.id });
                }}
                onDelete={() => setRemoving(p)}
              />
            )}
          </li>
        ))}
      </ul>

      <ConfirmDialog
        subject={removing}
        onCancel={() => setRemoving(null)}
        onConfirm={(p) => void remove(p)}
        title={t("providers.deleteTitle", { name: removing?.name ?? "" })}
        description={t("providers.deleteBody")}
        confirmLabel={t("providers.delete")}
        testId="provider-delete-dialog"
        confirmTestId="provider-delete-confirm"
      />
    </section>
  );
}

function ProviderSummary({
  provider: p,
  presetName,
  onEdit,
  onDelete,
}: {
  provider: Provider;
  presetName: string;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const { t } = useTranslation("settings");
  const client = useClient();
  // The model to test: the provider's default until the user picks another.
  const [picked, setModel] = useState<string | null>(null);
  const model = picked ?? p.defaultModel;
  const [testing, setTesting] = useState(false);
  const [result, setResult] = useState<TestResult | null>(null);
  const [testError, setTestError] = useState<AppError | null>(null);
  const modelSelectId = useId();

  const test = async () => {
    setTesting(true);
    setResult(null);
    setTestError(null);
    try {
      setResult(await client.providers.test(p.id, model));
    } catch (e) {
      setTestError(toAppError(e));
    } finally {
      setTesting(false);
    }
  };

  const keyBadge = p.keySet
    ? p.keyLast4
      ? t("providers.key.setLast4", { last4: p.keyLast4 })
      : t("providers.key.set")
    : p.needsKey
      ? t("providers.key.notSet")
      : t("providers.key.notNeeded");

  return (
    <div className="provider-card__summary">
      <div className="provider-card__row">
        <span className="provider-card__name">{p.name}</span>
        <span className="badge">{presetName}</span>
        <span className={`badge ${p.keySet ? "badge--ok" : p.needsKey ? "badge--warn" : ""}`} data-testid="provider-key-badge">
          <Icon name="key" size={12} />
          {keyBadge}
        </span>
        <span className="spacer" />
        <button type="button" className="btn btn--small" onClick={onEdit} data-testid="provider-edit">
          {t("providers.edit")}
        </button>
        <button type="button" className="btn btn--small btn--danger-quiet" onClick={onDelete} data-testid="provider-delete">
          {t("providers.delete")}
        </button>
      </div>
      <p className="provider-card__url">
        <code>{p.baseUrl}</code>
      </p>
      <p className="provider-card__models muted">
        {p.models.length === 0
          ? t("providers.modelsNone")
          : t("providers.modelsCount", { count: p.models.length, model: p.defaultModel || p.models[0]?.id || "" })}
      </p>
      <div className="provider-card__test">
        {p.models.length > 1 && (
          <>
            <label htmlFor={modelSelectId} className="visually-hidden">
              {t("providers.testModel")}
            </label>
            <select id={modelSelectId} className="input select provider-card__test-model" value={model} onChange={(e) => setModel(e.target.value)}>
              {p.models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.id}
                </option>
              ))}
            </select>
          </>
        )}
        <button type="button" className="btn btn--small" onClick={() => void test()} disabled={testing} data-testid="provider-test">
          {testing ? <span className="spinner" aria-hidden="true" /> : <Icon name="check" size={14} />}
          {testing ? t("providers.testing") : t("providers.test")}
        </button>
        <div className="provider-card__test-result" data-testid="provider-test-result" aria-live="polite">
          {result?.ok && (
            <span className="test-ok">
              <Icon name="check" size={14} />
              {t("providers.testOk", { model: result.model, ms: result.latencyMs, reply: (result.reply ?? "").trim().slice(0, 40) || "…" })}
            </span>
          )}
          {result && !result.ok && result.error && <ErrorView error={result.error} compact />}
          {result && !result.ok && !result.error && <span className="muted">{t("providers.testFailed")}</span>}
          {testError && <ErrorView error={testError} compact />}
        </div>
      </div>
      <ModelPrices provider={p} />
    </div>
  );
}
