import { fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it, vi } from "vitest";
import { testI18n } from "../test/i18n";
import { Composer, type ComposerProps } from "./Composer";

function setup(over: Partial<ComposerProps> = {}) {
  const props: ComposerProps = {
    busy: false,
    sendOnEnter: true,
    onSend: vi.fn(async () => true),
    onStop: vi.fn(),
    ...over,
  };
  const i18n = testI18n("en");
  const r = render(
    <I18nextProvider i18n={i18n}>
      <Composer {...props} />
    </I18nextProvider>,
  );
  const rerender = (next: Partial<ComposerProps>) =>
    r.rerender(
      <I18nextProvider i18n={i18n}>
        <Composer {...props} {...next} />
      </I18nextProvider>,
    );
  return { props, rerender, input: screen.getByTestId("composer-input") as HTMLTextAreaElement };
}

describe("Composer", () => {
  it("sends on Enter and clears the draft once the backend took it", async () => {
    const user = userEvent.setup();
    const { props, input } = setup();
    await user.type(input, "Hello there{Enter}");
    expect(props.onSend).toHaveBeenCalledWith("Hello there", []);
    expect(input).toHaveValue("");
  });

  it("adds a new line on Shift+Enter instead of sending", async () => {
    const user = userEvent.setup();
    const { props, input } = setup();
    await user.type(input, "line one{Shift>}{Enter}{/Shift}line two");
    expect(props.onSend).not.toHaveBeenCalled();
    expect(input).toHaveValue("line one\nline two");
    await user.click(screen.getByTestId("composer-send"));
    expect(props.onSend).toHaveBeenCalledWith("line one\nline two", []);
  });

  it("keeps the draft when sending fails", async () => {
    const user = userEvent.setup();
    const { input } = setup({ onSend: vi.fn(async () => false) });
    await user.type(input, "keep me{Enter}");
    expect(input).toHaveValue("keep me");
  });

  it("does not send an empty message, or while an input method composes", async () => {
    const user = userEvent.setup();
    const { props, input } = setup();
    await user.type(input, "   {Enter}");
    expect(screen.getByTestId("composer-send")).toBeDisabled();
    fireEvent.input(input, { target: { value: "ni hao" } });
    fireEvent.keyDown(input, { key: "Enter", isComposing: true });
    fireEvent.keyDown(input, { key: "Enter", keyCode: 229 });
    expect(props.onSend).not.toHaveBeenCalled();
  });

  it("with chat.sendOnEnter off, Enter adds a line and Ctrl+Enter sends", async () => {
    const user = userEvent.setup();
    const { props, input } = setup({ sendOnEnter: false });
    await user.type(input, "a{Enter}b");
    expect(input).toHaveValue("a\nb");
    expect(props.onSend).not.toHaveBeenCalled();
    await user.keyboard("{Control>}{Enter}{/Control}");
    expect(props.onSend).toHaveBeenCalledWith("a\nb", []);
  });

  it("shows Stop instead of Send while an answer runs; Esc and the button stop it", async () => {
    const user = userEvent.setup();
    const { props, input, rerender } = setup({ busy: true });
    expect(screen.queryByTestId("composer-send")).toBeNull();
    await user.type(input, "next question");
    await user.keyboard("{Escape}");
    expect(props.onStop).toHaveBeenCalledTimes(1);
    await user.keyboard("{Enter}"); // cannot send while busy
    expect(props.onSend).not.toHaveBeenCalled();
    await user.click(screen.getByTestId("composer-stop"));
    expect(props.onStop).toHaveBeenCalledTimes(2);
    rerender({ busy: false });
    await user.keyboard("{Escape}");
    expect(props.onStop).toHaveBeenCalledTimes(2); // nothing to stop
    expect(screen.getByTestId("composer-send")).toBeEnabled();
  });
});
