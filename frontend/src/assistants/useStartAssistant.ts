import { useState } from "react";
import { useClient } from "../api";
import { useAction } from "../components/useAction";
import { useRouter } from "../shell/router";

/**
 * Starts a conversation from an assistant and opens it. `missing` names what the
 * assistant attaches that no longer exists (knowledge bases, skills), which the chat
 * started without.
 */
export function useStartAssistant() {
  const client = useClient();
  const { navigate } = useRouter();
  const [missing, setMissing] = useState<string[]>([]);
  const action = useAction(async (id: string) => {
    setMissing([]);
    const started = await client.assistants.start(id);
    setMissing([...(started.missingKbs ?? []), ...(started.missingSkills ?? [])]);
    navigate({ name: "session", id: started.sessionId });
    return started;
  });
  return { ...action, missing, dismiss: () => setMissing([]) };
}

export type StartAssistant = ReturnType<typeof useStartAssistant>;
