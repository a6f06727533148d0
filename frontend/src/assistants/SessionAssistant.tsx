import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { ASSISTANTS_TOPIC, useClient, type AssistantLink } from "../api";
import { useAssistantText } from "./names";
import "./assistants.css";

/**
 * The conversation header's note of the assistant it was started from: its icon and name
 * as they are now (read again on every change of the assistants), or as they were once it
 * is deleted.
 */
export function SessionAssistant({ sessionId }: { sessionId: string }) {
  const client = useClient();
  const [link, setLink] = useState<AssistantLink | null>(null);

  useEffect(() => {
    let live = true;
    setLink(null);
    const load = () =>
      client.assistants
        .sessionAssistant(sessionId)
        .then((l) => live && setLink(l))
        .catch(() => live && setLink(null));
    void load();
    const off = client.transport.subscribe((ev) => {
      if (ev.topic === ASSISTANTS_TOPIC) void load();
    });
    return () => {
      live = false;
      off();
    };
  }, [client, sessionId]);

  return link ? <AssistantBadge link={link} /> : null;
}

function AssistantBadge({ link }: { link: AssistantLink }) {
  const { t } = useTranslation("settings");
  const text = useAssistantText();
  const name = text.name({ id: link.assistantId, name: link.name, builtin: link.builtin });
  const title = link.deleted ? t("assistants.header.deleted", { name }) : t("assistants.header.from", { name });
  return (
    <span className="badge session-assistant" title={title} data-testid="session-assistant" data-id={link.assistantId}>
      <span aria-hidden="true">{link.icon}</span>
      <span className="visually-hidden">{t("assistants.header.prefix")}</span>
      <span className="session-assistant__name">{name}</span>
    </span>
  );
}
