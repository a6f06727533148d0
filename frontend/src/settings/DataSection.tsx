import { useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useClient } from "../api";
import { bytesToBase64, type ImportReport } from "../api/transfer";
import { useExportLabels } from "../chat/ExportMenu";
import "../chat/transfer.css";
import { ErrorView } from "../components/ErrorView";
import { useSaveFile, type SaveOutcome } from "../components/download";
import { useAction } from "../components/useAction";

/** A picked file's bytes, through FileReader (older webviews have no Blob.arrayBuffer). */
function readBytes(file: Blob): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(new Uint8Array(r.result as ArrayBuffer));
    r.onerror = () => reject(r.error);
    r.readAsArrayBuffer(file);
  });
}

/** What a save did, said in a line (nothing for a cancelled dialog). */
function SavedNote({ outcome }: { outcome: SaveOutcome | null }) {
  const { t } = useTranslation("settings");
  if (!outcome || outcome.kind === "cancelled") return null;
  return (
    <p className="field__help" role="status" data-testid="data-saved">
      {t(`data.${outcome.kind}`, { file: outcome.file })}
    </p>
  );
}

/** Settings → General → Your data: import conversations, export them all, back up, restore. */
export function DataSection() {
  const { t } = useTranslation("settings");
  const titleId = useId();
  return (
    <section className="group" aria-labelledby={titleId} data-testid="data-section">
      <h3 id={titleId} className="group__title">
        {t("data.title")}
      </h3>
      <div className="group__body">
        <ImportRow />
        <ExportAllRow />
        <BackupRow />
        <RestoreRow />
      </div>
    </section>
  );
}

function ImportRow() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const [report, setReport] = useState<ImportReport | null>(null);
  const act = useAction(async (file: File) => {
    setReport(null);
    const data = bytesToBase64(await readBytes(file));
    const rep = await client.transfer.importConversations(file.name, data);
    setReport(rep);
    return rep;
  });
  return (
    <div className="field field--stacked">
      <label className="field__label" htmlFor={id}>
        {t("data.import.label")}
      </label>
      <p className="field__help">{t("data.import.help")}</p>
      <div className="data-transfer__row">
        <input
          id={id}
          ref={input}
          type="file"
          accept=".json,.zip,application/json,application/zip"
          disabled={act.busy}
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            if (f) void act.run(f).finally(() => input.current && (input.current.value = ""));
          }}
          data-testid="data-import-file"
        />
      </div>
      {act.error && <ErrorView error={act.error} compact />}
      {report && (
        <div role="status" data-testid="data-import-report">
          <p className="field__help">
            {t("data.import.summary", { imported: report.imported, skipped: report.skipped, source: t(`data.import.source.${report.source}`) })}
          </p>
          <ul className="data-transfer__report">
            {report.items.map((it, i) => (
              <li key={i} data-status={it.status}>
                {it.status === "imported"
                  ? t("data.import.imported", { title: it.title || t("data.import.untitled"), count: it.messages })
                  : t("data.import.skipped", { title: it.title || t("data.import.untitled"), reason: t(`data.import.reasons.${it.reason}`) })}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function ExportAllRow() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const save = useSaveFile();
  const labels = useExportLabels();
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  const act = useAction(async () => {
    setOutcome(null);
    const out = await save(await client.transfer.exportAll({ reasoning: false, labels }));
    setOutcome(out);
    return out;
  });
  return (
    <div className="field field--stacked">
      <span className="field__label">{t("data.exportAll.label")}</span>
      <p className="field__help">{t("data.exportAll.help")}</p>
      <div className="data-transfer__row">
        <button type="button" className="btn btn--small" onClick={() => void act.run()} disabled={act.busy} data-testid="data-export-all">
          {t("data.exportAll.button")}
        </button>
      </div>
      {act.error && <ErrorView error={act.error} compact onRetry={() => void act.retry()} />}
      <SavedNote outcome={outcome} />
    </div>
  );
}

function BackupRow() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const save = useSaveFile();
  const keysId = useId();
  const passId = useId();
  const [withKeys, setWithKeys] = useState(false);
  const [passphrase, setPassphrase] = useState("");
  const [outcome, setOutcome] = useState<SaveOutcome | null>(null);
  const act = useAction(async () => {
    setOutcome(null);
    const file = await client.transfer.createBackup(withKeys ? { withKeys, passphrase } : { withKeys: false });
    const out = await save(file);
    setOutcome(out);
    setPassphrase("");
    return out;
  });
  return (
    <div className="field field--stacked">
      <span className="field__label">{t("data.backup.label")}</span>
      <p className="field__help">{t("data.backup.help")}</p>
      <div className="data-transfer__row">
        <input id={keysId} type="checkbox" checked={withKeys} onChange={(e) => setWithKeys(e.currentTarget.checked)} data-testid="data-backup-keys" />
        <label htmlFor={keysId}>{t("data.backup.withKeys")}</label>
      </div>
      {withKeys && (
        <div className="data-transfer__row">
          <label htmlFor={passId}>{t("data.backup.passphrase")}</label>
          <input
            id={passId}
            className="input"
            type="password"
            autoComplete="new-password"
            value={passphrase}
            onChange={(e) => setPassphrase(e.currentTarget.value)}
            data-testid="data-backup-passphrase"
          />
        </div>
      )}
      <div className="data-transfer__row">
        <button
          type="button"
          className="btn btn--small"
          onClick={() => void act.run()}
          disabled={act.busy || (withKeys && passphrase === "")}
          data-testid="data-backup"
        >
          {act.busy ? t("data.backup.busy") : t("data.backup.button")}
        </button>
      </div>
      {act.error && <ErrorView error={act.error} compact onRetry={() => void act.retry()} />}
      <SavedNote outcome={outcome} />
    </div>
  );
}

function RestoreRow() {
  const { t } = useTranslation("settings");
  const client = useClient();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [pending, setPending] = useState(false);
  useEffect(() => {
    let live = true;
    client.transfer
      .restoreState()
      .then((s) => live && setPending(s.pending))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [client]);
  const stage = useAction(async (file: File) => {
    const m = await client.transfer.stageRestore(file.name, bytesToBase64(await readBytes(file)));
    setPending(true);
    return m;
  });
  const cancel = useAction(async () => {
    await client.transfer.cancelRestore();
    setPending(false);
  });
  return (
    <div className="field field--stacked">
      <label className="field__label" htmlFor={id}>
        {t("data.restore.label")}
      </label>
      <p className="field__help">{t("data.restore.help")}</p>
      <div className="data-transfer__row">
        <input
          id={id}
          ref={input}
          type="file"
          accept=".zip,application/zip"
          disabled={stage.busy}
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            if (f) void stage.run(f).finally(() => input.current && (input.current.value = ""));
          }}
          data-testid="data-restore-file"
        />
      </div>
      {stage.error && <ErrorView error={stage.error} compact />}
      {cancel.error && <ErrorView error={cancel.error} compact />}
      {pending && (
        <div className="data-transfer__row" role="status" data-testid="data-restore-pending">
          <span>{t("data.restore.pending")}</span>
          <button type="button" className="btn btn--small" onClick={() => void cancel.run()} disabled={cancel.busy} data-testid="data-restore-cancel">
            {t("data.restore.cancel")}
          </button>
        </div>
      )}
      <p className="field__help" data-testid="data-restore-help">
        {t("data.restore.cliHelp")}
      </p>
      <code className="path">cairn restore FILE</code>
    </div>
  );
}
