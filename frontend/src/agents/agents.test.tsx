import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { AgentType } from "../api";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { AgentsSection } from "./AgentsSection";

const BUILT_IN: AgentType[] = [
  { name: "general", description: "Any task.", instructions: "", tools: ["*"], builtIn: true },
  { name: "coder", description: "Code.", instructions: "", tools: ["sandbox_*"], builtIn: true, taskOnly: true },
];

function setup() {
  let types = [...BUILT_IN, { name: "reviewer", description: "Reviews.", instructions: "Review.", tools: ["sandbox_read"], builtIn: false }];
  const transport = new FakeTransport({
    ListAgentTypes: () => types,
    ListProviders: () => ({ seq: 1, providers: [] }),
    SaveAgentType: (t) => {
      const type = t as AgentType;
      if (type.name === "Bad") return Promise.reject({ code: "agent_type_invalid", i18nKey: "errors.agent_type_invalid", params: { message: "the name must be a lowercase word" }, message: "bad" });
      types = [...types.filter((x) => x.name !== type.name), type];
      return type;
    },
    DeleteAgentType: (name) => {
      types = types.filter((x) => x.name !== name);
    },
  });
  renderWithClient(<AgentsSection />, { transport, ready: null });
  return transport;
}

describe("Settings → Sub-agents", () => {
  it("lists the built-in types read-only and the user's with edit and delete", async () => {
    setup();
    const rows = await screen.findAllByTestId("agent-type");
    expect(rows.map((r) => r.getAttribute("data-name"))).toEqual(["general", "coder", "reviewer"]);
    expect(rows[0]).toHaveTextContent("every tool of the conversation");
    expect(rows[1]).toHaveTextContent("task sessions only");
    expect(within(rows[0]!).queryByTestId("agent-type-edit")).toBeNull();
    expect(within(rows[2]!).getByTestId("agent-type-edit")).toBeInTheDocument();
  });
});
