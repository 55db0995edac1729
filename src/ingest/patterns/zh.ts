// Chinese pattern table of the offline extractor: small talk, questions, requests, and the slots of common personal facts.

import { longestFirst, type LanguageTable, type SlotRule, type StatementKind } from "../language-table.ts";

// Building blocks, as regular-expression source. Slot rules see the clause in NFKC (full-width
// punctuation such as ，？！： becomes , ? ! :; 。 stays).
/** Adverbs between the subject and the verb: 我现在住在…, 我已经搬到…, 我其实在…. (Not 在: it is also the verb.) */
const ADV = String.raw`(?:现在|目前|已经|最近|刚刚|刚|还|也|一直|终于|平时|一般|通常|每天|其实|本来|真的|就|都|又|正在|马上|早就|从小|今年|如今|这几年|这些年|以后)*`;
/** When something happened: 上个月, 去年, 昨天. */
const WHEN = String.raw`(?:(?:上|下|这|本)(?:个)?(?:月|周|星期|礼拜)|去年|今年|明年|前年|昨天|前天|今天|刚才|年初|年底|上周末)?`;
const WE = String.raw`我(?:们)?`;
const END = String.raw`[\s。.!~～…]*$`;
const PARTNER = String.raw`(?:老婆|老公|妻子|丈夫|太太|先生|爱人|对象|媳妇|男朋友|女朋友|男友|女友|未婚妻|未婚夫)`;
const ONE_RELATIVE = String.raw`(?:${PARTNER}|儿子|女儿|妈妈|母亲|老妈|妈|爸爸|父亲|老爸|爸|爷爷|奶奶|外公|外婆|姥姥|姥爷|领导|老板|上司)`;
const PET = String.raw`(?:狗狗|小狗|狗|猫咪|小猫|猫|宠物|鹦鹉|兔子|仓鼠|乌龟|金鱼)`;
const CHILD = String.raw`(?:儿子|女儿|孩子|小孩|闺女)`;
const NUMERAL = String.raw`[\d零〇一二三四五六七八九十百两]+`;
const JOB = String.raw`(?:老师|教师|医生|大夫|护士|工程师|程序员|设计师|律师|学生|大学生|研究生|博士生|会计|会计师|经理|司机|厨师|记者|作家|编辑|研究员|教授|警察|公务员|销售|产品经理|运营|创业者|自由职业者|翻译|演员|歌手|画家|摄影师|农民|工人|服务员|保安|快递员|外卖员|店长|主管|总监|实习生|药剂师|建筑师|飞行员|空姐|军人|医师|护工|保姆|家庭主妇|全职妈妈|全职爸爸|老板|个体户|分析师|咨询师|顾问|秘书|助理|前台|收银员|导游|教练|律师助理|模特|主播|博主|科学家|数据分析师|架构师|测试|产品|设计|销售员)`;
const SCHOOL = String.raw`(?:大学|学院|中学|小学|高中|初中|幼儿园|学校|附中|附小|一中|二中|职高|中专|大专)`;
const LANGUAGE = String.raw`(?:[\p{sc=Han}]{1,4}(?:语|话|文)|英文|中文)`;
const VALUE = String.raw`(?<value>.+?)${END}`;
/** A common surname and one or two more characters (张伟, 王经理), or 小 / 老 / 阿 and one (小王, 老李, 阿明). */
const PERSON_NAME = String.raw`(?:(?:[小老阿][\p{sc=Han}])|[王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤][\p{sc=Han}]{1,2})`;

const rule = (pattern: string, key: string, kind: StatementKind): SlotRule => ({ pattern: new RegExp(`^${pattern}`, "iu"), key, kind });

/** Small-talk phrases, each maybe followed by modal particles and laughter. */
const smallTalkPhrase = (phrases: readonly string[]): RegExp => new RegExp(String.raw`(?:${longestFirst(phrases)})[啊呀哦呢吧啦嘛了的哈嘿呵嗯~～]*`, "iuy");

const SLOTS: readonly SlotRule[] = [
  // Name and what to call the user. (叫 alone also means "order": 我叫了外卖, so the name must be short and end the clause.)
  rule(String.raw`我(?:的名字|的全名)?叫(?![了过着])(?<value>[\p{sc=Han}]{1,4}|[A-Za-z][\w .'-]{0,30})${END}`, "name", "fact"),
  rule(String.raw`我的名字是${VALUE}`, "name", "fact"),
  rule(String.raw`我${ADV}(?:改名|改名字)(?:叫|为|成)?(?:了)?(?<value>.+?)了?${END}`, "name", "fact"),
  rule(
    String.raw`(?:以后|之后|今后)?(?:你|您)?(?:可以|就)?(?:叫我|称呼我|喊我)(?<value>.+?)(?:就(?:好|行|可以)了?)?(?:吧|啊|哦|呀)?${END}`,
    "preferred_name",
    "preference",
  ),
  rule(String.raw`(?:大家|朋友们|别人)都叫我${VALUE}`, "preferred_name", "preference"),
  // Age and birth.
  rule(String.raw`我${ADV}(?:今年)?(?:已经)?(?:满)?(?<n>${NUMERAL})(?:周)?岁`, "age", "fact"),
  rule(String.raw`我的生日${ADV}(?:是|在)${VALUE}`, "birthday", "fact"),
  rule(String.raw`我(?:是)?(?:出生于|出生在|生于)(?<year>(?:19|20)\d\d)年`, "birth_year", "fact"),
  rule(String.raw`我(?:是)?(?<year>(?:19|20)\d\d)年(?:出生|生)`, "birth_year", "fact"),
  rule(String.raw`我(?:出生在|出生于|生在)${VALUE}`, "birthplace", "fact"),
  rule(String.raw`我(?:是)?在(?<value>.+?)出生的?${END}`, "birthplace", "fact"),
  // Hometown.
  rule(String.raw`我(?:的)?老家${ADV}(?:是|在)${VALUE}`, "hometown", "fact"),
  rule(String.raw`我${ADV}(?:是)(?<value>[\p{sc=Han}]{2,6})人${END}`, "hometown", "fact"),
  rule(String.raw`我${ADV}来自${VALUE}`, "hometown", "fact"),
  rule(String.raw`我${ADV}(?:是)?在(?<value>.+?)长大的?${END}`, "hometown", "fact"),
  // Where the user (or one of theirs) lives.
  rule(String.raw`${WE}${ADV}(?:不|不再|已经不)住在(?<value>.+?)了?${END}`, "home_city", "fact"),
  rule(String.raw`${WE}${ADV}住在${VALUE}`, "home_city", "fact"),
  rule(String.raw`${WE}${ADV}${WHEN}(?:搬到|搬去|搬家到|搬回到|搬回|移居到|移居|定居在|定居)(?:了)?${VALUE}`, "home_city", "fact"),
  rule(String.raw`${WE}${ADV}在(?<value>.+?)(?:生活|定居|安家)`, "home_city", "fact"),
  rule(String.raw`我(?:的)?(?<who>${ONE_RELATIVE})${ADV}住在${VALUE}`, "{who}_home_city", "fact"),
  // Employer, job, school.
  rule(String.raw`我${ADV}(?:从|离开了?)(?<value>.+?)(?:辞职|离职|离开)了?`, "employer", "fact"),
  rule(String.raw`我${ADV}${WHEN}(?:辞职|离职|失业|被裁|被辞退)了`, "employer", "fact"),
  rule(String.raw`我${ADV}不在(?<value>.+?)(?:工作|上班)了`, "employer", "fact"),
  rule(String.raw`我${ADV}在(?!家)(?<value>[^,，]+?)(?:工作|上班|任职|实习|打工)`, "employer", "fact"),
  rule(String.raw`我${ADV}${WHEN}(?:入职|加入|跳槽到|跳槽去)(?:了)?${VALUE}`, "employer", "fact"),
  rule(String.raw`我(?:的)?(?<who>${ONE_RELATIVE})${ADV}在(?!家)(?<value>[^,，]+?)(?:工作|上班)`, "{who}_employer", "fact"),
  rule(String.raw`我${ADV}(?:是|做|当)(?:一名|一个|一位|个|名)?(?<value>[\p{sc=Han}A-Za-z]{0,6}?${JOB})(?:的)?${END}`, "job_title", "fact"),
  rule(String.raw`我${ADV}(?:转行|改行)(?:做|当|成|去做|去当)?(?:了)?${VALUE}`, "job_title", "fact"),
  rule(String.raw`我${ADV}(?:当|成为|成了|做)(?:了)?(?:一名|一个|一位)?(?<value>[\p{sc=Han}A-Za-z]{0,6}?${JOB})了?${END}`, "job_title", "fact"),
  rule(String.raw`我${ADV}${WHEN}退休了`, "job_title", "fact"),
  rule(
    String.raw`我(?:现在|目前)?(?:的)?(?:新)?(?<who>${ONE_RELATIVE})是(?<value>${PERSON_NAME}(?:经理|总|老师|医生|主任|先生|女士)?)${END}`,
    "{who}_name",
    "fact",
  ),
  rule(String.raw`我(?:的)?(?<who>${ONE_RELATIVE})(?:是|当)(?:一名|一个|一位)?(?<value>[\p{sc=Han}A-Za-z]{0,6}?${JOB})`, "{who}_job_title", "fact"),
  rule(String.raw`我${ADV}在(?<value>[^,，]+?${SCHOOL})(?:上学|读书|念书|读研|读博|读大学|学习|上课|就读|读)`, "school", "fact"),
  rule(String.raw`我${ADV}${WHEN}(?:考上|转学到|转到|进了|考进)(?:了)?(?<value>[^,，]+?${SCHOOL})`, "school", "fact"),
  rule(String.raw`我(?:的|家)?(?<who>${CHILD})${ADV}在(?<value>[^,，]+?${SCHOOL})`, "{who}_school", "fact"),
  rule(String.raw`我(?:的|家)?(?<who>${CHILD})${ADV}${WHEN}(?:转学到|转到|考上|进了|上了|去了)(?:了)?(?<value>[^,，]+?${SCHOOL})`, "{who}_school", "fact"),
  // Partner and relationship.
  rule(String.raw`我(?:现在|目前)?(?:的)?(?:新)?(?<who>${PARTNER})(?:的名字)?叫${VALUE}`, "partner_name", "fact"),
  rule(String.raw`我${ADV}(?:是)?(?:单身|已婚|未婚|离异)`, "relationship_status", "fact"),
  rule(String.raw`${WE}${ADV}${WHEN}(?:(?:和|跟)[^,，]{1,8}?)?(?:结婚|订婚|离婚|分手|脱单)了`, "relationship_status", "event"),
  rule(String.raw`我${ADV}(?:有|交了)(?:男|女)朋友了`, "relationship_status", "fact"),
  // Children's and pets' names, and how many.
  rule(String.raw`我(?:的|家)?的?(?<who>儿子|女儿|闺女|${PET})(?:的名字)?叫${VALUE}`, "{who}_name", "fact"),
  rule(
    String.raw`${WE}${ADV}(?:把|给)(?:我们?的|我们?家的?|家里的?)?(?<who>儿子|女儿|${PET})(?:改名|改名字|取名|起名|起名字|取名字)(?:叫|为|成)?(?:了)?(?<value>.+?)了?${END}`,
    "{who}_name",
    "fact",
  ),
  rule(
    String.raw`我${ADV}(?:养了|有|养)(?:一|两|${NUMERAL})?(?:只|条|个|匹)(?<who>${PET}|儿子|女儿)[,，]?(?:它|他|她)?(?:叫|名叫|名字叫)${VALUE}`,
    "{who}_name",
    "fact",
  ),
  rule(String.raw`${WE}(?:家)?${ADV}有(?<n>${NUMERAL})(?:个|只|条|位)(?<what>孩子|儿子|女儿|猫|狗|宠物|兄弟姐妹)`, "{what}_count", "fact"),
  rule(String.raw`${WE}(?:家)?${ADV}没有(?<what>孩子|宠物|兄弟姐妹)`, "{what}_count", "fact"),
  // Diet, allergies, things the user avoids.
  rule(String.raw`我${ADV}(?:不|不再|没有再)吃素了?`, "diet", "preference"),
  rule(String.raw`我${ADV}(?:吃素|只吃素|是素食者|是素食主义者|是纯素食者|是吃素的|吃清真|吃斋)`, "diet", "preference"),
  rule(String.raw`我${ADV}(?:开始|重新|又)?吃肉`, "diet", "preference"),
  rule(String.raw`我${ADV}对(?<value>.+?)(?:已经)?不(?:再)?过敏了?${END}`, "allergy_{value}", "fact"),
  rule(String.raw`我${ADV}不(?:再)?对(?<value>.+?)过敏了?${END}`, "allergy_{value}", "fact"),
  rule(String.raw`我${ADV}对(?<value>[^,，]+?)(?:有点|有些|严重|很|非常|特别|轻微)?过敏`, "allergy_{value}", "fact"),
  rule(String.raw`我${ADV}有(?<value>[^,，]{1,8}?)过敏`, "allergy_{value}", "fact"),
  rule(String.raw`我${ADV}又(?:能|可以)(?:吃|喝)(?<value>.+?)了${END}`, "avoid_{value}", "preference"),
  rule(String.raw`我${ADV}(?:不|不太|不怎么)能(?:吃|喝)(?<value>.+?)${END}`, "avoid_{value}", "preference"),
  rule(String.raw`我${ADV}(?:不吃|不喝|戒了|戒掉了|忌口|忌)(?<value>.+?)了?${END}`, "avoid_{value}", "preference"),
  // Languages.
  rule(String.raw`我的母语是${VALUE}`, "native_language", "fact"),
  rule(String.raw`我${ADV}不会(?:说|讲)(?<value>${LANGUAGE})`, "speaks_{value}", "fact"),
  rule(String.raw`我${ADV}(?:会|能)(?:说|讲)(?:一点|一些|流利的)?(?<value>${LANGUAGE})`, "speaks_{value}", "fact"),
  rule(String.raw`我${ADV}(?:在|正在)?学(?:习)?(?<value>${LANGUAGE})${END}`, "language_learning", "fact"),
  // Favourites (one per thing), likes and dislikes (many).
  rule(String.raw`我(?:的)?(?<who>${ONE_RELATIVE}|${PET})${ADV}最(?:喜欢|爱)的(?<thing>[^,，]+?)(?:是|就是)${VALUE}`, "{who}_favorite_{thing}", "preference"),
  rule(String.raw`我${ADV}最(?:喜欢|爱)的(?<thing>[^,，]+?)(?:是|就是)${VALUE}`, "favorite_{thing}", "preference"),
  rule(String.raw`我(?:的)?(?<who>${ONE_RELATIVE}|${PET})${ADV}最(?:喜欢|爱)(?<thing>吃|喝)${VALUE}`, "{who}_favorite_{thing}", "preference"),
  rule(String.raw`我${ADV}最(?:喜欢|爱)(?<thing>吃|喝)${VALUE}`, "favorite_{thing}", "preference"),
  rule(String.raw`我(?:的)?(?<who>${ONE_RELATIVE}|${PET})${ADV}(?:很|非常|特别|超|最)?(?:不)?(?:喜欢|爱|讨厌)${VALUE}`, "{who}_likes_{value}", "preference"),
  rule(String.raw`我${ADV}(?:不|不太|不怎么|不再)(?:喜欢|爱)(?<value>.+?)了?${END}`, "likes_{value}", "preference"),
  rule(String.raw`我${ADV}(?:讨厌|受不了|烦)${VALUE}`, "likes_{value}", "preference"),
  rule(String.raw`我${ADV}(?:很|非常|特别|超|真的|挺|也|更|最)?(?:喜欢|爱|热爱|爱好)${VALUE}`, "likes_{value}", "preference"),
  // Everyday settings that change over time.
  rule(String.raw`我${ADV}开的(?:车)?是${VALUE}`, "car", "fact"),
  rule(String.raw`我${ADV}(?:坐|乘|骑|开)(?<value>[^,，]+?)(?:上班|上学|通勤)`, "commute", "fact"),
  rule(String.raw`我${ADV}(?:晚上)?(?<value>${NUMERAL}点(?:半|多)?)(?:就|才)?(?:睡觉|睡|上床)`, "bedtime", "fact"),
  rule(String.raw`我${ADV}(?:早上)?(?<value>${NUMERAL}点(?:半|多)?)(?:就|才)?(?:起床|起)`, "wake_time", "fact"),
];

export const CHINESE: LanguageTable = {
  language: "zh",
  script: /\p{sc=Han}/gu,
  // Before a new subject or a question: "…，我…", "…，但是…", "…，能…吗".
  clauseBreak: /\s*[，,；;]\s*(?=我|另外|还有|而且|但是|不过|对了|能|可以|可不可以|能不能|要不要|请问|请|帮我|你)/gu,
  filler:
    /^(?:(?:对了|其实|另外|还有|顺便(?:说|提)?一(?:下|句)|顺便说|顺便|请(?:你)?记住|请(?:你)?记一下|记住|(?:帮我)?记(?:一下|住)|告诉你|跟你说|我跟你说|话说|说真的|老实说)[，,：:！!。、～~\s]*|(?:哦|噢|嗯+|啊|那个|好的|好吧|是这样的?|哈哈+|对|嗨|你好|您好|喂|hi|hello|嘿|谢谢|好)[，,：:！!。、～~\s]+)+/iu,
  lead: /^(?:(?:现在|目前|最近|如今|这几年|今年|去年|上个月|上周|这段时间)[，,\s]*)+/u,
  perspective: [[/^(?:该)?用户/u, "我"]],
  question: [
    /[?？][\s"'」』）)]*$/u,
    /(?:吗|呢|么|嘛)[\s。.!！~～…]*$/u,
    /(?:能不能|可不可以|是不是|有没有|会不会|要不要|行不行|好不好|对不对|可以不可以|需不需要|该不该|知不知道|记不记得)/u,
    /^(?:请问|为什么|为啥|怎么|怎样|如何|什么|哪|谁|几|多少|是否)/u,
    /(?:什么|怎么|为什么|为啥|哪里|哪儿|哪个|哪些|谁|多少|几点|几岁|如何)(?![都也])/u,
    /^(?:你|您)(?:知道|觉得|认为|记得|还记得|说|看|猜)/u,
  ],
  smallTalk: {
    phrase: smallTalkPhrase([
      String.raw`你好|您好|嗨|哈喽|hello|hi|早上好|早安|早|午安|中午好|下午好|晚上好|晚安|大家好`,
      String.raw`谢谢|谢谢你|谢谢您|多谢|谢啦|感谢|太感谢了|非常感谢|谢谢啦|好的谢谢|不客气|不用谢|没事|没关系|没问题|辛苦了`,
      String.raw`好的|好|行|可以|嗯+|哦+|噢+|啊+|哈+|呵+|嘿+|嘻+|再见|拜拜|拜|回头见|明天见|下次见|好吧|对|对的|对啊|是的|是啊|没错|真的|太好了|太棒了|棒|厉害|牛|不错|挺好|还行|一般|收到|明白了?|懂了|知道了|了解|加油|算了|随便|都行|有道理|说得对|你说得对|好主意|666|哇|哇塞|天哪|我的天|ok|okay|嗯嗯|好滴|好哒|妥|可以的|没毛病|我想想|让我想想|等一下|稍等|不知道|我不知道|不清楚|也许吧|可能吧|好像是|是吗|真的假的`,
      String.raw`我喜欢你|我爱你|爱你|这个不对|不对|不是这个意思|不是这样的?|错了|你错了|重新来|再试一次|继续|没关系的|无所谓|不用了|不需要|恭喜|祝贺|抱歉|对不起|不好意思|好久不见`,
      String.raw`(?:今天|今儿)?天气(?:真|很|挺|不错|真不错|好)?好?|今天(?:真|好|很|挺)?(?:热|冷|忙|累)`,
      String.raw`(?:我)?(?:今天|现在|刚才|最近|真的)?(?:好|很|有点|有些|真|太|特别|超|挺|快|好像)?(?:累|困|饿|渴|无聊|开心|高兴|烦|难过|忙|冷|热|紧张|激动|郁闷|生气|伤心|兴奋)(?:死)?(?:了|啊|呀|哦|呢|啦)*(?:哈+)*`,
    ]),
    glue: /[\s"'()（）「」,.。!?~～…:;、]+/uy,
  },
  request: [
    /^(?:请|麻烦|帮我|帮忙|给我|替我|告诉我|跟我说|推荐|建议|写|翻译|总结|解释|查一?下|搜一?下|找一?下|订|预订|预定|提醒我|让我|咱们|我们来|说说|讲讲|讲个|说个|介绍一?下)/u,
    /^我(?:想|要|需要|希望)(?:你|您|请你|知道|问|了解|查|让你)/u,
    /^(?:能|可以)(?:帮|给|告诉|推荐)/u,
  ],
  slots: SLOTS,
  keyWords: {
    老婆: "partner",
    老公: "partner",
    妻子: "partner",
    丈夫: "partner",
    太太: "partner",
    先生: "partner",
    爱人: "partner",
    对象: "partner",
    媳妇: "partner",
    男朋友: "partner",
    女朋友: "partner",
    男友: "partner",
    女友: "partner",
    未婚妻: "partner",
    未婚夫: "partner",
    儿子: "son",
    女儿: "daughter",
    闺女: "daughter",
    孩子: "child",
    小孩: "child",
    妈妈: "mother",
    母亲: "mother",
    老妈: "mother",
    妈: "mother",
    爸爸: "father",
    父亲: "father",
    老爸: "father",
    爸: "father",
    爷爷: "grandfather",
    外公: "grandfather",
    姥爷: "grandfather",
    奶奶: "grandmother",
    外婆: "grandmother",
    姥姥: "grandmother",
    领导: "manager",
    老板: "manager",
    上司: "manager",
    狗狗: "dog",
    小狗: "dog",
    狗: "dog",
    猫咪: "cat",
    小猫: "cat",
    猫: "cat",
    宠物: "pet",
    鹦鹉: "parrot",
    兔子: "rabbit",
    仓鼠: "hamster",
    乌龟: "turtle",
    金鱼: "fish",
    兄弟姐妹: "sibling",
    吃: "food",
    喝: "drink",
    食物: "food",
    菜: "food",
    水果: "fruit",
    颜色: "color",
    电影: "movie",
    书: "book",
    歌: "song",
    歌手: "singer",
    运动: "sport",
    城市: "city",
    饮料: "drink",
    动物: "animal",
    乐队: "band",
    游戏: "game",
    季节: "season",
  },
  preference: /喜欢|爱吃|爱喝|讨厌|偏好|最爱|宁愿|宁可|受不了|不爱/u,
  event:
    /昨天|今天|明天|后天|前天|上周|下周|上个月|下个月|去年|明年|周[一二三四五六日天末]|星期|礼拜|[\d一二三四五六七八九十]+月|[\d一二三四五六七八九十]+[号日]|[\d一二三四五六七八九十]+点|刚才|打算|准备|要去|去了|参加|约了|出差|旅行|旅游|面试|考试|婚礼|会议|预约/u,
  anchors: {
    negation: /[不没别未无非]/gu,
    date: /(?:周|星期|礼拜)[一二三四五六日天末]|[\d一二三四五六七八九十]+月|[\d一二三四五六七八九十]+[号日]|[今明昨后前]天|[今明去前]年|(?:上|下|这|本)(?:个)?(?:月|周|星期)|早上|上午|中午|下午|晚上|凌晨|周末|春天|夏天|秋天|冬天/gu,
    number: /[零〇一二三四五六七八九十百千万两]+/gu,
    name: new RegExp(PERSON_NAME, "gu"),
    relation: new RegExp(
      String.raw`${PARTNER}|${PET}|儿子|女儿|闺女|孩子|小孩|宝宝|妈妈|母亲|老妈|爸爸|父亲|老爸|父母|爷爷|奶奶|外公|外婆|姥姥|姥爷|哥哥|姐姐|弟弟|妹妹|叔叔|阿姨|舅舅|姑姑|朋友|同事|领导|老板|上司|室友|邻居|同学|家人`,
      "gu",
    ),
  },
};
