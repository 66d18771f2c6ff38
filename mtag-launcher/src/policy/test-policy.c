/* test-policy.c -- the policy grammar, every error message, precedence. */
#include <stdlib.h>
#include <string.h>

#include "systemd-time.h"
#include "policy.h"
#include "upgrade.h"
#include "unit.h"

static struct policy P;

static struct policy *parse(const char *text)
{
	policy_free(&P);
	policy_init(&P);
	policy_parse(&P, "test.conf", text, strlen(text));
	return &P;
}

/* The diagnostic for LINE, or NULL. */
static const char *diag_at(unsigned line, enum diag_level level)
{
	for (size_t i = 0; i < P.n_diags; i++)
		if (P.diags[i].line == line && P.diags[i].level == level)
			return P.diags[i].msg;
	return NULL;
}

static int has_error(unsigned line, const char *substr)
{
	const char *m = diag_at(line, DIAG_ERROR);

	if (m && strstr(m, substr))
		return 1;
	printf("# line %u: expected error containing \"%s\", got \"%s\"\n", line, substr,
	       m ? m : "(none)");
	return 0;
}

static void test_parse_basic(void)
{
	struct policy *p = parse("# comment\n\n  nginx.service   sync  # trailing\n"
				 "redis-*.service async require=yes\n"
				 "worker@.service asymm heap=off strict=yes\n"
				 "default off\r\n"
				 "cpu-preferred asymm\n");

	CHECK(p->n_diags == 0);
	CHECK(p->n_entries == 4);
	CHECK_STR(p->entries[0].pattern, "nginx.service");
	CHECK(p->entries[0].kind == ENTRY_EXACT);
	CHECK(p->entries[0].mode == MTAG_MODE_SYNC);
	CHECK(p->entries[0].heap && !p->entries[0].require && !p->entries[0].strict);
	CHECK(p->entries[0].line == 3);
	CHECK_STR(p->entries[0].file, "test.conf");
	CHECK(p->entries[1].kind == ENTRY_GLOB && p->entries[1].require);
	CHECK(p->entries[2].kind == ENTRY_TEMPLATE && !p->entries[2].heap && p->entries[2].strict);
	CHECK(p->entries[3].kind == ENTRY_DEFAULT && p->entries[3].mode == MTAG_MODE_OFF);
	CHECK(p->has_cpu_preferred && p->cpu_preferred == MTAG_MODE_ASYMM);
	CHECK(p->cpu_preferred_line == 7);
}

static void test_parse_booleans(void)
{
	struct policy *p = parse("a.service sync heap=no require=on\n"
				 "b.service sync heap=1 require=false\n"
				 "c.service sync heap=true require=0\n");

	CHECK(p->n_diags == 0 && p->n_entries == 3);
	CHECK(!p->entries[0].heap && p->entries[0].require);
	CHECK(p->entries[1].heap && !p->entries[1].require);
	CHECK(p->entries[2].heap && !p->entries[2].require);
}

static void test_error_messages(void)
{
	static const char text[] =
		"nginx.service\n"                      /* 1 */
		"nginx.service fast\n"                 /* 2 */
		"nginx sync\n"                         /* 3 */
		"nginx.socket sync\n"                  /* 4 */
		"*.socket sync\n"                      /* 5 */
		"ng/inx.service sync\n"                /* 6 */
		"ng%x*.service sync\n"                 /* 7 */
		"a.service sync heap\n"                /* 8 */
		"a.service sync =on\n"                 /* 9 */
		"a.service sync color=red\n"           /* 10 */
		"a.service sync heap=on heap=off\n"    /* 11 */
		"a.service sync heap=maybe\n"          /* 12 */
		"a.service sync require=sometimes\n"   /* 13 */
		"a.service async heap=off\n"           /* 14 */
		"cpu-preferred off\n"                  /* 15 */
		"cpu-preferred asymm heap=off\n"       /* 16 */
		"cpu-preferred\n"                      /* 17 */
		"cpu-preferred fast\n"                 /* 18 */
		"a.service sync a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9 j=10 k=11 l=12 m=13 n=14 o=15\n" /* 19 */
		"@.service sync\n"                     /* 20 */
		"a.service sync strict=perhaps\n";     /* 21 */

	parse(text);
	CHECK(P.n_entries == 0);
	CHECK(policy_error_count(&P) == 21);
	CHECK(has_error(1, "'nginx.service': missing mode (expected off, async, sync, asymm or report)"));
	CHECK(has_error(2, "'nginx.service': unknown mode 'fast' (expected off, async, sync, asymm or report)"));
	CHECK(has_error(3, "'nginx' is not a unit name: did you mean 'nginx.service'?"));
	CHECK(has_error(4, "'nginx.socket': only .service units run through the launcher"));
	CHECK(has_error(5, "'*.socket': pattern can never match a service"));
	CHECK(has_error(6, "'ng/inx.service' is not a valid unit name"));
	CHECK(has_error(7, "'ng%x*.service': character '%' cannot appear in a unit name"));
	CHECK(has_error(8, "'heap': expected key=value (heap=on|off, require=yes|no, strict=yes|no, reenable=DURATION, upgrade=DURATION|no)"));
	CHECK(has_error(9, "'=on': expected key=value"));
	CHECK(has_error(10, "unknown option 'color' (known: heap, require, strict, reenable, upgrade)"));
	CHECK(has_error(11, "'heap' given twice"));
	CHECK(has_error(12, "heap=maybe: expected on or off"));
	CHECK(has_error(13, "require=sometimes: expected yes or no"));
	CHECK(has_error(14, "async with heap=off is not possible"));
	CHECK(has_error(15, "cpu-preferred: the kernel has no preferred mode 'off'"));
	CHECK(has_error(16, "cpu-preferred takes no options ('heap=off')"));
	CHECK(has_error(17, "'cpu-preferred': missing mode (expected async, sync or asymm)"));
	CHECK(has_error(18, "'cpu-preferred': unknown mode 'fast' (expected async, sync or asymm)"));
	CHECK(has_error(19, "too many words"));
	CHECK(has_error(20, "'@.service' is not a valid unit name"));
	CHECK(has_error(21, "strict=perhaps: expected yes or no"));
	CHECK(!P.has_cpu_preferred);
}

static void test_nul_byte_and_skip(void)
{
	static const char text[] = "a.service sync\nb.ser\0vice sync\nc.service async\n";

	policy_free(&P);
	policy_init(&P);
	policy_parse(&P, "nul.conf", text, sizeof(text) - 1);
	CHECK(policy_error_count(&P) == 1);
	CHECK(diag_at(2, DIAG_ERROR) && strstr(diag_at(2, DIAG_ERROR), "NUL byte"));
	/* The lines around the bad one are kept. */
	CHECK(P.n_entries == 2);
	CHECK_STR(P.entries[1].pattern, "c.service");
	CHECK(P.entries[1].line == 3);
}

static void test_no_trailing_newline(void)
{
	parse("a.service sync");
	CHECK(P.n_entries == 1 && P.n_diags == 0);
}

static void test_override_same_pattern(void)
{
	parse("*.service async\nnginx.service sync\n*.service sync heap=off\n");
	CHECK(P.n_entries == 2);
	/* The override keeps the first one's place, with the new values. */
	CHECK_STR(P.entries[0].pattern, "*.service");
	CHECK(P.entries[0].mode == MTAG_MODE_SYNC && !P.entries[0].heap);
	CHECK(P.entries[0].line == 3);
	CHECK(policy_error_count(&P) == 0);
	CHECK(diag_at(3, DIAG_WARNING) &&
	      strstr(diag_at(3, DIAG_WARNING), "overrides the entry for '*.service' at test.conf:1"));
}

static void test_cpu_preferred_override(void)
{
	parse("cpu-preferred sync\ncpu-preferred asymm\n");
	CHECK(P.cpu_preferred == MTAG_MODE_ASYMM && P.cpu_preferred_line == 2);
	CHECK(diag_at(2, DIAG_WARNING) != NULL);
}

static void test_precedence(void)
{
	const struct policy_entry *e;

	parse("*.service async\n"          /* 1 */
	      "web-*.service asymm\n"      /* 2 */
	      "web-front.service sync\n"   /* 3 */
	      "getty@.service sync\n"      /* 4 */
	      "getty@tty1.service off\n"   /* 5 */
	      "get*@*.service async\n"     /* 6 */
	      "default sync heap=off\n");  /* 7 */
	CHECK(P.n_diags == 0);
	/* exact beats globs that come earlier */
	e = policy_lookup(&P, "web-front.service");
	CHECK(e && e->line == 3);
	/* first matching glob in reading order wins */
	e = policy_lookup(&P, "web-back.service");
	CHECK(e && e->line == 1);
	/* template applies to instances, exact instance beats it */
	e = policy_lookup(&P, "getty@tty2.service");
	CHECK(e && e->line == 4);
	e = policy_lookup(&P, "getty@tty1.service");
	CHECK(e && e->line == 5);
	/* template beats a glob */
	CHECK(policy_lookup(&P, "getty@ttyS0.service")->line == 4);
	/* default when nothing else */
	parse("nginx.service sync\ndefault async\n");
	e = policy_lookup(&P, "other.service");
	CHECK(e && e->kind == ENTRY_DEFAULT && e->mode == MTAG_MODE_ASYNC);
	e = policy_lookup(&P, NULL);
	CHECK(e && e->kind == ENTRY_DEFAULT);
	CHECK(policy_names_unit(&P, "nginx.service"));
	CHECK(!policy_names_unit(&P, "other.service"));
	parse("nginx.service sync\n");
	CHECK(policy_lookup(&P, "other.service") == NULL);
}

static void test_glob_order_with_override(void)
{
	/* Overriding a glob keeps its position: it still wins over a
	 * later glob. */
	parse("a*.service sync\nab*.service off\na*.service async\n");
	CHECK(policy_lookup(&P, "abc.service")->mode == MTAG_MODE_ASYNC);
}

static void test_mode_mapping(void)
{
	enum mtag_mode m;

	CHECK(mode_tunable_value(MTAG_MODE_OFF, true) == 0);
	CHECK(mode_tunable_value(MTAG_MODE_ASYNC, true) == 1);
	CHECK(mode_tunable_value(MTAG_MODE_SYNC, true) == 3);
	CHECK(mode_tunable_value(MTAG_MODE_ASYMM, true) == 5);
	CHECK(mode_tunable_value(MTAG_MODE_OFF, false) == 0);
	CHECK(mode_tunable_value(MTAG_MODE_SYNC, false) == 2);
	CHECK(mode_tunable_value(MTAG_MODE_ASYMM, false) == 4);
	CHECK(mode_from_string("sync", &m) == 0 && m == MTAG_MODE_SYNC);
	CHECK(mode_from_string("asymm", &m) == 0 && m == MTAG_MODE_ASYMM);
	CHECK(mode_from_string("SYNC", &m) < 0);
	CHECK(mode_from_string("", &m) < 0);
	CHECK_STR(mode_name(MTAG_MODE_ASYNC), "async");
}

static const struct policy_entry *entry(const char *pattern)
{
	for (size_t i = 0; i < P.n_entries; i++)
		if (strcmp(P.entries[i].pattern, pattern) == 0)
			return &P.entries[i];
	return NULL;
}

static void test_report_mode(void)
{
	const struct policy_entry *e;

	parse("nginx.service report\n"
	      "memcached.service report reenable=500ms require=yes\n"
	      "ssh.service report heap=off reenable=1min30s\n"
	      "w@.service report reenable=infinity\n");
	CHECK(P.n_diags == 0 && P.n_entries == 4);
	e = entry("nginx.service");
	CHECK(e && e->mode == MTAG_MODE_REPORT && e->heap);
	CHECK(e->reenable_ns == DURATION_INFINITY);
	e = entry("memcached.service");
	CHECK(e && e->reenable_ns == 500000000ull && e->require);
	e = entry("ssh.service");
	CHECK(e && !e->heap && e->reenable_ns == 90ull * 1000000000ull);
	CHECK(entry("w@.service")->reenable_ns == DURATION_INFINITY);
	CHECK(mode_tunable_value(MTAG_MODE_REPORT, true) == 3);
	CHECK(mode_tunable_value(MTAG_MODE_REPORT, false) == 2);
	CHECK_STR(mode_name(MTAG_MODE_REPORT), "report");
}

/* A bad reenable= is an error naming FILE:LINE, but the entry keeps its
 * mode (with the default, never): dropping it would hand the service to
 * "*.service sync" below, the outage report mode is there to avoid. */
static void test_report_bad_reenable(void)
{
	static const char *const bad[][2] = {
		{ "-1", "a time span cannot be negative" },
		{ "banana", "not a time span" },
		{ "0", "must be more than 0" },
		{ "0ms", "must be more than 0" },
		{ "", "empty value" },
		{ "10parsecs", "unknown unit" },
		{ "5s-", "not a time span" },
		{ "18446744073709551615ns", "too large" },
		{ "99999999999999999999", "too large" },
		{ "40000w", "too large" },
	};
	char text[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct policy_entry *e;
		char want[128];

		snprintf(text, sizeof(text),
			 "*.service sync\nnginx.service report reenable=%s\nssh.service report\n",
			 bad[i][0]);
		parse(text);
		snprintf(want, sizeof(want), "reenable=%s: %s", bad[i][0], bad[i][1]);
		if (policy_error_count(&P) != 1)
			printf("# reenable=%s: %zu errors\n", bad[i][0], policy_error_count(&P));
		CHECK(policy_error_count(&P) == 1);
		CHECK(has_error(2, want));
		CHECK(has_error(2, "'nginx.service' keeps mode report, with reenable=infinity"));
		e = policy_lookup(&P, "nginx.service");
		CHECK(e && e->line == 2 && e->mode == MTAG_MODE_REPORT);
		CHECK(e->reenable_ns == DURATION_INFINITY);
		/* The rest of the policy still applies. */
		CHECK(policy_lookup(&P, "ssh.service")->mode == MTAG_MODE_REPORT);
		CHECK(policy_lookup(&P, "other.service")->mode == MTAG_MODE_SYNC);
	}
	parse("a.service report reenable=1s reenable=2s\n");
	CHECK(has_error(1, "'reenable' given twice"));
	parse("a.service sync reenable=1s\n");
	CHECK(policy_error_count(&P) == 0 && P.n_entries == 1);
	CHECK(P.diags[0].level == DIAG_WARNING &&
	      strstr(P.diags[0].msg, "reenable=1s only has an effect in mode report ('a.service' is sync)"));
	CHECK(P.entries[0].reenable_ns == DURATION_INFINITY);
	parse("cpu-preferred report\n");
	CHECK(has_error(1, "cpu-preferred: 'report' is a mode of a service, not of a CPU"));
	CHECK(!P.has_cpu_preferred);
}

/* upgrade= on async entries: the default window, a value, no. */
static void test_upgrade_key(void)
{
	const struct policy_entry *e;
	char *opts;

	parse("a.service async\n"
	      "b.service async upgrade=90s\n"
	      "c.service async upgrade=no require=yes\n"
	      "d.service async upgrade=1min30s\n"
	      "e.service sync\n");
	CHECK(P.n_diags == 0 && P.n_entries == 5);
	CHECK(entry("a.service")->upgrade_ns == UPGRADE_DEFAULT_NS);
	CHECK(UPGRADE_DEFAULT_NS == 600ull * 1000000000ull);
	CHECK(entry("b.service")->upgrade_ns == 90ull * 1000000000ull);
	e = entry("c.service");
	CHECK(e->upgrade_ns == 0 && e->require && e->mode == MTAG_MODE_ASYNC);
	CHECK(entry("e.service")->upgrade_ns == 0);
	/* What the generator hands the launcher parses back the same. */
	opts = policy_entry_options(entry("a.service"));
	CHECK_STR(opts, "async");
	free(opts);
	opts = policy_entry_options(entry("b.service"));
	CHECK_STR(opts, "async upgrade=90s");
	free(opts);
	opts = policy_entry_options(entry("c.service"));
	CHECK_STR(opts, "async require=yes upgrade=no");
	free(opts);
	opts = policy_entry_options(entry("d.service"));
	CHECK_STR(opts, "async upgrade=90s");
	free(opts);

	/* Only async has it: a warning elsewhere, nothing set. */
	parse("a.service sync upgrade=1min\n");
	CHECK(policy_error_count(&P) == 0 && P.n_entries == 1 && P.n_diags == 1);
	CHECK(P.diags[0].level == DIAG_WARNING && P.diags[0].line == 1 &&
	      strstr(P.diags[0].msg, "upgrade=1min only has an effect in mode async ('a.service' is sync)"));
	CHECK(P.entries[0].upgrade_ns == 0);
	parse("a.service async upgrade=1s upgrade=2s\n");
	CHECK(has_error(1, "'upgrade' given twice"));
	/* The maximum itself is accepted. */
	parse("a.service async upgrade=7d\n");
	CHECK(policy_error_count(&P) == 0 && P.entries[0].upgrade_ns == UPGRADE_MAX_NS);
}

/* A bad upgrade= is an error naming FILE:LINE; the entry stays async with
 * the default window (neither dropped, nor upgrade=no). */
static void test_upgrade_bad_values(void)
{
	static const char *const bad[][2] = {
		{ "banana", "not a time span" },
		{ "0", "must be more than 0 (upgrade=no turns it off)" },
		{ "0s", "must be more than 0" },
		{ "infinity", "must be finite" },
		{ "-5s", "a time span cannot be negative" },
		{ "", "empty value" },
		{ "yes", "not a time span" },
		{ "10fortnights", "unknown unit" },
		/* Past the kernel's KTIME_MAX, and past the maximum. */
		{ "106752d", "longer than the maximum, 1w" },
		{ "7d1s", "longer than the maximum, 1w" },
	};
	char text[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct policy_entry *e;
		char want[160];

		snprintf(text, sizeof(text),
			 "*.service sync\nmemcached.service async upgrade=%s\n", bad[i][0]);
		parse(text);
		snprintf(want, sizeof(want), "upgrade=%s: %s", bad[i][0], bad[i][1]);
		if (!has_error(2, want))
			printf("# upgrade=%s: %s\n", bad[i][0],
			       P.n_diags ? P.diags[0].msg : "(no diagnostic)");
		CHECK(policy_error_count(&P) == 1);
		CHECK(has_error(2, want));
		CHECK(has_error(2, "'memcached.service' keeps mode async, with upgrade=10min"));
		e = policy_lookup(&P, "memcached.service");
		CHECK(e && e->line == 2 && e->mode == MTAG_MODE_ASYNC);
		CHECK(e->upgrade_ns == UPGRADE_DEFAULT_NS);
	}
}

static void test_unit_names(void)
{
	CHECK(unit_name_is_valid("nginx.service"));
	CHECK(unit_name_is_valid("getty@tty1.service"));
	CHECK(unit_name_is_valid("getty@.service"));
	CHECK(unit_name_is_valid("systemd-fsck@dev-disk-by\\x2duuid-1.service"));
	CHECK(!unit_name_is_valid(".service"));
	CHECK(!unit_name_is_valid("nginx"));
	CHECK(!unit_name_is_valid("nginx.socket"));
	CHECK(!unit_name_is_valid("a@b@c.service"));
	CHECK(!unit_name_is_valid("a b.service"));
	CHECK(!unit_name_is_valid(""));
}

void run_policy_tests(void)
{
	RUN(test_parse_basic);
	RUN(test_parse_booleans);
	RUN(test_error_messages);
	RUN(test_nul_byte_and_skip);
	RUN(test_no_trailing_newline);
	RUN(test_override_same_pattern);
	RUN(test_cpu_preferred_override);
	RUN(test_precedence);
	RUN(test_glob_order_with_override);
	RUN(test_mode_mapping);
	RUN(test_report_mode);
	RUN(test_report_bad_reenable);
	RUN(test_upgrade_key);
	RUN(test_upgrade_bad_values);
	RUN(test_unit_names);
	policy_free(&P);
}
