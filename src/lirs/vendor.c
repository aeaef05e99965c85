/*
 * vendor.c: the readable forms the writer puts in for the vendor
 * characters of EUC-JP-MS (NEC row 13, the IBM extensions and the
 * NEC-selected IBM extensions), which strict EUC-JP (JIS X 0201, 0208,
 * 0212: LIRS 2.1 §2, glibc "EUC-JP") cannot hold.  lirs(5), "Writing
 * EUC-JP".
 *
 * The one table, by code point.  Sources:
 *  - symbols, units, circled and parenthesised signs: Unicode's
 *    compatibility decomposition (NFKC, Unicode 14), except where the
 *    usual Japanese practice is more readable: circled digits and circled
 *    ideographs are parenthesised (① -> (1), ㊤ -> (上), as ㈱ -> (株)),
 *    № -> "No.", ㏍ -> "K.K.", 〝〟 -> “”, and the four NEC row 13 maths
 *    signs with no JIS X 0208 form take the nearest one (∮ -> ∫, ∑ -> Σ,
 *    ∟ -> ∠, ⊿ -> △);
 *  - IBM extension kanji: the CJK compatibility ideographs' canonical
 *    decomposition (NFC: 﨑 is not decomposed, 隆 is), and for the rest
 *    the JIS X 0208 shinjitai that stands for them in common use
 *    (髙 -> 高, 﨑 -> 崎, 德 -> 徳, 黑 -> 黒 ...).  Kanji with no commonly
 *    agreed JIS X 0208 form (炻, 仼, 僴, 﨎 ...) are not in the table: they
 *    become U+3013 GETA MARK and are counted as replaced.
 * Every form is JIS X 0201/0208 only, holds no ',' or '\' (the line is
 * already escaped when it is encoded) and decodes back unchanged with
 * glibc "EUC-JP": tests/unit/lirs/t_writer.c checks each entry.
 */
#include "lirs_charset.h"

#include <stdlib.h>

static const struct lirs_cs_vendor_form table[] = {
	{ 0x2116, "No." },        /* № NUMERO SIGN */
	{ 0x2121, "TEL" },        /* ℡ */
	{ 0x2160, "I" }, { 0x2161, "II" }, { 0x2162, "III" }, { 0x2163, "IV" },
	{ 0x2164, "V" }, { 0x2165, "VI" }, { 0x2166, "VII" }, { 0x2167, "VIII" },
	{ 0x2168, "IX" }, { 0x2169, "X" },                       /* Ⅰ..Ⅹ */
	{ 0x2170, "i" }, { 0x2171, "ii" }, { 0x2172, "iii" }, { 0x2173, "iv" },
	{ 0x2174, "v" }, { 0x2175, "vi" }, { 0x2176, "vii" }, { 0x2177, "viii" },
	{ 0x2178, "ix" }, { 0x2179, "x" },                       /* ⅰ..ⅹ */
	{ 0x2211, "Σ" },          /* ∑ N-ARY SUMMATION */
	{ 0x221f, "∠" },          /* ∟ RIGHT ANGLE */
	{ 0x222e, "∫" },          /* ∮ CONTOUR INTEGRAL */
	{ 0x22bf, "△" },          /* ⊿ RIGHT TRIANGLE */
	{ 0x2460, "(1)" }, { 0x2461, "(2)" }, { 0x2462, "(3)" }, { 0x2463, "(4)" },
	{ 0x2464, "(5)" }, { 0x2465, "(6)" }, { 0x2466, "(7)" }, { 0x2467, "(8)" },
	{ 0x2468, "(9)" }, { 0x2469, "(10)" }, { 0x246a, "(11)" }, { 0x246b, "(12)" },
	{ 0x246c, "(13)" }, { 0x246d, "(14)" }, { 0x246e, "(15)" }, { 0x246f, "(16)" },
	{ 0x2470, "(17)" }, { 0x2471, "(18)" }, { 0x2472, "(19)" }, { 0x2473, "(20)" },
	{ 0x301d, "“" },          /* 〝 */
	{ 0x301f, "”" },          /* 〟 */
	{ 0x3231, "(株)" }, { 0x3232, "(有)" }, { 0x3239, "(代)" },
	{ 0x32a4, "(上)" }, { 0x32a5, "(中)" }, { 0x32a6, "(下)" }, { 0x32a7, "(左)" },
	{ 0x32a8, "(右)" },
	{ 0x3303, "アール" }, { 0x330d, "カロリー" }, { 0x3314, "キロ" }, { 0x3318, "グラム" },
	{ 0x3322, "センチ" }, { 0x3323, "セント" }, { 0x3326, "ドル" }, { 0x3327, "トン" },
	{ 0x332b, "パーセント" }, { 0x3336, "ヘクタール" }, { 0x333b, "ページ" },
	{ 0x3349, "ミリ" }, { 0x334a, "ミリバール" }, { 0x334d, "メートル" },
	{ 0x3351, "リットル" }, { 0x3357, "ワット" },
	{ 0x337b, "平成" }, { 0x337c, "昭和" }, { 0x337d, "大正" }, { 0x337e, "明治" },
	{ 0x338e, "mg" }, { 0x338f, "kg" }, { 0x339c, "mm" }, { 0x339d, "cm" },
	{ 0x339e, "km" }, { 0x33a1, "m2" }, { 0x33c4, "cc" }, { 0x33cd, "K.K." },
	/* IBM extension kanji: common shinjitai */
	{ 0x51ec, "風" }, { 0x548a, "和" }, { 0x589e, "増" }, { 0x5bec, "寛" }, { 0x5fb7, "徳" }, { 0x6085, "悦" },
	{ 0x6120, "慍" }, { 0x654e, "教" }, { 0x663b, "昂" }, { 0x6801, "柳" }, { 0x6a6b, "横" },
	{ 0x6df8, "清" }, { 0x7028, "瀬" }, { 0x7501, "瓶" }, { 0x7da0, "緑" },
	{ 0x7dd6, "緒" }, { 0x85b0, "薫" }, { 0x8cf4, "頼" }, { 0x90de, "郎" },
	{ 0x9115, "郷" }, { 0x9592, "間" }, { 0x974d, "鶴" }, { 0x9751, "青" }, { 0x9ad9, "高" },
	{ 0x9ed1, "黒" },
	/* CJK compatibility ideographs: canonical decomposition, or shinjitai */
	{ 0xf929, "朗" }, { 0xf9dc, "隆" }, { 0xfa10, "塚" }, { 0xfa11, "崎" },
	{ 0xfa12, "晴" }, { 0xfa15, "煕" }, { 0xfa16, "猪" }, { 0xfa17, "益" },
	{ 0xfa18, "礼" }, { 0xfa19, "神" }, { 0xfa1a, "祥" }, { 0xfa1b, "福" },
	{ 0xfa1c, "靖" }, { 0xfa1d, "精" }, { 0xfa1e, "羽" }, { 0xfa1f, "臈" },
	{ 0xfa22, "諸" }, { 0xfa25, "逸" }, { 0xfa26, "都" }, { 0xfa2a, "飯" },
	{ 0xfa2b, "飼" }, { 0xfa2c, "館" }, { 0xfa2d, "鶴" },
	/* IBM extension symbols */
	{ 0xff02, "\"" },         /* ＂ FULLWIDTH QUOTATION MARK */
	{ 0xff07, "'" },          /* ＇ FULLWIDTH APOSTROPHE */
};

static int cmp(const void *k, const void *e)
{
	uint32_t u = *(const uint32_t *)k, v = ((const struct lirs_cs_vendor_form *)e)->cp;

	return u < v ? -1 : u > v;
}

const char *lirs_cs_vendor_form(uint32_t u)
{
	const struct lirs_cs_vendor_form *e =
		bsearch(&u, table, sizeof table / sizeof *table, sizeof *table, cmp);

	return e ? e->form : NULL;
}

const struct lirs_cs_vendor_form *lirs_cs_vendor_table(size_t *n)
{
	*n = sizeof table / sizeof *table;
	return table;
}
