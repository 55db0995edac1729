// Names any value in an error message ("got …") without ever throwing, whatever the value is.

/**
 * A short, safe description of `value` for a message that says what was wrong: `"text"` (cut after
 * `maxChars` characters, default 40), `42`, `5n (a BigInt)`, `null`, `an array of 3 items`, `an object`, `a Date
 * (2026-01-01T00:00:00.000Z)`, `an invalid Date`, `an instance of Map`, `a function`, `a symbol`.
 * Never throws: a Proxy whose traps throw, or an object whose `constructor` getter throws, is "an object".
 *
 * @example
 * ```ts
 * `topK must be an integer, got ${describeValue("5")}`; // 'topK must be an integer, got "5"'
 * ```
 */
export function describeValue(value: unknown, maxChars = 40): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value.length > maxChars ? `${value.slice(0, maxChars)}…` : value);
    case "number":
    case "boolean":
    case "undefined":
      return String(value);
    case "bigint":
      return `${value}n (a BigInt)`;
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
    case "object":
      break;
  }
  if (value === null) return "null";
  try {
    if (Array.isArray(value)) return value.length === 1 ? "an array of 1 item" : `an array of ${value.length} items`;
    const time = dateTime(value);
    if (time !== undefined) return Number.isNaN(time) ? "an invalid Date" : `a Date (${new Date(time).toISOString()})`;
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto === null || proto === Object.prototype) return "an object";
    const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name;
    return typeof name === "string" && name.length > 0 && name !== "Object" ? `an instance of ${name}` : "an object";
  } catch {
    // A revoked Proxy, or traps that throw: all that is known is that it is an object.
    return "an object";
  }
}

/**
 * The time of a real `Date` (from any realm, NaN for an invalid one), or undefined for anything else,
 * a Date-like impostor included: `Date.prototype.getTime` checks the internal slot itself.
 */
export function dateTime(value: unknown): number | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    return Date.prototype.getTime.call(value);
  } catch {
    return undefined;
  }
}
