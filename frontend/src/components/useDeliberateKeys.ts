import { useEffect, useRef, type KeyboardEvent } from "react";

/** The keys that activate a focused button or take a dialog's default action. */
const DECIDING = new Set(["Enter", " "]);

/** The quiet time after opening during which no press counts (ms). */
export const DELIBERATE_QUIET_MS = 1000;

const TYPED_INPUTS = new Set(["button", "submit", "reset", "checkbox", "radio", "image", "file", "color", "range"]);

/** Where Enter and Space are typing (a new line, a space), not a decision. */
function isTextField(el: EventTarget | null): boolean {
  if (!(el instanceof HTMLElement)) return false;
  if (el.isContentEditable || el.tagName === "TEXTAREA") return true;
  return el instanceof HTMLInputElement && !TYPED_INPUTS.has(el.type);
}

/** A press of a deciding key that began inside, once the quiet time was over. */
export interface DeliberatePress {
  key: string;
  /** The element that had the focus when the key went down (and when it came up). */
  target: HTMLElement;
  shiftKey: boolean;
}

export interface DeliberateKeyProps {
  onKeyDownCapture: (e: KeyboardEvent<HTMLElement>) => void;
  onKeyUpCapture: (e: KeyboardEvent<HTMLElement>) => void;
}

/**
 * Keeps typing meant for something else from deciding in a dialog that opened under it
 * (the user was writing in the composer when an approval popped up). Enter and Space act
 * only when they are pressed and released inside the element, the press coming at least
 * `quietMs` after it opened: a key held from before (its keydown happened elsewhere),
 * auto-repeat and presses in the first moments do nothing at all, not even the browser's
 * activation of the focused button. Text fields inside keep them as typing.
 *
 * A press that counts acts on release: `onPress` gets it, and does what the key means
 * (click the focused button, take the default action). Spread the returned handlers on
 * the element that contains everything focusable (capture phase, so they run first).
 * `openKey` is null while closed; a new value starts the guard again.
 */
export function useDeliberateKeys(
  openKey: string | null,
  onPress: (press: DeliberatePress) => void,
  quietMs: number = DELIBERATE_QUIET_MS,
): DeliberateKeyProps {
  const onPressRef = useRef(onPress);
  onPressRef.current = onPress;
  const openedAt = useRef<number | null>(null);
  const pressed = useRef(new Map<string, HTMLElement>());

  useEffect(() => {
    pressed.current.clear();
    openedAt.current = openKey === null ? null : performance.now();
    return () => {
      openedAt.current = null;
      pressed.current.clear();
    };
  }, [openKey]);

  const guarded = (e: KeyboardEvent<HTMLElement>) => DECIDING.has(e.key) && !isTextField(e.target);

  const onKeyDownCapture = (e: KeyboardEvent<HTMLElement>) => {
    if (!guarded(e)) return;
    // Whatever happens below, the browser does not click and no other handler decides.
    e.preventDefault();
    e.stopPropagation();
    const since = openedAt.current;
    if (e.repeat || e.nativeEvent.isComposing || since === null || performance.now() - since < quietMs) return;
    if (e.target instanceof HTMLElement) pressed.current.set(e.key, e.target);
  };

  const onKeyUpCapture = (e: KeyboardEvent<HTMLElement>) => {
    if (!guarded(e)) return;
    e.preventDefault(); // a Space released on a button would click it
    e.stopPropagation();
    const target = pressed.current.get(e.key);
    pressed.current.delete(e.key);
    if (!target || target !== e.target || !target.isConnected) return;
    onPressRef.current({ key: e.key, target, shiftKey: e.shiftKey });
  };

  return { onKeyDownCapture, onKeyUpCapture };
}
