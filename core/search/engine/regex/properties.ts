// Unicode property names as ripgrep accepts them (loose UCD matching: case, spaces, `_`, `-` and an `is`
// prefix do not matter; long and short aliases), mapped to the spelling re2js knows. Properties re2js has
// no table for are refused rather than approximated.

/** A property the emitter can write: a re2js `\p{…}` name, or one of the three computed ones. */
export type Property =
  | { readonly kind: "table"; readonly name: string }
  | { readonly kind: "any" }
  | { readonly kind: "ascii" }
  | { readonly kind: "assigned" };

const CATEGORIES: Record<string, string> = {
  C: "Other",
  Cc: "Control cntrl",
  Cf: "Format",
  Cn: "Unassigned",
  Co: "Private_Use",
  Cs: "Surrogate",
  L: "Letter",
  LC: "Cased_Letter",
  Ll: "Lowercase_Letter",
  Lm: "Modifier_Letter",
  Lo: "Other_Letter",
  Lt: "Titlecase_Letter",
  Lu: "Uppercase_Letter",
  M: "Mark Combining_Mark",
  Mc: "Spacing_Mark",
  Me: "Enclosing_Mark",
  Mn: "Nonspacing_Mark",
  N: "Number",
  Nd: "Decimal_Number digit",
  Nl: "Letter_Number",
  No: "Other_Number",
  P: "Punctuation punct",
  Pc: "Connector_Punctuation",
  Pd: "Dash_Punctuation",
  Pe: "Close_Punctuation",
  Pf: "Final_Punctuation",
  Pi: "Initial_Punctuation",
  Po: "Other_Punctuation",
  Ps: "Open_Punctuation",
  S: "Symbol",
  Sc: "Currency_Symbol",
  Sk: "Modifier_Symbol",
  Sm: "Math_Symbol",
  So: "Other_Symbol",
  Z: "Separator",
  Zl: "Line_Separator",
  Zp: "Paragraph_Separator",
  Zs: "Space_Separator",
};

// Scripts of Unicode 16 (ripgrep 15's tables) with their ISO 15924 codes. re2js also knows four scripts
// added in Unicode 17; they are left out so the engine refuses them as ripgrep does.
const SCRIPTS: Record<string, string> = {
  Adlam: "Adlm",
  Ahom: "Ahom",
  Anatolian_Hieroglyphs: "Hluw",
  Arabic: "Arab",
  Armenian: "Armn",
  Avestan: "Avst",
  Balinese: "Bali",
  Bamum: "Bamu",
  Bassa_Vah: "Bass",
  Batak: "Batk",
  Bengali: "Beng",
  Bhaiksuki: "Bhks",
  Bopomofo: "Bopo",
  Brahmi: "Brah",
  Braille: "Brai",
  Buginese: "Bugi",
  Buhid: "Buhd",
  Canadian_Aboriginal: "Cans",
  Carian: "Cari",
  Caucasian_Albanian: "Aghb",
  Chakma: "Cakm",
  Cham: "Cham",
  Cherokee: "Cher",
  Chorasmian: "Chrs",
  Common: "Zyyy",
  Coptic: "Copt Qaac",
  Cuneiform: "Xsux",
  Cypriot: "Cprt",
  Cypro_Minoan: "Cpmn",
  Cyrillic: "Cyrl",
  Deseret: "Dsrt",
  Devanagari: "Deva",
  Dives_Akuru: "Diak",
  Dogra: "Dogr",
  Duployan: "Dupl",
  Egyptian_Hieroglyphs: "Egyp",
  Elbasan: "Elba",
  Elymaic: "Elym",
  Ethiopic: "Ethi",
  Garay: "Gara",
  Georgian: "Geor",
  Glagolitic: "Glag",
  Gothic: "Goth",
  Grantha: "Gran",
  Greek: "Grek",
  Gujarati: "Gujr",
  Gunjala_Gondi: "Gong",
  Gurmukhi: "Guru",
  Gurung_Khema: "Gukh",
  Han: "Hani",
  Hangul: "Hang",
  Hanifi_Rohingya: "Rohg",
  Hanunoo: "Hano",
  Hatran: "Hatr",
  Hebrew: "Hebr",
  Hiragana: "Hira",
  Imperial_Aramaic: "Armi",
  Inherited: "Zinh Qaai",
  Inscriptional_Pahlavi: "Phli",
  Inscriptional_Parthian: "Prti",
  Javanese: "Java",
  Kaithi: "Kthi",
  Kannada: "Knda",
  Katakana: "Kana",
  Kawi: "Kawi",
  Kayah_Li: "Kali",
  Kharoshthi: "Khar",
  Khitan_Small_Script: "Kits",
  Khmer: "Khmr",
  Khojki: "Khoj",
  Khudawadi: "Sind",
  Kirat_Rai: "Krai",
  Lao: "Laoo",
  Latin: "Latn",
  Lepcha: "Lepc",
  Limbu: "Limb",
  Linear_A: "Lina",
  Linear_B: "Linb",
  Lisu: "Lisu",
  Lycian: "Lyci",
  Lydian: "Lydi",
  Mahajani: "Mahj",
  Makasar: "Maka",
  Malayalam: "Mlym",
  Mandaic: "Mand",
  Manichaean: "Mani",
  Marchen: "Marc",
  Masaram_Gondi: "Gonm",
  Medefaidrin: "Medf",
  Meetei_Mayek: "Mtei",
  Mende_Kikakui: "Mend",
  Meroitic_Cursive: "Merc",
  Meroitic_Hieroglyphs: "Mero",
  Miao: "Plrd",
  Modi: "Modi",
  Mongolian: "Mong",
  Mro: "Mroo",
  Multani: "Mult",
  Myanmar: "Mymr",
  Nabataean: "Nbat",
  Nag_Mundari: "Nagm",
  Nandinagari: "Nand",
  New_Tai_Lue: "Talu",
  Newa: "Newa",
  Nko: "Nkoo",
  Nushu: "Nshu",
  Nyiakeng_Puachue_Hmong: "Hmnp",
  Ogham: "Ogam",
  Ol_Chiki: "Olck",
  Ol_Onal: "Onao",
  Old_Hungarian: "Hung",
  Old_Italic: "Ital",
  Old_North_Arabian: "Narb",
  Old_Permic: "Perm",
  Old_Persian: "Xpeo",
  Old_Sogdian: "Sogo",
  Old_South_Arabian: "Sarb",
  Old_Turkic: "Orkh",
  Old_Uyghur: "Ougr",
  Oriya: "Orya",
  Osage: "Osge",
  Osmanya: "Osma",
  Pahawh_Hmong: "Hmng",
  Palmyrene: "Palm",
  Pau_Cin_Hau: "Pauc",
  Phags_Pa: "Phag",
  Phoenician: "Phnx",
  Psalter_Pahlavi: "Phlp",
  Rejang: "Rjng",
  Runic: "Runr",
  Samaritan: "Samr",
  Saurashtra: "Saur",
  Sharada: "Shrd",
  Shavian: "Shaw",
  Siddham: "Sidd",
  SignWriting: "Sgnw",
  Sinhala: "Sinh",
  Sogdian: "Sogd",
  Sora_Sompeng: "Sora",
  Soyombo: "Soyo",
  Sundanese: "Sund",
  Sunuwar: "Sunu",
  Syloti_Nagri: "Sylo",
  Syriac: "Syrc",
  Tagalog: "Tglg",
  Tagbanwa: "Tagb",
  Tai_Le: "Tale",
  Tai_Tham: "Lana",
  Tai_Viet: "Tavt",
  Takri: "Takr",
  Tamil: "Taml",
  Tangsa: "Tnsa",
  Tangut: "Tang",
  Telugu: "Telu",
  Thaana: "Thaa",
  Thai: "Thai",
  Tibetan: "Tibt",
  Tifinagh: "Tfng",
  Tirhuta: "Tirh",
  Todhri: "Todr",
  Toto: "Toto",
  Tulu_Tigalari: "Tutg",
  Ugaritic: "Ugar",
  Unknown: "Zzzz",
  Vai: "Vaii",
  Vithkuqi: "Vith",
  Wancho: "Wcho",
  Warang_Citi: "Wara",
  Yezidi: "Yezi",
  Yi: "Yiii",
  Zanabazar_Square: "Zanb",
};

const BINARY: Record<string, string> = {
  ASCII_Hex_Digit: "AHex",
  Alphabetic: "Alpha",
  Dash: "",
  Emoji: "",
  Emoji_Component: "EComp",
  Emoji_Modifier: "EMod",
  Emoji_Modifier_Base: "EBase",
  Emoji_Presentation: "EPres",
  Extended_Pictographic: "ExtPict",
  Hex_Digit: "Hex",
  Lowercase: "Lower",
  Math: "",
  Quotation_Mark: "QMark",
  Terminal_Punctuation: "Term",
  Uppercase: "Upper",
  White_Space: "WSpace space",
};

function normalize(name: string): string {
  const loose = name.replace(/[\s_-]/g, "").toLowerCase();
  return loose.startsWith("is") && loose.length > 2 ? loose.slice(2) : loose;
}

// Each key is the name re2js knows; the value lists the other aliases ripgrep accepts for it.
function table(entries: Record<string, string>): Map<string, string> {
  const map = new Map<string, string>();
  for (const [key, aliases] of Object.entries(entries)) {
    for (const alias of [key, ...aliases.split(" ").filter(Boolean)]) map.set(normalize(alias), key);
  }
  return map;
}

let lookup: { gc: Map<string, string>; sc: Map<string, string>; bin: Map<string, string> } | undefined;

function tables(): { gc: Map<string, string>; sc: Map<string, string>; bin: Map<string, string> } {
  lookup ??= { gc: table(CATEGORIES), sc: table(SCRIPTS), bin: table(BINARY) };
  return lookup;
}

/**
 * Resolves the text inside `\p{…}` (or a one-letter `\pL`); undefined when the engine has no table for it,
 * which includes every name ripgrep does not know either.
 */
export function resolveProperty(raw: string): Property | undefined {
  const { gc, sc, bin } = tables();
  const eq = raw.search(/[=:]/);
  if (eq !== -1) {
    const key = normalize(raw.slice(0, eq));
    const value = normalize(raw.slice(eq + 1));
    if (key === "gc" || key === "generalcategory") return named(gc.get(value));
    if (key === "sc" || key === "script") return named(sc.get(value));
    return undefined;
  }
  const name = normalize(raw);
  if (name === "any") return { kind: "any" };
  if (name === "ascii") return { kind: "ascii" };
  if (name === "assigned") return { kind: "assigned" };
  return named(gc.get(name) ?? sc.get(name) ?? bin.get(name));
}

function named(name: string | undefined): Property | undefined {
  return name === undefined ? undefined : { kind: "table", name };
}
