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
  p("en", "two appointments", f("I have a dentist appointment on Friday", "dentist_appointment"), f("I have a doctor appointment on Friday", "doctor_appointment")),
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
