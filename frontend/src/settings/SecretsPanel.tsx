import { useId, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useSecrets, type AppError, type SecretsSnapshot } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";

/** Where keys live: the system keyring, or (said plainly) a local file. */
export function KeyStorageNote({ secrets }: { secrets: SecretsSnapshot }) {
  const { t, i18n } = useTranslation("settings");
  const file = secrets.backend === "file";
  return (
    <div className={`note ${file ? "note--warn" : "note--ok"}`} data-testid="keyring-status" data-backend={secrets.backend}>
      <Icon name={file ? "alert" : "key"} size={18} />
      <div>
        <p className="note__title">{file ? t("about.keyringFile") : t("about.keyringUsed")}</p>
        {file && <p className="note__body">{t("about.keyringFileHelp")}</p>}
        {secrets.noteKey && i18n.exists(`settings:about.keyringNote.${secrets.noteKey}`) ? (
          <p className="note__body">{t(`about.keyringNote.${secrets.noteKey}`, { error: secrets.noteError ?? "" })}</p>
        ) : (
          secrets.note && <p className="note__body note__raw">{secrets.note}</p>
        )}
      </div>
    </div>
  );
}

/**
 * Set / replace / remove the secrets the backend knows; values are never shown back.
 * `names`, when given, keeps the panel to those keys (a capability's page shows its own).
 */
export function SecretsPanel({ names }: { names?: readonly string[] } = {}) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const store = client.stores.secrets;
  const { data, error } = useSecrets();
  const headingId = useId();
  const [editing, setEditing] = useState<string | null>(null);
  const [removing, setRemoving] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<{ name: string; error: AppError } | null>(null);
  // Only the keys this panel owns: providers' keys and MCP credentials have their sections.
  const secrets = (data?.secrets ?? []).filter((s) => s.known && (!names || names.includes(s.name)));

  const run = async (name: string, fn: () => Promise<unknown>) => {
    setBusy(true);
    setActionError(null);
    try {
      await fn();
      await store.reload();
      return true;
    } catch (e) {
      setActionError({ name, error: toAppError(e) });
      return false;
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="group" aria-labelledby={headingId} data-testid="secrets-panel">
      <h3 id={headingId} className="group__title">
        {t("secrets.title")}
      </h3>
      <p className="group__description">{t("secrets.description")}</p>
      {error && !data && <ErrorView error={error} onRetry={() => void store.reload()} />}
      {data && data.backend === "file" && <KeyStorageNote secrets={data} />}
      {data && secrets.length === 0 && <p className="muted">{t("secrets.empty")}</p>}
      {data && secrets.length > 0 && (
        <ul className="group__body secret-list">
          {secrets.map((s) => (
            <li key={s.name} className="secret" data-testid={`secret-${s.name}`}>
              <div className="secret__row">
                <code className="secret__name">{s.name}</code>
                <span className={`badge ${s.set ? "badge--ok" : ""}`}>
                  {s.set ? t("secrets.set") : t("secrets.notSet")}
                  {s.set && s.last4 ? ` · ${t("secrets.endsIn", { last4: s.last4 })}` : ""}
                </span>
                <span className="spacer" />
                {editing !== s.name && (
                  <button type="button" className="btn btn--small" onClick={() => setEditing(s.name)}>
                    {s.set ? t("secrets.replace") : t("secrets.setKey")}
                  </button>
                )}
                {s.set && (
                  <button type="button" className="btn btn--small btn--danger-quiet" onClick={() => setRemoving(s.name)}>
                    {t("secrets.remove")}
                  </button>
                )}
              </div>
              {editing === s.name && (
                <SecretForm
                  name={s.name}
                  busy={busy}
                  onCancel={() => setEditing(null)}
                  onSave={async (value) => {
                    if (await run(s.name, () => client.secrets.set(s.name, value))) setEditing(null);
                  }}
                />
              )}
              {actionError?.name === s.name && <ErrorView error={actionError.error} compact />}
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        subject={removing}
        onCancel={() => setRemoving(null)}
        onConfirm={(name) => {
          setRemoving(null);
          void run(name, () => client.secrets.remove(name));
        }}
        title={t("secrets.removeTitle", { name: removing ?? "" })}
        description={t("secrets.removeBody")}
        confirmLabel={t("secrets.remove")}
        busy={busy}
      />
    </section>
  );
}

function SecretForm({
  name,
  busy,
  onSave,
  onCancel,
}: {
  name: string;
  busy: boolean;
  onSave: (value: string) => void | Promise<void>;
  onCancel: () => void;
}) {
  const { t } = useTranslation("settings");
  const id = useId();
  const [value, setValue] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void onSave(value);
  };
  return (
    <form className="secret__form" onSubmit={submit}>
      <label htmlFor={id} className="visually-hidden">
        {t("secrets.valueLabel", { name })}
      </label>
      <input
        id={id}
        type="password"
        className="input"
        autoComplete="off"
        spellCheck={false}
        placeholder={t("secrets.placeholder")}
        value={value}
        autoFocus
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") onCancel();
        }}
      />
      <button type="submit" className="btn btn--primary btn--small" disabled={busy}>
        {t("common:actions.save")}
      </button>
      <button type="button" className="btn btn--small btn--quiet" onClick={onCancel}>
        {t("common:actions.cancel")}
      </button>
    </form>
  );
}
