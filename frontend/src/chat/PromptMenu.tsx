import { useEffect, useState, type FormEvent } from "react";
import { useTranslation } from "react-i18next";
import type { McpPromptInfo } from "../api/mcp";
import { ErrorView } from "../components/ErrorView";

/** One prompt of one MCP server, as the composer's / menu lists it. */
export interface ComposerPrompt {
  serverId: string;
  server: string;
  prompt: McpPromptInfo;
}

/** Where the composer's prompts come from (SessionView: the enabled MCP servers). */
export interface PromptSource {
  /** Every offered prompt, read live (the menu calls it each time it opens). */
  list: () => Promise<ComposerPrompt[]>;
  /** The prompt filled with args: the text its messages insert. */
  get: (p: ComposerPrompt, args: Record<string, string>) => Promise<string>;
  /** Calls fn when a server announced a new prompt list; returns the unsubscribe. */
  onChange?: (fn: () => void) => () => void;
}

export interface PromptMenuProps {
  source: PromptSource;
  /** What follows the "/": filters by server and prompt name. */
  query: string;
  /** The chosen prompt's text, to put in the composer. */
  onInsert: (text: string) => void;
  onClose: () => void;
}

const label = (p: ComposerPrompt) => `${p.server}/${p.prompt.name}`;

/**
 * The composer's / menu: the MCP servers' prompts, filtered by what is typed after the
 * "/". A prompt with arguments opens a small form (required ones marked); choosing one
 * inserts its messages' text. A server's notifications/prompts/list_changed re-reads it.
 */
export function PromptMenu({ source, query, onInsert, onClose }: PromptMenuProps) {
  const { t } = useTranslation("chat");
  const [prompts, setPrompts] = useState<ComposerPrompt[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [chosen, setChosen] = useState<ComposerPrompt | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    const load = () =>
      source.list().then(
        (l) => live && (setPrompts(l), setError(null)),
        (e) => live && setError(e),
      );
    void load();
    const off = source.onChange?.(() => void load());
    return () => {
      live = false;
      off?.();
    };
  }, [source]);

  const insert = async (p: ComposerPrompt, args: Record<string, string>) => {
    setBusy(true);
    try {
      onInsert(await source.get(p, args));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const choose = (p: ComposerPrompt) => {
    if (p.prompt.arguments.length === 0) void insert(p, {});
    else setChosen(p);
  };

  if (chosen) {
    return <PromptForm prompt={chosen} busy={busy} error={error} onSubmit={(a) => void insert(chosen, a)} onCancel={() => setChosen(null)} />;
  }
  const q = query.toLowerCase();
  const shown = (prompts ?? []).filter((p) => label(p).toLowerCase().includes(q));
  return (
    <div className="prompt-menu" data-testid="prompt-menu">
      {error ? <ErrorView error={error} compact /> : null}
      {prompts === null && !error ? <p className="prompt-menu__note">{t("prompts.loading")}</p> : null}
      {prompts !== null && shown.length === 0 ? <p className="prompt-menu__note">{t("prompts.none")}</p> : null}
      <ul role="listbox" aria-label={t("prompts.label")} className="prompt-menu__list">
        {shown.map((p) => (
          <li key={label(p)} role="option" aria-selected={false}>
            <button type="button" className="prompt-menu__item" disabled={busy} onClick={() => choose(p)}>
              <span className="prompt-menu__name">/{label(p)}</span>
              {p.prompt.arguments.length > 0 ? (
                <span className="prompt-menu__args">
                  {p.prompt.arguments.map((a) => (a.required ? a.name : `${a.name}?`)).join(" ")}
                </span>
              ) : null}
              {p.prompt.description ? <span className="prompt-menu__desc">{p.prompt.description}</span> : null}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="btn btn--small" onClick={onClose}>
        {t("prompts.close")}
      </button>
    </div>
  );
}

interface PromptFormProps {
  prompt: ComposerPrompt;
  busy: boolean;
  error: unknown;
  onSubmit: (args: Record<string, string>) => void;
  onCancel: () => void;
}

/** The arguments of one prompt; an empty optional one is left out. */
function PromptForm({ prompt, busy, error, onSubmit, onCancel }: PromptFormProps) {
  const { t } = useTranslation("chat");
  const [vals, setVals] = useState<Record<string, string>>({});
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const args: Record<string, string> = {};
    for (const a of prompt.prompt.arguments) {
      const v = vals[a.name] ?? "";
      if (v !== "" || a.required) args[a.name] = v;
    }
    onSubmit(args);
  };
  return (
    <form className="prompt-menu prompt-menu__form" data-testid="prompt-form" onSubmit={submit}>
      <p className="prompt-menu__name">/{label(prompt)}</p>
      {prompt.prompt.description ? <p className="prompt-menu__desc">{prompt.prompt.description}</p> : null}
      {prompt.prompt.arguments.map((a) => (
        <label key={a.name} className="prompt-menu__field">
          <span>
            {a.title || a.name}
            {a.required ? ` (${t("prompts.required")})` : ""}
          </span>
          <input
            className="input"
            value={vals[a.name] ?? ""}
            required={a.required}
            placeholder={a.description}
            onChange={(e) => setVals({ ...vals, [a.name]: e.target.value })}
          />
        </label>
      ))}
      {error ? <ErrorView error={error} compact /> : null}
      <div className="prompt-menu__actions">
        <button type="button" className="btn btn--small" onClick={onCancel}>
          {t("prompts.back")}
        </button>
        <button type="submit" className="btn btn--small btn--primary" disabled={busy}>
          {t("prompts.insert")}
        </button>
      </div>
    </form>
  );
}
