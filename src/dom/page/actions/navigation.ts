// The page side of go_back: whether the tab has an earlier history entry. Runs in the top
// document; reads history, never moves in it.

/** Whether the document has an earlier history entry: `null` when the page cannot tell. */
export function canGoBack(): boolean | null {
  // The Navigation API knows the tab's own entries; without it, history.length cannot tell back from forward.
  const navigation = (window as unknown as { navigation?: { canGoBack?: unknown } }).navigation;
  if (navigation && typeof navigation.canGoBack === 'boolean') return navigation.canGoBack;
  return history.length > 1 ? null : false;
}
