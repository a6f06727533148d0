import { fireEvent, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it, vi } from "vitest";
import { testI18n } from "../test/i18n";
import { Dialog } from "./Dialog";

function Harness({ onClose }: { onClose?: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <I18nextProvider i18n={testI18n("en")}>
      <button onClick={() => setOpen(true)}>Open</button>
      <Dialog
        open={open}
        onClose={() => {
          onClose?.();
          setOpen(false);
        }}
        title="Allow shell command?"
        description="The model wants to run ls."
        footer={
          <>
            <button>Deny</button>
            <button>Allow</button>
          </>
        }
      >
        <input aria-label="Reason" />
      </Dialog>
    </I18nextProvider>
  );
}

describe("Dialog", () => {
  it("is a labelled modal dialog that takes focus", async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByText("Open"));
    const dialog = screen.getByRole("dialog", { name: "Allow shell command?" });
    expect(dialog).toHaveAttribute("aria-modal", "true");
    expect(dialog).toHaveAccessibleDescription("The model wants to run ls.");
    expect(dialog.contains(document.activeElement)).toBe(true);
  });

  it("traps Tab and Shift+Tab inside", async () => {
    const user = userEvent.setup();
    render(<Harness />);
    await user.click(screen.getByText("Open"));
    const close = screen.getByRole("button", { name: "Close" });
    const allow = screen.getByRole("button", { name: "Allow" });
    expect(close).toHaveFocus();
    await user.tab(); // Reason
    await user.tab(); // Deny
    await user.tab(); // Allow
    expect(allow).toHaveFocus();
    await user.tab();
    expect(close).toHaveFocus();
    await user.tab({ shift: true });
    expect(allow).toHaveFocus();
  });

  it("closes on Esc and gives focus back to the opener", async () => {
    const user = userEvent.setup();
    const onClose = vi.fn();
    render(<Harness onClose={onClose} />);
    const opener = screen.getByText("Open");
    await user.click(opener);
    await user.keyboard("{Escape}");
    expect(onClose).toHaveBeenCalledOnce();
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(opener).toHaveFocus();
  });

  it("closes on a backdrop click but not on a click inside", async () => {
    const onClose = vi.fn();
    render(<Harness onClose={onClose} />);
    fireEvent.click(screen.getByText("Open"));
    fireEvent.mouseDown(screen.getByRole("dialog"));
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.mouseDown(screen.getByRole("dialog").parentElement!);
    expect(onClose).toHaveBeenCalledOnce();
  });

  it("lets the innermost of two open dialogs keep focus (an approval over a confirmation)", async () => {
    const user = userEvent.setup();
    render(
      <I18nextProvider i18n={testI18n("en")}>
        <Dialog open onClose={() => {}} title="Delete?">
          <button>Outer</button>
        </Dialog>
        <Dialog open onClose={() => {}} title="Allow?">
          <button>Inner</button>
        </Dialog>
      </I18nextProvider>,
    );
    const inner = screen.getByRole("dialog", { name: "Allow?" });
    expect(inner).toContainElement(document.activeElement as HTMLElement);
    screen.getByText("Outer").focus(); // pulled back, without the dialogs fighting
    expect(inner).toContainElement(document.activeElement as HTMLElement);
    await user.tab();
    expect(within(inner).getByText("Inner")).toHaveFocus();
  });
});
