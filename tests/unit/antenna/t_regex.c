/*
 * t_regex.c: Perl regular expressions as POSIX extended ones
 * (ant_imp_perl_to_ere(), for tama's Regexp: as --only): what is
 * translated, what is refused, and that every translation compiles.
 */
#include "tap.h"

#include <regex.h>
#include <string.h>

#include "lb_buf.h"
#include "import_int.h"

static void to(const char *perl, const char *want)
{
	lb_buf out = LB_BUF_INIT;
	char why[160] = "";
	regex_t re;
	int rc = ant_imp_perl_to_ere(perl, strlen(perl), &out, why, sizeof why);

	IS_INT(rc, 0, "'%s' translates (%s)", perl, why);
	if (rc == 0) {
		IS_STR(out.data, want, "'%s'", perl);
		OK(regcomp(&re, out.data, REG_EXTENDED) == 0, "'%s' compiles", out.data);
		regfree(&re);
	}
	lb_buf_release(&out);
}

static void refused(const char *perl, const char *why_has)
{
	lb_buf out = LB_BUF_INIT;
	char why[160] = "";

	IS_INT(ant_imp_perl_to_ere(perl, strlen(perl), &out, why, sizeof why), LB_EINVAL, "'%s' refused", perl);
	OK(strstr(why, why_has) != NULL, "'%s': '%s' says '%s'", perl, why, why_has);
	lb_buf_release(&out);
}

static void matches(const char *perl, const char *text, int want)
{
	lb_buf out = LB_BUF_INIT;
	char why[160];
	regex_t re;

	if (ant_imp_perl_to_ere(perl, strlen(perl), &out, why, sizeof why) == 0 &&
	    regcomp(&re, out.data, REG_EXTENDED | REG_NOSUB) == 0) {
		IS_INT(regexec(&re, text, 0, NULL, 0) == 0, want, "'%s' %s '%s'", perl,
		       want ? "matches" : "does not match", text);
		regfree(&re);
	} else {
		OK(0, "'%s' translates and compiles", perl);
	}
	lb_buf_release(&out);
}

int main(void)
{
	TAP_PLAN(95);
	to("abc", "abc");
	to("\\d+", "[0-9]+");
	to("\\D\\s\\S\\w\\W", "[^0-9][[:space:]][^[:space:]][[:alnum:]_][^[:alnum:]_]");
	to("(?:a|b)c", "(a|b)c");
	to("(?<y>\\d{4})", "([0-9]{4})");
	to("(?P<y>x)", "(x)");
	to("a.*?b.+?c??d{2,3}?", "a.*b.+c?d{2,3}");
	to("\\/\\-\\:\\<", "/-:<");
	to("\\.\\*\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\", "\\.\\*\\(\\)\\[\\]\\{\\}\\|\\^\\$\\\\");
	to("{x}", "\\{x\\}");
	to("a{,2}", "a{0,2}");
	to("a{,x}", "a\\{,x\\}");
	to("[\\d\\s-]", "[0-9[:space:]-]");
	to("[\\-a]", "[a-]");
	to("[\\]a]", "[]a]");
	to("[^\\]]", "[^]]");
	to("[\\^]", "\\^");
	to("[a\\^]", "[a^]");
	to("[[:alpha:]_]", "[[:alpha:]_]");
	to("\\t", "[[:space:]]");
	to("最終更新: (\\d+)年", "最終更新: ([0-9]+)年");
	refused("(?=x)", "lookaround");
	refused("(?!x)", "lookaround");
	refused("(?<=x)y", "lookaround");
	refused("(?<!x)y", "lookaround");
	refused("(a)\\1", "back-reference");
	refused("\\bword", "\\b");
	refused("\\Astart", "\\A");
	refused("(?i)abc", "inline flags");
	refused("(?>a)", "atomic");
	refused("a++", "possessive");
	refused("\\x41", "\\x");
	refused("[\\D]", "bracket");
	refused("[abc", "unclosed");
	refused("abc\\", "trailing backslash");
	matches("\\d{4}/\\d+/\\d+", "2026/1/2", 1);
	matches("\\d{4}/\\d+/\\d+", "26/1/2", 0);
	matches("Updated:\\s*(\\w+)", "Updated:  today", 1);
	matches("a\\.b", "axb", 0);
	TAP_DONE();
}
