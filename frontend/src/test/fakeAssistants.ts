import type { AppError, Assistant, AssistantInput, AssistantLink } from "../api";
import type { FakeChat } from "./fakeChat";

type Impl = (...args: unknown[]) => unknown;

function err(code: string, params: Record<string, unknown>, message: string): AppError {
  return { code, i18nKey: `errors.${code}`, params, message };
}

const ICONS = ["🤖", "🌐", "✍️", "🧑‍💻", "🔎", "📚", "💡", "🎨"];

/** The built-in assistants as backend/assistants lists them (texts shortened). */
function builtins(): Assistant[] {
  const b = (id: string, name: string, icon: string, instructions: string, toolsets: string[], temperature: number | null): Assistant => ({
    id, name, icon, description: `${name} description`, instructions, providerId: "", model: "", temperature, topP: null,
    maxTokens: 0, contextMessages: 0, toolsets, kbs: [], skills: [], builtin: true, hidden: false, createdAt: 0, updatedAt: 0,
  });
  return [
    b("translator", "Translator", "🌐", "You are a professional translator.", [], 0.3),
    b("writing-editor", "Writing editor", "✍️", "You are a careful writing editor.", [], 0.5),
    b("code-reviewer", "Code reviewer", "🧑‍💻", "You are an experienced code reviewer.", ["file"], 0.2),
    b("researcher", "Researcher", "🔎", "You are a meticulous research assistant.", ["file", "web"], null),
  ];
}

/**
 * An in-memory assistants facade (app_assistants.go) over FakeChat's sessions: the same
 * method names, refusals and assistants:changed events as backend/assistants.
 */
export class FakeAssistants {
  list: Assistant[] = builtins();
  links = new Map<string, AssistantLink>();
  private n = 0;

  constructor(private readonly chat: FakeChat) {}

  private changed() {
    this.chat.publish("assistants", "assistants:changed", { seq: 0, assistants: this.list });
  }

  get(id: string): Assistant {
    const a = this.list.find((x) => x.id === id);
    if (!a) throw err("assistant_not_found", { name: id }, `no assistant ${id}`);
    return a;
  }

  save(id: string, input: AssistantInput): Assistant {
    const name = input.name.trim();
    if (!name) throw err("assistant_name_required", {}, "no name");
    if (this.list.some((a) => a.id !== id && a.name.toLowerCase() === name.toLowerCase())) throw err("assistant_name_taken", { name }, "taken");
    const cur = id ? this.get(id) : null;
    if (cur?.builtin) throw err("assistant_builtin", { name: cur.name }, "built in");
    const now = Date.now();
    const a: Assistant = {
      id: cur?.id ?? `a${++this.n}`, name, icon: input.icon || "🤖", description: input.description ?? "", instructions: input.instructions ?? "",
      providerId: input.providerId ?? "", model: input.model ?? "", temperature: input.temperature ?? null, topP: input.topP ?? null,
      maxTokens: input.maxTokens ?? 0, contextMessages: input.contextMessages ?? 0, toolsets: [...(input.toolsets ?? [])].sort(),
      kbs: input.kbs ?? [], skills: input.skills ?? [], builtin: false, hidden: cur?.hidden ?? false, createdAt: cur?.createdAt ?? now, updatedAt: now,
    };
    this.list = cur ? this.list.map((x) => (x.id === a.id ? a : x)) : [...this.list, a];
    this.changed();
    return a;
  }

  methods(): Record<string, Impl> {
    return {
      ListAssistants: () => ({ seq: this.chat.seq("assistants"), assistants: this.list }),
      ListAssistantIcons: () => ICONS,
      SaveAssistant: (id, input) => this.save(String(id), input as AssistantInput),
      CopyAssistant: (id) => {
        const src = this.get(String(id));
        return this.save("", { ...src, name: `${src.name} (copy)`, temperature: src.temperature ?? undefined, topP: src.topP ?? undefined });
      },
      DeleteAssistant: (id) => {
        const a = this.get(String(id));
        if (a.builtin) throw err("assistant_builtin", { name: a.name }, "built in");
        this.list = this.list.filter((x) => x.id !== a.id);
        this.changed();
        return null;
      },
      SetAssistantHidden: (id, hidden) => {
        const a = this.get(String(id));
        a.hidden = Boolean(hidden);
        this.changed();
        return { ...a };
      },
      StartAssistant: (id) => {
        const a = this.get(String(id));
        const s = this.chat.addSession({
          providerId: a.providerId, model: a.model, systemPrompt: a.instructions, temperature: a.temperature ?? undefined, topP: a.topP ?? undefined,
          maxTokens: a.maxTokens, contextMessages: a.contextMessages, toolsets: a.toolsets,
        });
        this.links.set(s.id, { sessionId: s.id, assistantId: a.id, name: a.name, icon: a.icon, builtin: a.builtin, deleted: false });
        return { sessionId: s.id, missingKbs: [], missingSkills: [] };
      },
      GetSessionAssistant: (sessionId) => this.links.get(String(sessionId)) ?? null,
    };
  }
}
