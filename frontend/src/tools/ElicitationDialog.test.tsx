import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ElicitationField, ElicitationRequest } from "../api";
import { DELIBERATE_QUIET_MS } from "../components/useDeliberateKeys";
import { FakeTransport } from "../test/fakeTransport";
import { renderWithClient } from "../test/render";
import { ElicitationDialog } from "./ElicitationDialog";
import { ElicitationHost } from "./ElicitationHost";
import { fieldError, initialValues, toContent, validate } from "./elicitForm";

// The fields backend/elicit.Fields makes of server-everything's form (trimmed).
const FIELDS: ElicitationField[] = [
  { name: "name", title: "Name", description: "Your full, legal name", kind: "string", required: true },
  { name: "age", title: "Age", kind: "integer", minimum: 0, maximum: 150, default: 36 },
  { name: "ratio", kind: "number" },
  { name: "agree", title: "Agree", kind: "boolean" },
  { name: "pet", title: "Pet", kind: "enum", options: [{ value: "c", title: "Cat" }, { value: "d", title: "Dog" }], default: "c" },
  { name: "tags", title: "Tags", kind: "multi", options: [{ value: "a" }, { value: "b" }], maxItems: 1 },
  { name: "mail", title: "Email", kind: "string", format: "email" },
];

const request = (over: Partial<ElicitationRequest> = {}): ElicitationRequest => ({
  id: "el1",
  serverId: "srv1",
  server: "Everything",
  sessionId: "s1",
  callId: "c1",
  message: "Please provide inputs",
  fields: FIELDS,
  status: "pending",
  createdAt: 1,
  ...over,
});

describe("elicitForm", () => {
  it("starts from the schema's defaults", () => {
    expect(initialValues(FIELDS)).toEqual({ name: "", age: "36", ratio: "", agree: false, pet: "c", tags: [], mail: "" });
  });

  it.each([
    ["name", "", "required"],
    ["name", "Ada", null],
    ["age", "1.5", "integer"],
    ["age", "x", "number"],
    ["age", "151", "maximum"],
    ["age", "", null],
    ["ratio", "0.25", null],
    ["pet", "fish", "choice"],
    ["tags", ["a", "b"], "maxItems"],
    ["mail", "nope", "email"],
    ["mail", "a@b.org", null],
  ] as const)("%s = %j → %s", (name, value, want) => {
    const f = FIELDS.find((x) => x.name === name)!;
    expect(fieldError(f, value as string | string[])?.key ?? null).toBe(want);
  });

  it("sends typed values and leaves empty optional fields out", () => {
    const values = { ...initialValues(FIELDS), name: "Ada", ratio: "0.5", tags: ["b"] };
    expect(validate(FIELDS, values)).toEqual({});
    expect(toContent(FIELDS, values)).toEqual({ name: "Ada", age: 36, ratio: 0.5, agree: false, pet: "c", tags: ["b"] });
  });
});

const setup = (req: ElicitationRequest, onAnswer = vi.fn(async () => {})) => {
  renderWithClient(<ElicitationDialog request={req} onAnswer={onAnswer} />, { transport: new FakeTransport(), ready: null });
  return { onAnswer, user: userEvent.setup(), dialog: screen.getByRole("dialog") };
};

describe("ElicitationDialog", () => {
  it("builds the form from the fields: labels, required marks, descriptions, defaults", () => {
    const { dialog } = setup(request());
    expect(dialog).toHaveAccessibleName("Everything asks for your input");
    expect(within(dialog).getByTestId("elicitation-message")).toHaveTextContent("Please provide inputs");
    const name = within(dialog).getByRole("textbox", { name: /Name/ });
    expect(name).toHaveFocus();
    expect(name).toHaveAttribute("aria-required", "true");
    expect(within(dialog).getByText("Your full, legal name")).toBeInTheDocument();
    expect(within(dialog).getByLabelText(/Age/)).toHaveValue("36");
    expect(within(dialog).getByRole("checkbox", { name: "Agree" })).not.toBeChecked();
    expect(within(dialog).getByRole("combobox", { name: "Pet" })).toHaveValue("c");
    expect(within(dialog).getByRole("option", { name: "Dog" })).toBeInTheDocument();
    expect(within(dialog).getByRole("group", { name: "Tags" })).toBeInTheDocument();
  });

  it("refuses to submit without a required field, then sends the typed content", async () => {
    const { user, onAnswer, dialog } = setup(request());
    await user.click(within(dialog).getByTestId("elicitation-submit"));
    expect(onAnswer).not.toHaveBeenCalled();
    expect(within(dialog).getByTestId("elicitation-error-name")).toHaveTextContent("Fill this in.");
    expect(within(dialog).getByRole("textbox", { name: /Name/ })).toHaveAttribute("aria-invalid", "true");
    await user.type(within(dialog).getByRole("textbox", { name: /Name/ }), "Grace");
    await user.click(within(dialog).getByRole("checkbox", { name: "Agree" }));
    await user.selectOptions(within(dialog).getByRole("combobox", { name: "Pet" }), "d");
    await user.click(within(dialog).getByTestId("elicitation-option-tags-b"));
    await user.click(within(dialog).getByTestId("elicitation-submit"));
    expect(onAnswer).toHaveBeenCalledWith("accept", { name: "Grace", age: 36, agree: true, pet: "d", tags: ["b"] });
  });

  it("declines, and Esc cancels", async () => {
    const { user, onAnswer, dialog } = setup(request());
    await user.click(within(dialog).getByTestId("elicitation-decline"));
    expect(onAnswer).toHaveBeenLastCalledWith("decline", {});
    await user.keyboard("{Escape}");
    expect(onAnswer).toHaveBeenLastCalledWith("cancel", {});
  });

  it("takes no stray key as an answer: Enter in a field sends nothing, a button's Enter waits out the quiet time", async () => {
    let now = 0;
    vi.spyOn(performance, "now").mockImplementation(() => now);
    const { user, onAnswer, dialog } = setup(request({ fields: [{ name: "name", kind: "string" }] }));
    await user.keyboard("typing on{Enter}");
    expect(onAnswer).not.toHaveBeenCalled();
    within(dialog).getByTestId("elicitation-decline").focus();
    await user.keyboard("{Enter}");
    expect(onAnswer).not.toHaveBeenCalled(); // inside the first second
    now = DELIBERATE_QUIET_MS;
    await user.keyboard("{Enter}");
    expect(onAnswer).toHaveBeenCalledWith("decline", {});
    vi.restoreAllMocks();
  });
});

describe("ElicitationHost", () => {
  it("shows the open question, closes it when answered elsewhere, and says who won when too late", async () => {
    let pending = [request()];
    const t = new FakeTransport({
      ListPendingElicitations: () => ({ seq: 1, requests: pending }),
      ListSessions: () => ({ seq: 0, sessions: [] }),
      AnswerElicitation: () =>
        Promise.reject({ code: "elicitation_already_answered", i18nKey: "errors.elicitation_already_answered", params: { window: "terminal" }, message: "" }),
    });
    renderWithClient(<ElicitationHost />, { transport: t, ready: null });
    const dialog = await screen.findByTestId("elicitation-dialog", {}, { timeout: 5000 });
    const user = userEvent.setup();
    await user.click(within(dialog).getByTestId("elicitation-decline"));
    expect(t.calls.find((c) => c.method === "AnswerElicitation")?.args.slice(0, 3)).toEqual(["el1", "decline", {}]);
    expect(await screen.findByTestId("elicitation-notice", {}, { timeout: 5000 })).toHaveTextContent("already answered in terminal");
    pending = [];
    act(() => t.emit({ topic: "elicitations", seq: 2, type: "elicitation:answered", data: { ...request(), status: "declined" }, time: 0 }));
    await waitFor(() => expect(screen.queryByTestId("elicitation-dialog")).toBeNull(), { timeout: 5000 });
  });
});
