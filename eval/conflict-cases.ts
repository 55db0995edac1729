// Fact-change cases (the new fact must replace the old) and look-alike pairs (both must stay), English and Chinese.
//
// Each sentence carries the slot key an LLM extractor would give it. Written for this benchmark; the
// cases at even positions were used to design judge changes, the odd ones are held out to check them.

export interface Fact {
  text: string;
  key: string;
}

export interface ConflictCase {
  lang: "en" | "zh";
  /** What kind of change or look-alike this is, for the report. */
  topic: string;
  old: Fact;
  new: Fact;
}

function c(lang: "en" | "zh", topic: string, key: string, oldText: string, newText: string): ConflictCase {
  return { lang, topic, old: { text: oldText, key }, new: { text: newText, key } };
}

function p(lang: "en" | "zh", topic: string, a: Fact, b: Fact): ConflictCase {
  return { lang, topic, old: a, new: b };
}

const f = (text: string, key: string): Fact => ({ text, key });

/** The new fact replaces the old one (same slot, new value). */
export const CHANGES: readonly ConflictCase[] = [
  c("en", "move", "home_city", "I live in Beijing", "I live in Shenzhen now"),
  c("en", "move", "home_city", "I live in Berlin with my partner", "We moved to Munich last month"),
  c("en", "job change", "employer", "I work at Google", "I started a new job at Microsoft"),
  c("en", "job change", "job_title", "I work as a nurse", "I'm a software engineer now"),
  c("en", "diet", "diet", "I'm vegetarian", "I eat meat again"),
  c("en", "renamed pet", "dog_name", "My dog is called Max", "We renamed our dog Buddy"),
  c("en", "relationship", "relationship_status", "I'm single", "I got married in June"),
  c("en", "device", "phone", "I use an iPhone 12", "I switched to a Pixel 8"),
  c("en", "preference", "favorite_color", "My favourite colour is blue", "My favourite colour is green"),
  c("en", "car", "car", "I drive a Toyota Corolla", "I drive a Tesla Model 3 now"),
  c("en", "preference", "coffee_order", "I take my coffee black", "I take my coffee with oat milk"),
  c("en", "schedule", "gym_day", "I go to the gym on Mondays", "I go to the gym on Thursdays"),
  c("en", "learning", "language_learning", "I'm learning Spanish", "I'm learning Japanese"),
  c("en", "health", "allergy_medication", "I take Zyrtec for my allergies", "I take Claritin for my allergies"),
  c("en", "family", "son_school", "My son goes to Lincoln Elementary", "My son goes to Roosevelt Middle School"),
  c("en", "routine", "bedtime", "I usually go to bed at 11 pm", "These days I go to bed at 10 pm"),
  c("en", "job change", "manager", "My manager is Sarah", "My new manager is Tom"),
  c("en", "hobby", "instrument", "I play the guitar", "I play the piano now"),
  c("en", "routine", "commute", "I commute by bus", "I commute by bike"),
  c("en", "preference", "favorite_food", "My favourite food is sushi", "My favourite food is ramen"),
  c("en", "age", "age", "I am 29 years old", "I am 30 years old"),
  c("en", "relationship", "partner_name", "My girlfriend is Anna", "My girlfriend is Lisa"),
  c("en", "move", "home_country", "I live in Canada", "I relocated to Australia"),
  c("en", "diet", "diet", "I avoid gluten", "I can eat gluten again"),
  c("zh", "搬家", "home_city", "我住在北京", "我搬到深圳了"),
  c("zh", "换工作", "employer", "我在腾讯工作", "我现在在阿里巴巴工作"),
  c("zh", "饮食", "diet", "我吃素", "我现在不吃素了，开始吃肉"),
  c("zh", "宠物改名", "cat_name", "我的猫叫咪咪", "我们把猫改名叫豆豆了"),
  c("zh", "换工作", "job_title", "我是一名老师", "我转行做程序员了"),
  c("zh", "设备", "phone", "我用的是华为手机", "我换了小米手机"),
  c("zh", "偏好", "favorite_fruit", "我最喜欢的水果是苹果", "我最喜欢的水果是芒果"),
  c("zh", "婚恋", "relationship_status", "我单身", "我上个月结婚了"),
  c("zh", "汽车", "car", "我开的是比亚迪", "我换了一辆特斯拉"),
  c("zh", "学习", "language_learning", "我在学英语", "我在学日语"),
  c("zh", "家庭", "daughter_school", "我女儿在实验小学上学", "我女儿转到育才小学了"),
  c("zh", "通勤", "commute", "我每天坐地铁上班", "我现在骑车上班"),
  c("zh", "日程", "gym_day", "我每周一去健身房", "我改成每周四去健身房"),
  c("zh", "偏好", "coffee_order", "我喝咖啡不加糖", "我喝咖啡要加两块糖"),
  c("zh", "爱好", "favorite_sport", "我喜欢打羽毛球", "我现在更喜欢打网球"),
  c("zh", "年龄", "age", "我今年二十八岁", "我今年二十九岁"),
  c("zh", "换领导", "manager", "我的领导是王经理", "我的新领导是李总"),
  c("zh", "作息", "bedtime", "我一般十二点睡觉", "我现在十点就睡了"),
  c("zh", "搬家", "home_district", "我住在朝阳区", "我搬到海淀区了"),
  c("zh", "饮品", "daily_drink", "我每天喝绿茶", "我现在每天喝红茶"),
];

/** Two facts that look alike but fill different slots: neither may replace the other. */
export const LOOKALIKES: readonly ConflictCase[] = [
  p("en", "sibling", f("My sister lives in Paris", "sister_city"), f("My brother lives in Paris", "brother_city")),
  p("en", "home vs work", f("I live in Berlin", "home_city"), f("I work in Berlin", "work_city")),
  p("en", "two pets", f("My dog is called Max", "dog_name"), f("My cat is called Max", "cat_name")),
  p("en", "two drinks", f("I like coffee in the morning", "morning_drink"), f("I like tea in the evening", "evening_drink")),
  p("en", "two children", f("My son plays football", "son_sport"), f("My daughter plays football", "daughter_sport")),
  p("en", "past vs plan", f("I visited Tokyo last year", "past_trip"), f("I plan to visit Tokyo next year", "planned_trip")),
  p("en", "two colours", f("My favourite colour is blue", "favorite_color"), f("My car is blue", "car_color")),
  p("en", "me vs spouse", f("I work at Google", "employer"), f("My wife works at Google", "spouse_employer")),
  p("en", "two sports", f("I go to the gym on Mondays", "gym_day"), f("I go swimming on Mondays", "swim_day")),
  p("en", "learn vs speak", f("I'm learning Spanish", "language_learning"), f("I speak French fluently", "spoken_language")),
  p("en", "two birthdays", f("My birthday is in May", "birthday"), f("My wife's birthday is in May", "spouse_birthday")),
  p("en", "born vs live", f("I was born in Shanghai", "birthplace"), f("I live in Shanghai", "home_city")),
  p("en", "two counts", f("I drink two cups of coffee a day", "coffee_per_day"), f("I drink two litres of water a day", "water_per_day")),
  p("en", "two parents", f("My mother is a teacher", "mother_job"), f("My father is a teacher", "father_job")),
  p("en", "two counts", f("I have two kids", "children_count"), f("I have two cats", "cat_count")),
  p("en", "me vs son", f("I play the guitar", "instrument"), f("My son plays the guitar", "son_instrument")),
  p("en", "book vs show", f("I'm reading Dune", "current_book"), f("I'm watching The Bear", "current_show")),
  p(
    "en",
    "two appointments",
    f("I have a dentist appointment on Friday", "dentist_appointment"),
    f("I have a doctor appointment on Friday", "doctor_appointment"),
  ),
  p("en", "two routines", f("I run 5 km every morning", "running_routine"), f("I walk 5 km every evening", "walking_routine")),
  p("en", "me vs son", f("My favourite food is pizza", "favorite_food"), f("My son's favourite food is pizza", "son_favorite_food")),
  p("en", "two phones", f("I use an iPhone for work", "work_phone"), f("I use an Android phone at home", "home_phone")),
  p("en", "two allergies", f("I'm allergic to peanuts", "food_allergy"), f("I'm allergic to cats", "animal_allergy")),
  p("zh", "兄弟姐妹", f("我姐姐住在上海", "sister_city"), f("我哥哥住在上海", "brother_city")),
  p("zh", "住与工作", f("我住在杭州", "home_city"), f("我在杭州工作", "work_city")),
  p("zh", "两只宠物", f("我的狗叫旺财", "dog_name"), f("我的猫叫旺财", "cat_name")),
  p("zh", "早晚饮品", f("我早上喝咖啡", "morning_drink"), f("我晚上喝茶", "evening_drink")),
  p("zh", "两个孩子", f("我儿子喜欢踢足球", "son_hobby"), f("我女儿喜欢踢足球", "daughter_hobby")),
  p("zh", "过去与计划", f("我去年去过东京", "past_trip"), f("我明年打算去东京", "planned_trip")),
  p("zh", "两种颜色", f("我最喜欢蓝色", "favorite_color"), f("我的车是蓝色的", "car_color")),
  p("zh", "我与配偶", f("我在华为工作", "employer"), f("我老婆在华为工作", "spouse_employer")),
  p("zh", "父母", f("我妈妈是医生", "mother_job"), f("我爸爸是医生", "father_job")),
  p("zh", "两个数量", f("我有两个孩子", "children_count"), f("我有两只猫", "cat_count")),
  p("zh", "我与女儿", f("我会弹钢琴", "instrument"), f("我女儿在学钢琴", "daughter_lesson")),
  p("zh", "两个生日", f("我的生日在五月", "birthday"), f("我老公的生日在五月", "spouse_birthday")),
  p("zh", "出生与居住", f("我出生在成都", "birthplace"), f("我现在住在成都", "home_city")),
  p("zh", "两种运动", f("我每天跑步五公里", "running_routine"), f("我每天走路五公里", "walking_routine")),
  p("zh", "两个预约", f("我周五要去看牙医", "dentist_appointment"), f("我周五要去看眼科医生", "eye_doctor_appointment")),
  p("zh", "我与儿子", f("我最喜欢吃火锅", "favorite_food"), f("我儿子最喜欢吃火锅", "son_favorite_food")),
  p("zh", "学与会", f("我在学法语", "language_learning"), f("我会说德语", "spoken_language")),
  p("zh", "两种运动", f("我每周一去健身房", "gym_day"), f("我每周一去游泳", "swim_day")),
  p("zh", "过敏与口味", f("我对花生过敏", "food_allergy"), f("我不喜欢吃花生", "food_dislike")),
  p("zh", "两件设备", f("我用苹果手机", "phone"), f("我用苹果电脑", "computer")),
];

/**
 * Changes added with the offline pattern extractor (issue 14): the slots it must key (name, hometown,
 * birthday, partner, children's and pets' names, school…) in wordings of their own, and "no longer"
 * statements that retire a value. Written before the pattern tables were tuned on the eval.
 */
export const CHANGE_FAMILIES: readonly ConflictCase[] = [
  c("en", "no longer", "home_city", "I live in Paris", "I no longer live in Paris"),
  c("en", "allergy gone", "allergy_dogs", "I'm allergic to dogs", "I'm not allergic to dogs anymore"),
  c("en", "what to call me", "preferred_name", "Please call me Rob", "Actually, call me Bobby"),
  c("en", "name", "name", "My name is Robert Miller", "My name is actually Robert Millar"),
  c("en", "hometown", "hometown", "I'm originally from Leeds", "I grew up in York"),
  c("en", "birthday", "birthday", "My birthday is on March 3", "My birthday is actually on March 5"),
  c("en", "partner", "partner_name", "My wife's name is Julia", "My wife is called Sophie"),
  c("en", "pet name", "cat_name", "My cat's name is Luna", "We renamed our cat Mochi"),
  c("en", "school", "school", "I go to Lincoln High School", "I'm now studying at Boston University"),
  c("en", "quit job", "employer", "I work for Acme", "I quit my job"),
  c("en", "diet", "diet", "I'm vegan", "I'm not vegan anymore"),
  c("en", "age", "age", "I'm 41", "I turned 42 last week"),
  c("en", "favourite", "favorite_band", "My favorite band is Queen", "These days my favourite band is Muse"),
  c("en", "job title", "job_title", "I'm a nurse", "I became a paramedic"),
  c("en", "dislike now", "likes_jazz", "I love jazz", "I don't like jazz anymore"),
  c("zh", "不再住", "home_city", "我住在广州", "我不住在广州了"),
  c("zh", "过敏好了", "allergy_cats", "我对猫过敏", "我现在对猫不过敏了"),
  c("zh", "称呼", "preferred_name", "叫我小明就行", "以后叫我阿明吧"),
  c("zh", "名字", "name", "我叫王小明", "我改名叫王明了"),
  c("zh", "老家", "hometown", "我老家是湖南的", "我老家其实在湖北"),
  c("zh", "生日", "birthday", "我的生日是三月三号", "我的生日其实是三月五号"),
  c("zh", "伴侣", "partner_name", "我女朋友叫小雪", "我现在的女朋友叫小雨"),
  c("zh", "宠物名字", "dog_name", "我家的狗叫旺财", "我们给狗改名叫来福了"),
  c("zh", "学校", "school", "我在北京大学读书", "我转学到清华大学了"),
  c("zh", "辞职", "employer", "我在百度上班", "我从百度辞职了"),
  c("zh", "饮食", "diet", "我是素食者", "我不再吃素了"),
  c("zh", "年龄", "age", "我今年三十五岁", "我今年三十六岁了"),
  c("zh", "最喜欢", "favorite_book", "我最喜欢的书是三体", "我现在最喜欢的书是活着"),
  c("zh", "职业", "job_title", "我是护士", "我现在当医生了"),
];

/**
 * Look-alikes that broke the offline judge before issue 14, and the multi-valued slots: facts that
 * differ in a number, an identifier, a name or a date (numbered orders and tickets, templated
 * memories differing in their variables), and second values of things a person has several of.
 */
export const LOOKALIKE_FAMILIES: readonly ConflictCase[] = [
  p("en", "two orders", f("My order #1234 shipped today", "order_1234"), f("My order #5678 shipped today", "order_5678")),
  p("en", "two tickets", f("Support ticket 48213 is still open", "ticket_48213"), f("Support ticket 48377 is still open", "ticket_48377")),
  p("en", "two invoices", f("Invoice INV-2024-017 was paid on time", "invoice_017"), f("Invoice INV-2024-018 was paid on time", "invoice_018")),
  p("en", "two bookings", f("I booked flight LH721 to Munich", "flight_lh721"), f("I booked flight LH723 to Munich", "flight_lh723")),
  p("zh", "两个订单", f("我的订单1234已经发货了", "order_1234"), f("我的订单5678已经发货了", "order_5678")),
  p("zh", "两张工单", f("工单号48213还没处理", "ticket_48213"), f("工单号48377还没处理", "ticket_48377")),
  p("zh", "两个快递", f("快递单号SF1234567890已经签收", "parcel_890"), f("快递单号SF1234567999已经签收", "parcel_999")),
  p("en", "templated", f("memory 3: I like rice and beans, not fish (3)", "note_3"), f("memory 7: I like rice and beans, not fish (7)", "note_7")),
  p("en", "templated", f("memory 12: I like tea and cake, not coffee (12)", "note_12"), f("memory 13: I like tea and bread, not coffee (13)", "note_13")),
  p("en", "templated", f("Reminder 4: water the plants on the balcony", "reminder_4"), f("Reminder 5: water the plants in the kitchen", "reminder_5")),
  p(
    "en",
    "templated",
    f("Note for project Alpha: the deadline moved to Friday", "note_alpha"),
    f("Note for project Beta: the deadline moved to Friday", "note_beta"),
  ),
  p("zh", "模板", f("备忘3：我喜欢米饭和豆子，不喜欢鱼（3）", "note_3"), f("备忘7：我喜欢米饭和豆子，不喜欢鱼（7）", "note_7")),
  p("zh", "模板", f("提醒4：给阳台的花浇水", "reminder_4"), f("提醒5：给厨房的花浇水", "reminder_5")),
  p("en", "two friends", f("I had lunch with Anna today", "lunch_anna"), f("I had lunch with Maria today", "lunch_maria")),
  p(
    "en",
    "two colleagues",
    f("Tom from accounting helped me with the report", "helper_tom"),
    f("Jack from accounting helped me with the report", "helper_jack"),
  ),
  p("en", "two cities visited", f("Last summer I visited Rome with my parents", "trip_rome"), f("Last summer I visited Vienna with my parents", "trip_vienna")),
  p("zh", "两个朋友", f("我今天和小王一起吃了午饭", "lunch_wang"), f("我今天和小李一起吃了午饭", "lunch_li")),
  p("zh", "两个同事", f("财务部的张伟帮我做了报表", "helper_zhang"), f("财务部的李娜帮我做了报表", "helper_li")),
  p("en", "two dates", f("I have a dentist appointment on May 3", "dentist_may"), f("I have a dentist appointment on June 10", "dentist_june")),
  p("en", "two days", f("I went to the cinema on Monday", "cinema_monday"), f("I went to the cinema on Friday", "cinema_friday")),
  p("en", "two years", f("I ran a marathon in 2019", "marathon_2019"), f("I ran a marathon in 2022", "marathon_2022")),
  p("en", "two bills", f("I paid the electricity bill on March 2", "bill_march"), f("I paid the electricity bill on April 2", "bill_april")),
  p("zh", "两次看电影", f("我周一去看了电影", "cinema_monday"), f("我周五去看了电影", "cinema_friday")),
  p("zh", "两次马拉松", f("我2019年跑过马拉松", "marathon_2019"), f("我2022年跑过马拉松", "marathon_2022")),
  p("zh", "两次缴费", f("我三月二号交了电费", "bill_march"), f("我四月二号交了电费", "bill_april")),
  p("en", "two allergies", f("I'm allergic to shellfish", "allergy_shellfish"), f("I'm allergic to penicillin", "allergy_penicillin")),
  p("en", "two languages", f("I speak French", "speaks_french"), f("I speak German", "speaks_german")),
  p("en", "two likes", f("I love jazz", "likes_jazz"), f("I love hip hop", "likes_hip_hop")),
  p("zh", "两种语言", f("我会说英语", "speaks_english"), f("我会说日语", "speaks_japanese")),
  p("zh", "两种过敏", f("我对海鲜过敏", "allergy_seafood"), f("我对青霉素过敏", "allergy_penicillin")),
  p("zh", "两种爱好", f("我喜欢爵士乐", "likes_jazz"), f("我喜欢摇滚乐", "likes_rock")),
];

/** Facts the user already has before each case, so the judge sees realistic neighbours. */
export const BACKGROUND: Readonly<Record<"en" | "zh", readonly Fact[]>> = {
  en: [
    f("I have a younger brother called Sam", "brother_name"),
    f("I enjoy hiking on weekends", "weekend_hobby"),
    f("My favourite movie is Spirited Away", "favorite_movie"),
    f("I'm training for a half marathon", "training_goal"),
    f("My mother lives in Lisbon", "mother_city"),
    f("I don't like spicy food", "spice_preference"),
    f("I usually work from home on Fridays", "remote_day"),
    f("My laptop is a ThinkPad", "laptop"),
  ],
  zh: [
    f("我有一个弟弟叫小明", "brother_name"),
    f("我周末喜欢爬山", "weekend_hobby"),
    f("我最喜欢的电影是千与千寻", "favorite_movie"),
    f("我在准备半程马拉松", "training_goal"),
    f("我妈妈住在广州", "mother_city"),
    f("我不太能吃辣", "spice_preference"),
    f("我周五一般在家办公", "remote_day"),
    f("我的笔记本电脑是联想的", "laptop"),
  ],
};
