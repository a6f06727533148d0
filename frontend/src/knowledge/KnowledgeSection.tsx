import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import { useClient, type KnowledgeBase } from "../api";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { Visible } from "../tools/visible";
import { KbAdd, KbFolders } from "./KbAdd";
import { KbFiles } from "./KbFiles";
import { KbSearch } from "./KbSearch";
import { useKnowledge, type KnowledgeData } from "./useKnowledge";
import "./knowledge.css";

/**
 * Settings → Knowledge bases: the bases (create, rename, delete), and for the chosen one
 * its models, documents (drop, pick, synced folders), each file's ingest state with its
 * error and a retry, and a search to try queries on it.
 */
export function KnowledgeSection() {
  const { t } = useTranslation("settings");
  const [selected, setSelected] = useState<string | null>(null);
  const data = useKnowledge(selected);
  const kbs = data.kbs;

  // The first base is chosen at first; a deleted one gives way to the first left. A base
  // just created is chosen before the list that holds it arrives.
  const shown = useRef<KnowledgeBase[] | null>(null);
  useEffect(() => {
    if (!kbs) return;
    const was = shown.current;
    shown.current = kbs;
    if (selected && kbs.some((k) => k.id === selected)) return;
    if (selected && !was?.some((k) => k.id === selected)) return;
    setSelected(kbs[0]?.id ?? null);
  }, [kbs, selected]);

  const kb = kbs?.find((k) => k.id === selected) ?? null;
  return (
    <div className="kb" data-testid="knowledge-section">
      <p className="muted">{t("knowledgeBases.intro")}</p>
      {data.error && <ErrorView error={data.error} onRetry={data.reload} />}
      <div className="kb__layout">
        <div className="kb__side">
          <KbList kbs={kbs ?? []} selected={selected} onSelect={setSelected} />
          <CreateKb
            onCreated={(k) => {
              setSelected(k.id);
              data.reload();
            }}
          />
        </div>
        {kb && <KbDetail key={kb.id} kb={kb} data={data} />}
      </div>
    </div>
  );
}

function KbList({ kbs, selected, onSelect }: { kbs: KnowledgeBase[]; selected: string | null; onSelect: (id: string) => void }) {
  const { t } = useTranslation("settings");
  if (kbs.length === 0) return <p className="muted" data-testid="kb-none">{t("knowledgeBases.none")}</p>;
  return (
    <ul className="kb__list" aria-label={t("knowledgeBases.listLabel")} data-testid="kb-list">
      {kbs.map((k) => (
        <li key={k.id}>
          <button
            type="button"
            className="kb__list-item"
            aria-current={k.id === selected ? "true" : undefined}
            onClick={() => onSelect(k.id)}
            data-testid={`kb-item-${k.name}`}
          >
            <Icon name="book" size={14} />
            <span className="kb__list-name">
              <Visible text={k.name} />
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}

function CreateKb({ onCreated }: { onCreated: (k: KnowledgeBase) => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const nameId = useId();
  const embId = useId();
  const [name, setName] = useState("");
  const [embedding, setEmbedding] = useState("");
  const create = useAction(async () => {
    const k = await client.kb.create(name.trim(), embedding.trim());
    setName("");
    setEmbedding("");
    onCreated(k);
    return k;
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void create.run();
  };
  return (
    <form className="kb__create" onSubmit={submit} aria-busy={create.busy} data-testid="kb-create">
      <h3 className="group__title">{t("knowledgeBases.createTitle")}</h3>
      <Field id={nameId} label={t("knowledgeBases.name")}>
        <input id={nameId} className="input" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} data-testid="kb-create-name" />
      </Field>
      <Field id={embId} label={t("knowledgeBases.embedding")} help={t("knowledgeBases.embeddingHelp")}>
        <input id={embId} className="input" value={embedding} onChange={(e) => setEmbedding(e.target.value)} data-testid="kb-create-embedding" />
      </Field>
      {create.error && <ErrorView error={create.error} compact />}
      <button type="submit" className="btn btn--primary btn--small" disabled={create.busy || name.trim() === ""} data-testid="kb-create-submit">
        <Icon name="plus" size={14} />
        {t("knowledgeBases.create")}
      </button>
    </form>
  );
}

function KbDetail({ kb, data }: { kb: KnowledgeBase; data: KnowledgeData }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState<KnowledgeBase | null>(null);
  const remove = useAction((k: KnowledgeBase) => client.kb.remove(k.id));
  const model = kb.embedModel ? t("knowledgeBases.model", { model: `${kb.embedProvider}/${kb.embedModel}` }) : t("knowledgeBases.keywordsOnly");
  return (
    <section className="kb__detail" aria-label={kb.name} data-testid="kb-detail">
      <header className="kb__detail-head">
        {renaming ? (
          <RenameKb kb={kb} onDone={() => setRenaming(false)} />
        ) : (
          <h3 className="kb__title" data-testid="kb-title">
            <Visible text={kb.name} />
          </h3>
        )}
        <span className="muted">
          {t("knowledgeBases.summary", { count: data.files.length })} · {model}
        </span>
        <span className="spacer" />
        <button type="button" className="btn btn--quiet btn--small" onClick={() => setRenaming(true)} data-testid="kb-rename">
          <Icon name="edit" size={14} />
          {t("knowledgeBases.rename")}
        </button>
        <button type="button" className="btn btn--danger-quiet btn--small" onClick={() => setDeleting(kb)} data-testid="kb-delete">
          <Icon name="trash" size={14} />
          {t("knowledgeBases.delete")}
        </button>
      </header>
      {remove.error && <ErrorView error={remove.error} compact />}
      <Reembed kb={kb} data={data} />
      <KbModels kb={kb} />
      <KbAdd kb={kb} />
      <KbFolders kb={kb} folders={data.folders} />
      <KbFiles kb={kb} files={data.files} />
      <KbSearch kb={kb} />
      <ConfirmDialog
        subject={deleting}
        onCancel={() => setDeleting(null)}
        onConfirm={(k) => void remove.run(k).then(() => setDeleting(null))}
        title={t("knowledgeBases.deleteTitle", { name: kb.name })}
        description={t("knowledgeBases.deleteDescription")}
        confirmLabel={t("knowledgeBases.delete")}
        busy={remove.busy}
        testId="kb-delete-dialog"
        confirmTestId="kb-delete-confirm"
      />
    </section>
  );
}

function RenameKb({ kb, onDone }: { kb: KnowledgeBase; onDone: () => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const [name, setName] = useState(kb.name);
  const save = useAction(async () => {
    await client.kb.rename(kb.id, name.trim());
    onDone();
  });
  return (
    <form
      className="kb__rename"
      onSubmit={(e) => {
        e.preventDefault();
        void save.run();
      }}
    >
      <input className="input" aria-label={t("knowledgeBases.name")} value={name} autoFocus maxLength={100} onChange={(e) => setName(e.target.value)} data-testid="kb-rename-input" />
      <button type="submit" className="btn btn--small btn--primary" disabled={save.busy || name.trim() === ""} data-testid="kb-rename-save">
        {t("knowledgeBases.save")}
      </button>
      <button type="button" className="btn btn--small btn--quiet" onClick={onDone}>
        {t("common:actions.cancel")}
      </button>
      {save.error && <ErrorView error={save.error} compact />}
    </form>
  );
}

/** A re-embed under way: its progress, or the error it waits on. */
function Reembed({ kb, data }: { kb: KnowledgeBase; data: KnowledgeData }) {
  const { t } = useTranslation("settings");
  const live = data.reembed[kb.id];
  const p = live && !live.finished ? live : kb.reembed;
  if (!kb.nextEmbedModel || !p) return null;
  return (
    <div className="kb__reembed" role="status" data-testid="kb-reembed">
      <p>{t("knowledgeBases.reembedding", { model: p.model, done: p.done, total: p.total })}</p>
      <progress max={Math.max(1, p.total)} value={p.done} />
      {p.errorCode && (
        <>
          <p className="muted">{t("knowledgeBases.reembedFailed")}</p>
          <ErrorView error={{ code: p.errorCode, i18nKey: `errors.${p.errorCode}`, message: p.errorMessage ?? "", params: { model: p.model } }} compact />
        </>
      )}
    </div>
  );
}

/** The embedding and rerank models, each saved on its own. */
function KbModels({ kb }: { kb: KnowledgeBase }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const embId = useId();
  const rrId = useId();
  const current = kb.nextEmbedModel ? `${kb.nextEmbedProvider}/${kb.nextEmbedModel}` : kb.embedModel ? `${kb.embedProvider}/${kb.embedModel}` : "";
  const [embedding, setEmbedding] = useState(current);
  const [rerank, setRerank] = useState(kb.rerankModel ? `${kb.rerankProvider}/${kb.rerankModel}` : "");
  const save = useAction(async () => {
    if (embedding.trim() !== current) await client.kb.setEmbedding(kb.id, embedding.trim());
    await client.kb.setRerank(kb.id, rerank.trim());
  });
  return (
    <details className="group" data-testid="kb-models">
      <summary className="group__title">{t("knowledgeBases.settings")}</summary>
      <form
        className="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <Field id={embId} label={t("knowledgeBases.embedding")} help={t("knowledgeBases.embeddingHelp")}>
          <input id={embId} className="input" value={embedding} onChange={(e) => setEmbedding(e.target.value)} data-testid="kb-embedding" />
        </Field>
        <Field id={rrId} label={t("knowledgeBases.rerank")} help={t("knowledgeBases.rerankHelp")}>
          <input id={rrId} className="input" value={rerank} onChange={(e) => setRerank(e.target.value)} data-testid="kb-rerank" />
        </Field>
        {save.error && <ErrorView error={save.error} compact />}
        <button type="submit" className="btn btn--small" disabled={save.busy} data-testid="kb-models-save">
          {t("knowledgeBases.save")}
        </button>
      </form>
    </details>
  );
}
