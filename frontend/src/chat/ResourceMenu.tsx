import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { useTranslation } from "react-i18next";
import type { Attachment } from "../api";
import type { McpResourceList } from "../api/mcp";
import { ErrorView } from "../components/ErrorView";

/** One resource of one MCP server, as the composer's resource menu lists it. */
export interface ComposerResource {
  serverId: string;
  server: string;
  resource: McpResourceList["resources"][number];
}

/** Where the composer's resources come from (SessionView: the enabled MCP servers). */
export interface ResourceSource {
  /** Every listed resource, read live (the menu calls it each time it opens). */
  list: () => Promise<ComposerResource[]>;
  /** Reads the resource into the attachment store: what the message sends. */
  attach: (r: ComposerResource) => Promise<Attachment>;
  /** Calls fn when a server announced a new resource list; returns the unsubscribe. */
  onChange?: (fn: () => void) => () => void;
}

export interface ResourceMenuProps {
  source: ResourceSource;
  /** The chosen resource; the menu closes after it. */
  onChoose: (r: ComposerResource) => void;
  onClose: () => void;
}

const key = (r: ComposerResource) => `${r.serverId} ${r.resource.uri}`;
const title = (r: ComposerResource) => r.resource.title || r.resource.name || r.resource.uri;

/**
 * The composer's resource menu: the enabled MCP servers' resources, searchable by server,
 * name, URI and description. Choosing one attaches it to the message being written; a
 * server's notifications/resources/list_changed re-reads the list. Esc closes it.
 */
export function ResourceMenu({ source, onChoose, onClose }: ResourceMenuProps) {
  const { t } = useTranslation("chat");
  const [list, setList] = useState<ComposerResource[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [query, setQuery] = useState("");
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => {
    let live = true;
    const load = () =>
      source.list().then(
        (l) => live && (setList(l), setError(null)),
        (e) => live && setError(e),
      );
    void load();
    const off = source.onChange?.(() => void load());
    search.current?.focus();
    return () => {
      live = false;
      off?.();
    };
  }, [source]);

  const q = query.trim().toLowerCase();
  const shown = (list ?? []).filter((r) =>
    [r.server, r.resource.name, r.resource.title ?? "", r.resource.uri, r.resource.description ?? ""].some((s) => s.toLowerCase().includes(q)),
  );
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    }
  };
  return (
    <div className="prompt-menu resource-menu" data-testid="resource-menu" onKeyDown={onKeyDown}>
      <input
        ref={search}
        type="search"
        className="input"
        aria-label={t("resources.search")}
        placeholder={t("resources.search")}
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        data-testid="resource-search"
      />
      {error ? <ErrorView error={error} compact /> : null}
      {list === null && !error ? <p className="prompt-menu__note">{t("resources.loading")}</p> : null}
      {list !== null && shown.length === 0 ? <p className="prompt-menu__note">{t("resources.none")}</p> : null}
      <ul role="listbox" aria-label={t("resources.label")} className="prompt-menu__list">
        {shown.map((r) => (
          <li key={key(r)} role="option" aria-selected={false}>
            <button type="button" className="prompt-menu__item" onClick={() => onChoose(r)} data-testid="resource-item" data-uri={r.resource.uri}>
              <span className="prompt-menu__name">
                {r.server}/{title(r)}
              </span>
              <span className="prompt-menu__args">{r.resource.uri}</span>
              {r.resource.description ? <span className="prompt-menu__desc">{r.resource.description}</span> : null}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="btn btn--small" onClick={onClose}>
        {t("resources.close")}
      </button>
    </div>
  );
}
