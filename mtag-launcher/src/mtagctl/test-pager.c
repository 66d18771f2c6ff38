/* test-pager.c -- when mtagctl's pager runs in secure mode (LESSSECURE=1,
 * no $PAGER): systemd's rule, case by case. */
#include <stdbool.h>
#include <errno.h>

#include "mtagctl.h"
#include "unit.h"

struct pager_case {
	const char *env;     /* $SYSTEMD_PAGERSECURE, NULL: unset */
	int owner_r;         /* sd_pid_get_owner_uid()'s return */
	uid_t owner, euid;
	bool secure, trust, bad;
};

static void test_pager_secure_rule(void)
{
	static const struct pager_case cases[] = {
		/* sudo from uid 1000's session: secure, $PAGER not trusted. */
		{ NULL, 0, 1000, 0, true, false, false },
		/* No login session (a service, a container, su -): secure. */
		{ NULL, -ENODATA, (uid_t)-1, 0, true, false, false },
		/* Root logged in as root, a user as itself: not secure. */
		{ NULL, 0, 0, 0, false, false, false },
		{ NULL, 0, 1000, 1000, false, false, false },
		/* Explicit values win both ways, and make $PAGER trusted. */
		{ "0", 0, 1000, 0, false, true, false },
		{ "no", -ENODATA, (uid_t)-1, 0, false, true, false },
		{ "1", 0, 1000, 1000, true, true, false },
		{ "On", 0, 1000, 1000, true, true, false },
		/* Garbage: secure, with a warning; trusted as set. */
		{ "maybe", 0, 1000, 1000, true, false, true },
		{ "", 0, 0, 0, true, false, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pager_case *t = &cases[i];
		bool trust = !t->trust, bad = !t->bad;
		bool secure = pager_secure_mode(t->env, t->owner_r, t->owner, t->euid, &trust, &bad);

		if (secure != t->secure || trust != t->trust || bad != t->bad) {
			printf("# case %zu: env=%s owner_r=%d owner=%d euid=%d: secure %d trust %d bad %d\n",
			       i, t->env ? t->env : "(unset)", t->owner_r, (int)t->owner, (int)t->euid,
			       secure, trust, bad);
			CHECK(!"pager_secure_mode() differs from systemd's rule");
		}
	}
}

void run_pager_tests(void)
{
	RUN(test_pager_secure_rule);
}
