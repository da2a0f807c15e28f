// Word lists for the rule-based extractor: what a capitalised word is likely to name.

const list = (s: string) => new Set(s.split(/\s+/).filter(Boolean));

/** Capitalised at the start of a sentence for grammatical reasons, never a name on their own. */
export const COMMON_WORDS = list(`
  a an the i i'm i've i'd i'll im ive we you he she it they this that these those there here what when where why how who which
  my your his her our their its me us them and but or so if then yes no not oh ah hey hi hello wow yeah yep nope ok okay sure
  thanks thank please sorry great good nice awesome cool amazing love lol haha just also well anyway really totally definitely
  congrats congratulations glad happy sounds looks seems maybe perhaps actually honestly absolutely exactly right indeed
  yesterday today tomorrow tonight last next this morning afternoon evening night week weekend month year
  monday tuesday wednesday thursday friday saturday sunday after before during since until while because although though
  do does did is are was were be been have has had can could would should will shall may might must let
  all any some every each both either neither one two three many much more most few lots
  what's that's it's there's here's he's she's we're they're you're don't didn't can't won't isn't wasn't aren't
  mom dad mum mother father sister brother wife husband son daughter friend
  first second also another other such same even still already always never sometimes often
  as at by for from in into of on onto to with without about above below under over through
`);

export const MONTH_WORDS = list(
  "january february march april may june july august september october november december jan feb mar apr jun jul aug sep sept oct nov dec",
);
export const WEEKDAY_WORDS = list("monday tuesday wednesday thursday friday saturday sunday");

export const HONORIFICS = list("mr mrs ms miss dr prof sir dame lord lady mx");

export const ORG_WORDS = list(`
  inc corp corporation ltd llc plc gmbh ag sa co company university college school academy institute bank labs lab group
  foundation hospital clinic agency association club studio studios technologies technology systems partners capital airlines
  church center centre society team council ministry department museum federation union committee network media press
  records games motors energy pharma therapeutics ventures holdings consulting solutions services org industries banco
`);

export const PLACE_WORDS = list(`
  city town village street st avenue ave road rd boulevard blvd park lake river mountain mountains mount beach island islands
  bay valley county state province region coast desert forest canyon falls harbor harbour airport station square bridge
`);

export const PLACES = list(`
  paris london berlin madrid rome lisbon amsterdam brussels vienna prague warsaw dublin edinburgh stockholm oslo copenhagen helsinki
  athens istanbul moscow kyiv zurich geneva munich hamburg milan barcelona lyon marseille toulouse nice bordeaux
  york boston chicago seattle portland denver austin dallas houston miami atlanta philadelphia washington detroit phoenix
  francisco angeles diego vegas orleans toronto vancouver montreal ottawa calgary mexico havana lima bogota santiago
  buenos aires rio paulo tokyo osaka kyoto seoul beijing shanghai shenzhen hong kong singapore bangkok hanoi jakarta manila
  delhi mumbai bangalore chennai kolkata karachi lahore dubai doha riyadh tehran cairo lagos nairobi johannesburg cape town
  sydney melbourne brisbane perth auckland wellington
  france germany spain italy portugal england scotland wales ireland britain uk usa america canada brazil argentina chile
  peru colombia venezuela cuba japan china korea india pakistan bangladesh indonesia vietnam thailand philippines australia
  zealand russia ukraine poland sweden norway denmark finland iceland greece turkey egypt nigeria kenya ethiopia morocco
  netherlands belgium switzerland austria hungary romania bulgaria serbia croatia israel iran iraq syria lebanon jordan
  europe asia africa antarctica california texas florida hawaii alaska oregon nevada arizona colorado georgia virginia
  carolina michigan ohio massachusetts bavaria provence tuscany normandy brittany quebec ontario
`);

export const PRODUCTS = list(`
  iphone ipad macbook mac android windows linux excel word powerpoint slack zoom teams notion figma github gitlab jira
  chatgpt gpt claude gemini tesla playstation xbox switch kindle spotify netflix instagram facebook tiktok twitter youtube whatsapp
  python javascript typescript rust java kotlin swift react vue angular postgres postgresql mysql sqlite redis kubernetes docker
`);

export const FIRST_NAMES = list(`
  alice bob carol caroline dave david emma eve frank grace henry irene jack james jane jen jennifer john jon joanna julia kate
  laura lisa mark mary melanie mel michael mike nate nick olivia paul peter rachel robert sam sarah sara sophie steve susan tom
  anna andrew ben charlie chris daniel diana elena ella george hannah harry isabel isaac jake jessica joe josh karen kevin leo
  liam lucy luke maria martin matt max mia noah oscar pierre rose ryan simon thomas tim victor will zoe gina deborah evan
  audrey andrew calvin dave maria john tim james nate joanna jolene sam shawn marie claire louis marc jean luc hugo lea chloe
  manon camille ines jules arthur adam yuki wei li chen raj priya amir fatima omar ahmed ali mohammed ana lucia pablo diego
`);

/** Relatives and roles that introduce a person's name: "my sister Anna". */
export const PERSON_INTRODUCERS = list(
  "friend friends sister brother mother father mom dad mum son daughter wife husband partner boyfriend girlfriend cousin aunt uncle niece nephew grandma grandpa grandmother grandfather boss manager colleague coworker neighbor neighbour roommate mentor teacher coach doctor therapist named called",
);
