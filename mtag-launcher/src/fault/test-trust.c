/* test-trust.c -- which journal entries mtagctl believes (trust.h), over
 * recorded entries (data/journal/NAME.export, journalctl -o export form). */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "trust.h"
#include "unit.h"

struct entry {
	char *text;
	char val[64];
};

/* The value of NAME in the export text (one NAME=value a line). */
static const char *get(void *ctx, const char *name)
{
	struct entry *e = ctx;
	size_t nl = strlen(name);

	for (const char *l = e->text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, name, nl) == 0 && l[nl] == '=') {
			size_t n = strcspn(l + nl + 1, "\n");

			if (n >= sizeof(e->val))
				n = sizeof(e->val) - 1;
			memcpy(e->val, l + nl + 1, n);
			e->val[n] = '\0';
			return e->val;
		}
	}
	return NULL;
}

static bool trusted(const char *file, enum jwriter w, const char *unit, const char *want_why)
{
	char path[128];
	struct entry e = { 0 };
	const char *why = NULL;
	bool ok;

	snprintf(path, sizeof(path), "journal/%s.export", file);
	e.text = read_data(path, NULL);
	ok = jwriter_trusted(w, get, &e, unit, &why);
	free(e.text);
	if (!ok && want_why && (!why || !strstr(why, want_why))) {
		fprintf(stderr, "%s: refused for '%s', want '%s'\n", file, why ? why : "(none)", want_why);
		return true; /* makes the CHECK(!...) fail */
	}
	return ok;
}

static void test_faultd_entries(void)
{
	CHECK(trusted("faultd-genuine", JW_FAULTD, NULL, NULL));
	CHECK(!trusted("faultd-forged-user", JW_FAULTD, NULL, "not written by root"));
	/* A user can name its process mtag-faultd; _UID says who it is. */
	CHECK(!trusted("faultd-forged-comm", JW_FAULTD, NULL, "not written by root"));
	CHECK(!trusted("faultd-root-other-program", JW_FAULTD, NULL, "another program"));
	CHECK(!trusted("faultd-forged-stdout", JW_FAULTD, NULL, "native protocol"));
	/* Not a coredump entry either. */
	CHECK(!trusted("faultd-genuine", JW_COREDUMP, NULL, "another program"));
}

static void test_coredump_entries(void)
{
	/* systemd-coredump exits at once: journald often has no _COMM. */
	CHECK(trusted("coredump-genuine", JW_COREDUMP, NULL, NULL));
	CHECK(!trusted("coredump-forged-devzero", JW_COREDUMP, NULL, "not written by root"));
	/* systemd-coredump writes as its own system user (Debian creates
	 * it with the systemd-coredump package). */
	{
		struct passwd *pw = getpwnam("systemd-coredump");
		char text[256];
		struct entry e = { text, "" };

		if (pw) {
			snprintf(text, sizeof(text), "_TRANSPORT=journal\n_UID=%u\n_COMM=systemd-coredum\n",
				 (unsigned)pw->pw_uid);
			CHECK(jwriter_trusted(JW_COREDUMP, get, &e, NULL, NULL));
			CHECK(!jwriter_trusted(JW_FAULTD, get, &e, NULL, NULL));
		}
		snprintf(text, sizeof(text), "_TRANSPORT=journal\n_UID=65534\n_COMM=systemd-coredum\n");
		CHECK(!jwriter_trusted(JW_COREDUMP, get, &e, NULL, NULL));
	}
}

static void test_launcher_entries(void)
{
	/* The launcher runs as the service's user and execs at once. */
	CHECK(trusted("launcher-genuine", JW_LAUNCHER, "nginx.service", NULL));
	CHECK(!trusted("launcher-genuine", JW_LAUNCHER, "redis-server.service", "own cgroup"));
	CHECK(!trusted("launcher-genuine", JW_LAUNCHER, NULL, "own cgroup"));
	CHECK(!trusted("launcher-forged-user", JW_LAUNCHER, "nginx.service", "own cgroup"));
}

static void tally(struct upgrade_tally *t, const char *file, const char *unit)
{
	char path[128];
	struct entry e = { 0 };

	snprintf(path, sizeof(path), "journal/%s.export", file);
	e.text = read_data(path, NULL);
	upgrade_tally_add(t, get, &e, unit);
	free(e.text);
}

/* mtag_upgrades_total: only mtag-faultd's own entries count, each once,
 * when a launcher entry of the unit names them (issue 32: a process of the
 * unit can write launcher entries, and forge faultd's fields). */
static void test_upgrade_count(void)
{
	struct upgrade_tally t = { 0 };

	/* A genuine upgraded start: faultd's record, the launcher's start. */
	tally(&t, "launcher-upgraded", "memcached.service");
	tally(&t, "faultd-upgrade-next", "memcached.service");
	CHECK(upgrade_tally_count(&t) == 1);
	/* The service writes more launcher entries: the same fault again,
	 * a fault faultd never recorded, and a faultd entry of its own. */
	tally(&t, "launcher-upgraded", "memcached.service");
	tally(&t, "launcher-upgraded", "memcached.service");
	tally(&t, "launcher-upgraded-forged", "memcached.service");
	tally(&t, "faultd-upgrade-next-forged", "memcached.service");
	tally(&t, "launcher-genuine", "memcached.service");
	CHECK(upgrade_tally_count(&t) == 1);
	upgrade_tally_free(&t);
	/* faultd's record alone (the service never started again): none. */
	tally(&t, "faultd-upgrade-next", "memcached.service");
	tally(&t, "launcher-upgraded-forged", "memcached.service");
	CHECK(upgrade_tally_count(&t) == 0);
	upgrade_tally_free(&t);
	/* Another unit's. */
	tally(&t, "launcher-upgraded", "nginx.service");
	tally(&t, "faultd-upgrade-next", "nginx.service");
	CHECK(upgrade_tally_count(&t) == 0);
	upgrade_tally_free(&t);
}

void run_trust_tests(void)
{
	RUN(test_upgrade_count);
	RUN(test_faultd_entries);
	RUN(test_coredump_entries);
	RUN(test_launcher_entries);
}
