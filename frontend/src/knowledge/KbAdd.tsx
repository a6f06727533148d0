import { useId, useRef, useState, type DragEvent, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, type AppError, type KbFolder, type KnowledgeBase } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { useAppInfo } from "../shell/appInfo";
import { Visible } from "../tools/visible";

/** A file to send with the name it is added under (a folder's files keep their path). */
interface Pending {
  file: File;
  name: string;
}

/** Files of a dropped folder, read through the entries API (recursive). */
async function entryFiles(entry: FileSystemEntry, prefix = ""): Promise<Pending[]> {
  if (entry.name.startsWith(".")) return [];
  if (entry.isFile) {
    const file = await new Promise<File>((ok, fail) => (entry as FileSystemFileEntry).file(ok, fail));
    return [{ file, name: prefix + entry.name }];
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const out: Pending[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((ok, fail) => reader.readEntries(ok, fail));
    if (batch.length === 0) break;
    for (const e of batch) out.push(...(await entryFiles(e, `${prefix}${entry.name}/`)));
  }
  return out;
}

async function droppedFiles(dt: DataTransfer): Promise<Pending[]> {
  const entries = Array.from(dt.items)
    .map((i) => i.webkitGetAsEntry?.())
    .filter((e): e is FileSystemEntry => Boolean(e));
  if (entries.length === 0) return Array.from(dt.files).map((file) => ({ file, name: file.name }));
  const lists = await Promise.all(entries.map((e) => entryFiles(e)));
  return lists.flat();
}

/**
 * Adding documents: drop files or folders on the zone, or pick them. The window sends
 * their contents (a browser gives no paths); folders to keep in sync are added by path
 * below.
 */
export function KbAdd({ kb }: { kb: KnowledgeBase }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const filesRef = useRef<HTMLInputElement>(null);
  const folderRef = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [errors, setErrors] = useState<AppError[]>([]);

  const send = async (items: Pending[]) => {
    setErrors([]);
    setProgress({ done: 0, total: items.length });
    const failed: AppError[] = [];
    for (const [i, it] of items.entries()) {
      try {
        await client.kb.upload(kb.id, it.file, it.name);
      } catch (e) {
        failed.push(toAppError(e));
      }
      setProgress({ done: i + 1, total: items.length });
    }
    setErrors(failed);
    setProgress(null);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void droppedFiles(e.dataTransfer).then(send);
  };
  const picked = (list: FileList | null) => {
    const items = Array.from(list ?? []).map((file) => ({ file, name: file.webkitRelativePath || file.name }));
    if (items.length > 0) void send(items);
  };

  return (
    <section className="group" data-testid="kb-add">
      <h4 className="group__title">{t("knowledgeBases.add.title")}</h4>
      <div
        className={over ? "kb__drop is-over" : "kb__drop"}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
        data-testid="kb-drop"
      >
        <Icon name="file" size={18} />
        <span>{t("knowledgeBases.add.drop")}</span>
        <button type="button" className="btn btn--small" onClick={() => filesRef.current?.click()}>
          {t("knowledgeBases.add.files")}
        </button>
        <button type="button" className="btn btn--small" onClick={() => folderRef.current?.click()}>
          {t("knowledgeBases.add.folder")}
        </button>
        <input ref={filesRef} type="file" multiple hidden onChange={(e) => picked(e.currentTarget.files)} data-testid="kb-file-input" />
        <input
          ref={folderRef}
          type="file"
          multiple
          hidden
          {...{ webkitdirectory: "" }}
          onChange={(e) => picked(e.currentTarget.files)}
          data-testid="kb-folder-input"
        />
      </div>
      {progress && (
        <p role="status" className="muted">
          {t("knowledgeBases.add.uploading", progress)}
        </p>
      )}
      {errors.map((err, i) => (
        <ErrorView key={i} error={err} compact />
      ))}
    </section>
  );
}

/** Folders added by path: keep in sync (a switch each), remove; and the form to add one. */
export function KbFolders({ kb, folders }: { kb: KnowledgeBase; folders: KbFolder[] }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [removing, setRemoving] = useState<KbFolder | null>(null);
  const toggle = useAction((f: KbFolder) => client.kb.setFolderSync(f.id, !f.sync));
  const remove = useAction((f: KbFolder) => client.kb.removeFolder(f.id));
  return (
    <section className="group" data-testid="kb-folders">
      <h4 className="group__title">{t("knowledgeBases.folders.title")}</h4>
      {folders.length === 0 && <p className="muted">{t("knowledgeBases.folders.none")}</p>}
      <ul className="kb__folders">
        {folders.map((f) => (
          <li key={f.id} className="kb__folder" data-testid="kb-folder">
            <code className="path">
              <Visible text={f.path} />
            </code>
            <label className="check-label">
              <input type="checkbox" checked={f.sync} onChange={() => void toggle.run(f)} data-testid="kb-folder-sync" />
              {t("knowledgeBases.folders.sync")}
            </label>
            {f.syncedAt ? <span className="muted">{t("knowledgeBases.folders.lastSync", { time: new Date(f.syncedAt).toLocaleTimeString() })}</span> : null}
            <button type="button" className="icon-btn icon-btn--small" aria-label={t("knowledgeBases.folders.remove")} onClick={() => setRemoving(f)}>
              <Icon name="trash" size={14} />
            </button>
          </li>
        ))}
      </ul>
      {(toggle.error ?? remove.error) && <ErrorView error={toggle.error ?? remove.error} compact />}
      <AddFolder kb={kb} />
      <ConfirmDialog
        subject={removing}
        onCancel={() => setRemoving(null)}
        onConfirm={(f) => void remove.run(f).then(() => setRemoving(null))}
        title={t("knowledgeBases.folders.removeTitle", { path: removing?.path ?? "" })}
        description={t("knowledgeBases.folders.removeDescription")}
        confirmLabel={t("knowledgeBases.folders.remove")}
        busy={remove.busy}
      />
    </section>
  );
}

/**
 * The form that adds a folder by path. The desktop window has a native folder dialog
 * (ChooseFolder) behind a Choose button that fills the path; a browser (`cairn serve`)
 * cannot give a folder's path, so there the path is typed.
 */
function AddFolder({ kb }: { kb: KnowledgeBase }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const desktop = useAppInfo().info?.desktop === true;
  const choose = useAction(async () => {
    const picked = await client.system.chooseFolder(t("knowledgeBases.folders.chooseTitle"));
    if (picked) setPath(picked);
  });
  const pathId = useId();
  const ignoreId = useId();
  const [path, setPath] = useState("");
  const [ignore, setIgnore] = useState("");
  const [sync, setSync] = useState(true);
  const add = useAction(async () => {
    const patterns = ignore
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    await client.kb.addFolder(kb.id, path.trim(), patterns, sync);
    setPath("");
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void add.run();
  };
  return (
    <form className="form-grid kb__add-folder" onSubmit={submit} aria-busy={add.busy} data-testid="kb-add-folder">
      <Field id={pathId} label={t("knowledgeBases.folders.path")} help={t("knowledgeBases.folders.pathHelp")}>
        <div className="input-row">
          <input id={pathId} className="input" value={path} onChange={(e) => setPath(e.target.value)} data-testid="kb-folder-path" />
          {desktop && (
            <button type="button" className="btn btn--small" disabled={choose.busy} onClick={() => void choose.run()} data-testid="kb-folder-choose">
              {t("knowledgeBases.folders.choose")}
            </button>
          )}
        </div>
      </Field>
      {choose.error && <ErrorView error={choose.error} compact />}
      <Field id={ignoreId} label={t("knowledgeBases.folders.ignore")} help={t("knowledgeBases.folders.ignoreHelp")}>
        <input id={ignoreId} className="input" value={ignore} onChange={(e) => setIgnore(e.target.value)} />
      </Field>
      <label className="check-label" title={t("knowledgeBases.folders.syncHelp")}>
        <input type="checkbox" checked={sync} onChange={(e) => setSync(e.target.checked)} />
        {t("knowledgeBases.folders.sync")}
      </label>
      {add.error && <ErrorView error={add.error} compact />}
      <button type="submit" className="btn btn--small" disabled={add.busy || path.trim() === ""} data-testid="kb-folder-add">
        {t("knowledgeBases.folders.add")}
      </button>
    </form>
  );
}
