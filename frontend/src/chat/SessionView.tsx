import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { toAppError, useClient, useProviders, useSession, useSettings, type AppError, type Message } from "../api";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { BypassWarning } from "../permissions/BypassWarning";
import { useSessionPermissionMode } from "../permissions/useSessionMode";
import { useRouter } from "../shell/router";
import { useShortcut } from "../shell/shortcuts";
import { SessionApprovalsProvider } from "../tools/sessionApprovals";
import { TaskHeader } from "../sandbox/TaskHeader";
import { TasksButton } from "../tasks/TasksPanel";
import { Composer } from "./Composer";
import { useDraftFiles } from "./Attachments";
import { mcpPromptSource } from "./promptSource";
import { mcpResourceSource } from "./resourceSource";
import { KbAttach } from "./KbAttach";
import { SkillPicker } from "./SkillPicker";
import { MessageList } from "./MessageList";
import { MessageView } from "./MessageView";
import { tablesBefore } from "./citations";
import { ModelPicker } from "./ModelPicker";
import { SessionAssistant } from "../assistants/SessionAssistant";
import { SessionSettings } from "./SessionSettings";
import { ConversationTotal } from "./Usage";
import { usePricesChanged } from "./usePricesChanged";

/**
 * One conversation: header (title, model, session settings), the virtualized messages and
 * the composer. Everything shown comes from the session's snapshot and its events, so
 * every window on the session shows the same stream.
 */
export function SessionView({ id, focusMessage }: { id: string; focusMessage?: string }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const { navigate, openSettings } = useRouter();
  const { data, error, store } = useSession(id);
  const providersData = useProviders().data;
  const providers = providersData?.providers ?? [];
  // Costs are the backend's, at the prices of now: a changed price reloads the snapshot.
  usePricesChanged(providersData?.providers, () => void store.reload());
  const settings = useSettings().data?.values ?? {};
  const sendOnEnter = settings["chat.sendOnEnter"] !== false;
  const [actionError, setActionError] = useState<AppError | null>(null);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const permission = useSessionPermissionMode(id);
  const files = useDraftFiles();

  const run = useCallback(async (fn: () => Promise<unknown>) => {
    setActionError(null);
    try {
      await fn();
      return true;
    } catch (e) {
      setActionError(toAppError(e));
      return false;
    }
  }, []);

  const idle = data?.state === "idle";
  // Esc anywhere but a field stops a running answer (the composer handles its own Esc).
  useShortcut("stop", () => {
    if (data && !idle && !data.deleted) void run(() => client.chat.stop(id));
  });
  const onRegenerate = useCallback(() => void run(() => client.chat.regenerate(id)), [run, client, id]);
  const onEdit = useCallback((messageId: string, text: string) => run(() => client.chat.editAndResend(id, messageId, text)), [run, client, id]);
  const onSelectVersion = useCallback((messageId: string) => void run(() => client.chat.selectBranch(id, messageId)), [run, client, id]);
  const editMode = data?.editMode ?? "branch";
  const count = data?.messages.length ?? 0;
  const messages = data?.messages;
  // A message to land on (a search hit) may be on another branch: choose its version
  // once, and the reloaded path has it.
  const sought = useRef<string | null>(null);
  const loaded = Boolean(data);
  const onPath = Boolean(focusMessage && messages?.some((m) => m.id === focusMessage));
  useEffect(() => {
    if (!loaded || !focusMessage || onPath || sought.current === focusMessage) return;
    sought.current = focusMessage;
    void run(() => client.chat.selectBranch(id, focusMessage));
  }, [loaded, focusMessage, onPath, run, client, id]);
  const prompts = useMemo(() => mcpPromptSource(client), [client]);
  const resources = useMemo(() => mcpResourceSource(client), [client]);
  const before = useMemo(() => tablesBefore(messages ?? []), [messages]);
  const renderMessage = useCallback(
    (m: Message, i: number) => (
      <MessageView
        message={m}
        last={i === count - 1}
        idle={idle}
        editMode={editMode}
        onRegenerate={onRegenerate}
        onEdit={onEdit}
        onSelectVersion={onSelectVersion}
        citationsBefore={before[i]}
      />
    ),
    [count, idle, editMode, onRegenerate, onEdit, onSelectVersion, before],
  );

  if (!data) {
    return (
      <div className="session session--loading" data-testid="session-view">
        {error ? (
          <div className="session__center">
            <ErrorView error={error} onRetry={() => void store.reload()} />
          </div>
        ) : (
          <p className="session__center muted" role="status">
            {t("session.loading")}
          </p>
        )}
      </div>
    );
  }

  if (data.deleted) {
    return (
      <div className="session" data-testid="session-view">
        <div className="session__center empty-state">
          <p className="empty-state__title">{t("session.deleted")}</p>
          <button type="button" className="btn" onClick={() => navigate({ name: "home" })}>
            {t("session.goHome")}
          </button>
        </div>
      </div>
    );
  }

  const session = data.session;
  const busy = data.state !== "idle";
  const title = session.title || t("session.untitled");

  return (
    <div className="session" data-testid="session-view" data-session-id={id} data-state={data.state}>
      <header className="session__header">
        <div className="session__title-wrap">
          {session.kind === "task" && (
            <span className="badge session__kind" title={t("session.taskHelp")}>
              <Icon name="task" size={13} />
              {t("session.task")}
            </span>
          )}
          {session.kind === "task" && <TaskHeader sessionId={id} />}
          {session.parentId && (
            <button
              type="button"
              className="badge session__kind"
              data-testid="session-parent"
              title={t("agent.parentHelp")}
              onClick={() => navigate({ name: "session", id: session.parentId! })}
            >
              <Icon name="users" size={13} />
              {t("agent.parent")}
            </button>
          )}
          <TasksButton sessionId={id} />
          <h1 className="session__title" title={title}>
            {title}
          </h1>
          {session.kind === "chat" && <SessionAssistant sessionId={id} />}
          {data.state === "awaiting-approval" && (
            <span className="badge badge--warn" data-testid="session-awaiting">
              {t("session.awaitingApproval")}
            </span>
          )}
          {permission.effective && permission.effective !== "default" && (
            <button
              type="button"
              className={`badge session__mode${permission.effective === "bypassPermissions" ? " badge--danger" : " badge--warn"}`}
              title={t("permission.modeHelp")}
              onClick={() => setSettingsOpen(true)}
              data-testid="session-mode"
              data-mode={permission.effective}
            >
              <Icon name="shield" size={12} />
              {t(`settings:permissions.modes.${permission.effective}.label`)}
            </button>
          )}
        </div>
        <span className="spacer" />
        <ConversationTotal messages={data.messages} />
        {providers.length > 0 ? (
          <ModelPicker
            session={session}
            providers={providers}
            onChange={(patch) => void run(() => client.chat.updateSession(id, patch))}
          />
        ) : (
          <button type="button" className="btn btn--small" onClick={() => openSettings("providers")} data-testid="add-provider-cta">
            <Icon name="plus" size={14} />
            {t("session.addProvider")}
          </button>
        )}
        <button
          type="button"
          className="icon-btn"
          title={t("settings.title")}
          aria-label={t("settings.title")}
          onClick={() => setSettingsOpen(true)}
          data-testid="session-settings-open"
        >
          <Icon name="sliders" />
        </button>
      </header>

      {permission.effective === "bypassPermissions" && (
        <div className="session__banner">
          <BypassWarning
            scope="session"
            testId="session-bypass-warning"
            action={
              <button type="button" className="btn btn--small" onClick={() => setSettingsOpen(true)}>
                {t("permission.change")}
              </button>
            }
          />
        </div>
      )}

      <SessionApprovalsProvider sessionId={id}>
        <MessageList
          messages={data.messages}
          renderMessage={renderMessage}
          busy={busy}
          focus={focusMessage}
          empty={
            <div className="session__empty empty-state">
              <Icon name={session.kind === "task" ? "task" : "chat"} size={26} />
              <p className="empty-state__title">{session.kind === "task" ? t("session.emptyTask") : t("session.empty")}</p>
              <p className="empty-state__hint">{t("session.emptyHint")}</p>
            </div>
          }
        />
      </SessionApprovalsProvider>

      <div className="session__footer">
        {actionError && (
          <div className="session__action-error">
            <ErrorView error={actionError} compact />
            <button type="button" className="icon-btn icon-btn--small" aria-label={t("common:actions.close")} onClick={() => setActionError(null)}>
              <Icon name="x" size={14} />
            </button>
          </div>
        )}
        <Composer
          key={id}
          busy={busy}
          sendOnEnter={sendOnEnter}
          onSend={(text, attached) => run(() => client.chat.send(id, text, attached))}
          onStop={() => void run(() => client.chat.stop(id))}
          controls={
            <>
              <KbAttach sessionId={id} />
              <SkillPicker sessionId={id} />
            </>
          }
          prompts={prompts}
          files={files}
          resources={resources}
        />
      </div>

      <SessionSettings
        open={settingsOpen}
        onClose={() => setSettingsOpen(false)}
        session={session}
        providers={providers}
        defaultSystemPrompt={String(settings["chat.defaultSystemPrompt"] ?? "")}
        permission={permission}
      />
    </div>
  );
}
