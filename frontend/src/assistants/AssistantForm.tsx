import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { useClient, useProviders, useToolsets, type Assistant, type AssistantInput, type KnowledgeBase, type Skill } from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Field } from "../components/Field";
import { ModelPicker } from "../components/ModelPicker";
import { useAction } from "../components/useAction";

/** The icons an assistant may have when the backend has not said (ListAssistantIcons). */
const FALLBACK_ICONS = ["🤖"];

/** What the form edits: an assistant's input with counts as the fields hold them. */
function draftOf(a: Assistant | null, toolsetDefaults: string[]): AssistantInput {
  if (!a) return { name: "", icon: "🤖", instructions: "", toolsets: toolsetDefaults, kbs: [], skills: [] };
  return {
    name: a.name,
    icon: a.icon,
    description: a.description,
    instructions: a.instructions,
    providerId: a.providerId,
    model: a.model,
    temperature: a.temperature ?? undefined,
    topP: a.topP ?? undefined,
    maxTokens: a.maxTokens,
    contextMessages: a.contextMessages,
    toolsets: [...(a.toolsets ?? [])],
    kbs: [...(a.kbs ?? [])],
    skills: [...(a.skills ?? [])],
  };
}

const toggled = (list: string[] | undefined, v: string) => {
  const cur = list ?? [];
  return cur.includes(v) ? cur.filter((x) => x !== v) : [...cur, v];
};

/**
 * Create or edit one of the user's assistants: name, icon, description, instructions,
 * model, parameters, toolsets, knowledge bases and skills. The backend checks everything;
 * its error shows under the form and nothing typed is lost.
 */
export function AssistantForm({ open, assistant, onClose }: { open: boolean; assistant: Assistant | null; onClose: () => void }) {
  const { t } = useTranslation("settings");
  const client = useClient();
  const providers = useProviders().data?.providers ?? [];
  const toolsets = useToolsets().filter((ts) => !ts.fixed);
  const defaults = toolsets.filter((ts) => ts.chat).map((ts) => ts.name);
  const [draft, setDraft] = useState<AssistantInput>(() => draftOf(assistant, defaults));
  const [icons, setIcons] = useState<string[]>(FALLBACK_ICONS);
  const [kbs, setKbs] = useState<KnowledgeBase[]>([]);
  const [skills, setSkills] = useState<Skill[]>([]);
  const ids = { name: useId(), desc: useId(), instr: useId(), temp: useId(), topP: useId(), max: useId(), ctx: useId(), icons: useId() };

  useEffect(() => {
    if (!open) return;
    setDraft(draftOf(assistant, defaults));
    save.setError(null);
    void client.assistants.icons().then((l) => l.length && setIcons(l)).catch(() => undefined);
    void client.kb.list().then(setKbs).catch(() => setKbs([]));
    void client.skills.list().then((l) => setSkills(l.filter((s) => !s.error && !s.shadowedBy))).catch(() => setSkills([]));
    // only when it opens: a broadcast must not overwrite what is being typed
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, assistant?.id]);

  const save = useAction(async () => {
    await client.assistants.save(assistant?.id ?? "", draft);
    onClose();
  });
  const set = (patch: Partial<AssistantInput>) => setDraft((d) => ({ ...d, ...patch }));
  const num = (v: string) => (v.trim() === "" ? 0 : Number(v));

  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={assistant ? t("assistants.form.editTitle", { name: assistant.name }) : t("assistants.form.newTitle")}
      size="wide"
      testId="assistant-form"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t("common:actions.cancel")}
          </button>
          <button type="button" className="btn btn--primary" disabled={save.busy} onClick={() => void save.run()} data-testid="assistant-save">
            {t("common:actions.save")}
          </button>
        </>
      }
    >
      <form
        className="form-grid assistant-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save.run();
        }}
      >
        <Field id={ids.name} label={t("assistants.form.name")}>
          <input id={ids.name} className="input" value={draft.name} maxLength={64} required onChange={(e) => set({ name: e.target.value })} data-testid="assistant-name" />
        </Field>
        <span className="field__label" id={ids.icons}>
          {t("assistants.form.icon")}
        </span>
        <div className="field__control">
          <div className="assistant-icons" role="radiogroup" aria-labelledby={ids.icons} data-testid="assistant-icons">
            {icons.map((icon) => (
              <label key={icon} className={`assistant-icons__choice${draft.icon === icon ? " is-chosen" : ""}`}>
                <input type="radio" name={ids.icons} className="visually-hidden" checked={draft.icon === icon} onChange={() => set({ icon })} aria-label={icon} />
                <span aria-hidden="true">{icon}</span>
              </label>
            ))}
          </div>
        </div>
        <Field id={ids.desc} label={t("assistants.form.description")}>
          <input id={ids.desc} className="input" value={draft.description ?? ""} maxLength={200} onChange={(e) => set({ description: e.target.value })} data-testid="assistant-description" />
        </Field>
        <Field id={ids.instr} label={t("assistants.form.instructions")} help={t("assistants.form.instructionsHelp")}>
          <textarea id={ids.instr} className="input textarea assistant-form__instructions" value={draft.instructions ?? ""} onChange={(e) => set({ instructions: e.target.value })} data-testid="assistant-instructions" />
        </Field>
        <span className="field__label">{t("assistants.form.model")}</span>
        <div className="field__control">
          <ModelPicker
            value={{ providerId: draft.providerId ?? "", model: draft.model ?? "" }}
            providers={providers}
            testId="assistant"
            onChange={(p) => set({ ...(p.providerId !== undefined ? { providerId: p.providerId } : {}), ...(p.model !== undefined ? { model: p.model } : {}) })}
          />
        </div>
        <Param id={ids.temp} label={t("assistants.form.temperature")} value={draft.temperature} min={0} max={2} step={0.1} start={0.7} onChange={(v) => set({ temperature: v })} testId="assistant-temperature" />
        <Param id={ids.topP} label={t("assistants.form.topP")} value={draft.topP} min={0} max={1} step={0.05} start={1} onChange={(v) => set({ topP: v })} testId="assistant-top-p" />
        <Field id={ids.max} label={t("assistants.form.maxTokens")} help={t("assistants.form.zeroDefault")}>
          <input id={ids.max} className="input" type="number" min={0} max={1000000} value={draft.maxTokens || ""} onChange={(e) => set({ maxTokens: num(e.target.value) })} data-testid="assistant-max-tokens" />
        </Field>
        <Field id={ids.ctx} label={t("assistants.form.contextMessages")} help={t("assistants.form.zeroAll")}>
          <input id={ids.ctx} className="input" type="number" min={0} max={10000} value={draft.contextMessages || ""} onChange={(e) => set({ contextMessages: num(e.target.value) })} data-testid="assistant-context-messages" />
        </Field>
        <Checks legend={t("assistants.form.toolsets")} testId="assistant-toolsets" items={toolsets.map((ts) => ({ value: ts.name, label: t(ts.label) }))} chosen={draft.toolsets ?? []} onToggle={(v) => set({ toolsets: toggled(draft.toolsets, v) })} />
        <Checks legend={t("assistants.form.kbs")} testId="assistant-kbs" empty={t("assistants.form.noKbs")} items={[...kbs.map((k) => ({ value: k.id, label: k.name })), ...(draft.kbs ?? []).filter((id) => !kbs.some((k) => k.id === id)).map((id) => ({ value: id, label: t("assistants.form.gone", { name: id }) }))]} chosen={draft.kbs ?? []} onToggle={(v) => set({ kbs: toggled(draft.kbs, v) })} />
        <Checks legend={t("assistants.form.skills")} testId="assistant-skills" empty={t("assistants.form.noSkills")} items={[...skills.map((s) => ({ value: s.name, label: s.name })), ...(draft.skills ?? []).filter((n) => !skills.some((s) => s.name === n)).map((n) => ({ value: n, label: t("assistants.form.gone", { name: n }) }))]} chosen={draft.skills ?? []} onToggle={(v) => set({ skills: toggled(draft.skills, v) })} />
        {save.error && (
          <div className="assistant-form__error">
            <ErrorView error={save.error} compact />
          </div>
        )}
      </form>
    </Dialog>
  );
}

/** A sampling parameter: "provider default" (unset) or a value on a slider. */
function Param(props: { id: string; label: string; value: number | undefined; min: number; max: number; step: number; start: number; onChange: (v: number | undefined) => void; testId: string }) {
  const { t } = useTranslation("settings");
  const { id, value } = props;
  return (
    <Field id={id} label={props.label}>
      <div className="assistant-param">
        <label className="check-label">
          <input type="checkbox" checked={value === undefined} onChange={(e) => props.onChange(e.target.checked ? undefined : props.start)} data-testid={`${props.testId}-default`} />
          {t("assistants.form.providerDefault")}
        </label>
        <input id={id} type="range" min={props.min} max={props.max} step={props.step} disabled={value === undefined} value={value ?? props.start} onChange={(e) => props.onChange(Number(e.target.value))} data-testid={props.testId} />
        <output htmlFor={id}>{value === undefined ? "—" : value.toFixed(2)}</output>
      </div>
    </Field>
  );
}

/** A group of checkboxes (toolsets, knowledge bases, skills) in the form's grid. */
function Checks({ legend, items, chosen, onToggle, empty, testId }: { legend: string; items: { value: string; label: string }[]; chosen: string[]; onToggle: (v: string) => void; empty?: string; testId: string }) {
  const id = useId();
  return (
    <>
      <span className="field__label" id={id}>
        {legend}
      </span>
      <div className="field__control">
        <div className="toolset-grid" role="group" aria-labelledby={id} data-testid={testId}>
          {items.map((it) => (
            <label key={it.value} className="check-label" data-value={it.value}>
              <input type="checkbox" checked={chosen.includes(it.value)} onChange={() => onToggle(it.value)} />
              {it.label}
            </label>
          ))}
          {items.length === 0 && empty && <p className="field__help">{empty}</p>}
        </div>
      </div>
    </>
  );
}
