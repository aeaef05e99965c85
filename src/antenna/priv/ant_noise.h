/*
 * ant_noise.h: volatile tokens.  A page's visitor counter,
 * "generated at" clock, "3 分前" and "5 hours ago" change on every fetch
 * while its text does not; normalising them to fixed placeholders before
 * segments are compared makes such a change no change.
 *
 * What is normalised (everything else, letters included, is kept):
 *   "#"  a number: a run of digits, ASCII 0-9 or full-width ０-９, with
 *        the separators , . : / - (and ，．：／－) between digits, and an
 *        English ordinal suffix (1st, 2nd, 25th); also a run of kanji
 *        numerals (〇一二三四五六七八九十百千万 and 数) right before a
 *        counter (年月日時分秒週 人件回個歳円度番位本枚台名).
 *   "@"  a date, a time or a relative time, with the spaces and commas
 *        inside it: a number followed by a time unit (年 月 日 時 分 秒 週
 *        時間 週間 日間 年間 分間 秒間 ヶ月/か月/カ月/ヵ月/ケ月/箇月, maybe
 *        以内 未満 以上 弱 強 近く, and then 前 後 ぶり 頃, "約" before it; second(s) sec(s) minute(s) min(s) hour(s) hr(s)
 *        day(s) week(s) month(s) year(s) yr(s), and then "ago", or h m d s
 *        w y right after the digits); a number followed by am/pm/a.m./p.m.;
 *        a clock (a number with ':' in it: 12:34, 12:34:56); a number of
 *        three parts with one separator (2026/11/25, 2026-11-25,
 *        2026.11.25); weekday names (月曜日, 月曜, (月), （水）, (月・祝),
 *        Monday..Sunday); relative words (たった今, ついさっき, さっき,
 *        先ほど, 先程, 今日, 本日, 昨日, 一昨日, 明日, 今朝, 昨夜, 今週,
 *        先週, 来週, 今月, 先月, 来月, 今年, 昨年, 去年, 来年, just now,
 *        today, yesterday, tomorrow, moments ago, last night/week/month/
 *        year, and a/an/one/a few/few/several + unit + ago, each maybe
 *        after about/over/almost/nearly/less than/around/under).  English month names and abbreviations (January, Nov,
 *        Sept.), weekday abbreviations (Mon, Tue., ...), 午前/午後 and am/pm
 *        are dates only next to a number or another date part: "Nov 25,
 *        2026", "25 November", "午後 3時5分" are each one "@", "May I" stays.
 *        Date parts next to each other, or apart by spaces and commas only,
 *        are one "@": "2026年11月25日(水) 12:34" is "@".  A text that is
 *        only "now", "current" or "right now" (in brackets or not) is
 *        "@": a word standing where an age stands.
 *   Numbers next to each other without a date part stay apart: "1, 2" is
 *   "#, #".  So "あなたは 123567 人目の訪問者です。" and "... 123568 ..." are
 *   one text, and "体重 61.5kg、歩数 12034 歩。" is "体重 #kg、歩数 # 歩。":
 *   still a text of its own, so a new entry with numbers in it is new.
 * Pure functions, table-driven, no allocation for the hash.
 */
#ifndef ANT_NOISE_H
#define ANT_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "lb_buf.h"

/* Appends the normalised form of s[0..n) (UTF-8) to out; returns the bytes
 * appended, or (size_t)-1 when out of memory. */
size_t ant_noise_normalize(const char *s, size_t n, lb_buf *out);

/* The hash of the normalised form, without building it: the 64-bit FNV-1a
 * of ant_noise_normalize()'s bytes folded to 32 bits (high ^ low), the fold
 * ant_page_seg.raw uses for the text as it is. */
uint32_t ant_noise_hash(const char *s, size_t n);

/* Where the placeholders of the normalised form came from: kind '#' or
 * '@', and the bytes of s they stand for. */
typedef struct ant_noise_group {
	char kind;
	uint32_t off, len;
} ant_noise_group;

/* The placeholders of s[0..n)'s normalised form, in order: the first max
 * into g (may be NULL with max 0); returns how many there are (more than
 * max when g was too small).  For the token rule (ant_tokens.h), which
 * reads them as clocks (ant_clock.h). */
size_t ant_noise_groups(const char *s, size_t n, ant_noise_group *g, size_t max);

/* ant_noise_normalize() and ant_noise_groups() in one pass (a text read
 * both ways costs one reading): appends the normalised form to out, the
 * first max placeholders into g; returns how many placeholders there are,
 * or (size_t)-1 when out of memory. */
size_t ant_noise_normalize_groups(const char *s, size_t n, lb_buf *out, ant_noise_group *g, size_t max);

/* ant_noise_normalize() of s[0..n) into out, read only as long as it
 * agrees with want[0..wantlen) where both have bytes: returns the bytes
 * appended, ANT_NOISE_DIFFERS as soon as a byte differs (neither is then
 * a prefix of the other; out holds a part), (size_t)-1 out of memory.
 * For comparing one text's normalised prefix against many lines without
 * normalising each whole. */
#define ANT_NOISE_DIFFERS ((size_t)-2)
size_t ant_noise_normalize_prefix(const char *s, size_t n, const char *want, size_t wantlen, lb_buf *out);

/* 1 when s[0..n) is made only of relative ages (at most 64 bytes): a
 * number and a time unit, in English or Japanese, maybe with "ago",
 * "from now", 前 or 後 ("58 min.", "2 hours ago", "+4 days", "3分前",
 * "約2時間前", "2ヶ月"), "a minute ago", "about 2 hours ago", "just now",
 * "yesterday", "today", "now", たった今, 昨日..., with spaces and
 * punctuation between; else 0.  A dated or clock time ("2026-11-29",
 * "10:20", "11月29日") is no age.  Such a text is the age of something
 * beside it (a code browser's Age column): a clock, whatever it moves to,
 * never news on its own (read/page.c keeps no segment of it). */
int ant_noise_age_only(const char *s, size_t n);

#endif
