import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { KB_TOPIC, toAppError, useClient, type AppError, type KbSessionKBs, type KnowledgeBase } from "../api";
import { Visible } from "../tools/visible";
import { ComposerPopover } from "./ComposerPopover";

/**
 * The composer's knowledge control: which knowledge bases this conversation's kb_search
 * searches by default. Attaching one turns the conversation's kb toolset on (the backend
 * does). Kept current from kb:attached and kb:changed, so two windows agree.
 */
export function KbAttach({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const [kbs, setKbs] = useState<KnowledgeBase[]>([]);
  const [attached, setAttached] = useState<string[]>([]);
  const [error, setError] = useState<AppError | null>(null);

  useEffect(() => {
    let live = true;
    const load = () =>
      Promise.all([client.kb.list(), client.kb.sessionKBs(sessionId)])
        .then(([l, a]) => {
          if (!live) return;
          setKbs(l);
          setAttached(a);
        })
        .catch((e) => live && setError(toAppError(e)));
    void load();
    const off = client.transport.subscribe((ev) => {
      if (ev.topic !== KB_TOPIC) return;
      if (ev.type === "kb:attached" && (ev.data as KbSessionKBs).sessionId === sessionId) setAttached((ev.data as KbSessionKBs).kbs ?? []);
      if (ev.type === "kb:changed") void load();
    });
    return () => {
      live = false;
      off();
    };
  }, [client, sessionId]);

  const toggle = async (id: string) => {
    const next = attached.includes(id) ? attached.filter((x) => x !== id) : [...attached, id];
    setError(null);
    try {
      setAttached(await client.kb.setSessionKBs(sessionId, next));
    } catch (e) {
      setError(toAppError(e));
    }
  };
  const present = attached.filter((id) => kbs.some((k) => k.id === id));
  return (
    <ComposerPopover
      icon="book"
      label={present.length > 0 ? t("kb.attachCount", { count: present.length }) : t("kb.attach")}
      title={t("kb.attachTitle")}
      help={t("kb.attachHelp")}
      testId="kb-attach"
      section="knowledge"
      manage={t("kb.manage")}
      error={error}
    >
      {kbs.length === 0 && <p className="muted">{t("kb.attachNone")}</p>}
      {kbs.map((k) => (
        <label key={k.id} className="check-label">
          <input type="checkbox" checked={attached.includes(k.id)} onChange={() => void toggle(k.id)} data-testid={`kb-attach-${k.name}`} />
          <Visible text={k.name} />
        </label>
      ))}
    </ComposerPopover>
  );
}
