// The languages the offline extractor and judge read by default.

import type { LanguageTable } from "../language-table.ts";
import { ENGLISH } from "./en.ts";
import { CHINESE } from "./zh.ts";

/** English and Chinese: the tables `PatternExtractor` and `SimilarityJudge` use unless given others. */
export const DEFAULT_LANGUAGES: readonly LanguageTable[] = [ENGLISH, CHINESE];
