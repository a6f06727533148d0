import type * as wire from "./generated";
import type { Transport } from "./types";

// Wire types of the sub-agents facade (app_agents.go, backend/agents).

export type AgentRun = wire.AgentsRun;
export type AgentType = wire.AgentsType;
export type AgentRunState = "running" | "done" | "error" | "stopped" | "budget";

/** The wire name of the tool that starts a sub-agent. */
export const AGENT_RUN_TOOL = "agent_run";

/** The topic of sub-agent types: agents:types when the user's types change. */
export const AGENTS_TOPIC = "agents";

/** Sub-agents: the run a call started, a session's runs, the types. */
export function agentsApi(t: Transport) {
  return {
    getRun: (sessionId: string, callId: string) => t.call<AgentRun>("GetAgentRun", sessionId, callId),
    listRuns: async (sessionId: string): Promise<AgentRun[]> => (await t.call<AgentRun[] | null>("ListAgentRuns", sessionId)) ?? [],
    listTypes: async (): Promise<AgentType[]> => (await t.call<AgentType[] | null>("ListAgentTypes")) ?? [],
    saveType: (type: AgentType) => t.call<AgentType>("SaveAgentType", type),
    deleteType: (name: string) => t.call<void>("DeleteAgentType", name),
  };
}

export type AgentsApi = ReturnType<typeof agentsApi>;
