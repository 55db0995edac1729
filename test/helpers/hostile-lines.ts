// Hostile import files for the property tests: valid export lines bent so that at least one is invalid, chosen by a seeded generator.

import { MemoryStore, type MemoryEntry } from "../../src/index.ts";
import { RuleExtractor } from "./scripted.ts";
import { collect, denseBase64, objects, sparseJson, type Json } from "./export-lines.ts";

export const USERS = ["a", "b", "c", "d"] as const;
export const MAX_CONTENT_CHARS = 200;
const QUERIES = ["where do I live", "what do I like", "cello music", "Beijing Shenzhen"];

/** Facts with keys, so adds supersede one another and build chains. */
const extractor = (): RuleExtractor =>
  new RuleExtractor([
    { pattern: /live in/, key: "home_city" },
    { pattern: /like/, key: "likes", kind: "preference" },
    { pattern: /play/, key: "instrument" },
  ]);

export function openOptions(): { extractor: RuleExtractor; maxContentChars: number } {
  return { extractor: extractor(), maxContentChars: MAX_CONTENT_CHARS };
}

/** Fills a store with chains, a forget, a purge and a restore for users a, b, c. */
export async function populate(mem: MemoryStore, offset: number): Promise<void> {
  const cities = ["Beijing", "Shenzhen", "Rome", "Oslo", "Lima"];
  for (const [u, user] of ["a", "b", "c"].entries()) {
    for (let i = 0; i < 3; i++) await mem.add(user, `I live in ${cities[(i + u + offset) % cities.length]}`);
    await mem.add(user, `I like ${["tea", "rice", "jazz"][(u + offset) % 3]}`);
    await mem.add(user, `I play the ${["cello", "drums", "oboe"][(u + offset) % 3]}`);
    await mem.add(user, "just some small talk about the weather today");
  }
  const [a0] = await mem.list("a");
  await mem.forget("a", { id: a0!.id });
  const b = await mem.list("b", { status: "active" });
  await mem.forget("b", { id: b[0]!.id }, { purge: true });
  const [c0] = await mem.list("c", { status: "superseded" });
  await mem.restore("c", c0!.id);
}

/** Everything a caller can ask about every user: the import must leave all of it as it was. */
export async function answers(mem: MemoryStore): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const user of USERS) {
    const list = await mem.list(user);
    const history: Record<string, MemoryEntry[]> = {};
    for (const e of list) history[e.id] = await mem.history(user, e.id);
    const recall: unknown[] = [];
    for (const q of QUERIES) recall.push(await mem.recall(user, q, { topK: 10 }));
    out[user] = { list, history, recall, profile: await mem.profile(user) };
  }
  const { bytesOnDisk: _bytes, lastWriteAt: _last, ...stats } = await mem.stats();
  out["stats"] = stats;
  return out;
}

/** The export of a second store (users b and d, with chains), as objects, header first. */
export async function sourceObjects(): Promise<Json[]> {
  const src = await MemoryStore.open(":memory:", openOptions());
  const cities = ["Paris", "Kyoto", "Quito"];
  for (const user of ["b", "d"]) {
    for (const city of cities) await src.add(user, `I live in ${city}`);
    await src.add(user, "I like green tea");
    await src.add(user, "I play the flute");
  }
  const [d0] = await src.list("d", { status: "active" });
  await src.forget("d", { id: d0!.id });
  const lines = objects(await collect(src.export()));
  await src.close();
  return lines;
}

type Rnd = () => number;
const pick = <T>(rnd: Rnd, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** Field values that no valid entry can hold. */
const BAD_FIELDS: Record<string, unknown[]> = {
  id: [5, "", null, "a\nb", "x".repeat(300), "has space", "é-accent"],
  user_id: [5, "", "../etc", "x".repeat(65), ".hidden", "a b", null],
  content: [5, null, "", "   \n\t", ["list"]],
  kind: ["note", 1, null],
  status: ["gone", null, 3],
  created_at: ["2020-01-01", null, 1e300, -9e15, 8.7e15],
  updated_at: ["x", 1e300, -1e16],
  seq: [-1, 1.5, "1", null],
  superseded_by: [5, "", true],
  embedding: [5, "not base64!", { dim: 256 }, [1, "a"], true],
  metadata: [[], 5, "x", true],
  key: [5, "", true],
};

function nonFiniteVector(rnd: Rnd): unknown {
  const values = Array.from({ length: 256 }, () => rnd() - 0.5);
  const bad = pick(rnd, [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]);
  const at = Math.floor(rnd() * 256);
  switch (Math.floor(rnd() * 3)) {
    case 0:
      values[at] = bad;
      return denseBase64(values);
    case 1:
      return sparseJson(256, [[at, bad]]);
    default:
      values[at] = pick(rnd, [1e39, -1e300, 3.5e38]); // finite in JSON, not in float32
      return values;
  }
}

function deep(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { d: v };
  return v;
}

/**
 * One hostile import: the source export (whole, or a part of it) with one or more mutations, each of
 * which makes the import invalid on its own. `targetIds` are ids already in the store, by user.
 */
export function hostileImport(rnd: Rnd, source: readonly Json[], targetIds: ReadonlyMap<string, string[]>): { lines: string[]; mutations: string[] } {
  const [head, ...entries] = source.map((o) => structuredClone(o));
  let items: unknown[] = [head, ...entries];
  // An entry object of the import (not the header, not a line another mutation made a non-object).
  const entryAt = (): Json => {
    const objects = items.filter((x): x is Json => typeof x === "object" && x !== null && !Array.isArray(x) && x !== head && !("moomem_export" in x));
    return pick(rnd, objects);
  };
  const otherUsersId = (user: string): string => {
    const pool: string[] = [];
    for (const [u, ids] of targetIds) if (u !== user) pool.push(...ids);
    for (const e of entries) if (e["user_id"] !== user) pool.push(e["id"] as string);
    return pick(rnd, pool);
  };
  const raw: Array<{ at: number; text: string }> = [];
  const mutations: string[] = [];
  const count = 1 + Math.floor(rnd() * 3);
  for (let m = 0; m < count; m++) {
    const kind = Math.floor(rnd() * 19);
    const e = entryAt();
    switch (kind) {
      case 0: {
        const field = pick(rnd, Object.keys(BAD_FIELDS));
        const value = pick(rnd, BAD_FIELDS[field]!);
        e[field] = value;
        mutations.push(`field ${field} = ${JSON.stringify(value)?.slice(0, 30)}`);
        break;
      }
      case 1:
        e["embedding"] = nonFiniteVector(rnd);
        mutations.push("non-finite vector");
        break;
      case 2:
        e["embedding"] = denseBase64(Array.from({ length: pick(rnd, [255, 257, 4, 1]) }, () => 0.5));
        mutations.push("vector of the wrong length");
        break;
      case 3:
        e["status"] = "superseded";
        e["superseded_by"] = otherUsersId(e["user_id"] as string);
        mutations.push("superseded by another user's entry");
        break;
      case 4:
        // Entry format 4 keeps the store's links in `lifecycle`; older lines kept them in `metadata`.
        if (e["lifecycle"] !== undefined) e["lifecycle"] = { ...(e["lifecycle"] as Json), conflict: [otherUsersId(e["user_id"] as string)] };
        else e["metadata"] = { ...(e["metadata"] as Json), conflict: [otherUsersId(e["user_id"] as string)] };
        mutations.push("conflict with another user's entry");
        break;
      case 5:
        e["content"] = "y".repeat(MAX_CONTENT_CHARS + 1 + Math.floor(rnd() * 5000));
        mutations.push("content over maxContentChars");
        break;
      case 6: {
        const other = entryAt();
        const copy = { ...other, content: `${String(other["content"])} (changed)` };
        items.splice(1 + Math.floor(rnd() * items.length), 0, copy);
        (head as Json)["count"] = items.length - 1;
        mutations.push("duplicate id in the import");
        break;
      }
      case 7: {
        const [user, ids] = pick(rnd, [...targetIds]);
        e["id"] = pick(rnd, ids);
        e["user_id"] = pick(rnd, [user, e["user_id"] as string]);
        e["content"] = `not what the store holds ${rnd()}`;
        mutations.push("id of an entry already in the store, other content");
        break;
      }
      case 8:
        items.splice(1 + Math.floor(rnd() * items.length), 0, structuredClone(head));
        mutations.push("a second header");
        break;
      case 9: {
        const drop = 1 + Math.floor(rnd() * Math.min(3, items.length - 1));
        items = items.slice(0, items.length - drop);
        mutations.push(`export cut ${drop} line(s) short`);
        break;
      }
      case 10:
        e["status"] = pick(rnd, ["active", "unstructured"]);
        e["superseded_by"] = pick(rnd, [e["id"] as string, ...entries.filter((x) => x["user_id"] === e["user_id"]).map((x) => x["id"] as string)]);
        mutations.push("live entry with superseded_by");
        break;
      case 11:
        e["status"] = "superseded";
        e["superseded_by"] = pick(rnd, [null, e["id"]]);
        mutations.push("superseded without a successor, or by itself");
        break;
      case 12: {
        const field = pick(rnd, ["moomem_export", "embedder", "count", "count", "entry_format"]);
        const value = pick<unknown>(
          rnd,
          field === "count" ? [-1, "3", 1.5, 1e9, null] : field === "embedder" ? [null, { id: 5, dim: 256 }, { id: "x", dim: -1 }, "hashing"] : [99, "1", 0],
        );
        (head as Json)[field] = value;
        mutations.push(`header ${field} = ${JSON.stringify(value)}`);
        break;
      }
      case 13:
        e["metadata"] = { nested: deep(33 + Math.floor(rnd() * 100)) };
        mutations.push("metadata nested too deeply");
        break;
      case 14: {
        const at = 1 + Math.floor(rnd() * (items.length - 1));
        const text = JSON.stringify(items[at]) ?? "";
        if (text.length < 3) {
          items.splice(at, 0, "}{");
          mutations.push("a line that is not JSON");
          break;
        }
        // A proper prefix of a JSON object or array is never valid JSON.
        raw.push({ at, text: text.slice(0, 1 + Math.floor(rnd() * (text.length - 2))) });
        mutations.push(`line ${at + 1} cut mid-way`);
        break;
      }
      case 15:
        items.splice(1 + Math.floor(rnd() * items.length), 0, pick(rnd, [[1, 2], "a string", 5, null, true, {}]));
        (head as Json)["count"] = items.length - 1;
        mutations.push("a line that is not an entry object");
        break;
      case 16:
        (head as Json)["user_id"] = pick(rnd, ["b", "d"]);
        mutations.push("a one-user header over lines of two users");
        break;
      case 17: {
        // Moved once only: moving it twice could put it back in place.
        const at = items.indexOf(head);
        if (at !== 0) {
          items.splice(1 + Math.floor(rnd() * (items.length - 1)), 0, structuredClone(head));
          mutations.push("a second header");
          break;
        }
        items.splice(0, 1);
        items.splice(1 + Math.floor(rnd() * items.length), 0, head);
        mutations.push("header after an entry");
        break;
      }
      default:
        e["id"] = pick(rnd, ["", " ", "a".repeat(65), "x\u0000y", "id with spaces", "\u202eevil", "<script>"]);
        mutations.push(`odd id ${JSON.stringify(e["id"])}`);
        break;
    }
  }
  const lines = items.map((v) => `${JSON.stringify(v)}\n`);
  for (const { at, text } of raw) if (at < lines.length) lines[at] = `${text}\n`;
  return { lines, mutations };
}

/** Ids of every entry of the store, by user. */
export async function idsByUser(mem: MemoryStore): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const user of USERS) {
    const ids = (await mem.list(user)).map((e) => e.id);
    if (ids.length > 0) out.set(user, ids);
  }
  return out;
}
