// English pattern table of the offline extractor: small talk, questions, requests, and the slots of common personal facts.

import { longestFirst, type LanguageTable, type SlotRule, type StatementKind } from "../language-table.ts";

// Building blocks, as regular-expression source. Slot rules see the clause in NFKC with `'` for ’.
const I_AM = String.raw`(?:i'm|i am|im)`;
const I_OR_WE = String.raw`(?:i|we)`;
/** The user, alone or with others: "I", "we", "my wife and I". */
const HOUSEHOLD = String.raw`(?:i|we|my\s+(?:[\w-]+\s+){1,2}?and\s+i)`;
/** Adverbs that may sit between the subject and the verb ("I now live…", "I've just moved…"). */
const ADV = String.raw`(?:(?:now|currently|still|also|actually|really|just|recently|finally|usually|normally|mostly|already|officially|generally|always|happily)\s+)*`;
const HAVE = String.raw`(?:'ve|\s+have)?`;
const ANY_MORE = String.raw`(?:\s+any\s?more)?`;
const END = String.raw`[\s.!…]*$`;
/** People a user has one of (so a name or a city of theirs is one slot). */
const PARTNER = String.raw`(?:wife|husband|partner|spouse|girlfriend|boyfriend|gf|bf|fianc[eé]e?)`;
const ONE_RELATIVE = String.raw`(?:${PARTNER}|mother|mom|mum|father|dad|son|daughter|grandmother|grandma|grandfather|grandpa|best\s+friend|boss|manager)`;
const PET = String.raw`(?:dog|cat|puppy|kitten|pet|parrot|bird|rabbit|bunny|hamster|guinea\s+pig|fish|turtle|tortoise|horse|snake|lizard)`;
const CHILD = String.raw`(?:son|daughter|kids?|child|children)`;
const NUMBER_WORD = String.raw`(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[-\s](?:one|two|three|four|five|six|seven|eight|nine))?|a\s+hundred)`;
const COUNT = String.raw`(?:\d{1,3}|no|a\s+couple\s+of|${NUMBER_WORD})`;
const LANGUAGE = String.raw`(?:english|chinese|mandarin|cantonese|spanish|french|german|italian|portuguese|russian|japanese|korean|arabic|hindi|bengali|urdu|turkish|dutch|swedish|norwegian|danish|finnish|polish|czech|greek|hebrew|thai|vietnamese|indonesian|malay|tagalog|swahili|persian|farsi|ukrainian|romanian|hungarian|catalan|basque|irish|welsh|latin|esperanto|sign\s+language|asl)`;
const JOB = String.raw`(?:engineer|developer|programmer|coder|designer|teacher|nurse|doctor|physician|surgeon|dentist|lawyer|attorney|accountant|student|consultant|analyst|scientist|researcher|professor|lecturer|writer|author|journalist|editor|artist|painter|musician|photographer|chef|cook|baker|waiter|waitress|barista|bartender|driver|pilot|mechanic|electrician|plumber|carpenter|architect|pharmacist|therapist|psychologist|vet|veterinarian|farmer|firefighter|police\s+officer|officer|soldier|salesperson|cashier|clerk|librarian|translator|interpreter|paramedic|secretary|receptionist|entrepreneur|founder|ceo|cto|cfo|intern|freelancer|tutor|coach|trainer|banker|trader|economist|administrator|technician|cleaner|nanny|caregiver|social\s+worker|product\s+manager|project\s+manager|manager|tester|actor|actress|dancer|singer|pastor|priest|postdoc|homemaker|housewife|retiree|midwife|optometrist|radiologist|surveyor|contractor|realtor|agent)`;
const SCHOOL_WORD = String.raw`(?:school|elementary|primary|middle|high|college|university|uni|academy|kindergarten|preschool|nursery|institute|polytechnic|daycare)`;
/** Capitalised words that say what someone is, not what they are called ("My mother is Chinese"). */
const NOT_A_NAME = String.raw`(?:${LANGUAGE}|american|british|canadian|australian|indian|mexican|brazilian|irish|scottish|african|asian|european|latin[ao]?|catholic|christian|muslim|jewish|buddhist|hindu|sikh|atheist|english|gay|trans|deaf|blind)`;
/** What one "lives in" without it being a place. */
const NOT_A_PLACE = String.raw`(?:the\s+(?:moment|past|present|future|now)|fear|hope|denial|peace|harmony|poverty|luxury|a\s+bubble|my\s+head|a\s+dream)`;
/** A value ending at the end of the clause, with trailing punctuation left out. */
const VALUE = String.raw`(?<value>.+?)${END}`;
/** One item of a slot with many values: up to the first comma or semicolon ("peanuts, never suggest satay" → "peanuts"). */
const ITEM = String.raw`(?<value>[^,;]+?)(?:\s*[,;].*)?${END}`;

const rule = (pattern: string, key: string, kind: StatementKind, names?: readonly string[]): SlotRule =>
  names === undefined ? { pattern: new RegExp(`^${pattern}`, "iu"), key, kind } : { pattern: new RegExp(`^${pattern}`, "iu"), key, kind, names };

/** Small-talk phrases, longest first within each alternation; a phrase must end at a word boundary. */
const smallTalkPhrase = (phrases: readonly string[]): RegExp => new RegExp(String.raw`(?:${longestFirst(phrases)})(?![\p{L}\p{N}'])`, "iuy");

const SLOTS: readonly SlotRule[] = [
  // Name and what to call the user.
  rule(String.raw`my\s+(?:first\s+|full\s+|real\s+)?name\s+is\s+(?:actually\s+)?${VALUE}`, "name", "fact"),
  rule(String.raw`${I_AM}\s+called\s+${VALUE}`, "name", "fact"),
  rule(String.raw`(?:(?:you\s+can|please|just|pls)\s+)*call\s+me\s+${VALUE}`, "preferred_name", "preference"),
  rule(String.raw`i\s+(?:usually\s+)?go\s+by\s+${VALUE}`, "preferred_name", "preference"),
  rule(String.raw`(?:everyone|people|my\s+friends)\s+calls?\s+me\s+${VALUE}`, "preferred_name", "preference"),
  // Age and birth.
  rule(
    String.raw`${I_AM}\s+${ADV}(?<n>\d{1,3}|${NUMBER_WORD})(?:\s+(?:years?|yrs?)(?:\s+old)?|\s*y/?o)?(?:\s+(?:now|today|already|this\s+year))?${END}`,
    "age",
    "fact",
  ),
  rule(String.raw`i\s+${ADV}turned\s+(?<n>\d{1,3}|${NUMBER_WORD})\b`, "age", "fact"),
  rule(String.raw`my\s+birthday\s+is\s+${VALUE}`, "birthday", "fact"),
  rule(String.raw`i\s+was\s+born\s+on\s+${VALUE}`, "birthday", "fact"),
  rule(String.raw`i\s+was\s+born\s+in\s+(?<year>(?:19|20)\d\d)\b`, "birth_year", "fact"),
  rule(String.raw`i\s+was\s+born\s+(?:and\s+raised\s+)?in\s+${VALUE}`, "birthplace", "fact"),
  // Hometown.
  rule(String.raw`${I_AM}\s+${ADV}originally\s+from\s+${VALUE}`, "hometown", "fact"),
  // "I'm from Leeds", but not "I'm from the marketing team": a place is written with a capital.
  rule(String.raw`${I_AM}\s+${ADV}from\s+${VALUE}`, "hometown", "fact", ["value"]),
  rule(String.raw`i\s+(?:originally\s+)?come\s+from\s+${VALUE}`, "hometown", "fact"),
  rule(String.raw`i\s+grew\s+up\s+in\s+${VALUE}`, "hometown", "fact"),
  rule(String.raw`my\s+home\s?town\s+is\s+${VALUE}`, "hometown", "fact"),
  // Where the user (or one of theirs) lives.
  rule(String.raw`${HOUSEHOLD}\s+${ADV}(?:don't|do\s+not|no\s+longer)\s+live\s+in\s+${VALUE}`, "home_city", "fact"),
  rule(String.raw`${HOUSEHOLD}\s+${ADV}live\s+in\s+(?!${NOT_A_PLACE}\b)${VALUE}`, "home_city", "fact"),
  rule(String.raw`(?:${I_AM}|we're|we\s+are)\s+${ADV}(?:living|based)\s+in\s+${VALUE}`, "home_city", "fact"),
  rule(String.raw`${HOUSEHOLD}${HAVE}\s+${ADV}(?:moved|relocated)(?:\s+back)?\s+(?:to|into)\s+${VALUE}`, "home_city", "fact"),
  rule(String.raw`my\s+(?:home|address)\s+is\s+(?:now\s+)?in\s+${VALUE}`, "home_city", "fact"),
  rule(String.raw`my\s+(?<who>${ONE_RELATIVE})\s+${ADV}(?:lives|moved\s+to)\s+(?:in\s+)?${VALUE}`, "{who}_home_city", "fact"),
  // Employer, job, school.
  rule(String.raw`i\s+${ADV}(?:don't|do\s+not|no\s+longer)\s+work\s+(?:at|for)\s+${VALUE}`, "employer", "fact"),
  rule(String.raw`i${HAVE}\s+${ADV}(?:quit|left|lost)\s+my\s+job\b`, "employer", "fact"),
  rule(String.raw`i\s+${ADV}work\s+(?:at|for)\s+(?!home\b|myself\b|a\s+living\b)${VALUE}`, "employer", "fact"),
  rule(String.raw`${I_AM}\s+${ADV}(?:working|employed)\s+(?:at|for|by)\s+(?!home\b)${VALUE}`, "employer", "fact"),
  rule(
    String.raw`i${HAVE}\s+${ADV}(?:started|got|took|accepted|landed|found)\s+(?:a\s+|my\s+|the\s+)?(?:new\s+)?job\s+(?:at|with|for)\s+${VALUE}`,
    "employer",
    "fact",
  ),
  rule(String.raw`i${HAVE}\s+${ADV}joined\s+${VALUE}`, "employer", "fact", ["value"]),
  rule(String.raw`my\s+(?<who>${ONE_RELATIVE})\s+${ADV}works\s+(?:at|for)\s+${VALUE}`, "{who}_employer", "fact"),
  rule(String.raw`i\s+${ADV}work\s+as\s+(?:an?\s+|the\s+)?${VALUE}`, "job_title", "fact"),
  rule(String.raw`${I_AM}\s+${ADV}(?:working|employed)\s+as\s+(?:an?\s+)?${VALUE}`, "job_title", "fact"),
  rule(String.raw`(?:${I_AM}|i${HAVE}\s+become|i\s+became)\s+${ADV}(?:an?\s+)(?<value>(?:[\w-]+\s+){0,3}${JOB})\b`, "job_title", "fact"),
  rule(String.raw`${I_AM}\s+${ADV}(?:retired|unemployed|between\s+jobs|self-employed|a\s+stay-at-home\s+(?:mom|dad|parent))\b`, "job_title", "fact"),
  rule(String.raw`my\s+(?:job|job\s+title|position|role|occupation|profession)\s+is\s+${VALUE}`, "job_title", "fact"),
  rule(String.raw`my\s+(?<who>${ONE_RELATIVE})\s+is\s+(?:an?\s+)(?<value>(?:[\w-]+\s+){0,3}${JOB})\b`, "{who}_job_title", "fact"),
  rule(String.raw`(?:${I_AM}\s+)?${ADV}(?:a\s+student\s+at|studying\s+at|enrolled\s+at|enrolled\s+in)\s+${VALUE}`, "school", "fact"),
  rule(String.raw`i\s+${ADV}study\s+at\s+${VALUE}`, "school", "fact"),
  rule(
    String.raw`(?:i\s+${ADV}(?:go\s+to|attend|transferred\s+to|started\s+at)|${I_AM}\s+${ADV}(?:going\s+to|attending))\s+(?<value>.*\b${SCHOOL_WORD}\b.*?)${END}`,
    "school",
    "fact",
  ),
  rule(
    String.raw`my\s+(?<who>${CHILD})\s+${ADV}(?:goes\s+to|go\s+to|attends|attend|started\s+at|transferred\s+to|is\s+at|are\s+at|is\s+in|are\s+in)\s+(?<value>.*\b${SCHOOL_WORD}\b.*?)${END}`,
    "{who}_school",
    "fact",
  ),
  // Partner and relationship.
  rule(String.raw`my\s+(?:new\s+|current\s+)?(?<who>${PARTNER})\s+is\s+(?:called|named)\s+${VALUE}`, "partner_name", "fact"),
  rule(String.raw`my\s+(?:new\s+|current\s+)?(?<who>${PARTNER})(?:'s\s+name)\s+is\s+${VALUE}`, "partner_name", "fact"),
  rule(
    String.raw`my\s+(?:new\s+|current\s+)?(?<who>${ONE_RELATIVE})\s+is\s+(?!${NOT_A_NAME}\b)(?<value>[\p{Lu}][\p{L}'-]*(?:\s+[\p{Lu}][\p{L}'-]*)?)${END}`,
    "{who}_name",
    "fact",
    ["value"],
  ),
  rule(String.raw`my\s+(?<who>${ONE_RELATIVE})'s\s+birthday\s+is\s+${VALUE}`, "{who}_birthday", "fact"),
  rule(
    String.raw`${I_AM}\s+${ADV}(?:single|married|engaged|divorced|separated|widowed|in\s+a\s+relationship|dating\s+someone|seeing\s+someone)\b`,
    "relationship_status",
    "fact",
  ),
  rule(String.raw`${I_OR_WE}\s+${ADV}(?:got|are\s+getting|am\s+getting)\s+(?:married|engaged|divorced|separated)\b`, "relationship_status", "event"),
  rule(String.raw`${I_OR_WE}\s+${ADV}(?:broke\s+up|split\s+up)\b`, "relationship_status", "event"),
  // Children's and pets' names, and how many.
  rule(String.raw`my\s+(?:little\s+|baby\s+|new\s+)?(?<who>son|daughter|${PET})\s+is\s+(?:called|named)\s+${VALUE}`, "{who}_name", "fact"),
  rule(String.raw`my\s+(?:little\s+|baby\s+|new\s+)?(?<who>son|daughter|${PET})'s\s+name\s+is\s+${VALUE}`, "{who}_name", "fact"),
  rule(
    String.raw`${I_OR_WE}${HAVE}\s+${ADV}(?:have|got|adopted|had)\s+an?\s+(?:[\w-]+\s+){0,2}?(?<who>son|daughter|${PET})\s+(?:called|named)\s+${VALUE}`,
    "{who}_name",
    "fact",
  ),
  rule(String.raw`${I_OR_WE}${HAVE}\s+${ADV}(?:renamed|named|called)\s+(?:our|my|the)\s+(?<who>son|daughter|${PET})\s+${VALUE}`, "{who}_name", "fact"),
  rule(
    String.raw`${I_OR_WE}\s+${ADV}(?:have|got)\s+(?<n>${COUNT})\s+(?<what>kids|children|sons|daughters|dogs|cats|pets|brothers|sisters|siblings|grandchildren)\b`,
    "{what}_count",
    "fact",
  ),
  rule(String.raw`${I_OR_WE}\s+(?:don't|do\s+not)\s+have\s+(?:any\s+)?(?<what>kids|children|pets|siblings|dogs|cats)\b`, "{what}_count", "fact"),
  // Diet, allergies, things the user avoids.
  rule(
    String.raw`${I_AM}\s+${ADV}(?:not|no\s+longer)\s+(?:an?\s+)?(?:strict\s+)?(?:vegetarian|vegan|pescatarian|pescetarian|on\s+a\s+diet|on\s+keto)${ANY_MORE}\b`,
    "diet",
    "preference",
  ),
  rule(
    String.raw`${I_AM}\s+${ADV}(?:an?\s+)?(?:strict\s+|lacto-ovo\s+|full\s+)?(?:vegetarian|vegan|pescatarian|pescetarian|flexitarian|carnivore|on\s+(?:a\s+)?(?:[\w-]+\s+)?diet|on\s+keto|eating\s+(?:keto|paleo|halal|kosher)|halal|kosher)\b`,
    "diet",
    "preference",
  ),
  rule(String.raw`i${HAVE}\s+${ADV}(?:went|gone|turned|became|become|switched\s+to\s+being)\s+(?:vegetarian|vegan|pescatarian)\b`, "diet", "preference"),
  rule(String.raw`i\s+${ADV}(?:don't|do\s+not|no\s+longer|never)\s+eat\s+(?:any\s+)?meat\b`, "diet", "preference"),
  rule(String.raw`i\s+${ADV}(?:eat|started\s+eating|am\s+eating|'m\s+eating)\s+meat\b`, "diet", "preference"),
  rule(String.raw`i\s+${ADV}keep\s+(?:kosher|halal)\b`, "diet", "preference"),
  rule(String.raw`${I_AM}\s+${ADV}(?:not|no\s+longer)\s+allergic\s+to\s+(?<value>.+?)${ANY_MORE}${END}`, "allergy_{value}", "fact"),
  rule(
    String.raw`${I_AM}\s+${ADV}(?:severely\s+|very\s+|mildly\s+|highly\s+|slightly\s+|deathly\s+|extremely\s+|a\s+bit\s+|a\s+little\s+)?allergic\s+to\s+${ITEM}`,
    "allergy_{value}",
    "fact",
  ),
  rule(String.raw`i\s+${ADV}have\s+an?\s+(?:severe\s+|mild\s+|bad\s+)?(?<value>[\w\s-]+?)\s+allergy\b`, "allergy_{value}", "fact"),
  rule(String.raw`i\s+${ADV}(?:can\s+eat|eat|drink|can\s+drink|started\s+eating)\s+(?<value>.+?)\s+again${END}`, "avoid_{value}", "preference"),
  rule(String.raw`i\s+${ADV}(?:no\s+longer|don't|do\s+not)\s+avoid\s+${ITEM}`, "avoid_{value}", "preference"),
  rule(
    String.raw`i\s+${ADV}(?:avoid|don't\s+eat|do\s+not\s+eat|can't\s+eat|cannot\s+eat|never\s+eat|stopped\s+eating|gave\s+up|cut\s+out|don't\s+drink|do\s+not\s+drink|can't\s+drink|never\s+drink|stopped\s+drinking)\s+${ITEM}`,
    "avoid_{value}",
    "preference",
  ),
  // Languages.
  rule(String.raw`my\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+${VALUE}`, "native_language", "fact"),
  rule(String.raw`i\s+${ADV}(?:don't|do\s+not|no\s+longer|can't|cannot)\s+speak\s+(?<value>${LANGUAGE})\b`, "speaks_{value}", "fact"),
  rule(String.raw`i\s+${ADV}(?:can\s+)?speak\s+(?:some\s+|a\s+little\s+|fluent\s+)?(?<value>${LANGUAGE})\b`, "speaks_{value}", "fact"),
  rule(String.raw`${I_AM}\s+${ADV}(?:learning|studying)\s+(?<value>${LANGUAGE})\b`, "language_learning", "fact"),
  // Favourites (one per thing), likes and dislikes (many).
  rule(
    String.raw`my\s+(?<who>${ONE_RELATIVE}|${PET}|sister|brother|kids?)'s\s+(?:all[-\s]time\s+|absolute\s+|current\s+)?(?:favou?rite|fave)\s+(?<thing>[\w\s]+?)\s+(?:is|are|was|has\s+always\s+been)\s+${VALUE}`,
    "{who}_favorite_{thing}",
    "preference",
  ),
  rule(
    String.raw`my\s+(?:all[-\s]time\s+|absolute\s+|current\s+|new\s+)?(?:favou?rite|fave)\s+(?<thing>[\w\s]+?)\s+(?:is|are|would\s+be|has\s+to\s+be)\s+${VALUE}`,
    "favorite_{thing}",
    "preference",
  ),
  rule(
    String.raw`(?<value>[^,]+?)\s+(?:is|are)\s+(?:now\s+)?my\s+(?:new\s+|all[-\s]time\s+|absolute\s+)?(?:favou?rite|fave)\s+(?<thing>[\w\s]+?)${END}`,
    "favorite_{thing}",
    "preference",
  ),
  rule(String.raw`my\s+(?<who>${ONE_RELATIVE}|${PET})\s+${ADV}(?:likes|loves|enjoys|adores|hates|dislikes)\s+${ITEM}`, "{who}_likes_{value}", "preference"),
  rule(
    String.raw`i\s+${ADV}(?:don't|do\s+not|no\s+longer)\s+(?:really\s+|particularly\s+|much\s+)?(?:like|love|enjoy|care\s+for)\s+(?<value>.+?)${ANY_MORE}${END}`,
    "likes_{value}",
    "preference",
  ),
  rule(String.raw`i\s+${ADV}(?:hate|dislike|detest|can't\s+stand|cannot\s+stand)\s+${ITEM}`, "likes_{value}", "preference"),
  rule(
    String.raw`i\s+${ADV}(?:really\s+|absolutely\s+|totally\s+|kind\s+of\s+|kinda\s+)?(?:like|love|enjoy|adore|prefer)\s+${ITEM}`,
    "likes_{value}",
    "preference",
  ),
  rule(
    String.raw`${I_AM}\s+${ADV}(?:a\s+(?:big\s+|huge\s+)?fan\s+of|really\s+into|into|fond\s+of|passionate\s+about)\s+${ITEM}`,
    "likes_{value}",
    "preference",
  ),
  // Everyday settings that change over time.
  rule(String.raw`i\s+${ADV}drive\s+an?\s+${VALUE}`, "car", "fact"),
  rule(String.raw`i\s+${ADV}(?:commute|go\s+to\s+work|get\s+to\s+work|travel\s+to\s+work)\s+(?:by|on)\s+${VALUE}`, "commute", "fact"),
  rule(String.raw`i\s+${ADV}(?:bike|cycle|walk|drive|run)\s+to\s+work\b`, "commute", "fact"),
  rule(String.raw`i\s+${ADV}(?:go\s+to\s+bed|go\s+to\s+sleep|fall\s+asleep)\s+(?:at|around|by)\s+${VALUE}`, "bedtime", "fact"),
  rule(String.raw`i\s+${ADV}(?:get\s+up|wake\s+up)\s+(?:at|around|by)\s+${VALUE}`, "wake_time", "fact"),
  rule(String.raw`i\s+${ADV}(?:take|drink|have|like)\s+my\s+coffee\s+${VALUE}`, "coffee_order", "preference"),
];

export const ENGLISH: LanguageTable = {
  language: "en",
  script: /[A-Za-z]+/gu,
  // Before a new subject or a question: "…, and I…", "… but my…", "…; can I…". The left part must
  // still be a clause; the engine glues back a part of fewer than three words ("My wife and I…").
  clauseBreak:
    /\s*(?:[,;]\s*(?:and|but|so|also|plus)?|\s(?:and|but|so|plus|also))\s+(?=(?:i|i'm|i’m|i've|i’ve|i'd|i’d|my|we|we're|we’re|our)\s)|\s*[,;]\s*(?=(?:can|could|should|would|will|do|does|did|is|are|what|how|why|where|when|which|who|please)\s)/giu,
  filler:
    /^(?:(?:oh|ah|well|yes|yeah|yep|no|nope|ok|okay|alright|right|hey|hi|hello|hiya|um+|uh+|hmm+|lol|haha+|sure|great|cool|thanks|thank\s+you)(?:\s*[,!.:;…-]+\s*|$)|(?:oh\s+and|so|and|also|but|btw|by\s+the\s+way|anyway|anyways|actually|honestly|basically|fyi|ps|p\.s\.|just\s+so\s+you\s+know|for\s+the\s+record|for\s+your\s+information|(?:please\s+)?(?:remember|note|keep\s+in\s+mind|don[’']t\s+forget)(?:\s+that)?|(?:just\s+)?(?:a\s+)?(?:quick\s+)?(?:reminder|update|correction)|as\s+i\s+(?:said|mentioned)|like\s+i\s+said)(?:\s*[,!.:;…-]+\s*|\s+|$))+/iu,
  lead: /^(?:(?:now|currently|usually|normally|these\s+days|nowadays|lately|recently|at\s+the\s+moment|right\s+now|as\s+of\s+(?:now|today)|from\s+now\s+on|since\s+then|(?:last|this)\s+(?:week|month|year|weekend|summer|spring|fall|autumn|winter)|yesterday|today)[,\s]+)+/iu,
  perspective: [
    [/^(?:the\s+)?user's\s+/iu, "my "],
    [/^(?:the\s+)?user\s+(?:isn't|is\s+not)\s+/iu, "i am not "],
    [/^(?:the\s+)?user\s+is\s+/iu, "i am "],
    [/^(?:the\s+)?user\s+was\s+/iu, "i was "],
    [/^(?:the\s+)?user\s+has\s+/iu, "i have "],
    [/^(?:the\s+)?user\s+(?:doesn't|does\s+not)\s+/iu, "i don't "],
    // "lives" → "live", "goes" → "go", also after an adverb ("no longer lives").
    [/^(?:the\s+)?user\s+((?:(?:no\s+longer|never|now|still|also|really|just|recently|usually|currently)\s+)*)(\w+(?:ss|sh|ch|x|z|o))es\b/iu, "i $1$2"],
    [/^(?:the\s+)?user\s+((?:(?:no\s+longer|never|now|still|also|really|just|recently|usually|currently)\s+)*)(\w+[^s\W])s\b/iu, "i $1$2"],
    [/^(?:the\s+)?user\s+/iu, "i "],
  ],
  question: [
    /\?[\s"')\]»”]*$/u,
    /^(?:what|who|whom|whose|which|where|when|why|how)(?:'s|'re|'d|'ll)?\s+(?:is|are|was|were|do|does|did|can|could|should|would|will|shall|may|might|about|many|much|long|often|old|far|come|i|you|we|they|my|your|the|to|a)\b/iu,
    /^(?:do|does|did|is|are|was|were|can|could|should|would|will|shall|may|might|have|has|had|am|isn't|aren't|don't|doesn't|didn't|can't|won't|shouldn't|wouldn't)\s+(?:i|you|we|he|she|it|they|my|your|our|the|this|that|these|those|there|anyone|someone|somebody|anybody)\b/iu,
    /^(?:any|got\s+any)\s+(?:idea|ideas|suggestions?|tips|recommendations?|thoughts)\b/iu,
    /^(?:i\s+)?(?:was\s+|am\s+|'m\s+)?wonder(?:ing)?\s+(?:if|whether|what|how|why|where|when|who)\b/iu,
    /^(?:i'm|i\s+am)\s+curious\s+(?:if|whether|what|how|about)\b/iu,
    /^(?:i\s+want|i'd\s+like|i\s+would\s+like)\s+to\s+know\b/iu,
    /^do\s+you\s+know\b/iu,
  ],
  smallTalk: {
    phrase: smallTalkPhrase([
      String.raw`hi|hello|hey|hey\s+there|hi\s+there|hello\s+there|hiya|howdy|yo|sup|what's\s+up|wassup|greetings|good\s+(?:morning|afternoon|evening|night|day)|morning|evening|gm|gn`,
      String.raw`bye|goodbye|good\s+bye|bye\s+bye|see\s+(?:you|ya)(?:\s+(?:later|soon|tomorrow|around))?|talk\s+(?:to\s+you\s+)?(?:later|soon|tomorrow)|ttyl|later|cya|take\s+care|have\s+a\s+(?:good|nice|great|lovely)\s+(?:day|one|night|evening|weekend)|good\s+night|night\s+night`,
      String.raw`thanks|thank\s+you|thx|ty|tysm|cheers|much\s+appreciated|appreciate\s+it|i\s+appreciate\s+it|many\s+thanks|thanks\s+(?:a\s+lot|so\s+much|a\s+ton|again|anyway|for\s+(?:the|your)\s+help)|thank\s+you\s+(?:so|very)\s+much|ok\s+thanks|okay\s+thanks`,
      String.raw`ok|okay|k|kk|cool|sure|yes|yeah|yep|yup|yes\s+please|no|nope|nah|no\s+thanks|fine|alright|all\s+right|right|got\s+it|gotcha|i\s+see|understood|noted|great|awesome|nice|perfect|excellent|wonderful|amazing|brilliant|lovely|sounds\s+(?:good|great|fine|perfect|like\s+a\s+plan)|makes\s+sense|fair\s+enough|good|very\s+good|good\s+to\s+know|i\s+agree|agreed|exactly|indeed|true|of\s+course|no\s+problem|no\s+worries|np|you're\s+welcome|welcome|my\s+pleasure|sure\s+thing|will\s+do|go\s+on|continue|same|same\s+here|me\s+too|you\s+too|good\s+question|good\s+point|fine\s+by\s+me|never\s+mind|nevermind|nvm|no\s+idea|i\s+(?:don't|do\s+not)\s+know|idk|not\s+sure|i'm\s+not\s+sure|maybe|perhaps|whatever|anyway|i\s+think\s+so|i\s+guess(?:\s+so)?|i\s+hope\s+so|hopefully|let\s+me\s+think|hmm+\s+let\s+me\s+think|i\s+love\s+(?:it|that|this|you)|i\s+like\s+(?:it|that|this)|love\s+it|i\s+hate\s+(?:it|that|this)`,
      String.raw`lol|lmao|rofl|haha+|hehe+|hah|ha|heh|wow|whoa|oh|ah|aha|oops|hmm+|um+|uh+|ugh|meh|yay|omg|oh\s+my\s+god|oh\s+no|oh\s+well|really|seriously|interesting|what\s+a\s+day|what\s+a\s+week|nice\s+weather(?:\s+(?:huh|today|isn't\s+it))?|it's\s+(?:so\s+)?(?:hot|cold|sunny|rainy)\s+today|brb|gtg|afk`,
      String.raw`(?:that's|that\s+is|this\s+is|it's|it\s+is|how)\s+(?:so\s+|very\s+|really\s+|pretty\s+|super\s+)?(?:great|good|nice|cool|funny|awesome|interesting|fine|ok|okay|right|true|fair|amazing|wonderful|perfect|helpful|hilarious|sad|weird|crazy|wild|fun|bad|terrible|annoying|kind\s+of\s+you|useful)|you're\s+(?:right|the\s+best|awesome|funny|great|amazing|so\s+helpful|welcome|kidding)|you\s+rock|good\s+job|well\s+done|nice\s+one`,
      String.raw`(?:i'm|i\s+am|im|feeling|i\s+feel)\s+(?:so\s+|really\s+|very\s+|super\s+|kinda\s+|kind\s+of\s+|a\s+bit\s+|a\s+little\s+|pretty\s+|quite\s+|totally\s+|just\s+|a\s+little\s+bit\s+)*(?:tired|sleepy|bored|hungry|thirsty|busy|happy|sad|excited|stressed|exhausted|confused|annoyed|cold|hot|sick|fine|good|great|ok|okay|well|lost|curious|done|back|here|glad|sorry|nervous|worried|upset|angry|grumpy|lazy|full|stuffed|relieved|impressed|jealous)(?:\s+(?:right\s+now|now|today|tonight|this\s+morning|this\s+afternoon|at\s+the\s+moment|again|as\s+well|though))*`,
      String.raw`lol|lmao|haha+|hehe+|then|again|too|so\s+much|a\s+lot|anyway|though|man|dude|bro|buddy|mate|friend|everyone|all|there|guys`,
      String.raw`you're\s+wrong|you\s+are\s+wrong|that's\s+(?:not\s+)?(?:wrong|right|correct|it)|that's\s+not\s+what\s+i\s+(?:meant|asked|said)|not\s+what\s+i\s+(?:meant|asked)|forget\s+it|try\s+again|go\s+ahead|not\s+really|not\s+at\s+all|not\s+now|no\s+thanks|i\s+(?:don't|do\s+not)\s+care|(?:it\s+)?doesn't\s+matter|why\s+not|sounds\s+about\s+right|i\s+see\s+what\s+you\s+mean|fair\s+point|good\s+luck|congrats|congratulations|sorry|my\s+bad|no\s+problem\s+at\s+all`,
    ]),
    glue: /[\s"'()[\],.!?~…:;*^_-]+/uy,
  },
  request: [
    /^(?:please|pls|plz|kindly)\b/iu,
    /^(?:can|could|would|will|won't)\s+(?:you|u)\b/iu,
    /^(?:i|we)(?:'d|\s+would)?\s+(?:want|need|like|love)\s+(?:you|u)\s+to\b/iu,
    /^(?:let's|lets|let\s+us|let\s+me)\b/iu,
    /^i\s+need\s+(?:some\s+|your\s+)?(?:help|advice|a\s+hand|ideas|suggestions)\b/iu,
    /^(?:help|tell|show|give|remind|find|get|make|write|draft|translate|summari[sz]e|explain|list|recommend|suggest|book|order|send|create|generate|calculate|check|search|look\s+up|describe|compare|plan|draw|fix|add|set|schedule|cancel|email|text|play|open|turn|read|answer|rewrite|edit|proofread|convert|name|pick|choose)\s+(?:me|us|a|an|the|my|our|some|this|that|these|those|it|what|how|why|where|when|who|which|up|out|for|about|to)\b/iu,
  ],
  slots: SLOTS,
  keyWords: {
    colour: "color",
    favourite: "favorite",
    fave: "favorite",
    neighbour: "neighbor",
    wife: "partner",
    husband: "partner",
    spouse: "partner",
    girlfriend: "partner",
    boyfriend: "partner",
    gf: "partner",
    bf: "partner",
    fiance: "partner",
    fiancé: "partner",
    fiancee: "partner",
    fiancée: "partner",
    mom: "mother",
    mum: "mother",
    mommy: "mother",
    mummy: "mother",
    dad: "father",
    daddy: "father",
    grandma: "grandmother",
    granny: "grandmother",
    grandpa: "grandfather",
    kid: "child",
    children: "child",
    boss: "manager",
    puppy: "dog",
    kitten: "cat",
    bunny: "rabbit",
    film: "movie",
    tv: "show",
    cellphone: "phone",
    mobile: "phone",
  },
  preference: /\b(?:like|likes|love|loves|enjoy|enjoys|prefer|prefers|hate|hates|dislike|dislikes|favou?rite|fond|into|can't\s+stand|rather|fan\s+of|wish)\b/iu,
  event:
    /\b(?:yesterday|today|tonight|tomorrow|(?:last|next)\s+(?:week|month|year|night|weekend|summer|winter|spring|fall|autumn|time|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|ago|this\s+(?:morning|afternoon|evening|week|weekend|month|year)|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in\s+(?:january|february|march|april|may|june|july|august|september|october|november|december)|went|visited|met|arrived|started|finished|graduated|going\s+to|gonna|will|plan(?:ning)?\s+to|appointment|meeting|trip|flight|wedding|interview|exam|party|concert|vacation|holiday)\b/iu,
  anchors: {
    negation: /\b(?:not|no|never|none|nobody|nothing|neither|nor|without|longer|anymore|[a-z]+n't|cannot)\b/giu,
    date: /\b(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekends?|weekdays?|today|tonight|tomorrow|yesterday|morning|afternoon|evening|night|noon|midnight|spring|summer|autumn|fall|winter)\b/giu,
    number: new RegExp(String.raw`\b(?:${NUMBER_WORD}|hundred|thousand|million|once|twice|half|dozen|first|second|third|fourth|fifth)\b`, "giu"),
    relation: new RegExp(
      String.raw`\b(?:${PARTNER}|${PET}|mother|mom|mum|father|dad|parents?|son|daughter|kids?|child|children|baby|brother|sister|siblings?|grandmother|grandma|grandfather|grandpa|aunt|uncle|cousin|nephew|niece|friend|boss|manager|colleague|coworker|neighbou?r|roommate|team|family)s?\b`,
      "giu",
    ),
  },
};
