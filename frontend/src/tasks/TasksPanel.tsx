import { useEffect, useMemo, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  applyTasksEvent,
  taskEnded,
  tasksTopic,
  toAppError,
  TopicStore,
  useClient,
  useTopic,
  type AppError,
  type BackgroundTask,
  type TaskList,
} from "../api";
import { Dialog } from "../components/Dialog";
import { ErrorView } from "../components/ErrorView";
import { Icon } from "../components/Icon";
import { useAction } from "../components/useAction";
import { formatDuration } from "../tools/model";
import { Visible } from "../tools/visible";
import "./tasks.css";

/** A session's background tasks, kept current by the events of its topic. */
export function useSessionTasks(sessionId: string) {
  const client = useClient();
  const store = useMemo(
    () =>
      new TopicStore<TaskList>(client.transport, {
        topic: tasksTopic(sessionId),
        load: () => client.tasks.list(sessionId),
        apply: applyTasksEvent,
      }),
    [client, sessionId],
  );
  useEffect(() => () => store.dispose(), [store]);
  return useTopic(store);
}

/** The badge class of a task's state. */
function stateClass(t: BackgroundTask): string {
  switch (t.state) {
    case "running":
      return "badge--warn";
    case "done":
      return "badge--ok";
    case "failed":
    case "interrupted":
      return "badge--danger";
    default:
      return "";
  }
}

/**
 * The session header's Tasks button (shown once the session has a background task; it
 * says how many run) and the view it opens.
 */
export function TasksButton({ sessionId }: { sessionId: string }) {
  const { t } = useTranslation("chat");
  const { data } = useSessionTasks(sessionId);
  const [open, setOpen] = useState(false);
  const tasks = data?.tasks ?? [];
  if (tasks.length === 0) return null;
  const running = tasks.filter((x) => !taskEnded(x)).length;
  return (
    <>
      <button
        type="button"
        className={`badge session__tasks${running > 0 ? " badge--warn" : ""}`}
        onClick={() => setOpen(true)}
        data-testid="tasks-open"
        data-running={running}
        title={t("tasks.help")}
      >
        <Icon name="terminal" size={12} />
        {running > 0 ? t("tasks.buttonRunning", { count: running }) : t("tasks.button", { count: tasks.length })}
      </button>
      <TasksDialog open={open} onClose={() => setOpen(false)} sessionId={sessionId} tasks={tasks} />
    </>
  );
}

/** Every task of the session, newest first; the chosen one's output beside the list. */
export function TasksDialog({ open, onClose, sessionId, tasks }: { open: boolean; onClose: () => void; sessionId: string; tasks: BackgroundTask[] }) {
  const { t } = useTranslation("chat");
  const [chosen, setChosen] = useState<string | null>(null);
  const current = tasks.find((x) => x.id === chosen) ?? tasks[0];
  return (
    <Dialog open={open} onClose={onClose} title={t("tasks.title")} description={t("tasks.description")} size="wide" testId="tasks-dialog">
      <div className="tasks">
        <ul className="tasks__list" aria-label={t("tasks.listLabel")}>
          {tasks.map((task) => (
            <li key={task.id}>
              <button
                type="button"
                className={`tasks__item${task.id === current?.id ? " is-current" : ""}`}
                aria-current={task.id === current?.id ? "true" : undefined}
                onClick={() => setChosen(task.id)}
                data-testid="task-item"
                data-task-id={task.id}
                data-state={task.state}
              >
                <span className="tasks__title">
                  <Visible text={task.title || task.id} />
                </span>
                <TaskState task={task} />
              </button>
            </li>
          ))}
        </ul>
        {current && <TaskDetail key={current.id} sessionId={sessionId} task={current} />}
      </div>
    </Dialog>
  );
}

/** A task's state badge: running, done, failed with its exit code, stopped, interrupted. */
function TaskState({ task }: { task: BackgroundTask }) {
  const { t } = useTranslation("chat");
  const code = task.exitCode;
  return (
    <span className={`badge tasks__state ${stateClass(task)}`} data-testid="task-state">
      {t(`tasks.state.${task.state}`)}
      {code !== undefined && code !== null && task.state !== "done" && <> · {t("tasks.exitCode", { code })}</>}
    </span>
  );
}

/** The chosen task: what it is, how long it ran, its kept output (followed while it runs), Stop. */
function TaskDetail({ sessionId, task }: { sessionId: string; task: BackgroundTask }) {
  const { t } = useTranslation("chat");
  const client = useClient();
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<AppError | null>(null);
  const stop = useAction(() => client.tasks.stop(sessionId, task.id));
  // The output is asked again whenever the task's event says it grew or ended.
  useEffect(() => {
    let live = true;
    client.tasks.output(sessionId, task.id).then(
      (out) => {
        if (!live) return;
        setText(out.text);
        setError(null);
      },
      (e: unknown) => live && setError(toAppError(e)),
    );
    return () => {
      live = false;
    };
  }, [client, sessionId, task.id, task.outputBytes, task.state]);
  const ran = (task.endedAt || Date.now()) - task.startedAt;
  return (
    <section className="tasks__detail" aria-label={t("tasks.outputLabel")} data-testid="task-detail" data-task-id={task.id}>
      <header className="tasks__detail-head">
        <code className="tasks__command visible-text">
          <Visible text={task.title} />
        </code>
        <TaskState task={task} />
        <span className="muted">{t(`tasks.kind.${task.kind === "agent" ? "agent" : "bash"}`)}</span>
        {task.endedAt ? <span className="muted">{t("tasks.ranFor", { duration: formatDuration(ran) })}</span> : null}
        <span className="spacer" />
        {!taskEnded(task) && (
          <button type="button" className="btn btn--small btn--danger" onClick={() => void stop.run()} disabled={stop.busy} data-testid="task-stop">
            <Icon name="stop" size={12} />
            {t("tasks.stop")}
          </button>
        )}
      </header>
      {task.state === "interrupted" && <p className="muted">{t("tasks.interruptedHelp")}</p>}
      {task.error && <p className="tasks__error">{task.error}</p>}
      {stop.error && <ErrorView error={stop.error} compact />}
      {error && <ErrorView error={error} compact />}
      {task.dropped ? <p className="muted">{t("tasks.dropped", { bytes: task.dropped })}</p> : null}
      <pre className="tasks__output visible-text" tabIndex={0} data-testid="task-output">
        {text === null ? t("tasks.loading") : text === "" ? t("tasks.noOutput") : <Visible text={text} />}
      </pre>
      {task.summary && (
        <div className="tasks__summary">
          <Visible text={task.summary} />
        </div>
      )}
    </section>
  );
}
