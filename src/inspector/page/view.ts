// What every view gets and gives back.

import type { MetaResponse } from "../api-types.ts";

export interface ViewContext {
  /** What the server said about itself at load (and after each catch-up). */
  readonly meta: MetaResponse;
  /** Says something in the live status region (read out by screen readers). */
  announce(message: string): void;
  /** Renders the current route again (after a write from this page). */
  rerender(): void;
}

/** A rendered view: the document title and the content of <main>. */
export interface View {
  title: string;
  body: Node;
  /** False for views that should not re-render by themselves when the store changes (the recall playground). */
  follows?: boolean;
}
