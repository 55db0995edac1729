// The universal entry: MemoryStore, the plug-in interfaces, the offline defaults and the error type.
// It imports no runtime-specific module; `moomem/node` and `moomem/browser` add the default storage.

export { MemoryStore } from "./store/memory-store.ts";
export type { OpenOptions, BackendFactory, BackendOptions } from "./store/open-options.ts";
export type { AddOptions, RecallOptions, ListOptions, ForgetTarget, ForgetOptions, ExportOptions, ImportOptions, ReextractSummary } from "./store/options.ts";
export { MoomemError, isMoomemError } from "./errors.ts";
export type { MoomemErrorCode } from "./errors.ts";
export type {
  AddInput,
  AddSummary,
  ChatMessage,
  ContentPart,
  InputMessage,
  Clock,
  ConflictJudge,
  Embedder,
  EmbedderKind,
  EntryKind,
  EntryLifecycle,
  EntryStatus,
  ExtractedFact,
  ExtractionReport,
  Extractor,
  FactOutcome,
  ImportSummary,
  JsonValue,
  MemoryEntry,
  Metadata,
  RecallHit,
  RecallMode,
  StoreStats,
  TornTail,
  SyncMode,
  Verdict,
} from "./types.ts";
export { SystemClock, FixedClock } from "./clock.ts";
export { HashingEmbedder } from "./embedding/hashing-embedder.ts";
export type { HashingEmbedderOptions } from "./embedding/hashing-embedder.ts";
export { RawExtractor } from "./ingest/raw-extractor.ts";
export { PatternExtractor } from "./ingest/pattern-extractor.ts";
export type { PatternExtractorOptions } from "./ingest/pattern-extractor.ts";
export { DEFAULT_LANGUAGES } from "./ingest/patterns/default-languages.ts";
export { longestFirst } from "./ingest/language-table.ts";
export type { LanguageTable, SlotRule, AnchorPatterns, StatementKind } from "./ingest/language-table.ts";
export { SimilarityJudge } from "./ingest/similarity-judge.ts";
export type { JudgeCandidate } from "./ingest/similarity-judge.ts";
export { MemoryBackend } from "./persistence/memory/memory-backend.ts";
export type { PersistenceBackend, Batch, LoadedState, SnapshotSource, RefreshedState, BackendStats, EmbedderIdentity } from "./persistence/backend.ts";
export { tokenize } from "./text/tokenizer.ts";
export { buildProfile } from "./store/profile.ts";
export type { UserProfile, ProfileSlot, ProfileFact } from "./store/profile.ts";
export type { UserSummary } from "./store/user-summaries.ts";
export { formatContext, relativeTime } from "./context/format-context.ts";
export type { FormatContextOptions, ContextStyle, ContextMemory } from "./context/format-context.ts";
export { MEMORY_CONTEXT_OPEN, MEMORY_CONTEXT_CLOSE, stripMemoryContext } from "./text/context-markers.ts";
