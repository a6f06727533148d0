import type * as wire from "./generated";
import { RELOAD } from "./store";
import type { CairnEvent, Transport } from "./types";

// Wire types of the background tasks facade (app_tasks.go, backend/tasks).

export type BackgroundTask = wire.TasksTask;
export type TaskState = wire.TasksState;
export type TaskList = wire.TasksList;
export type TaskOutput = wire.TasksOutput;

/** The topic of one session's tasks: task:updated (started, output grew, ended), task:removed. */
export function tasksTopic(sessionId: string): string {
  return `tasks:${sessionId}`;
}

/** Background tasks of a session: the list, a task's kept output, stop. */
export function tasksApi(t: Transport) {
  return {
    list: async (sessionId: string): Promise<TaskList> => {
      const l = await t.call<TaskList>("ListTasks", sessionId);
      return { ...l, tasks: l.tasks ?? [] };
    },
    output: (sessionId: string, id: string) => t.call<TaskOutput>("GetTaskOutput", sessionId, id),
    stop: (sessionId: string, id: string) => t.call<BackgroundTask>("StopTask", sessionId, id),
  };
}

export type TasksApi = ReturnType<typeof tasksApi>;

/** Newest first, as ListTasks orders them. */
function newestFirst(a: BackgroundTask, b: BackgroundTask): number {
  return b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Folds a task event into the session's list. */
export function applyTasksEvent(state: TaskList, ev: CairnEvent): TaskList | typeof RELOAD | undefined {
  const task = ev.data as BackgroundTask | undefined;
  if (!task || typeof task.id !== "string") return RELOAD;
  if (ev.type === "task:updated") {
    const rest = state.tasks.filter((x) => x.id !== task.id);
    return { ...state, seq: ev.seq, tasks: [...rest, task].sort(newestFirst) };
  }
  if (ev.type === "task:removed") {
    return { ...state, seq: ev.seq, tasks: state.tasks.filter((x) => x.id !== task.id) };
  }
  return undefined;
}

/** Whether a task no longer runs. */
export function taskEnded(t: BackgroundTask): boolean {
  return t.state !== "running";
}
