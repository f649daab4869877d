// The page side of send_keys: whether an element of the document has the keyboard focus (a
// frame counts). Runs in the page; reads the focus, never moves it.

/** True when an element other than the document's roots has the focus. */
export function hasFocus(): boolean {
  const active = document.activeElement;
  return active !== null && active !== document.body && active !== document.documentElement;
}
