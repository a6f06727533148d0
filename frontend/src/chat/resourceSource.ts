import type { CairnClient } from "../api";
import type { ComposerResource, ResourceSource } from "./ResourceMenu";

/**
 * The composer's resources: those every enabled MCP server lists, read live (a server
 * that fails to answer is left out of the menu, not an error for the others). Attaching
 * one reads it into the attachment store (AttachMCPResource).
 */
export function mcpResourceSource(client: CairnClient): ResourceSource {
  return {
    list: async () => {
      const snap = await client.mcp.list();
      const servers = snap.servers.filter((s) => s.enabled);
      const lists = await Promise.allSettled(servers.map((s) => client.mcp.resources(s.id)));
      const out: ComposerResource[] = [];
      servers.forEach((s, i) => {
        const r = lists[i];
        if (r?.status !== "fulfilled") return;
        for (const resource of r.value.resources ?? []) out.push({ serverId: s.id, server: s.name, resource });
      });
      return out;
    },
    attach: (r) => client.mcp.attachResource(r.serverId, r.resource.uri, r.resource.title || r.resource.name),
    onChange: (fn) => client.mcp.watchLists((_, kind) => kind === "resources" && fn()),
  };
}
