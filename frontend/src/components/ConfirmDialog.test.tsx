import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it, vi } from "vitest";
import { testI18n } from "../test/i18n";
import { ConfirmDialog } from "./ConfirmDialog";

interface Item {
  id: number;
  name: string;
}

function Harness({ onConfirm, busy = false }: { onConfirm: (item: Item) => void; busy?: boolean }) {
  const [subject, setSubject] = useState<Item | null>(null);
  return (
    <I18nextProvider i18n={testI18n("en")}>
      <button onClick={() => setSubject({ id: 7, name: "notes" })}>Delete notes</button>
      <ConfirmDialog
        subject={subject}
        onCancel={() => setSubject(null)}
        onConfirm={(item) => {
          onConfirm(item);
          setSubject(null);
        }}
        title={`Delete ${subject?.name ?? ""}?`}
        description="This cannot be undone."
        confirmLabel="Delete"
        busy={busy}
        testId="thing-delete-dialog"
        confirmTestId="thing-delete-confirm"
      >
        <p>3 files</p>
      </ConfirmDialog>
    </I18nextProvider>
  );
}

describe("ConfirmDialog", () => {
  it("opens for its subject as an alertdialog with the focus on Cancel", async () => {
    const user = userEvent.setup();
    render(<Harness onConfirm={() => {}} />);
    expect(screen.queryByRole("alertdialog")).toBeNull();
    await user.click(screen.getByText("Delete notes"));
    const dialog = screen.getByRole("alertdialog", { name: "Delete notes?" });
    expect(dialog).toHaveAttribute("data-testid", "thing-delete-dialog");
    expect(dialog).toHaveTextContent("3 files");
    expect(screen.getByRole("button", { name: "Cancel" })).toHaveFocus();
  });

  it("confirms with the subject it was opened for", async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn();
    render(<Harness onConfirm={onConfirm} />);
    await user.click(screen.getByText("Delete notes"));
    await user.click(screen.getByTestId("thing-delete-confirm"));
    expect(onConfirm).toHaveBeenCalledWith({ id: 7, name: "notes" });
    expect(screen.queryByRole("alertdialog")).toBeNull();
  });

  it("cancels with Enter on the focused Cancel, and with Esc, without confirming", async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn();
    render(<Harness onConfirm={onConfirm} />);
    await user.click(screen.getByText("Delete notes"));
    await user.keyboard("{Enter}");
    expect(screen.queryByRole("alertdialog")).toBeNull();
    await user.click(screen.getByText("Delete notes"));
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it("keeps the confirm button disabled while busy", async () => {
    const user = userEvent.setup();
    const onConfirm = vi.fn();
    render(<Harness onConfirm={onConfirm} busy />);
    await user.click(screen.getByText("Delete notes"));
    expect(screen.getByTestId("thing-delete-confirm")).toBeDisabled();
  });
});
