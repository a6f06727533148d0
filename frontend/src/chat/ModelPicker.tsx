import type { Provider, Session } from "../api";
import { ModelPicker as SharedModelPicker, resolveProvider } from "../components/ModelPicker";

/** The provider a session actually uses: its own, else the first one ("" = default). */
export function effectiveProvider(session: Pick<Session, "providerId">, providers: readonly Provider[]): Provider | undefined {
  return resolveProvider(session.providerId, providers);
}

/**
 * Per-session provider and model (the shared picker). "Default" follows the first
 * provider and its default model; a model the session names that the list lacks stays
 * selectable, and another can be typed.
 */
export function ModelPicker({
  session,
  providers,
  onChange,
  disabled,
}: {
  session: Pick<Session, "providerId" | "model">;
  providers: readonly Provider[];
  onChange: (patch: { providerId?: string; model?: string }) => void;
  disabled?: boolean;
}) {
  return (
    <SharedModelPicker
      value={{ providerId: session.providerId, model: session.model }}
      providers={providers}
      onChange={onChange}
      disabled={disabled}
      testId="session"
    />
  );
}
