import { useState } from "react";
import { useTranslation } from "react-i18next";
import { useClient } from "../api";
import type { McpResourceContent } from "../api/mcp";
import { ErrorView } from "../components/ErrorView";
import { Visible } from "./visible";

/** One resource_link part of an MCP tool result (its display keeps the call's content). */
export interface ResourceLink {
  uri: string;
  name?: string;
  title?: string;
  mimeType?: string;
}

const MCP_NS = "mcp:";

/** The resource links of an MCP tool's display (`{content: [{type: "resource_link", …}]}`). */
export function resourceLinks(namespace: string | undefined, display: unknown): { serverId: string; links: ResourceLink[] } | null {
  if (!namespace?.startsWith(MCP_NS) || !display || typeof display !== "object") return null;
  const content = (display as { content?: unknown }).content;
  if (!Array.isArray(content)) return null;
  const links = content.filter(
    (c): c is ResourceLink & { type: string } =>
      !!c && typeof c === "object" && (c as { type?: unknown }).type === "resource_link" && typeof (c as { uri?: unknown }).uri === "string",
  );
  return links.length > 0 ? { serverId: namespace.slice(MCP_NS.length), links } : null;
}

/**
 * The resource links of a tool card: each opens on demand, read from the server through
 * the facade (ReadMCPResource); text is shown as text, an image as an image, other blobs
 * by their type and size.
 */
export function ResourceLinks({ serverId, links }: { serverId: string; links: ResourceLink[] }) {
  const { t } = useTranslation("chat");
  return (
    <details className="tool-card__section" data-testid="resource-links">
      <summary>{t("tools.resources.links", { count: links.length })}</summary>
      <ul className="resource-links">
        {links.map((l) => (
          <ResourceLinkRow key={l.uri} serverId={serverId} link={l} />
        ))}
      </ul>
    </details>
  );
}

function ResourceLinkRow({ serverId, link }: { serverId: string; link: ResourceLink }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const [contents, setContents] = useState<McpResourceContent[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const open = async () => {
    setBusy(true);
    setError(null);
    try {
      setContents(await client.mcp.readResource(serverId, link.uri));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li className="resource-links__item">
      <span className="resource-links__name">{link.title || link.name || link.uri}</span>{" "}
      <code className="resource-links__uri">{link.uri}</code>{" "}
      {contents === null ? (
        <button type="button" className="btn btn--small" disabled={busy} onClick={() => void open()}>
          {t("tools.resources.open")}
        </button>
      ) : null}
      {error ? <ErrorView error={error} compact /> : null}
      {contents?.map((c, i) => <ResourceBody key={i} content={c} />)}
    </li>
  );
}

function ResourceBody({ content }: { content: McpResourceContent }) {
  const { t } = useTranslation("chat");
  if (!content.blob) {
    return (
      <pre className="tool-card__pre visible-text">
        <Visible text={content.text ?? ""} />
      </pre>
    );
  }
  if (content.mimeType?.startsWith("image/")) {
    return <img className="resource-links__image" alt={content.uri} src={`data:${content.mimeType};base64,${content.blob}`} />;
  }
  return <p className="tool-card__note">{t("tools.resources.blob", { mime: content.mimeType ?? "?", size: content.size })}</p>;
}
