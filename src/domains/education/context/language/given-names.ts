/**
 * Given names the detector knows (lower case), drawn from names common in schools in English-speaking countries
 * across many origins. The list is the detector's memory of what a first name looks like; it is not complete and
 * cannot be (docs/education.md: names outside it are caught only in record phrasing around a learner noun).
 */

const list = (text: string): string[] => text.trim().split(/\s+/);

/** Names that are also ordinary English words or places: a name only with more evidence (see AMBIGUOUS_GIVEN_NAMES). */
const AMBIGUOUS = list(`
  will may june april august mark grace hope faith joy rose lily ivy summer autumn dawn sky river hunter chase bill
  art don guy frank sandy penny ruby pearl jade amber crystal destiny harmony angel max sunny ray pat sue jean gene
  lee reed wade cole miles brook brooke page paige sage rowan journey genesis trinity justice charity mercy king prince
  royal ace sawyer parker carter cooper mason taylor jordan london sydney georgia dakota savannah brooklyn paris austin
  dallas eden india victoria florence sierra aurora nova iris violet hazel olive scarlett ember willow daisy reese
  sloane heaven noel drew gray grey lane blake chance rich earl jay eve sonny rusty kit ty al ed dee bo
  cash stone rocky lincoln harper avery skylar quinn finley emerson marley kennedy madison jun diamond christian grant lance holly orion luna
`);

const OTHERS = list(`
  mary patricia jennifer linda elizabeth barbara susan jessica sarah karen lisa nancy betty margaret sandra ashley
  kimberly emily donna michelle carol amanda melissa deborah stephanie rebecca sharon laura cynthia kathleen amy angela
  brenda pamela emma nicole helen samantha katherine christine rachel carolyn janet catherine maria heather diane ruth
  julie olivia joyce virginia kelly lauren christina joan evelyn megan andrea hannah jacqueline martha gloria teresa
  ann anna sara frances kathryn alice judy sophia denise marie danielle beverly isabella theresa diana natalie
  brittany charlotte kayla alexis ava mia amelia ella aria chloe layla zoey nora ellie stella natalia zoe leah addison
  lucy audrey bella claire paisley everly caroline emilia maya naomi aaliyah elena ariana allison gabriella madelyn
  cora adeline hailey gianna valentina isla eliana nevaeh sadie piper lydia alexa josephine emery julia delilah
  arianna vivian kaylee sophie brielle madeline peyton rylee clara hadley melanie mackenzie reagan liliana aubree
  isabelle athena ximena arya leilani kylie alexandra lyla amaya eliza brianna bailey khloe jasmine melody isabel norah
  annabelle valeria adalyn ryleigh emersyn anastasia alyssa juliana esther ariel cecilia valerie alina molly aliyah
  lilly morgan jordyn eloise kimberly genevieve arabella elise remi teagan laila lucia juliette sienna elliana londyn
  ayla callie gracie josie amara jocelyn daniela mya presley rosalie brynlee joanna rebekah mariah brooklynn payton
  fiona harley alivia noelle gemma vanessa makayla angelina adaline catalina alayna julianna leila lola adriana
  juliet jayla tessa lia delaney selena camille zara malia
  james robert john michael david william richard joseph thomas charles christopher daniel matthew anthony donald
  steven paul andrew joshua kenneth kevin brian george timothy ronald edward jason jeffrey ryan jacob gary nicholas
  eric jonathan stephen larry justin scott brandon benjamin samuel gregory alexander patrick raymond jack dennis jerry
  tyler aaron jose adam nathan henry douglas zachary peter kyle ethan walter noah jeremy keith roger terry
  gerald harold sean carl arthur lawrence dylan jesse bryan billy joe bruce gabriel logan albert willie alan juan
  wayne elijah randy roy vincent ralph eugene russell bobby philip louis liam oliver lucas levi sebastian mateo
  jackson owen luke grayson isaac jayden theodore caleb asher leo hudson ezra maverick jaxon wyatt julian josiah silas
  easton isaiah eli landon connor colton everett adrian xavier jeremiah axel dominic ian brayden nolan weston kai
  ryder greyson emmett jace declan ashton beau rhett roman santiago diego kingston waylon bennett jaxson ivan carson
  jake jamie sam tom tim jim ben dan matt mike nick chris alex tony andy joey danny johnny jimmy tommy charlie freddie
  archie alfie harry oscar arthur teddy reggie ollie finn hugo felix jasper rory callum lewis kieran aidan liam
  luis carlos jesus miguel alejandro javier fernando ricardo eduardo francisco jorge pedro rafael manuel antonio
  sergio andres emiliano leonardo gael joaquin guadalupe alejandra camila daniela gabriela mariana paola fernanda
  carmen marisol yesenia araceli itzel citlali xochitl lupita rosario esperanza dulce yadira maribel jimena valentin
  mateus thiago joao ana beatriz larissa
  deshawn darnell tyrone jamal malik jalen trevon deandre keisha tanisha latoya shaniqua imani jada nia kiara tiana
  ebony dasia jaylen jaylin marquis terrell demetrius dajuan kendrick shanice aniyah zion
  mohammed muhammad mohamed mohammad ahmed ahmad ali omar hassan hussein ibrahim yusuf youssef khalid tariq bilal hamza
  amir karim mustafa zaid rami samir fatima aisha ayesha maryam zainab khadija yasmin yasmine noor huda salma rania
  samira nadia hana amina farah rahma abdullah abdul idris ismail yahya sami layan jana
  aarav arjun rohan vikram rahul raj ravi sanjay amit anil arnav ishaan krishna aditya vihaan aryan priya ananya
  aditi divya kavya meera neha pooja riya sana shreya anjali deepa lakshmi sita aanya saanvi diya ishita tanvi harpreet
  gurpreet manpreet simran jaspreet navdeep
  wei ming hao yuki hiroshi haruto sora takumi kenji yui sakura mei xin jing jia hui minjun jiwoo seoyeon haeun
  jisoo minh linh thao huong duc quang trang ngoc phuong tuan khanh bao thanh lan
  kwame kofi ama abena chidi chinedu ngozi adaeze oluwaseun tunde ayo zuri jabari kamau wanjiru amani baraka fatou
  mamadou aminata ousmane
  dmitri olga natasha sasha katya yuri aleksandr piotr agnieszka katarzyna lukas jonas elias lars sven ingrid astrid
  freya matteo giulia francesca luca marco alessandro chiara niamh siobhan aoife ciaran saoirse oisin seamus
  marcus malachi micah gavin jonah jude abel amos damian dante enzo elliot elliott emmanuel erick fabian francis
  hayden hector ismael jared joel kaden keegan kendall kenny kobe leon lorenzo mario martin maximus nathaniel nico
  nicolas omari pablo quentin ramon raul rocco ronan ruben simon solomon stefan tobias troy tucker uriel victor wesley
  zane brayden camden colin tristan trevor preston garrett devin devon derek dustin cody travis shane spencer mitchell
  angelo jomar abdi farhan warsame dawit yonas tomasz jakub oleksandr mykola riku kenta daiki jin jae hyun
  sofia abby ada alana alondra amelie angie annie ariella ashlyn aubrey becky bethany bianca briana bridget cameron
  carly cassandra cassidy celeste chelsea cheyenne cindy courtney dana daphne delia dominique elaina elisa elsa erica
  erin esmeralda estrella evangeline felicity gabby gwen haley heidi jenna jessie jillian josefina julissa kaitlyn
  karina kassandra katie kelsey kendra kira kristen lacey lena leslie lexi lindsey liz lorena lupe macy maggie mallory
  marisa marissa mckenna melina miranda monica nayeli nina noemi perla phoebe raquel reyna rocio sabrina serena shelby
  tatiana tiffany tina veronica wendy yolanda rhea hodan ayaan hamdi ilhan sagal selam meron kasia yana olena yuna hina
  aiko
`);

/** Every given name the detector knows. */
export const GIVEN_NAMES: ReadonlySet<string> = new Set([...AMBIGUOUS, ...OTHERS]);

/**
 * Given names that are also common words or places (`Will`, `Grace`, `Georgia`): a name only when capitalized
 * mid-sentence before a record verb, followed by a capitalized surname, after a learner noun, or as a possessive of a
 * record word.
 */
export const AMBIGUOUS_GIVEN_NAMES: ReadonlySet<string> = new Set(AMBIGUOUS);
