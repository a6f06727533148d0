import type { CairnClient } from "../api";
import type { ComposerPrompt, PromptSource } from "./PromptMenu";

/**
 * The composer's prompts: those of every enabled MCP server, read live from each (a server
 * that fails to answer is left out of the menu, not an error for the others). The text a
 * prompt inserts is its messages' text, one paragraph each.
 */
export function mcpPromptSource(client: CairnClient): PromptSource {
  return {
    list: async () => {
      const snap = await client.mcp.list();
      const servers = snap.servers.filter((s) => s.enabled);
      const lists = await Promise.allSettled(servers.map((s) => client.mcp.prompts(s.id)));
      const out: ComposerPrompt[] = [];
      servers.forEach((s, i) => {
        const r = lists[i];
        if (r?.status !== "fulfilled") return;
        for (const prompt of r.value) out.push({ serverId: s.id, server: s.name, prompt });
      });
      return out;
    },
    get: async (p, args) => {
      const res = await client.mcp.getPrompt(p.serverId, p.prompt.name, args);
      return res.messages.map((m) => m.text).filter((t) => t !== "").join("\n\n");
    },
    onChange: (fn) => client.mcp.watchLists((_, kind) => kind === "prompts" && fn()),
  };
}
