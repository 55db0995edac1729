// Tiny DOM helpers for the inspector page: elements are built from text nodes only, so stored content can never become markup.

/** What may be a child: nodes, text, nothing, or lists of these. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** Attribute values; `false`/`undefined` leave the attribute out, functions become event listeners (`onclick`, `onsubmit`, …). */
export type Props = Record<string, string | number | boolean | undefined | ((event: Event) => void)>;

/** Creates an element with attributes, listeners and children (strings become text nodes, never HTML). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props !== null) {
    for (const [name, value] of Object.entries(props)) {
      if (typeof value === "function") el.addEventListener(name.slice(2), value);
      else if (value === true) el.setAttribute(name, "");
      else if (value !== false && value !== undefined) el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : (child as Node));
  }
}

/** A <time> element showing a local date and time, with the exact instant in `datetime` and the title. */
export function time(ms: number | null | undefined): HTMLElement | string {
  if (ms === null || ms === undefined) return "never";
  const date = new Date(ms);
  return h("time", { datetime: date.toISOString(), title: date.toISOString() }, formatLocal(ms));
}

/** `2025-06-01 14:03:22` in the browser's time zone. */
export function formatLocal(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The value a `datetime-local` input shows for a time (local, to the minute). */
export function toLocalInput(ms: number | undefined): string {
  if (ms === undefined) return "";
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** ms since epoch of a `datetime-local` value (read in the browser's time zone), or undefined when empty or invalid. */
export function fromLocalInput(value: string): number | undefined {
  if (value === "") return undefined;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** 12,345 */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** 1.2 MiB */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** A coloured status label (the colour is never the only cue: the word is always there). */
export function statusBadge(status: string): HTMLElement {
  return h("span", { class: `badge ${status}` }, status);
}

/** A `<dl>` of label/value pairs; pairs whose value is null or undefined are left out. */
export function facts(pairs: ReadonlyArray<readonly [string, Child]>): HTMLElement {
  return h(
    "dl",
    { class: "facts" },
    pairs.filter(([, v]) => v !== null && v !== undefined).map(([label, value]) => [h("dt", null, label), h("dd", null, value)]),
  );
}

/** Breadcrumbs: every item but the last is a link. */
export function breadcrumbs(items: ReadonlyArray<readonly [string, string | null]>): HTMLElement {
  return h(
    "nav",
    { class: "breadcrumbs", "aria-label": "Breadcrumbs" },
    h(
      "ol",
      null,
      items.map(([label, href], i) =>
        h("li", null, href === null || i === items.length - 1 ? h("span", { "aria-current": "page" }, label) : h("a", { href }, label)),
      ),
    ),
  );
}

/** A labelled form field: label, control and an optional hint tied to it with aria-describedby. */
export function field(id: string, label: string, control: HTMLElement, hint?: string, wide = false): HTMLElement {
  control.id = id;
  if (hint !== undefined) control.setAttribute("aria-describedby", `${id}-hint`);
  return h(
    "div",
    { class: wide ? "field wide" : "field" },
    h("label", { for: id }, label),
    control,
    hint === undefined ? null : h("span", { class: "hint", id: `${id}-hint` }, hint),
  );
}

/** A <select> with `value` selected. */
export function select(name: string, options: ReadonlyArray<readonly [string, string]>, value: string): HTMLSelectElement {
  return h(
    "select",
    { name },
    options.map(([v, label]) => h("option", { value: v, selected: v === value }, label)),
  );
}
