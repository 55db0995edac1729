// Reads LoCoMo conversations into turns and questions with normalised gold evidence (shared/data/locomo/PROTOCOL.md).

import { readFileSync } from "node:fs";

/** Category ids of the official scoring code (the paper's prose order differs). */
export const CATEGORY_NAMES: Readonly<Record<number, string>> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
  5: "adversarial",
};

/** The categories that make up the headline (5's evidence is the distractor turn). */
export const HEADLINE_CATEGORIES: readonly number[] = [1, 2, 3, 4];

export interface Turn {
  diaId: string;
  speaker: string;
  text: string;
  sessionDate: string;
}

export interface Question {
  /** Position in the conversation's `qa` array: stable across runs, so runs pair on it. */
  index: number;
  question: string;
  category: number;
  gold: string[];
}

export interface Conversation {
  sampleId: string;
  turns: Turn[];
  questions: Question[];
  /** Questions dropped because no evidence id survived normalisation. */
  skipped: number;
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
}

interface RawQa {
  question: string;
  evidence?: string[];
  category: number;
}

interface RawConversation {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: RawQa[];
}

/** Reads and normalises every conversation of a LoCoMo JSON file. */
export function loadLocomo(path: string): Conversation[] {
  const raw = JSON.parse(readFileSync(path, "utf8")) as RawConversation[];
  if (!Array.isArray(raw)) throw new Error(`${path}: expected an array of conversations`);
  return raw.map(readConversation);
}

function readConversation(raw: RawConversation): Conversation {
  const conv = raw.conversation;
  // Sessions come from the session_<n> keys (conv-26 has date keys without a session).
  const sessions = Object.keys(conv)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(conv[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  const turns: Turn[] = [];
  for (const n of sessions) {
    const date = String(conv[`session_${n}_date_time`] ?? "");
    // query and img_url are never read: query is an image-search string that leaks answers.
    for (const t of conv[`session_${n}`] as RawTurn[]) turns.push({ diaId: t.dia_id, speaker: t.speaker, text: t.text, sessionDate: date });
  }
  const known = new Set(turns.map((t) => t.diaId));
  const questions: Question[] = [];
  let skipped = 0;
  raw.qa.forEach((qa, index) => {
    const gold = [...new Set((qa.evidence ?? []).flatMap(normalizeEvidence))].filter((id) => known.has(id));
    if (gold.length === 0) {
      skipped++;
      return;
    }
    questions.push({ index, question: qa.question, category: qa.category, gold });
  });
  return { sampleId: raw.sample_id, turns, questions, skipped };
}

/**
 * One raw evidence string → dialog ids: brackets stripped; split on `;`, `,` and spaces;
 * `D:11:26` → `D11:26`; `D30:05` → `D30:5`. Strings that are no id at all give nothing.
 */
export function normalizeEvidence(raw: string): string[] {
  const out: string[] = [];
  for (const part of raw.replace(/[[\]()]/g, " ").split(/[;,\s]+/)) {
    const m = /^D:?(\d+):(\d+)$/i.exec(part.trim());
    if (m !== null) out.push(`D${Number(m[1])}:${Number(m[2])}`);
  }
  return out;
}
