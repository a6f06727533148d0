import { act, cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it } from "vitest";
import type { BackgroundTask, Part } from "../api";
import { StatusPart } from "../chat/parts";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { TasksButton } from "./TasksPanel";

const server: BackgroundTask = {
  id: "task_b",
  sessionId: "s1",
  callId: "c2",
  kind: "bash",
  title: "npm run dev",
  state: "running",
  startedAt: 2000,
  outputBytes: 12,
};
const build: BackgroundTask = {
  id: "task_a",
  sessionId: "s1",
  callId: "c1",
  kind: "bash",
  title: "make test",
  state: "failed",
  exitCode: 2,
  startedAt: 1000,
  endedAt: 4000,
  outputBytes: 9,
};

function backend(tasks: BackgroundTask[]) {
  const outputs: Record<string, string> = { task_b: "listening\n", task_a: "FAIL x\n" };
  const t = new FakeTransport({
    ListTasks: (session) => ({ seq: 3, tasks: session === "s1" ? tasks : [] }),
    GetTaskOutput: (_s, id) => ({ task: tasks.find((x) => x.id === id), text: outputs[String(id)] }),
    StopTask: (_s, id) => ({ ...tasks.find((x) => x.id === id)!, state: "stopped", exitCode: 143, endedAt: 5000 }),
  });
  return { t, outputs };
}

afterEach(cleanup);

describe("the Tasks view", () => {
  it("is not shown while the session has no task", async () => {
    const { t } = backend([]);
    renderWithClient(<TasksButton sessionId="s1" />, { transport: t, ready: null });
    await waitFor(() => expect(t.count("ListTasks")).toBe(1));
    expect(screen.queryByTestId("tasks-open")).toBeNull();
  });

  it("lists running and finished tasks with their output, follows events and stops a running one", async () => {
    const user = userEvent.setup();
    const { t, outputs } = backend([server, build]);
    renderWithClient(<TasksButton sessionId="s1" />, { transport: t, ready: null });
    const open = await screen.findByTestId("tasks-open");
    expect(open).toHaveTextContent("Tasks: 1 running");
    await user.click(open);
    const dialog = screen.getByRole("dialog", { name: "Background tasks" });
    const items = within(dialog).getAllByTestId("task-item");
    expect(items.map((i) => i.getAttribute("data-task-id"))).toEqual(["task_b", "task_a"]);
    expect(items[1]).toHaveTextContent("make test");
    expect(items[1]).toHaveTextContent("Failed · exit code 2");
    await waitFor(() => expect(within(dialog).getByTestId("task-output")).toHaveTextContent("listening"));

    // More output: the event says it grew, and the view asks for it again.
    outputs.task_b = "listening\nGET / 200\n";
    act(() => t.emit({ topic: "tasks:s1", seq: 4, type: "task:updated", data: { ...server, outputBytes: 22 }, time: 0 }));
    await waitFor(() => expect(within(dialog).getByTestId("task-output")).toHaveTextContent("GET / 200"));

    await user.click(within(dialog).getByTestId("task-stop"));
    expect(t.calls.find((c) => c.method === "StopTask")?.args).toEqual(["s1", "task_b"]);
    act(() => t.emit({ topic: "tasks:s1", seq: 5, type: "task:updated", data: { ...server, state: "stopped", exitCode: 143, endedAt: 5000 }, time: 0 }));
    await waitFor(() => expect(within(dialog).queryByTestId("task-stop")).toBeNull());
    expect(within(dialog).getByTestId("task-detail")).toHaveTextContent("Stopped · exit code 143");
    expect(screen.getByTestId("tasks-open")).toHaveTextContent(/^Tasks: 2$/);

    await user.click(items[1]!);
    await waitFor(() => expect(within(dialog).getByTestId("task-output")).toHaveTextContent("FAIL x"));
    expect(within(dialog).getByTestId("task-detail")).toHaveAttribute("data-task-id", "task_a");
    expect(within(dialog).queryByTestId("task-stop")).toBeNull();
  });

  it("shows a task interrupted by a restart as such, in Chinese too", async () => {
    const { t } = backend([{ ...server, state: "interrupted", endedAt: 3000 }]);
    const user = userEvent.setup();
    renderWithClient(<TasksButton sessionId="s1" />, { transport: t, ready: null, lng: "zh-CN" });
    const open = await screen.findByTestId("tasks-open");
    expect(open).toHaveTextContent("任务：1");
    await user.click(open);
    const dialog = screen.getByRole("dialog", { name: "后台任务" });
    expect(within(dialog).getByTestId("task-item")).toHaveTextContent("已中断");
    expect(within(dialog).getByTestId("task-detail")).toHaveTextContent("Cairn 关闭了");
    expect(within(dialog).queryByTestId("task-stop")).toBeNull();
  });

  it("a new task's event adds it to the list", async () => {
    const { t } = backend([build]);
    renderWithClient(<TasksButton sessionId="s1" />, { transport: t, ready: null });
    expect(await screen.findByTestId("tasks-open")).toHaveTextContent(/^Tasks: 1$/);
    act(() => t.emit({ topic: "tasks:s1", seq: 4, type: "task:updated", data: server, time: 0 }));
    await waitFor(() => expect(screen.getByTestId("tasks-open")).toHaveTextContent("Tasks: 1 running"));
    act(() => t.emit({ topic: "tasks:s1", seq: 5, type: "task:removed", data: server, time: 0 }));
    await waitFor(() => expect(screen.getByTestId("tasks-open")).toHaveTextContent(/^Tasks: 1$/));
  });
});

describe("the notice status part", () => {
  const part = (lng: "en" | "zh-CN") => {
    const p: Part = {
      id: "p1", messageId: "m1", index: 0, round: 0, type: "status", state: "done", createdAt: 0, updatedAt: 0,
      status: { kind: "notice", notice: { id: "task_a", kind: "task-ended", title: "make test", state: "failed", exitCode: 2, text: "[Cairn] …" } },
    };
    return renderWithClient(<StatusPart part={p} />, { transport: new FakeTransport(), ready: null, lng });
  };

  it("says what the model was told", () => {
    part("en");
    const note = screen.getByTestId("part-status");
    expect(note).toHaveAttribute("data-kind", "notice");
    expect(note).toHaveTextContent("The model was told: background task “make test” ended (Failed). · exit code 2");
  });

  it("in Chinese too", () => {
    part("zh-CN");
    expect(screen.getByTestId("part-status")).toHaveTextContent("已告知模型：后台任务“make test”已结束（失败）。");
  });
});
