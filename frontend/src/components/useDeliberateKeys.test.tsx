import { fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DELIBERATE_QUIET_MS, useDeliberateKeys, type DeliberatePress } from "./useDeliberateKeys";

let now = 0;
beforeEach(() => {
  now = 0;
  vi.spyOn(performance, "now").mockImplementation(() => now);
});
afterEach(() => vi.restoreAllMocks());

/** A field outside, and a guarded panel that opens with a button and a text area. */
function Harness({ onPress, onClick }: { onPress: (p: DeliberatePress) => void; onClick: () => void }) {
  const [open, setOpen] = useState(false);
  const keys = useDeliberateKeys(open ? "one" : null, onPress);
  return (
    <>
      <input aria-label="outside" onKeyDown={(e) => e.key === "o" && setOpen(true)} />
      {open && (
        <div {...keys} data-testid="panel">
          <button autoFocus onClick={onClick}>
            Allow
          </button>
          <textarea aria-label="reason" />
        </div>
      )}
    </>
  );
}

const setup = () => {
  const onPress = vi.fn((p: DeliberatePress) => p.target.click());
  const onClick = vi.fn();
  render(<Harness onPress={onPress} onClick={onClick} />);
  return { onPress, onClick, user: userEvent.setup(), outside: screen.getByLabelText("outside") };
};

/** Types "o" outside (which opens the panel) and moves the focus to its button. */
const open = async (user: ReturnType<typeof userEvent.setup>, outside: HTMLElement) => {
  await user.click(outside);
  await user.keyboard("o");
  screen.getByRole("button", { name: "Allow" }).focus();
};

describe("useDeliberateKeys", () => {
  it("ignores presses in the quiet time, even full ones, and never lets the button click itself", async () => {
    const { user, outside, onPress, onClick } = setup();
    await open(user, outside);
    await user.keyboard("{Enter}");
    await user.keyboard(" ");
    now = DELIBERATE_QUIET_MS - 1;
    await user.keyboard("{Enter}");
    expect(onPress).not.toHaveBeenCalled();
    expect(onClick).not.toHaveBeenCalled();
  });

  it("ignores a key held from before it opened, released long after", async () => {
    const { user, outside, onPress, onClick } = setup();
    await user.click(outside);
    await user.keyboard("o{Enter>}"); // opens; Enter goes down before the focus moves
    screen.getByRole("button", { name: "Allow" }).focus();
    now = 5 * DELIBERATE_QUIET_MS;
    const allow = screen.getByRole("button", { name: "Allow" });
    fireEvent.keyDown(allow, { key: "Enter", code: "Enter", repeat: true }); // auto-repeat while held
    fireEvent.keyDown(allow, { key: "Enter", code: "Enter", repeat: true });
    await user.keyboard("{/Enter}");
    expect(onPress).not.toHaveBeenCalled();
    expect(onClick).not.toHaveBeenCalled();
  });

  it("acts on the release of a press that began after the quiet time", async () => {
    const { user, outside, onPress, onClick } = setup();
    await open(user, outside);
    now = DELIBERATE_QUIET_MS;
    await user.keyboard("{Enter>}");
    expect(onPress).not.toHaveBeenCalled(); // not on the way down
    await user.keyboard("{/Enter}");
    expect(onPress).toHaveBeenCalledTimes(1);
    expect(onPress.mock.calls[0]![0]).toMatchObject({ key: "Enter", shiftKey: false, target: screen.getByRole("button", { name: "Allow" }) });
    expect(onClick).toHaveBeenCalledTimes(1);
    await user.keyboard(" ");
    expect(onClick).toHaveBeenCalledTimes(2);
  });

  it("leaves typing in a text field alone and other keys untouched", async () => {
    const { user, outside, onPress } = setup();
    await open(user, outside);
    const reason = screen.getByLabelText("reason") as HTMLTextAreaElement;
    await user.click(reason);
    await user.keyboard("a b{Enter}c");
    expect(reason.value).toBe("a b\nc");
    expect(onPress).not.toHaveBeenCalled();
  });

  it("starts again when it opens anew", async () => {
    const onPress = vi.fn();
    function Reopen() {
      const [key, setKey] = useState("first");
      const keys = useDeliberateKeys(key, onPress);
      return (
        <div {...keys}>
          <button onClick={() => setKey("second")}>Next</button>
        </div>
      );
    }
    render(<Reopen />);
    const user = userEvent.setup();
    now = DELIBERATE_QUIET_MS;
    await user.click(screen.getByRole("button", { name: "Next" })); // a new request: the quiet time again
    await user.keyboard("{Enter}");
    expect(onPress).not.toHaveBeenCalled();
    now = 2 * DELIBERATE_QUIET_MS;
    await user.keyboard("{Enter}");
    expect(onPress).toHaveBeenCalledTimes(1);
  });
});
